"""`kindex-site new`: a leaderboard of one's own, walked through as docs/getting-started.md tells it (each
command of its five steps run here), and the GitHub Action its workflows use (action.yml)."""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import io
import json
import os
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conftest import tables, visible_text
from test_serve import HANG_S
from kindex_site import __version__
from kindex_site.cli import main
from kindex_site.scaffold import (RULES_BEGIN, RULES_END, preview_url, published_repository, rules_markdown,
                                  rules_path, with_current_rules)

yaml = pytest.importorskip("yaml")  # (a test extra: the workflows must parse as the YAML GitHub reads)

ROOT = Path(__file__).parent.parent
GETTING_STARTED = ROOT / "docs/getting-started.md"
ACTION = f"{published_repository()}@v{__version__}"
EXAMPLE_RUN = "example-softmax-pytorch-eager-example-lab"
KERNEL_RUN = "fused-triton-example-softmax-example-h100-pcie"  # the run step 3 adds


def run(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def page(site: Path, url: str) -> str:
    return (site / url.strip("/") / "index.html").read_text(encoding="utf-8")


def formulas() -> list[str]:
    """The about page's formulas (its indented code lines), as tests/test_docs.py reads them."""
    return [" ".join(line.split()) for line in rules_path().read_text(encoding="utf-8").splitlines()
            if line.startswith("    ") and "=" in line]


@pytest.fixture(autouse=True)
def no_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # (a test never waits for an answer)


# --- docs/getting-started.md, step by step ----------------------------------------------------------


def steps() -> dict[int, list[tuple[str, list[str] | str]]]:
    """Each numbered step's actions, in order: ("sh", a command of its ```sh blocks, split at &&) and
    ("toml", a ```toml block: lines to set in kindex.toml)."""
    text = GETTING_STARTED.read_text(encoding="utf-8")
    found = {}
    for number, body in re.findall(r"^## (\d)\. .*?$(.*?)(?=^## |\Z)", text, re.M | re.S):
        actions: list[tuple[str, list[str] | str]] = []
        for kind, block in re.findall(r"^```(sh|toml)\n(.*?)^```", body, re.M | re.S):
            if kind == "toml":
                actions.append(("toml", block))
                continue
            for line in (line for line in block.splitlines() if line.strip()):
                words, command = shlex.split(line), []
                for word in [*words, "&&"]:
                    if word == "&&":
                        actions.append(("sh", command))
                        command = []
                    else:
                        command.append(word)
        found[int(number)] = actions
    return found


def guide_urls() -> list[str]:
    """The guide's addresses of a local preview."""
    return re.findall(r"<(http://127\.0\.0\.1:8000/[^>]*)>", GETTING_STARTED.read_text(encoding="utf-8"))


def set_settings(path: Path, block: str) -> None:
    """Each `key = value` line of a ```toml block in place of the settings file's line of that key."""
    text = path.read_text(encoding="utf-8")
    for line in block.splitlines():
        key = line.split("=", 1)[0].strip()
        text, count = re.subn(rf"(?m)^{re.escape(key)} = .*$", lambda _: line, text)
        assert count == 1, f"the guide sets {key}, which kindex.toml has {count} times"
    path.write_text(text, encoding="utf-8")


def test_getting_started_from_install_to_a_published_leaderboard(tmp_path, monkeypatch, capsys):
    """Every command of the five steps, as a user types them (the install and the push, which need the
    network, are checked for what they name), and the guide's preview addresses, served."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    monkeypatch.chdir(tmp_path)
    for name, value in {"GIT_AUTHOR_NAME": "Lab", "GIT_AUTHOR_EMAIL": "lab@example.org", "GIT_COMMITTER_NAME": "Lab",
                        "GIT_COMMITTER_EMAIL": "lab@example.org", "GIT_CONFIG_GLOBAL": os.devnull,
                        "GIT_CONFIG_NOSYSTEM": "1"}.items():
        monkeypatch.setenv(name, value)
    found = steps()
    assert sorted(found) == [1, 2, 3, 4, 5]
    network = []
    for number, actions in sorted(found.items()):
        if number == 3:
            Path("kernel.py").write_text("# the lab's fused softmax\n", encoding="utf-8")  # (the step's "with your kernel in kernel.py")
        for kind, action in actions:
            if kind == "toml":
                set_settings(Path("kindex.toml"), action)
            elif action[0] == "kindex-site":
                code, out, err = run(capsys, *action[1:])
                assert code == 0, f"step {number}: {shlex.join(action)}\n{out}{err}"
            elif action[0] == "cd":
                monkeypatch.chdir(action[1])
            elif action[0] == "git" and action[1] in ("init", "add", "commit"):
                subprocess.run(action, check=True, capture_output=True)
            else:
                network.append(action)
        _after_step(number, Path.cwd())
    # Step 1 installs this version from where its Action is published; step 5 pushes (both need GitHub).
    repository = f"https://github.com/{published_repository()}"
    assert ["python3", "-m", "venv", ".venv"] in network
    assert [".venv/bin/pip", "install", f"git+{repository}@v{__version__}"] in network
    assert ["git", "push", "-u", "origin", "main"] in network


def _after_step(number: int, here: Path) -> None:
    {2: _after_new, 3: _after_runs, 4: _after_build, 5: _after_push}.get(number, lambda _: None)(here)


def _after_new(here: Path) -> None:
    assert here.name == "my-leaderboard"
    written = sorted(p.relative_to(here).as_posix() for p in here.rglob("*") if p.is_file())
    assert written == [".github/CODEOWNERS", ".github/workflows/check.yml", ".github/workflows/pages.yml",
                       ".gitignore", "README.md", f"content/example/{EXAMPLE_RUN}.json", "content/example/softmax.py",
                       "content/pages/about.md", "kindex.toml"]
    settings = tomllib.loads((here / "kindex.toml").read_text(encoding="utf-8"))
    assert settings["title"] == "My Lab's kernels" and settings["reference"] == "PyTorch eager"
    assert settings["base_url"] == "https://my-lab.github.io/my-leaderboard/"
    # The example is the publisher's, and its folder speaks for its lab.
    assert settings["publisher_labs"] == ["Example Lab"] and settings["labs"] == {"example": ["Example Lab"]}
    owners = [line.split() for line in (here / ".github/CODEOWNERS").read_text(encoding="utf-8").splitlines()
              if line.strip() and not line.startswith("#")]
    assert owners == [["*", "@my-lab"]]  # everything the maintainers', the Pages URL's account by default
    ignored = (here / ".gitignore").read_text(encoding="utf-8").split()
    assert {"/site/", "/.kindex-cache/", ".venv/"} <= set(ignored)
    readme = (here / "README.md").read_text(encoding="utf-8")
    for told in ("kindex-site new-run --problem example-softmax", "kindex-site serve", "kindex-site check --strict",
                 "Settings → Pages", "GitHub Actions", ACTION, "http://127.0.0.1:8000/my-leaderboard/",
                 'publisher_labs = ["My Lab"]', "**not a measurement**"):
        assert told in readme, told
    bundle = json.loads((here / f"content/example/{EXAMPLE_RUN}.json").read_text(encoding="utf-8"))
    seed = json.loads((ROOT / "tests/fixtures/seed.json").read_text(encoding="utf-8"))
    optional = {".protocol.spec.harness.repository"}  # (and sourceNative: the source's own record)
    assert {p for p in _shape(seed) if ".sourceNative." not in p} - optional <= _shape(bundle)


def _after_runs(here: Path) -> None:
    """The reference timed by the lab, the publisher's now, and the kernel with its source copied beside it."""
    specs = {}
    for path in (here / "content/my-lab").glob("*.json"):  # (the folder that speaks for "My Lab" by default)
        run_doc = json.loads(path.read_text(encoding="utf-8"))["run"]
        specs[run_doc["metadata"]["title"].split(" · ")[1]] = run_doc["spec"]
        assert "TODO" not in path.read_text(encoding="utf-8")
    assert set(specs) == {"PyTorch eager", "Fused Triton"}
    kernel = specs["Fused Triton"]
    assert kernel["timing"]["latencyNs"]["mean"] == 61_200
    copied = here / "content/my-lab" / kernel["implementationSource"]["path"]
    assert copied.name == f"{KERNEL_RUN}.py" and copied.read_bytes() == (here / "kernel.py").read_bytes()
    assert kernel["implementationDigest"] == "sha256:" + hashlib.sha256(copied.read_bytes()).hexdigest()
    assert tomllib.loads((here / "kindex.toml").read_text(encoding="utf-8"))["publisher_labs"] == ["My Lab"]


def _after_build(here: Path) -> None:
    site = here / "site"
    problem = page(site, "problems/example-softmax/")
    [table] = tables(problem, "latency")
    rows = {row[1]: row for row in table["rows"][1:]}
    # The lab's eager run is the reference; the example's made-up one is a run of its own.
    reference = [label for label in rows if "reference" in label]
    assert reference == ["PyTorch eager · My Lab reference source"], table["rows"]
    assert {label.split(" · ")[0] for label in rows} == {"Fused Triton", "PyTorch eager"}, table["rows"]
    assert "/my-leaderboard/runs/" + EXAMPLE_RUN + "/" in problem
    assert "made up, not a measurement" in visible_text(page(site, f"runs/{EXAMPLE_RUN}/"))
    assert "the lab's fused softmax" in visible_text(page(site, f"runs/{KERNEL_RUN}/"))  # (its source, shown)
    about = visible_text(page(site, "about/"))
    assert "fast_p" in about and "My Lab's kernels compares GPU kernel timings" in about
    for formula in formulas():
        assert formula in about, formula
    assert "The bundled leaderboard holds" not in about  # (this repository's own data, not a rule)
    with serving(here) as (port, said):
        assert said == guide_urls()[0].replace(":8000/", f":{port}/")  # (the guide's address: the one serve prints)
        for url in guide_urls():
            assert fetched(url.replace(":8000/", f":{port}/"))[0] == 200, url


def _after_push(here: Path) -> None:
    tracked = subprocess.run(["git", "ls-files"], check=True, capture_output=True, text=True).stdout.split()
    assert ".github/workflows/pages.yml" in tracked and "kindex.toml" in tracked
    assert not [p for p in tracked if p.startswith(("site/", ".kindex-cache/"))]


def _shape(value, at: str = "") -> set[str]:
    """The paths of a JSON value's object keys."""
    if isinstance(value, dict):
        return {path for key, inner in value.items() for path in {f"{at}.{key}", *_shape(inner, f"{at}.{key}")}}
    return set()


# --- new: defaults, questions, refusals ----------------------------------------------------------------


def test_without_flags_or_a_terminal_new_takes_the_defaults_and_builds_at_once(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "new", "kernel-board")
    assert code == 0, err
    assert "cd kernel-board" in out and "kindex-site serve" in out
    monkeypatch.chdir(tmp_path / "kernel-board")
    settings = tomllib.loads(Path("kindex.toml").read_text(encoding="utf-8"))
    assert (settings["title"], settings["base_url"], settings["reference"]) == ("Kernel board", "/", "PyTorch eager")
    assert run(capsys, "check", "--strict")[0] == 0
    code, out, err = run(capsys, "build")
    assert code == 0, err
    assert "Kernel board" in page(Path("site"), "/") and "speedup" in page(Path("site"), "problems/example-softmax/")


def test_new_gives_everything_to_the_maintainers_and_shows_how_to_give_a_lab_its_folder(tmp_path, monkeypatch,
                                                                                          capsys):
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "new", "board", "--base-url", "https://kernels.example.org/")[0] == 0
    owners = Path("board/.github/CODEOWNERS").read_text(encoding="utf-8")
    assert [line for line in owners.splitlines() if line.strip() and not line.startswith("#")] == ["*  @OWNER"]
    assert "# /content/my-lab/  @my-lab-github-user @OWNER" in owners  # (commented: an example to copy)
    assert "Require review from Code Owners" in owners
    readme = Path("board/README.md").read_text(encoding="utf-8")
    assert "Require review from Code Owners" in readme and "`content/my-lab/`" in readme
    submitting = (ROOT / "docs/submitting.md").read_text(encoding="utf-8")
    assert "**Require review from Code Owners**" in submitting and "`content/my-lab/`" in submitting


