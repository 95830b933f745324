"""Hostile pull requests against a repository made by `kindex-site new`, each checked as its generated
workflow checks it (`check --strict --format github --base <base sha>` in the pull request's checkout):
the base's settings and code judge, and what the pull request changes is its own diff, every path."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import latency_tables
from test_physics_check import (BELOW, COST_FILE, EAGER, RUN, RUN_FILE, SMALL_COST, SMALL_WORKLOAD, cost_doc,
                                kernel_run, physics_settings, review_doc, tensor)

EXAMPLE = "content/example/example-softmax-pytorch-eager-example-lab.json"
PROBLEM = "Example softmax"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=root,
                          check=True, capture_output=True, text=True)
    return done.stdout


class Board:
    """A repository made by `kindex-site new`, on main, with Lab A's published run beside the example."""

    def __init__(self, project, root: Path):
        self.project, self.root = project, root
        self.example = json.loads((root / EXAMPLE).read_text(encoding="utf-8"))

    def run_doc(self, implementation: str, lab: str, mean: int, name: str, observed: str = "2026-02-01T00:00:00Z",
                digest_of: str | None = None) -> dict:
        doc = copy.deepcopy(self.example)
        spec = doc["run"]["spec"]
        for key in ("implementationSource", "workloadSource"):
            spec.pop(key)
        spec["implementationDigest"] = "sha256:" + hashlib.sha256((digest_of or implementation).encode()).hexdigest()
        spec["timing"]["latencyNs"] = {"mean": mean, "minimum": mean, "maximum": mean, "confidence95": [mean, mean]}
        spec["observedAt"] = observed
        spec["sourceNative"] = {"source": lab}
        doc["run"]["metadata"] = {"name": name, "title": f"{PROBLEM} · {implementation} · {lab}"}
        return doc

    def write(self, rel: str, data) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")

    def commit(self, message: str = "change") -> str:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-qm", message)
        return git(self.root, "rev-parse", "HEAD").strip()

    def branch(self, name: str, start: str = "main") -> None:
        git(self.root, "checkout", "-q", "-B", name, start)

    def check(self, base: str = "main") -> tuple[int, str, str]:
        """As the generated check.yml runs it: the pull request's checkout, the base's sha."""
        sha = git(self.root, "rev-parse", base).strip()
        return self.project.run("check", "--strict", "--format", "github", "--base", sha)


@pytest.fixture
def board(project, monkeypatch, tmp_path) -> Board:
    code, _, err = project.run("new", "board", "--title", "Board", "--base-url", "/", "--reference", "PyTorch eager")
    assert code == 0, err
    root = tmp_path / "board"
    monkeypatch.chdir(root)
    made = Board(project, root)
    made.write("content/lab-a/fused.json", made.run_doc("Fused Triton", "Lab A", 61_200, "fused-triton-lab-a"))
    git(root, "init", "-q", "-b", "main")
    made.commit("base")
    made.branch("pr")
    return made


def annotated(out: str, path: str | None, message: str) -> bool:
    """Whether the check said `message` as an error annotation on `path` (None: on no file)."""
    place = f"::error file={path},line=" if path else "::error title=kindex-site check::"
    return any(line.startswith(place) and message in line for line in out.splitlines())


def summary_of(out: str) -> str:
    return out[out.index("## What this pull request changes"):]


def test_an_honest_run_in_its_labs_folder_passes(board):
    board.write("content/lab-b/kernel.json", board.run_doc("CUDA kernel", "Lab B", 50_000, "cuda-lab-b"))
    board.commit()
    code, out, err = board.check()
    assert code == 0, out + err
    assert "1 run added, 0 changed, 0 removed" in out and "no problems found" in out


