"""check --base: what a pull request does to the leaderboard, judged against its base branch. A pull
request may add runs; one that changes code or settings, a published run, a table's reference, or a
protocol or environment published runs use fails, saying it needs a maintainer's review."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import SEED, seed_problem_run

HOST = SEED["environment"]["metadata"]["name"]


def git(project, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=project.root, check=True, capture_output=True, text=True).stdout


def lab_run(implementation: str, mean: int, name: str, lab: str = "Example Lab", observed: str | None = None) -> dict:
    doc = seed_problem_run(HOST, implementation, mean) | {"environment": SEED["environment"]}
    doc["run"]["metadata"]["name"] = name
    doc["run"]["metadata"]["title"] = f"Gemm BatchNorm Scaling Softmax · {implementation} · {lab}"
    if observed:
        doc["run"]["spec"]["observedAt"] = observed
    return doc


@pytest.fixture
def repo(project):
    """A leaderboard repository on main (the seed and a kernel), and a pull request's branch."""
    project.write("kindex.toml", 'title = "Board"\n')
    project.write("content/seed.json", SEED)
    project.write("content/fast-lab/fast.json", lab_run("Fast kernel", 2_000_000, "fast", lab="Fast Lab"))
    git(project, "init", "-q", "-b", "main")
    git(project, "-c", "user.name=t", "-c", "user.email=t@example.org", "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "base")
    git(project, "checkout", "-qb", "pr")
    return project


def commit(project) -> None:
    git(project, "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "pr")


def test_a_pull_request_that_adds_a_run_passes_and_says_what_it_changes(repo, monkeypatch):
    summary = repo.root / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    repo.write("content/example-lab/new.json", lab_run("New kernel", 1_000_000, "new-kernel"))
    commit(repo)
    code, out, err = repo.run("check", "--strict", "--base", "main")
    assert code == 0, err
    assert "1 run added, 0 changed, 0 removed" in out and "1 table joined, 2 ranks moved, 0 references changed" in out
    assert "new\\-kernel" in out and "| fast | 1 | 2 |" in out  # the runs it overtook: rank 1 → 2, 2 → 3
    written = summary.read_text(encoding="utf-8")
    assert written.startswith("## What this pull request changes on the leaderboard") and written in out


def test_a_pull_request_that_moves_a_reference_fails(repo):
    # The reference's own lab, folder and digest, later: it would supersede the table's reference run.
    newer = lab_run("PyTorch eager", 9_000_000, "eager-again", lab="Lambda Labs", observed="2026-06-01T00:00:00Z")
    newer["run"]["spec"]["implementationDigest"] = SEED["run"]["spec"]["implementationDigest"]
    repo.write("content/eager.json", newer)
    commit(repo)
    code, out, err = repo.run("check", "--base", "main")
    assert code == 1
    assert "content/eager.json: changes the reference of Gemm BatchNorm Scaling Softmax" in err
    assert f"from {SEED['run']['metadata']['name']} to eager-again" in err
    assert "1 reference changed" in out


def test_a_pull_request_that_changes_settings_or_code_fails_naming_each_file(repo):
    repo.write("kindex.toml", 'title = "Board"\ntemplates_dir = "content/evil"\n')
    repo.write("templates/base.html", "{{ cycler.__init__.__globals__ }}")
    commit(repo)
    code, out, err = repo.run("check", "--base", "main", "--format", "github")
    assert code == 1
    for path in ("kindex.toml", "templates/base.html"):
        assert (f"::error file={path},line=1,title=kindex-site check::a change to the settings, templates or static "
                "files needs a maintainer's review") in out


def test_a_pull_request_that_edits_a_published_run_or_protocol_fails(repo):
    edited = lab_run("Fast kernel", 1_000_000, "fast", lab="Fast Lab")  # another lab's number, made better
    repo.write("content/fast-lab/fast.json", edited)
    commit(repo)
    code, _, err = repo.run("check", "--base", "main")
    assert code == 1 and "content/fast-lab/fast.json: changes the published run fast" in err

    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-qb", "pr2")
    mine = lab_run("New kernel", 1_000_000, "new-kernel")
    mine["protocol"]["spec"]["comparability"]["notes"] = "Comparable with anything."
    repo.write("content/example-lab/new.json", mine)
    commit(repo)
    code, _, err = repo.run("check", "--base", "main")
    # (two files give one protocol two texts: the content check refuses it before the review does)
    assert code == 1 and "kernelbench-timing-v1" in err


def test_a_bad_base_is_an_error_naming_it(repo):
    code, _, err = repo.run("check", "--base", "no-such-branch")
    assert code == 1 and "--base no-such-branch: no such commit" in err


def test_the_check_workflow_installs_the_base_and_reads_the_pull_request_as_data():
    import yaml  # a test extra: the workflow must parse as the YAML GitHub reads

    text = (Path(__file__).parent.parent / ".github/workflows/check.yml").read_text(encoding="utf-8")
    workflow = yaml.safe_load(text)
    triggers = workflow.get("on", workflow.get(True))  # (YAML 1.1 reads a bare `on` as true)
    assert set(triggers) == {"pull_request_target"} and not (triggers["pull_request_target"] or {}).get("paths")
    assert workflow["permissions"] == {"contents": "read"}
    steps = workflow["jobs"]["check"]["steps"]
    checkouts = {s["with"]["path"]: s["with"] for s in steps if s.get("uses", "").startswith("actions/checkout@")}
    assert checkouts["base"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    assert checkouts["pr"]["ref"] == "${{ github.event.pull_request.head.sha }}"
    assert all(c["persist-credentials"] is False for c in checkouts.values())
    installs = [s["run"] for s in steps if "pip install" in s.get("run", "")]
    assert installs == ["python3 -m venv .venv && .venv/bin/pip install ./base"]  # never the pull request's code
    [check] = [s for s in steps if "kindex-site check" in s.get("run", "")]
    assert check["working-directory"] == "pr" and "../.venv/bin/kindex-site check --strict --format github --base" in check["run"]
    assert "${{" not in check["run"]  # (values reach the script as environment variables, never as its text)


@pytest.mark.parametrize("setting", ["templates_dir", "static_dir"])
def test_templates_from_outside_the_project_are_refused(project, tmp_path_factory, setting):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "base.html").write_text("{{ cycler.__init__.__globals__.os.system('id') }}", encoding="utf-8")
    project.write("content/seed.json", SEED)
    project.write("kindex.toml", f'{setting} = "{elsewhere.as_posix()}"\n')
    for command in ("build", "check"):
        code, _, err = project.run(command)
        assert code == 1 and f"kindex.toml: {setting}: " in err and "outside the project folder" in err, err
    project.write("kindex.toml", f'{setting} = "../{elsewhere.name}"\n')
    assert project.run("build")[0] == 1
    assert not (project.root / "site").exists()


def test_a_template_reaches_no_python_internals(project):
    project.write("content/seed.json", SEED)
    project.write("templates/404.html", "{{ cycler.__init__.__globals__.os.system('echo owned') }}")
    code, out, err = project.run("build")
    assert code == 1 and "templates/404.html" in err and "unsafe" in err and "owned" not in out + err
    assert "Traceback" not in err and not (project.root / "site").exists()