def test_in_a_new_leaderboard_the_example_labs_run_is_the_reference_and_no_other_labs_can_be(tmp_path, monkeypatch,
                                                                                            capsys):
    """publisher_labs names the example's lab: another lab's earlier PyTorch eager run, in its own folder,
    is a run of its own; the example's folder may not hold another lab's run."""
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "new", "board")[0] == 0
    monkeypatch.chdir(tmp_path / "board")
    example = json.loads(Path(f"content/example/{EXAMPLE_RUN}.json").read_text(encoding="utf-8"))
    theirs = json.loads(json.dumps(example))
    theirs["run"]["metadata"].update(name="their-eager", title="Example softmax · PyTorch eager · My Lab")
    theirs["run"]["spec"]["observedAt"] = "2025-01-01T00:00:00Z"  # (before the example's)
    theirs["run"]["spec"].pop("implementationSource")
    theirs["run"]["spec"].pop("workloadSource")
    Path("content/my-lab").mkdir()
    Path("content/my-lab/their-eager.json").write_text(json.dumps(theirs), encoding="utf-8")
    code, _, err = run(capsys, "check", "--strict")
    assert code == 0, err
    assert run(capsys, "build")[0] == 0
    rows = {row[1]: row for row in tables(page(Path("site"), "problems/example-softmax/"), "latency")[0]["rows"][1:]}
    assert set(rows) == {"PyTorch eager · Example Lab reference source", "PyTorch eager · My Lab"}, rows
    assert rows["PyTorch eager · My Lab"][5] == "1.00"  # (its speedup: against the example's run)
    Path("content/my-lab/their-eager.json").rename("content/example/their-eager.json")
    code, _, err = run(capsys, "check", "--strict")
    assert code == 1 and "foreign-lab: run their-eager" in err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_new_asks_for_what_flags_leave_out_again_until_it_is_valid(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", Terminal("Attention kernels\nlab.github.io/board\nhttps://lab.github.io/board/\n"))
    code, out, err = run(capsys, "new", "board", "--reference", "cuBLAS")
    assert code == 0, err
    assert "Title of the leaderboard [Board]: " in out and "Reference" not in out  # (given as a flag)
    assert "its path must start with '/'" in err
    settings = tomllib.loads((tmp_path / "board/kindex.toml").read_text(encoding="utf-8"))
    assert settings == {**settings, "title": "Attention kernels", "base_url": "https://lab.github.io/board/",
                        "reference": "cuBLAS"}
    monkeypatch.chdir(tmp_path / "board")
    assert run(capsys, "check", "--strict")[0] == 0  # (the example run is of the reference named)


def test_a_folder_that_is_not_empty_is_refused_by_name_and_nothing_is_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("mine").mkdir()
    Path("mine/notes.txt").write_text("mine\n", encoding="utf-8")
    code, out, err = run(capsys, "new", "mine")
    assert code == 1 and out == ""
    assert "mine: refusing to write a new leaderboard there: it is not empty" in err
    assert [p.name for p in Path("mine").iterdir()] == ["notes.txt"]
    Path("clone/.git").mkdir(parents=True)  # (an empty clone is empty enough)
    assert run(capsys, "new", "clone")[0] == 0 and Path("clone/kindex.toml").is_file()


@pytest.mark.parametrize("flags, said", [
    (["--base-url", "ftp://example.org/"], "--base-url: must be an http(s) URL"),
    (["--reference", ""], "--reference: String should have at least 1 character"),
    (["--reference", "Fused · Triton"], "--reference: 'Fused · Triton': a label cannot hold '·'"),
    (["--action", "kernelindex/kindex-site@v1\n  run: id"], "--action: 'kernelindex/kindex-site@v1\\n  run: id': give"),
    (["--action", "kindex-site"], "--action: 'kindex-site': give the GitHub Action as OWNER/REPO@REF"),
])
def test_bad_settings_are_named_by_their_flag_and_nothing_is_written(tmp_path, monkeypatch, capsys, flags, said):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "new", "board", *flags)
    assert code == 1 and said in err, err
    assert not Path("board").exists()