def test_the_pull_requests_own_settings_choose_nothing(board):
    # It points the content folder at the whole repository, edits the publishing workflow, deletes a
    # published run and makes another faster: the base's settings still say what content is.
    settings = (board.root / "kindex.toml").read_text().replace('content_dir = "content"', 'content_dir = "."')
    board.write("kindex.toml", settings)
    board.write(".github/workflows/pages.yml", "name: pwned\n")
    (board.root / "content/lab-a/fused.json").unlink()
    example = json.loads((board.root / EXAMPLE).read_text())
    example["run"]["spec"]["timing"]["latencyNs"].update(mean=9_000_000, maximum=9_000_000, confidence95=[8_999_000, 9_001_000])
    board.write(EXAMPLE, example)
    board.commit()
    code, out, err = board.check()
    assert code == 1
    summary = summary_of(out)
    assert "0 runs added, 1 changed, 1 removed" in summary
    for path, message in (("kindex.toml", "a change to the settings, templates or static files needs a maintainer's review"),
                          (".github/workflows/pages.yml", "a change outside content/ needs a maintainer's review"),
                          (None, "content/lab-a/fused.json: removes the published run fused-triton-lab-a"),
                          (EXAMPLE, "changes the published run example-softmax-pytorch-eager-example-lab (4 fields)")):
        assert annotated(out, path, message), (path, message)
    assert "run.spec.timing.latencyNs.mean: 92400 → 9000000" in summary.replace("\\", "")
    assert "run.spec.timing.latencyNs.maximum: 99700 → 9000000" in summary.replace("\\", "")
    assert "4 changes need a maintainer's review" in summary  # (the grammar of a count)


def test_a_dotfile_is_never_skipped_and_an_attribute_hides_nothing(board):
    # Step one: .gitattributes that would empty `git archive` of the content.
    board.write("content/.gitattributes", "* export-ignore\n")
    board.commit()
    code, out, _ = board.check()
    assert code == 1 and annotated(out, "content/.gitattributes", "a change to a dotfile needs a maintainer's review")
    # A maintainer merges it anyway; step two edits and deletes published runs and adds a backdated eager run.
    git(board.root, "checkout", "-q", "main")
    git(board.root, "merge", "-q", "--ff-only", "pr")
    board.branch("pr2")
    (board.root / "content/lab-a/fused.json").unlink()
    example = json.loads((board.root / EXAMPLE).read_text())
    example["run"]["spec"]["timing"]["latencyNs"].update(mean=1_000, minimum=1_000, confidence95=[999, 1_001])
    board.write(EXAMPLE, example)
    board.write("content/hostile-lab/eager.json",
                board.run_doc("PyTorch eager", "Hostile Lab", 900_000, "eager-hostile", observed="2020-01-01T00:00:00Z"))
    board.commit()
    code, out, _ = board.check()
    assert code == 1
    assert "1 run added, 1 changed, 1 removed" in summary_of(out)
    assert "removes the published run fused-triton-lab-a" in out and "changes the published run" in out


def test_every_field_of_a_published_run_is_protected_and_shown(board):
    doc = json.loads((board.root / "content/lab-a/fused.json").read_text())
    doc["run"]["spec"]["sourceNative"]["note"] = "RETRACTED: this lab faked its numbers"
    doc["run"]["spec"]["measurements"][0]["value"] = 1
    doc["run"]["spec"]["protocolDigest"] = "sha256:" + "0" * 64
    board.write("content/lab-a/fused.json", doc)
    board.commit()
    code, out, _ = board.check()
    assert code == 1
    assert annotated(out, "content/lab-a/fused.json", "changes the published run fused-triton-lab-a (3 fields)")
    summary = summary_of(out).replace("\\", "")
    assert "0 runs added, 1 changed, 0 removed" in summary
    assert 'run.spec.sourceNative.note: (none) → "RETRACTED: this lab faked its numbers"' in summary
    assert "run.spec.measurements[0].value: 1800 → 1" in summary
    assert 'run.spec.protocolDigest: "sha256:164f' in summary


def test_a_pull_request_branched_before_the_base_moved_is_judged_on_its_own_changes(board):
    board.write("content/lab-b/kernel.json", board.run_doc("CUDA kernel", "Lab B", 50_000, "cuda-lab-b"))
    board.commit()
    git(board.root, "checkout", "-q", "main")  # the base gains two runs after the branch
    board.write("content/lab-c/one.json", board.run_doc("Kernel one", "Lab C", 70_000, "one-lab-c"))
    board.write("content/lab-c/two.json", board.run_doc("Kernel two", "Lab C", 80_000, "two-lab-c"))
    board.commit("base moves")
    git(board.root, "checkout", "-q", "pr")
    code, out, err = board.check()
    assert code == 0, out + err
    assert "removes" not in out and "1 run added, 0 changed, 0 removed" in out


