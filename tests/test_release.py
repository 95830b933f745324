"""A release: the workflow a version tag starts (.github/workflows/release.yml, docs/releasing.md), and the
version everything pins: the workflows `kindex-site new` writes use the tag of the package's own version."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from kindex_site import __version__
from kindex_site.cli import main
from kindex_site.scaffold import published_repository

yaml = pytest.importorskip("yaml")  # (a test extra: the workflow must parse as the YAML GitHub reads)

ROOT = Path(__file__).resolve().parent.parent
RELEASE = ROOT / ".github/workflows/release.yml"


@pytest.fixture(scope="module")
def release() -> dict:
    return yaml.safe_load(RELEASE.read_text(encoding="utf-8"))


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def uses(job: dict, action: str) -> list[dict]:
    """The job's steps that use `action` (OWNER/REPO, any ref)."""
    return [s for s in steps(job) if s.get("uses", "").split("@")[0] == action]


def test_a_version_tag_and_nothing_else_starts_a_release(release):
    triggers = release.get("on", release.get(True))  # (YAML 1.1 reads a bare `on` as true)
    assert triggers == {"push": {"tags": ["v*"]}}
    assert release["permissions"] == {"contents": "read"}  # (a job that needs more says so itself)
    assert list(release["jobs"]) == ["build", "test", "publish", "release"]
    # Every expression reaches a script through env, never spliced into its text.
    for name, job in release["jobs"].items():
        for step in steps(job):
            assert "${{" not in step.get("run", ""), (name, step.get("name"))


def test_the_sdist_and_the_wheel_are_built_once_and_each_tested_installed_in_a_fresh_venv(release):
    build, test = release["jobs"]["build"], release["jobs"]["test"]
    assert any(re.search(r"-m build --outdir dist", s.get("run", "")) for s in steps(build))
    [upload] = uses(build, "actions/upload-artifact")
    assert upload["with"]["name"] == "dist" and upload["with"]["if-no-files-found"] == "error"
    assert test["needs"] == "build" and test["strategy"]["matrix"]["dist"] == ["sdist", "wheel"]
    [download] = uses(test, "actions/download-artifact")
    assert download["with"] == {"name": "dist", "path": "dist"}
    scripts = {s.get("name", ""): s for s in steps(test) if "run" in s}
    [install] = [s for name, s in scripts.items() if name.startswith("Install")]
    assert "python3 -m venv /opt/kindex-site" in install["run"] and '"$file[test]"' in install["run"]
    assert "wheel) file=$(ls dist/*.whl)" in install["run"] and "sdist) file=$(ls dist/*.tar.gz)" in install["run"]
    [tests] = [s for s in scripts.values() if "-m pytest" in s["run"]]
    assert tests["run"].startswith("/opt/kindex-site/bin/python -m pytest --release")
    # No process puts the checkout on its path: the tests import what was installed, and fail without a browser.
    assert tests["env"] == {"PYTHONSAFEPATH": "1", "KINDEX_REQUIRE_BROWSER": "1"}
    oldest = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    assert test["container"] == f"python:{oldest.removeprefix('>=')}-bookworm"


def test_they_are_published_by_trusted_publishing_then_attached_to_the_tags_release(release):
    publish, attach = release["jobs"]["publish"], release["jobs"]["release"]
    assert publish["needs"] == "test" and attach["needs"] == "publish"
    assert publish["permissions"] == {"id-token": "write"} and publish["environment"]["name"] == "pypi"
    [pypi] = uses(publish, "pypa/gh-action-pypi-publish")
    assert not set(pypi.get("with", {})) & {"password", "user", "username"}  # (no token: trusted publishing)
    assert attach["permissions"] == {"contents": "write"}
    [create] = [s for s in steps(attach) if "gh release create" in s.get("run", "")]
    assert '"$TAG" dist/*' in create["run"] and "--verify-tag" in create["run"]
    assert create["env"]["TAG"] == "${{ github.ref_name }}"


def _version_check(release: dict) -> str:
    [step] = [s for s in steps(release["jobs"]["build"]) if s.get("name") == "The tag is v + the package's version"]
    assert step["env"] == {"TAG": "${{ github.ref_name }}"}
    return step["run"].replace("python3 -", f"{shlex.quote(sys.executable)} -", 1)  # (this Python: it has tomllib)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_every_package_folder_ships_in_the_wheel():
    """pyproject.toml names its packages one by one: a folder of modules left out of that list is missing
    from the wheel (`pip install kindex-site` fails on import) while an editable install works."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "kindex_site").rglob("__init__.py")}
    assert folders and folders <= set(tool["packages"]), sorted(folders - set(tool["packages"]))


@pytest.mark.parametrize("tag, ok", [(f"v{__version__}", True), (f"v{__version__}.post1", False),
                                     (__version__, False), ("v9.9.9", False)])
def test_the_tag_must_be_v_and_the_packages_version(release, tag, ok):
    """The build job's first check, run here as GitHub runs it (bash, in the checkout)."""
    done = subprocess.run(["bash", "-e", "-c", _version_check(release)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "TAG": tag})
    assert (done.returncode == 0) is ok, done.stderr
    if not ok:
        assert done.stderr.strip() == (f"::error::tag {tag}, pyproject.toml {__version__}, kindex_site.__version__ "
                                       f"{__version__}: the tag must be v + the version both give")


def test_the_version_new_pins_is_the_packages_own(tmp_path):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["version"] == __version__ == importlib.metadata.version("kindex-site")
    assert main(["new", str(tmp_path / "board")]) == 0
    repository = published_repository()
    for name in ("pages", "check"):
        text = (tmp_path / f"board/.github/workflows/{name}.yml").read_text(encoding="utf-8")
        pinned = [step["uses"] for job in yaml.safe_load(text)["jobs"].values() for step in job.get("steps", [])
                  if step.get("uses", "").split("@")[0] == repository]
        assert pinned == [f"{repository}@v{__version__}"], name
        assert f"kindex-site {__version__}" in text, name  # (its comments say the version too)
    readme = (tmp_path / "board/README.md").read_text(encoding="utf-8")
    assert f'"git+https://github.com/{repository}@v{__version__}"' in readme
    # The guide names the same tag, and what cuts it.
    guide = (ROOT / "docs/getting-started.md").read_text(encoding="utf-8")
    assert f"git+https://github.com/{repository}@v{__version__}" in guide and f"{repository}@v{__version__}" in guide
    assert "releasing.md" in guide