def test_any_title_is_written_as_toml_reads_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    title = 'Lab "Ω" \\ kernels\t\x7f\U0001f680'
    assert run(capsys, "new", "board", "--title", title)[0] == 0
    assert tomllib.loads(Path("board/kindex.toml").read_text(encoding="utf-8"))["title"] == title


def test_another_action_is_pinned_as_given(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    sha = "0123456789abcdef0123456789abcdef01234567"
    assert run(capsys, "new", "board", "--action", f"my-lab/kindex-site@{sha}")[0] == 0
    for name in ("pages", "check"):
        uses = _uses(yaml.safe_load(Path(f"board/.github/workflows/{name}.yml").read_text(encoding="utf-8")))
        assert f"my-lab/kindex-site@{sha}" in uses


# --- The workflows it writes ----------------------------------------------------------------------------


def _uses(workflow: dict) -> list[str]:
    return [step["uses"] for job in workflow["jobs"].values() for step in job.get("steps", []) if "uses" in step]


@pytest.fixture(scope="module")
def workflows(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("written") / "board"
    assert main(["new", str(folder)]) == 0
    return {name: yaml.safe_load((folder / f".github/workflows/{name}.yml").read_text(encoding="utf-8"))
            for name in ("pages", "check")}


def test_the_workflows_pin_this_version_and_never_install_the_checkout(workflows):
    assert ACTION == f"kernelindex/kindex-site@v{__version__}"
    for name, workflow in workflows.items():
        steps = [step for job in workflow["jobs"].values() for step in job.get("steps", [])]
        ours = [s for s in steps if s.get("uses", "").split("@")[0] == published_repository()]
        assert [s["uses"] for s in ours] == [ACTION], name
        scripts = " ".join(s.get("run", "") for s in steps)
        assert "pip" not in scripts and not re.search(r"install\s+(-e\s+)?\.", scripts), name  # nothing of the checkout runs
        assert all(not s.get("uses", "").startswith("./") for s in steps), name  # (nor an action of its own)


def test_the_publishing_workflow_builds_for_the_pages_url_and_uploads_the_site(workflows):
    pages = workflows["pages"]
    steps = pages["jobs"]["build"]["steps"]
    [build] = [s for s in steps if s.get("uses") == ACTION]
    assert build["with"] == {"command": "build", "base-url": "${{ steps.pages.outputs.base_url }}"}
    [upload] = [s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert upload["with"]["path"] == "site"
    assert pages["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}


def test_the_check_workflow_reads_the_pull_request_as_data_as_this_repositorys_does(workflows):
    check = workflows["check"]
    triggers = check.get("on", check.get(True))  # (YAML 1.1 reads a bare `on` as true)
    assert set(triggers) == {"pull_request_target"} and check["permissions"] == {"contents": "read"}
    steps = check["jobs"]["check"]["steps"]
    [checkout] = [s["with"] for s in steps if s.get("uses", "").startswith("actions/checkout@")]
    assert checkout["ref"] == "${{ github.event.pull_request.head.sha }}"
    assert checkout["repository"] == "${{ github.event.pull_request.head.repo.full_name }}"
    assert checkout["persist-credentials"] is False and checkout["fetch-depth"] == 0
    [judge] = [s for s in steps if s.get("uses") == ACTION]
    assert judge["with"] == {"command": "check", "strict": True, "base": "${{ github.event.pull_request.base.sha }}"}
    assert not [s for s in steps if "run" in s]


# --- The GitHub Action --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def test_the_actions_inputs_reach_its_shell_steps_only_through_env(action):
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) >= {"command", "content", "base-url", "strict", "base"}
    steps = action["runs"]["steps"]
    scripts = [s for s in steps if "run" in s]
    for step in scripts:
        assert "${{" not in step["run"], step["name"]  # (an expression in a script is spliced into its text)
        assert step["shell"] == "bash"
    reached = {m for s in scripts for value in s.get("env", {}).values()
               for m in re.findall(r"\$\{\{\s*inputs\.([\w-]+)\s*}}", value)}
    assert reached >= {"command", "content", "base-url", "strict", "base"}
    # It installs its own checkout (the tag used), outside the workspace, and caches only for a build.
    [install] = [s for s in scripts if "pip" in s["run"]]
    assert '"$GITHUB_ACTION_PATH"' in install["run"] and install["working-directory"] == "${{ runner.temp }}"
    [cache] = [s for s in steps if s.get("uses", "").startswith("actions/cache@")]
    assert cache["if"] == "inputs.command == 'build'" and cache["with"]["path"].endswith("/.kindex-cache")


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("git") is None, reason="needs bash and git")
@pytest.mark.parametrize("inputs, argv", [
    ({"COMMAND": "build", "BASE_URL": "https://x.github.io/b/$(touch pwned)"},
     ["build", "--base-url", "https://x.github.io/b/$(touch pwned)"]),
    ({"COMMAND": "check", "STRICT": "true", "CONTENT": "data; touch pwned"},
     ["check", "--content", "data; touch pwned", "--strict", "--format", "github"]),
    ({"COMMAND": "check", "STRICT": "false", "BASE": "HEAD"}, ["check", "--format", "github", "--base", "HEAD"]),
])
def test_the_actions_command_is_its_inputs_as_arguments(action, tmp_path, inputs, argv):
    """The action's last script run by bash with a stand-in kindex-site that prints its arguments."""
    fake = tmp_path / "temp/kindex-site-venv/bin/kindex-site"
    fake.parent.mkdir(parents=True)
    fake.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n', encoding="utf-8")
    fake.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x"],
                   cwd=work, check=True)
    script = action["runs"]["steps"][-1]["run"]
    env = {"PATH": os.environ["PATH"], "RUNNER_TEMP": str(tmp_path / "temp"), "CONTENT": "", "BASE_URL": "",
           "STRICT": "true", "BASE": "", **inputs}
    done = subprocess.run(["bash", "-e", "-c", script], check=False, cwd=work, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == argv
    assert not (work / "pwned").exists()


# --- The rules, stated once ------------------------------------------------------------------------------


def test_the_about_page_holds_the_installed_versions_rules(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "new", "board")[0] == 0
    about = Path("board/content/pages/about.md").read_text(encoding="utf-8")
    assert about.count(RULES_BEGIN) == 1 and about.count(RULES_END) == 1
    assert with_current_rules(about) == about  # (a copy of the rules as they are)
    rules = rules_markdown()
    assert "fast_p" in rules and not rules.startswith("# ") and "## Where the data comes from" not in rules
    stale = about.replace("fast_p", "fast_q")
    assert with_current_rules(stale) == about  # (an older copy takes the rules of the version installed)
    assert with_current_rules("# A page\n\nNo rules here.\n") == "# A page\n\nNo rules here.\n"
    # The built about page states the installed version's rules, whatever copy the project holds.
    Path("board/content/pages/about.md").write_text(stale, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "board")
    code, _, err = run(capsys, "build")
    assert code == 0, err
    shown = page(Path("site"), "about/")
    assert "fast_p" in shown and "fast_q" not in shown


@contextlib.contextmanager
def serving(root: Path):
    """`kindex-site serve` in `root`, as a user runs it (a server in a subprocess, on a free port): yields the
    port and the address it says it serves at, once it does."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "kindex_site", "serve", "--port", str(port)], cwd=root,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        deadline, printed, said = time.monotonic() + HANG_S, b"", None
        while said is None and time.monotonic() < deadline:
            if select.select([server.stdout], [], [], 0.5)[0]:
                chunk = os.read(server.stdout.fileno(), 4096)  # (unbuffered: select sees every line)
                assert chunk, f"serve stopped before serving: {printed!r}"
                printed += chunk
                said = re.search(rb"^Serving (\S+)", printed, re.M)
        assert said, f"serve said nowhere it serves: {printed!r}"
        yield port, said[1].decode()
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=HANG_S)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def fetched(url: str) -> tuple[int, str]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=HANG_S)
    try:
        conn.request("GET", parts.path)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def test_new_leaderboards_serve_at_once(tmp_path):
    """`kindex-site serve` in the new folder serves the site where `new` and its README say."""
    assert main(["new", str(tmp_path / "board"), "--title", "Served board",
                 "--base-url", "https://lab.github.io/board/"]) == 0
    readme = (tmp_path / "board/README.md").read_text(encoding="utf-8")
    assert preview_url("https://lab.github.io/board/") == "http://127.0.0.1:8000/board/" in readme
    with serving(tmp_path / "board") as (port, said):
        assert said == f"http://127.0.0.1:{port}/board/"
        status, body = fetched(f"{said}problems/example-softmax/")
        assert status == 200 and "Served board" in body and "Example Lab" in body


def test_new_says_the_examples_timing_is_made_up_and_where_to_preview(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "new", "board", "--reference", "cuBLAS")
    assert code == 0, err
    assert "The example's cuBLAS timing is made up: replace it with a real one before ranking a run against it" in out
    assert "kindex-site serve              # preview on http://127.0.0.1:8000/," in out
    bundle = json.loads(Path(f"board/content/example/example-softmax-cublas-example-lab.json").read_text("utf-8"))
    assert bundle["run"]["spec"]["sourceNative"]["note"].startswith("Not a measurement: an example's made-up timing")
    assert "a real cuBLAS run of the publisher's replaces it" in bundle["run"]["spec"]["sourceNative"]["note"]