def test_another_lab_cannot_give_a_table_its_reference(board):
    # A table of a new problem with no reference: a hostile lab brings its own slow eager run and a fast kernel.
    for implementation, mean, name in (("PyTorch eager", 450_000, "eager-hostile"), ("Fast kernel", 48_000, "fast-hostile")):
        doc = board.run_doc(implementation, "Hostile Lab", mean, name)
        doc["run"]["metadata"]["title"] = f"Other problem · {implementation} · Hostile Lab"
        doc["run"]["spec"]["workloadDigest"] = "sha256:" + "1" * 64
        board.write(f"content/hostile-lab/{name}.json", doc)
    board.commit()
    # As `new` sets it up (publisher_labs): the hostile eager run is a run of its own, no reference, no speedup.
    code, out, err = board.check()
    assert code == 0, out + err
    assert "0 references changed" in out and "### References changed" not in out
    assert board.project.run("build")[0] == 0
    page = (board.root / "site/problems/other-problem/index.html").read_text(encoding="utf-8")
    assert "The table has no reference and no speedups until such a run is added." in page
    [table] = latency_tables(page)
    speedups = [i for i, heading in enumerate(table["rows"][0]) if heading.startswith("Speedup")]
    assert speedups and {row[i] for row in table["rows"][1:] for i in speedups} == {"—"}  # (no speedup shown)
    # A board whose settings name no publisher's labs: the pull request would set the reference, and fails.
    git(board.root, "checkout", "-q", "main")
    settings = (board.root / "kindex.toml").read_text()
    board.write("kindex.toml", "\n".join(line for line in settings.splitlines() if not line.startswith("publisher_labs")))
    board.commit("no publisher's labs")
    git(board.root, "checkout", "-q", "pr")
    git(board.root, "rebase", "-q", "main")
    code, out, _ = board.check()
    assert code == 1
    assert annotated(out, "content/hostile-lab/eager-hostile.json", "sets the reference of Other problem")
    assert "a table's reference is the publisher's" in out


def test_a_symbolic_link_in_the_content_needs_a_maintainer(board):
    os.symlink("../../kindex.toml", board.root / "content/lab-b-link.json")
    board.commit()
    code, out, _ = board.check()
    assert code == 1 and annotated(out, "content/lab-b-link.json", "a symbolic link in the content needs a maintainer's review")


def test_a_pull_request_may_add_only_so_many_source_files(board):
    git(board.root, "checkout", "-q", "main")
    board.write("kindex.toml", "max_sources_per_pr = 2\n" + (board.root / "kindex.toml").read_text())
    board.commit("cap")
    board.branch("pr")
    for n in range(3):
        doc = board.run_doc(f"Kernel {n}", "Lab B", 50_000 + n, f"kernel-{n}-lab-b")
        source = f"def kernel_{n}():\n    pass\n".encode()
        doc["run"]["spec"]["implementationDigest"] = "sha256:" + hashlib.sha256(source).hexdigest()
        doc["run"]["spec"]["implementationSource"] = {"path": f"kernel_{n}.py", "language": "python"}
        board.write(f"content/lab-b/kernel_{n}.py", source)
        board.write(f"content/lab-b/kernel-{n}.json", doc)
    board.commit()
    code, out, _ = board.check()
    assert code == 1 and "3 source files, more than max_sources_per_pr (2) in kindex.toml" in out


def test_messages_name_the_repositorys_paths_never_a_temporary_folder(board):
    (board.root / "content/lab-a/fused.json").unlink()  # (a published run, read from the base)
    doc = board.run_doc("CUDA kernel", "Lab B", 50_000, "cuda-lab-b")
    board.write("content/lab-b/kernel.json", doc)
    board.commit()
    code, out, err = board.check()
    assert code == 1 and annotated(out, None, "content/lab-a/fused.json: removes the published run fused-triton-lab-a")
    assert "kindex-check-" not in out + err and "kindex-base-" not in out + err and "/tmp/" not in out + err
    doc["run"]["spec"]["timing"]["samples"] = 0
    board.write("content/lab-b/kernel.json", doc)
    board.commit()
    code, out, err = board.check()
    assert code == 1 and annotated(out, "content/lab-b/kernel.json", "run.spec.timing.samples")
    assert "kindex-check-" not in out + err and "/tmp/" not in out + err


