"""The project's own promises: the README's quick start is what CI runs, and the bundled content builds."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Quick start.*?```sh\n(.*?)```", readme, re.S).group(1)
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_ci_runs_the_readme_quick_start_verbatim():
    commands = quick_start_commands()
    assert len(commands) == 2 and "kindex-site build" in commands[0] and commands[1] == "bash scripts/test"
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8").splitlines()
    for command in commands:
        assert command in ci
    assert "set -euo pipefail" in ci  # a failing command fails CI


def test_the_test_script_installs_what_pip_cannot_and_requires_the_browser_tests():
    script = (ROOT / "scripts/test").read_text(encoding="utf-8")
    assert "set -euo pipefail" in script
    assert "apt-get install" in script and "chromium" in script and "default-jre-headless" in script
    assert "pip install -q -e '.[test]'" in script
    assert "export KINDEX_REQUIRE_BROWSER=1" in script
    assert script.rstrip().endswith('exec .venv/bin/python -m pytest "$@"')
    assert "playwright install" not in script  # the system Chromium, never a downloaded browser