def test_one_lab_cannot_replace_another_labs_run(board):
    # Lab A's public implementationDigest, observed later, from another lab's folder under its own name:
    # a run of its own beside Lab A's, which stays current.
    board.write("content/hostile-lab/fused.json", board.run_doc(
        "Fused Triton", "Hostile Lab", 400_000, "fused-triton-hostile", observed="2026-06-01T00:00:00Z",
        digest_of="Fused Triton"))
    board.commit()
    code, out, err = board.check()
    assert code == 0, out + err
    assert "history" not in summary_of(out) and "1 run added, 0 changed, 0 removed" in out
    code, _, err = board.project.run("build")
    assert code == 0, err
    page = (board.root / "site/problems/example-softmax/index.html").read_text(encoding="utf-8")
    assert '<details class="history">' not in page  # (no run was moved into a history)
    assert "fused-triton-lab-a" in page and "fused-triton-hostile" in page


def test_a_run_cannot_claim_a_lab_its_folder_does_not_speak_for(board):
    board.write("content/hostile-lab/fused.json", board.run_doc(
        "Fused Triton", "Lab A", 400_000, "fused-triton-again", observed="2026-06-01T00:00:00Z",
        digest_of="Fused Triton"))
    board.commit()
    code, out, _ = board.check()
    assert code == 1 and annotated(out, "content/hostile-lab/fused.json", "claims the lab 'Lab A'")


def test_a_claimed_lab_fails_even_a_check_that_is_not_strict(board):
    board.write("content/hostile-lab/fused.json", board.run_doc("Fused Triton", "Lab A", 400_000, "fused-again"))
    board.commit()
    sha = git(board.root, "rev-parse", "main").strip()
    code, out, _ = board.project.run("check", "--format", "github", "--base", sha)
    assert code == 1 and annotated(out, "content/hostile-lab/fused.json", "claims the lab 'Lab A'")


def test_a_published_runs_source_file_and_the_sites_pages_are_a_maintainers(board):
    (board.root / "content/example/softmax.py").write_text("def softmax(x):\n    return x  # faster\n")
    board.write("content/pages/about.md", "# About\n\nLab A faked its numbers.\n")
    board.commit()
    code, out, _ = board.check()
    assert code == 1
    assert annotated(out, "content/example/softmax.py",
                     "changes the implementation source of the published run example-softmax-pytorch-eager-example-lab")
    assert annotated(out, "content/pages/about.md", "a change to a page of the site needs a maintainer's review")
    assert "implementation source example/softmax.py: sha256:" in summary_of(out).replace("\\", "")


def test_where_the_content_is_the_whole_repository_templates_and_settings_are_still_a_maintainers(board):
    git(board.root, "checkout", "-q", "main")
    settings = (board.root / "kindex.toml").read_text().replace('content_dir = "content"', 'content_dir = "."')
    board.write("kindex.toml", settings)
    board.commit("the content is the repository")
    git(board.root, "checkout", "-q", "-B", "pr", "main")
    board.write("templates/base.html", "{{ 1 }}")  # (the base has no templates/: the bundled ones render today)
    board.write("static/style.css", "body { display: none }")
    board.write("kindex.toml", settings + "implausible_speedup = 1000.0\n")
    board.write("reviews/example.json", review_doc("example-softmax-pytorch-eager-example-lab", "clean"))
    board.commit()
    code, out, _ = board.check()
    assert code == 1
    for path in ("templates/base.html", "static/style.css", "kindex.toml"):
        assert annotated(out, path, "a change to the settings, templates or static files needs a maintainer's review"), path
    assert annotated(out, "reviews/example.json", "a change to a run's review needs a maintainer's review")


def test_published_jsonl_runs_holding_a_line_separator_are_protected_exactly(board):
    # U+2028 is no line break in a .jsonl (the loader splits at \n only), and 1800.0 is not 1800.
    lines = [board.run_doc(f"Kernel {n}", "Lab B", 50_000 + n, f"k{n}-lab-b") for n in range(2)]
    lines[0]["run"]["spec"]["sourceNative"]["note"] = "one\u2028two"
    board.write("content/lab-b/runs.jsonl", "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in lines))
    board.commit()
    git(board.root, "checkout", "-q", "main")
    git(board.root, "merge", "-q", "--ff-only", "pr")
    board.branch("pr2")
    lines[1]["run"]["spec"]["measurements"][0]["value"] = 1800.0
    board.write("content/lab-b/runs.jsonl", json.dumps(lines[1], ensure_ascii=False) + "\n")
    board.commit()
    code, out, _ = board.check()
    assert code == 1 and "0 runs added, 1 changed, 1 removed" in out
    assert annotated(out, "content/lab-b/runs.jsonl", "removes the published run k0-lab-b")
    assert "run.spec.measurements[0].value: 1800 → 1800.0" in summary_of(out).replace("\\", "")


def test_a_change_the_base_made_to_the_same_file_is_merged_not_reverted(board):
    lines = [board.run_doc(f"Kernel {n}", "Lab C", 50_000 + n, f"k{n}-lab-c") for n in range(3)]
    text = lambda docs: "".join(json.dumps(d) + "\n" for d in docs)  # noqa: E731
    git(board.root, "checkout", "-q", "main")
    board.write("content/lab-c/runs.jsonl", text(lines[:2]))
    board.commit("lab c")
    board.branch("pr")
    board.write("content/lab-c/runs.jsonl", text(lines))  # the pull request appends a run
    board.commit()
    git(board.root, "checkout", "-q", "main")
    fixed = copy.deepcopy(lines[0])
    fixed["run"]["spec"]["sourceNative"]["note"] = "a maintainer's note"
    board.write("content/lab-c/runs.jsonl", text([fixed, lines[1]]))  # while a maintainer fixes the first line
    board.commit("fix")
    git(board.root, "checkout", "-q", "pr")
    code, out, err = board.check()
    assert code == 0, out + err
    assert "1 run added, 0 changed, 0 removed" in out


def test_a_run_dated_ahead_of_the_check_fails_it(board):
    board.write("content/lab-b/k.json", board.run_doc("Kernel", "Lab B", 50_000, "k-lab-b", observed="2099-01-01T00:00:00Z"))
    board.commit()
    code, out, _ = board.check()
    assert code == 1 and annotated(out, "content/lab-b/k.json", "run.spec.observedAt: 2099-01-01T00:00:00Z is after this check ran")


def test_a_path_git_would_not_check_out_is_never_written(board):
    # A tree made by hand (git mktree): content/../../../NAME would land beside the check's temporary folder.
    def mktree(listing: str) -> str:
        return subprocess.run(["git", "mktree"], cwd=board.root, input=listing.encode(), capture_output=True,
                              check=True).stdout.decode().strip()

    name = "pwned-by-a-pull-request"
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=board.root, input=b"pwned", capture_output=True,
                          check=True).stdout.decode().strip()
    tree = mktree(f"100644 blob {blob}\t{name}\n")
    for _ in range(2):
        tree = mktree(f"040000 tree {tree}\t..\n")
    listing = git(board.root, "ls-tree", "HEAD")
    content = next(line.split()[2] for line in listing.splitlines() if line.endswith("\tcontent"))
    new_content = mktree(git(board.root, "ls-tree", content) + f"040000 tree {tree}\t..\n")
    top = mktree(listing.replace(f"tree {content}\tcontent", f"tree {new_content}\tcontent"))
    commit = git(board.root, "commit-tree", top, "-p", "HEAD", "-m", "dot-dot").strip()
    git(board.root, "update-ref", "refs/heads/pr", commit)
    git(board.root, "reset", "-q", "--soft", commit)
    code, out, _ = board.check()
    assert code == 1 and annotated(out, None, f"content/../../../{name}: a path git would not check out needs")
    assert not (Path(tempfile.gettempdir()) / name).exists()


def test_sources_that_would_make_pages_past_the_cap_fail_the_check(board):
    # The attack with the defaults `new` writes: a 1 MiB source of U+0001 shows as a page of ~31 MiB.
    for n in range(2):
        source = "\x01" * 2**20
        doc = board.run_doc(f"Kernel {n}", "Lab B", 50_000 + n, f"k{n}-lab-b")
        doc["run"]["spec"]["implementationDigest"] = "sha256:" + hashlib.sha256(source.encode()).hexdigest()
        doc["run"]["spec"]["implementationSource"] = {"path": f"k{n}.py"}
        board.write(f"content/lab-b/k{n}.py", source)
        board.write(f"content/lab-b/k{n}.json", doc)
    board.commit()
    code, out, _ = board.check()
    assert code == 1
    for n in range(2):
        assert annotated(out, f"content/lab-b/k{n}.json", f"run.spec.implementationSource: the page of run k{n}-lab-b "
                                                          "would be"), n
    assert "over max_page_bytes (16.8 MB) in kindex.toml" in out


# --- Physics (issue 43): a run below its floor, and the publisher's costs and reviews ----------------


def physics_base(board: Board, *more: tuple[str, dict]) -> None:
    """main gains the bundled eager run of KernelBench level 2 #84 on the H100 PCIe, its workload's
    cost (the publisher's) and `more`; the pull request's branch starts there."""
    git(board.root, "checkout", "-q", "main")
    board.write("kindex.toml", physics_settings((board.root / "kindex.toml").read_text(encoding="utf-8")))
    board.write("content/lambda-labs/eager.json", EAGER)
    board.write(COST_FILE, cost_doc())
    for rel, doc in more:
        board.write(rel, doc)
    board.commit("the publisher's level 2 #84")
    board.branch("pr")


def error_line(path: str | None, message: str) -> str:
    """The whole annotation the check prints for a problem on `path`'s first line."""
    return f"::error file={path},line=1,title=kindex-site check::{message}"


def test_a_run_below_its_floor_fails_the_pull_requests_check(board):
    physics_base(board)
    board.write(RUN_FILE, kernel_run(1_234))
    board.commit()
    code, out, _ = board.check()
    assert code == 1
    assert error_line(RUN_FILE, BELOW.removeprefix(f"{RUN_FILE}: ")) in out.splitlines()
    assert "1 run added, 0 changed, 0 removed" in summary_of(out)


def test_a_published_run_made_faster_than_its_floor_fails(board):
    physics_base(board, (RUN_FILE, kernel_run(10_000)))
    board.write(RUN_FILE, kernel_run(1_234))
    board.commit()
    code, out, _ = board.check()
    assert code == 1
    assert annotated(out, RUN_FILE, f"changes the published run {RUN} (5 fields)")
    assert error_line(RUN_FILE, BELOW.removeprefix(f"{RUN_FILE}: ")) in out.splitlines()


def test_a_run_above_its_floor_passes_the_pull_requests_check(board):
    physics_base(board)
    board.write(RUN_FILE, kernel_run(10_000))
    board.commit()
    code, out, err = board.check()
    assert code == 0, out + err
    assert "below its floor" not in out + err


def test_a_pull_request_cannot_review_its_own_run_clean(board):
    review = f"content/reviews/{RUN}.json"
    physics_base(board)
    board.write(RUN_FILE, kernel_run(1_234))
    board.write(review, review_doc(RUN, "clean"))
    board.commit()
    code, out, _ = board.check()
    assert code == 1
    assert error_line(review, "a change to a run's review needs a maintainer's review") in out.splitlines()
    # A maintainer who has timed the kernel again merges it: then the review is the publisher's, and check passes.
    git(board.root, "checkout", "-q", "main")
    git(board.root, "merge", "-q", "--ff-only", "pr")
    code, _, err = board.project.run("check", "--strict")
    assert code == 0, err


SMALL_FILE = "content/costs/a9cbc7234a5d8050.json"
# Each way a pull request could move a floor: the file it touches and what it writes there (None: deletes it).
COST_CHANGES = {
    "adds a cost": (SMALL_FILE, SMALL_COST),
    "shrinks a cost into the L2": (COST_FILE, cost_doc(inputs=(tensor(1024, 1024),), outputs=(tensor(1024, 1024),))),
    "removes a cost": (COST_FILE, None),
    "adds a file to costs/": ("content/costs/README.md", "Costs are counted by the publisher.\n"),
    "adds a review of a run it did not time": (f"content/reviews/{EAGER['run']['metadata']['name']}.json",
                                               review_doc(EAGER["run"]["metadata"]["name"], "timing-bug")),
}


@pytest.mark.parametrize("change", COST_CHANGES)
def test_the_costs_and_the_reviews_are_the_publishers(board, change):
    path, written = COST_CHANGES[change]
    physics_base(board)
    board.write(RUN_FILE, kernel_run(1_234, workload=SMALL_WORKLOAD if path == SMALL_FILE else EAGER["run"]["spec"]
                                     ["workloadDigest"]))
    if written is None:
        (board.root / path).unlink()
    else:
        board.write(path, written)
    board.commit()
    code, out, _ = board.check()
    assert code == 1
    what = "a run's review" if "/reviews/" in path else "a workload's cost"
    message = f"a change to {what} needs a maintainer's review"
    if written is None:  # (the file is gone from the pull request's checkout: an annotation on no file)
        assert annotated(out, None, f"{path}: {message}")
    else:
        assert error_line(path, message) in out.splitlines()
