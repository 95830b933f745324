"""`kindex-site import kernelbench`: KernelBench timing files → bundles, judged by what a user gets."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from kindex_site.cli import main
from kindex_site.models import NAME_PATTERN, Bundle

REPO = Path(__file__).resolve().parents[1]
SEED = json.loads((REPO / "tests" / "fixtures" / "seed.json").read_text(encoding="utf-8"))
SHARED = REPO.parent / "shared" / "data" / "kernelbench-timing"
HISTORY_BUNDLE = REPO.parent / "shared" / "data" / "kernelbench-history.bundle"
DIGESTS = ("protocolDigest", "workloadDigest", "environmentDigest", "implementationDigest")

# The seed's own entry, written as KernelBench writes it (the JSON's text, not Python's floats).
SEED_ROW = ('{"mean": 4.94, "std": 0.0456, "min": 4.78, "max": 4.97, "num_trials": 100, '
            '"hardware": "NVIDIA H100 PCIe", "device": "cuda:0"}')


def row(mean=1.5, std=0.01, lo=1.4, hi=1.6, trials=100, hardware="NVIDIA H100 PCIe") -> dict:
    return {"mean": mean, "std": std, "min": lo, "max": hi, "num_trials": trials,
            "hardware": hardware, "device": "cuda:0"}


def write_timing(root: Path, host: str, implementation: str, levels: dict | str, date: str | None = None) -> Path:
    """A KernelBench results/timing file under root/host/, dated in root/PROVENANCE.txt if date is given."""
    path = root / host / f"baseline_time_{implementation}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(levels if isinstance(levels, str) else json.dumps(levels), encoding="utf-8")
    if date:
        with (root / "PROVENANCE.txt").open("a", encoding="utf-8") as f:
            f.write(f"{host}/{path.name} {date}\n")
    return path


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def imported(capsys, *argv) -> tuple[list[dict], str]:
    """Run the import (must succeed) and return every bundle it wrote under --out, and stderr."""
    code, out, err = run_cli(capsys, "import", "kernelbench", *argv)
    assert code == 0, err
    outdir = Path(argv[list(argv).index("--out") + 1])
    bundles = []
    for path in sorted(outdir.rglob("*.json")):
        value = json.loads(path.read_text(encoding="utf-8"))
        bundles.extend(value if isinstance(value, list) else [value])
    return bundles, err


def by_name(bundles: list[dict]) -> dict[str, dict]:
    return {b["run"]["metadata"]["name"]: b for b in bundles}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def spec_of(bundles: list[dict], implementation: str, problem: str) -> dict:
    """The run spec of one entry, found by implementation and the problem as the source named it."""
    for b in bundles:
        native = b["run"]["spec"]["sourceNative"]
        if native.get("formerExternalId", native["externalId"]).split("/", 2)[1:] == [implementation, problem]:
            return b["run"]["spec"]
    raise KeyError((implementation, problem))


def source_workload(problem: str, text: str) -> str:
    """The workload digest of a problem whose source (in its version) is `text`: as --problems hashes it."""
    body = {"source": "kernelbench", "problem": problem, "sourceSha256": hashlib.sha256(text.encode()).hexdigest()}
    return "sha256:" + hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def problem_source(title: str, size: int) -> str:
    """A KernelBench-like problem file, long enough that a change of size keeps git's rename detection."""
    return textwrap.dedent(f"""\
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            \"\"\"{title}: a small reference module for the importer's tests.\"\"\"

            def __init__(self):
                super().__init__()

            def forward(self, x):
                return torch.relu(x) * 2 + 1


        batch_size = 16
        dim = {size}


        def get_inputs():
            return [torch.rand(batch_size, dim)]


        def get_init_inputs():
            return []
    """)


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


class GitRepo:
    """A tiny KernelBench-like git repository: commits at fixed dates, by a fixed author."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True)
        self.env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
                    "GIT_AUTHOR_NAME": "KernelBench", "GIT_AUTHOR_EMAIL": "kb@example.org",
                    "GIT_COMMITTER_NAME": "KernelBench", "GIT_COMMITTER_EMAIL": "kb@example.org"}
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, when: str | None = None) -> str:
        env = self.env if when is None else {**self.env, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        return subprocess.run(["git", *args], cwd=self.root, env=env, check=True, capture_output=True,
                              text=True).stdout.strip()

    def commit(self, when: str, files: dict[str, str | bytes | None], message: str = "change") -> str:
        """Write (or, for None, delete) files, commit them at `when`, and return the commit's id."""
        for name, content in files.items():
            path = self.root / name
            if content is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message, when=when)
        return self.git("rev-parse", "HEAD")

    def rename(self, old: str, new: str) -> None:
        self.git("mv", old, new)


# --- the seed --------------------------------------------------------------------------------


def test_seed_entry_reproduces_the_seed_bundle(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "H100_PCIe_LambdaLabs", "torch",
                 '{"level2": {"84_Gemm_BatchNorm_Scaling_Softmax.py": %s}}' % SEED_ROW,
                 date="2026-01-23T00:42:52+01:00")

    bundles, err = imported(capsys, src, "--out", tmp_path / "out")

    assert err == ""
    assert len(bundles) == 1
    got, want = copy.deepcopy(bundles[0]), copy.deepcopy(SEED)
    for d in DIGESTS:
        assert got["run"]["spec"].pop(d).startswith("sha256:")
        want["run"]["spec"].pop(d)
    assert got["run"]["spec"].pop("observedAt") == "2026-01-22T23:42:52.000Z"  # PROVENANCE's date, in UTC
    want["run"]["spec"].pop("observedAt")
    # The keys the importer adds to the seed's set: the row's own hardware string, and the precision
    # KernelBench's numbers have (3 significant figures of a millisecond value).
    assert got["run"]["spec"]["sourceNative"].pop("hardware") == "NVIDIA H100 PCIe"
    assert got["protocol"]["spec"]["measurement"].pop("resolution") == {"significantFigures": 3}
    assert "resolution" not in want["protocol"]["spec"]["measurement"]
    assert got == want
    # Spelled out, the numbers the issue pins:
    latency = bundles[0]["run"]["spec"]["timing"]["latencyNs"]
    assert latency == {"mean": 4940000, "minimum": 4780000, "maximum": 4970000, "confidence95": [4931062, 4948938]}


def test_output_file_mirrors_the_source_file_and_is_a_valid_array(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "H100_PCIe_LambdaLabs", "torch",
                 {"level1": {"1_Square_matrix_multiplication_.py": row(), "2_Other.py": None}}, date="2026-01-01T00:00:00Z")
    code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out")
    assert code == 0, err
    assert "Imported 2 runs (1 failed, 1 passed) from 1 file" in out
    written = tmp_path / "out" / "H100_PCIe_LambdaLabs" / "baseline_time_torch.json"
    text = written.read_text(encoding="utf-8")
    assert text.endswith("}\n]\n")
    docs = json.loads(text)
    assert [Bundle.model_validate(d).run.metadata.name for d in docs] == [
        "kernelbench-h100-pcie-lambdalabs-torch-l1-1-square-matrix-multiplication",
        "kernelbench-h100-pcie-lambdalabs-torch-l1-2-other",
    ]


# --- numbers ---------------------------------------------------------------------------------


def test_milliseconds_become_exact_nanoseconds(tmp_path, capsys):
    # 1.001 * 1e6 is 1000999.9999999999 in floating point; the importer reads the JSON's text.
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch",
                 '{"level1": {"1_A.py": {"mean": 1.001, "std": 0.0, "min": 1.001, "max": 1.003, "num_trials": 7}}}',
                 date="2026-01-01T00:00:00Z")
    [b], _ = imported(capsys, src, "--out", tmp_path / "out")
    timing = b["run"]["spec"]["timing"]
    assert timing["samples"] == 7
    assert timing["latencyNs"] == {"mean": 1001000, "minimum": 1001000, "maximum": 1003000,
                                   "confidence95": [1001000, 1001000]}
    assert b["run"]["spec"]["sourceNative"]["metrics"] == {"mean_ms": 1.001, "std_ms": 0.0, "min_ms": 1.001,
                                                           "max_ms": 1.003}


def test_null_entry_becomes_a_failed_run_without_timing(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch_compile_inductor_max-autotune",
                 {"level3": {"9_ResNet18.py": None, "10_ResNet101.py": row(hardware="NVIDIA L4")}},
                 date="2026-01-14T16:21:49-08:00")
    bundles, _ = imported(capsys, src, "--out", tmp_path / "out")

    runs = by_name(bundles)
    failed = runs["kernelbench-l4-gcp-torch-compile-inductor-max-autotune-l3-9-resnet18"]["run"]
    assert failed["spec"]["status"] == "failed"
    assert "timing" not in failed["spec"]
    assert failed["spec"]["sourceNative"]["externalId"] == "L4_GCP/torch_compile_inductor_max-autotune/level3/9_ResNet18.py"
    assert failed["metadata"]["title"] == "ResNet18 · torch.compile (inductor, max-autotune) · Google Cloud"
    passed = runs["kernelbench-l4-gcp-torch-compile-inductor-max-autotune-l3-10-resnet101"]["run"]
    assert passed["spec"]["status"] == "passed"


def test_mean_only_record_imports_without_a_confidence_interval(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {
        "1_MeanOnly.py": {"mean": 2.5, "hardware": "NVIDIA L4"},
        "2_NoStd.py": {"mean": 2.5, "min": 2.0, "max": 3.0, "num_trials": 10, "hardware": "NVIDIA L4"},
    }}, date="2026-01-01T00:00:00Z")
    bundles, err = imported(capsys, src, "--out", tmp_path / "out")
    runs = by_name(bundles)

    mean_only = runs["kernelbench-l4-gcp-torch-l1-1-meanonly"]["run"]["spec"]
    assert mean_only["status"] == "passed"  # it keeps what it has: a mean, no interval
    assert mean_only["timing"] == {"latencyNs": {"mean": 2500000}, "primaryStatistic": "mean"}
    assert mean_only["measurements"] == []
    assert mean_only["sourceNative"]["metrics"] == {"mean_ms": 2.5}

    no_std = runs["kernelbench-l4-gcp-torch-l1-2-nostd"]["run"]["spec"]
    assert no_std["status"] == "passed"
    assert no_std["timing"]["latencyNs"] == {"mean": 2500000, "minimum": 2000000, "maximum": 3000000}
    assert no_std["measurements"] == []


def test_impossible_numbers_are_kept_as_an_invalid_timing_run(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row(mean=1.0, lo=1.2, hi=1.5)}},
                 date="2026-01-01T00:00:00Z")
    [b], err = imported(capsys, src, "--out", tmp_path / "out")
    spec = b["run"]["spec"]
    assert spec["status"] == "invalid-timing"
    assert "timing" not in spec
    # Numbers are not changed to fit: the source's values stay, in ms and (as measurements) in ns.
    assert spec["sourceNative"]["metrics"] == {"mean_ms": 1.0, "std_ms": 0.01, "min_ms": 1.2, "max_ms": 1.5,
                                               "num_trials": 100}
    assert {m["statistic"]: m["value"] for m in spec["measurements"]} == {
        "mean": 1000000, "std": 10000, "minimum": 1200000, "maximum": 1500000}
    assert "warning: " in err and "invalid-timing" in err


def test_noisy_run_keeps_its_interval_clamped_at_1_ns(tmp_path, capsys):
    src = tmp_path / "timing"
    noisy = {"mean": 0.000002, "std": 0.0001, "min": 0.000001, "max": 0.000003, "num_trials": 100}  # 2 ns ± 19.6 ns
    write_timing(src, "H100_PCIe_LambdaLabs", "torch", {"level1": {"1_A.py": noisy, "2_B.py": noisy, "3_C.py": row()}},
                 date="2026-01-01T00:00:00Z")
    bundles, err = imported(capsys, src, "--out", tmp_path / "out")
    assert spec_of(bundles, "torch", "level1/1_A.py")["timing"]["latencyNs"] == {
        "mean": 2, "minimum": 1, "maximum": 3, "confidence95": [1, 22]}
    assert spec_of(bundles, "torch", "level1/3_C.py")["timing"]["latencyNs"]["confidence95"] == [1498040, 1501960]
    assert "warning: " in err and "2 entries" in err and "interval clamped at 1 ns" in err


# --- workloads and dates -------------------------------------------------------------------


def test_files_dated_either_side_of_2025_07_02_are_two_workloads(tmp_path, capsys):
    src = tmp_path / "timing"
    entry = {"level1": {"1_Square_matrix_multiplication_.py": row(hardware="NVIDIA L40S")}}
    write_timing(src, "L40S_matx3", "torch", entry, date="2025-07-01T23:59:59+00:00")
    write_timing(src, "L40S_matx3", "torch_compile_inductor_default", entry, date="2025-07-02T00:00:00+00:00")
    write_timing(src, "L40S_matx3", "torch_compile_cudagraphs", entry, date="2026-01-01T00:00:00+00:00")
    bundles, _ = imported(capsys, src, "--out", tmp_path / "out")

    workload = {b["run"]["spec"]["sourceNative"]["externalId"].split("/")[1]: b["run"]["spec"]["workloadDigest"]
                for b in bundles}
    assert workload["torch"] != workload["torch_compile_inductor_default"]
    assert workload["torch_compile_inductor_default"] == workload["torch_compile_cudagraphs"]

    # …and the site puts them on two boards of one problem.
    code, _, err = run_cli(capsys, "build", "--content", tmp_path / "out", "--out", tmp_path / "site")
    assert code == 0, err
    api = json.loads((tmp_path / "site/api/v1/problems/level1-1-square-matrix-multiplication.json").read_text())
    assert sorted(len(board["entries"]) for board in api["boards"]) == [1, 2]


def test_observed_at_flag_dates_files_provenance_does_not(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "MI250", "torch", {"level1": {"1_A.py": row(hardware="AMD Instinct MI250X/MI250")}})
    [b], err = imported(capsys, src, "--out", tmp_path / "a", "--observed-at", "2025-04-25T18:57:48-05:00")
    assert b["run"]["spec"]["observedAt"] == "2025-04-25T23:57:48.000Z"
    assert err == ""
    [c], err = imported(capsys, src, "--out", tmp_path / "b", "--observed-at", "2025-08-01")
    assert c["run"]["spec"]["observedAt"] == "2025-08-01T00:00:00.000Z"
    assert b["run"]["spec"]["workloadDigest"] != c["run"]["spec"]["workloadDigest"]  # either side of 2025-07-02
    # With neither, the file has no date: an error naming it (its modification time is when it was copied).
    err = failed_import(capsys, "kernelbench", src, "--out", tmp_path / "c")
    assert err.splitlines() == [
        f"{src / 'MI250' / 'baseline_time_torch.json'}: no date for its timings: no PROVENANCE.txt line names it and "
        "--observed-at is not given; add 'MI250/baseline_time_torch.json [COMMIT] DATE-TIME' to a PROVENANCE.txt in "
        "the folder holding its host folder, or give --observed-at",
        "error: 1 problem in 1 file; nothing was written"]


def test_problems_checkout_makes_the_workload_the_source_file(tmp_path, capsys):
    src = tmp_path / "timing"
    entry = {"level1": {"1_A.py": row(hardware="NVIDIA L40S"), "2_B.py": row(hardware="NVIDIA L40S")}}
    write_timing(src, "L40S_matx3", "torch", entry, date="2025-01-01T00:00:00Z")
    write_timing(src, "L40S_matx3", "torch_compile_inductor_default", entry, date="2026-01-01T00:00:00Z")
    kb = tmp_path / "KernelBench" / "KernelBench" / "level1"
    kb.mkdir(parents=True)
    (kb / "1_A.py").write_text(textwrap.dedent("""\
        import torch
        class Model(torch.nn.Module):
            pass
    """))
    bundles, err = imported(capsys, src, "--out", tmp_path / "out", "--problems", kb.parent)
    digest = {(b["run"]["spec"]["sourceNative"]["externalId"].split("/", 2)[1:][0],
               b["run"]["spec"]["sourceNative"]["externalId"].rsplit("/", 1)[1]): b["run"]["spec"]["workloadDigest"]
              for b in bundles}
    # One source file: one workload, whatever the date…
    assert digest[("torch", "1_A.py")] == digest[("torch_compile_inductor_default", "1_A.py")]
    # …a problem missing from the checkout falls back to its name and date, with a warning.
    assert digest[("torch", "2_B.py")] != digest[("torch_compile_inductor_default", "2_B.py")]
    assert "1 problem file not found there (e.g. level1/2_B.py)" in err
    assert "dated before 2025-07-02" in err


def test_problems_must_be_a_kernelbench_folder(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row()}}, date="2026-01-01T00:00:00Z")
    code, _, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--problems", tmp_path)
    assert code == 1
    assert "--problems" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


# --- KernelBench's history (--repo) ----------------------------------------------------------------

KB = "KernelBench"
TIMING = "results/timing"


@needs_git
def test_repo_workload_is_the_problem_source_at_the_commit_that_added_the_timing_file(tmp_path, capsys):
    repo = GitRepo(tmp_path / "kb")
    a1, a2, b = problem_source("A", 1024), problem_source("A", 4096), problem_source("B", 64)
    repo.commit("2025-01-01T00:00:00Z", {f"{KB}/level1/1_A.py": a1, f"{KB}/level1/2_B.py": b})
    src = tmp_path / "timing"
    entry = {"level1": {"1_A.py": row(hardware="NVIDIA L4"), "2_B.py": row(hardware="NVIDIA L4")}}
    # PROVENANCE dates both files after every commit: the commit that added a file's bytes decides.
    old = write_timing(src, "L4_GCP", "torch", entry, date="2026-06-01T00:00:00Z")
    added = repo.commit("2025-02-01T00:00:00Z", {f"{TIMING}/L4_GCP/{old.name}": old.read_bytes()})
    new = write_timing(src, "L4_GCP", "torch_compile_inductor_default", {"level1": {
        "1_A.py": row(mean=1.45, hardware="NVIDIA L4"), "2_B.py": row(hardware="NVIDIA L4")}},
        date="2026-06-01T00:00:00Z")
    resized = repo.commit("2025-03-01T00:00:00Z", {f"{KB}/level1/1_A.py": a2,
                                                    f"{TIMING}/L4_GCP/{new.name}": new.read_bytes()})

    code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", repo.root)
    assert code == 0, err
    assert err == ""
    assert f"L4_GCP/{old.name}: KernelBench version {added[:7]} (2025-02-01), the commit that added this file" in out
    assert f"L4_GCP/{new.name}: KernelBench version {resized[:7]} (2025-03-01)" in out
    bundles = [b for p in sorted((tmp_path / "out").rglob("*.json")) for b in json.loads(p.read_text())]
    # Each workload is the problem's source in the file's version: only the changed problem differs.
    assert spec_of(bundles, "torch", "level1/1_A.py")["workloadDigest"] == source_workload("level1/1_A.py", a1)
    assert spec_of(bundles, "torch_compile_inductor_default", "level1/1_A.py")["workloadDigest"] == \
        source_workload("level1/1_A.py", a2)
    assert spec_of(bundles, "torch", "level1/2_B.py")["workloadDigest"] == \
        spec_of(bundles, "torch_compile_inductor_default", "level1/2_B.py")["workloadDigest"] == \
        source_workload("level1/2_B.py", b)
    # Its runs date from the commit that added its bytes, not the later date PROVENANCE.txt gives.
    assert spec_of(bundles, "torch", "level1/1_A.py")["observedAt"] == "2025-02-01T00:00:00.000Z"
    assert (f"L4_GCP/{old.name}: KernelBench version {added[:7]} (2025-02-01), the commit that added this file; its "
            f"runs dated 2025-02-01T00:00:00.000Z, when its bytes were first committed ({added[:7]}), not "
            "2026-06-01T00:00:00.000Z as given") in out

    # --problems with the same source hashes it the same way: the two agree.
    folder = tmp_path / "checkout" / "level1"
    folder.mkdir(parents=True)
    (folder / "1_A.py").write_text(a1, encoding="utf-8")
    (folder / "2_B.py").write_text(b, encoding="utf-8")
    code, _, err = run_cli(capsys, "import", "kernelbench", src / "L4_GCP", "--out", tmp_path / "out2",
                           "--problems", folder.parent)
    assert code == 0, err
    again = [b for p in sorted((tmp_path / "out2").rglob("*.json")) for b in json.loads(p.read_text())]
    assert spec_of(again, "torch", "level1/1_A.py")["workloadDigest"] == source_workload("level1/1_A.py", a1)


@needs_git
@pytest.mark.parametrize("reorganisation", ["copy", "move"])
def test_a_copied_file_is_dated_and_its_workloads_taken_from_the_first_commit_of_its_bytes(tmp_path, capsys,
                                                                                             reorganisation):
    # One host's file, copied (or moved) under another host's folder by a later commit that also resizes a
    # problem: its runs are of the older sources and date, wherever and whenever the bytes were copied to.
    repo = GitRepo(tmp_path / "kb")
    a1, a2, b = problem_source("A", 1024), problem_source("A", 4096), problem_source("B", 64)
    repo.commit("2025-01-01T00:00:00Z", {f"{KB}/level1/1_A.py": a1, f"{KB}/level1/2_B.py": b})
    src = tmp_path / "timing"
    entry = {"level1": {"1_A.py": row(hardware="NVIDIA L40S"), "2_B.py": None}}
    copied = write_timing(src, "L40S_babel", "torch", entry, date="2025-08-01T00:00:00Z")
    original = f"{TIMING}/L40S_matx3/{copied.name}"
    first = repo.commit("2025-02-01T00:00:00Z", {original: copied.read_bytes()}, "L40S_matx3's timing")
    repo.commit("2025-08-01T00:00:00Z", {f"{KB}/level1/1_A.py": a2, f"{TIMING}/L40S_babel/{copied.name}":
                                         copied.read_bytes(), **({original: None} if reorganisation == "move" else {})},
                "reorganise the results, resize A")

    code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", repo.root)
    assert code == 0, err
    assert err.splitlines() == [
        f"warning: {copied} is a copy of {original} first committed at {first[:7]} (2025-02-01): its runs are dated "
        "and their workloads taken from there"]
    assert (f"L40S_babel/{copied.name}: KernelBench version {first[:7]} (2025-02-01), the commit that first added its "
            f"bytes, as {original}; its runs dated 2025-02-01T00:00:00.000Z, when its bytes were first committed "
            f"({first[:7]}), not 2025-08-01T00:00:00.000Z as given") in out
    bundles = json.loads((tmp_path / "out" / "L40S_babel" / copied.name).read_text())
    assert [b["run"]["spec"]["observedAt"] for b in bundles] == ["2025-02-01T00:00:00.000Z"] * 2
    assert spec_of(bundles, "torch", "level1/1_A.py")["workloadDigest"] == source_workload("level1/1_A.py", a1)
    assert spec_of(bundles, "torch", "level1/2_B.py")["workloadDigest"] == source_workload("level1/2_B.py", b)


@needs_git
def test_with_repo_a_file_nothing_else_dates_is_dated_by_the_commit_of_its_bytes(tmp_path, capsys):
    repo = GitRepo(tmp_path / "kb")
    repo.commit("2025-01-01T00:00:00Z", {f"{KB}/level1/1_A.py": problem_source("A", 16)})
    src = tmp_path / "timing"
    held = write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row(hardware="NVIDIA L4")}})
    repo.commit("2025-03-01T12:00:00+02:00", {f"{TIMING}/L4_GCP/{held.name}": held.read_bytes()})
    [b], err = imported(capsys, src, "--out", tmp_path / "out", "--repo", repo.root)
    assert err == "" and b["run"]["spec"]["observedAt"] == "2025-03-01T10:00:00.000Z"
    # A file the history does not hold still needs a date, and the error says both where it looked.
    loose = write_timing(src, "L4_GCP", "torch_compile_inductor_default", {"level1": {"1_A.py": None}})
    code, _, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", repo.root)
    assert code == 1
    assert (f"{loose}: no date for its timings: no PROVENANCE.txt line names it and --observed-at is not given, and "
            "--repo's history does not hold its bytes; add") in err


def _resized_and_renamed(tmp_path) -> tuple[GitRepo, dict[str, str]]:
    """A history: the old problems (2025-01-01), then a resize that renames 35_LTSM.py to 35_LSTM.py and
    replaces 2_Old.py with an unrelated 2_New.py (2025-07-10)."""
    repo = GitRepo(tmp_path / "kb")
    sources = {"A-old": problem_source("A", 1024), "A-new": problem_source("A", 8192),
               "LTSM": problem_source("LSTM", 512), "LSTM": problem_source("LSTM", 2048),
               "Old": problem_source("Old", 64), "New": "import torch\n\nclass Model(torch.nn.Module):\n    pass\n"}
    old = repo.commit("2025-01-01T00:00:00Z", {f"{KB}/level1/1_A.py": sources["A-old"],
                                               f"{KB}/level1/2_Old.py": sources["Old"],
                                               f"{KB}/level3/35_LTSM.py": sources["LTSM"]}, "old problems")
    repo.rename(f"{KB}/level3/35_LTSM.py", f"{KB}/level3/35_LSTM.py")
    resize = repo.commit("2025-07-10T00:00:00Z", {
        f"{KB}/level1/1_A.py": sources["A-new"], f"{KB}/level1/2_Old.py": None,
        f"{KB}/level1/2_New.py": sources["New"], f"{KB}/level3/35_LSTM.py": sources["LSTM"]}, "resize")
    return repo, {"old": old, "resize": resize, **sources}


@needs_git
def test_late_file_with_old_names_is_matched_to_the_version_that_has_them(tmp_path, capsys):
    repo, kb = _resized_and_renamed(tmp_path)
    src = tmp_path / "timing"
    # Committed after the resize, but naming the old files: pre-resize timings committed late.
    late = write_timing(src, "H100_PCIe_LambdaLabs", "torch", {
        "level1": {"1_A.py": row(), "2_Old.py": row()}, "level3": {"35_LTSM.py": row()}},
        date="2025-08-01T00:00:00Z")
    fresh = write_timing(src, "H100_PCIe_LambdaLabs", "torch_compile_inductor_default", {
        "level1": {"1_A.py": row(), "2_New.py": row()}, "level3": {"35_LSTM.py": row()}},
        date="2025-08-01T00:00:00Z")
    repo.commit("2025-08-01T00:00:00Z", {f"{TIMING}/H100_PCIe_LambdaLabs/{late.name}": late.read_bytes(),
                                         f"{TIMING}/H100_PCIe_LambdaLabs/{fresh.name}": fresh.read_bytes()})

    code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", repo.root)
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1
    assert str(late) in warnings[0] and f"{kb['old'][:7]} (2025-01-01)" in warnings[0]
    assert "level1/2_Old.py" in warnings[0] and "level3/35_LTSM.py" in warnings[0]
    assert f"{late.name}: KernelBench version {kb['old'][:7]} (2025-01-01)" in out

    bundles = [b for p in sorted((tmp_path / "out").rglob("*.json")) for b in json.loads(p.read_text())]
    runs = by_name(bundles)
    lstm_old = runs["kernelbench-h100-pcie-lambdalabs-torch-l3-35-ltsm"]["run"]  # its name stays the source's
    native = lstm_old["spec"]["sourceNative"]
    assert native["externalId"] == "H100_PCIe_LambdaLabs/torch/level3/35_LSTM.py"
    assert native["formerExternalId"] == "H100_PCIe_LambdaLabs/torch/level3/35_LTSM.py"
    assert lstm_old["metadata"]["title"] == "LSTM · PyTorch eager · Lambda Labs"
    assert lstm_old["spec"]["workloadDigest"] == source_workload("level3/35_LTSM.py", kb["LTSM"])
    assert spec_of(bundles, "torch", "level1/1_A.py")["workloadDigest"] == source_workload("level1/1_A.py", kb["A-old"])
    # A problem replaced under its number is not a rename: it keeps its own name.
    replaced = spec_of(bundles, "torch", "level1/2_Old.py")["sourceNative"]
    assert replaced["externalId"] == "H100_PCIe_LambdaLabs/torch/level1/2_Old.py" and "formerExternalId" not in replaced

    # The file naming the new problems is of the new version, with no former names.
    lstm_new = spec_of(bundles, "torch_compile_inductor_default", "level3/35_LSTM.py")
    assert "formerExternalId" not in lstm_new["sourceNative"]
    assert lstm_new["workloadDigest"] == source_workload("level3/35_LSTM.py", kb["LSTM"])
    assert spec_of(bundles, "torch_compile_inductor_default", "level1/1_A.py")["workloadDigest"] == \
        source_workload("level1/1_A.py", kb["A-new"])


@needs_git
def test_file_not_in_the_history_uses_the_version_in_force_at_its_date(tmp_path, capsys):
    repo = GitRepo(tmp_path / "kb")
    sources = [problem_source("A", size) for size in (1, 2, 3)]
    repo.commit("2025-01-01T00:00:00Z", {f"{KB}/level1/1_A.py": sources[0]})
    second = repo.commit("2025-03-01T00:00:00Z", {f"{KB}/level1/1_A.py": sources[1]})
    repo.commit("2025-05-01T00:00:00Z", {f"{KB}/level1/1_A.py": sources[2]})
    src = tmp_path / "timing"
    write_timing(src, "MI250", "torch", {"level1": {"1_A.py": row(hardware="AMD Instinct MI250X/MI250")}},
                 date="2025-04-25T18:57:48-05:00")

    code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", repo.root)
    assert code == 0, err
    assert err == ""
    assert f"KernelBench version {second[:7]} (2025-03-01), in force on its date, 2025-04-25" in out
    [b] = json.loads((tmp_path / "out" / "MI250" / "baseline_time_torch.json").read_text())
    assert b["run"]["spec"]["workloadDigest"] == source_workload("level1/1_A.py", sources[1])


@needs_git
def test_file_naming_problems_of_several_versions_imports_each_problem_by_its_nearest_version(tmp_path, capsys):
    # A file copied from another era into a later commit: it names problems from before the resize (2_Old), from
    # after it (35_LSTM), one that only a pull request's branch ever had (5_Side), and two no tree has.
    repo, kb = _resized_and_renamed(tmp_path)
    repo.git("checkout", "-q", "-b", "pull-request")
    side_source = problem_source("Side", 32)
    side = repo.commit("2025-07-20T00:00:00Z", {f"{KB}/level2/5_Side.py": side_source}, "a problem, never merged")
    repo.git("checkout", "-q", "main")
    src = tmp_path / "timing"
    l40s = row(hardware="NVIDIA L40S")
    copied = write_timing(src, "L40S_matx3", "torch", {
        "level1": {"1_A.py": l40s, "2_Old.py": l40s, "7_Nowhere.py": l40s},
        "level2": {"5_Side.py": l40s, "6_Gone.py": None},
        "level3": {"35_LSTM.py": l40s}}, date="2025-08-01T00:00:00Z")
    added = repo.commit("2025-08-01T00:00:00Z", {f"{TIMING}/L40S_matx3/{copied.name}": copied.read_bytes()})

    code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", repo.root)
    assert code == 0, err
    warnings = [line.removeprefix("warning: ") for line in err.splitlines()]
    assert all(line.startswith(f"{copied}: ") for line in warnings), warnings
    # One warning for each problem that cannot be identified; its entry is not imported.
    for lost in ("level1/7_Nowhere.py", "level2/6_Gone.py"):
        assert f"{copied}: {lost}: no KernelBench version has this problem, nor any commit on a ref of " \
               f"{repo.root}; its entry is not imported" in warnings
    # One saying which version each other problem is of.
    [matched] = [line for line in warnings if "no one KernelBench version has together" in line]
    assert f"matched to version {added[:7]} (2025-08-01), the commit that added this file, which has 2 of its " \
           "6 problems" in matched
    assert f"level1/2_Old.py ({kb['old'][:7]} (2025-01-01))" in matched
    assert f"level2/5_Side.py ({side[:7]} (2025-07-20))" in matched
    assert len(warnings) == 3
    assert f"L40S_matx3/{copied.name}: KernelBench version {added[:7]} (2025-08-01)" in out
    assert "Imported 4 runs (4 passed) from 1 file" in out

    bundles = json.loads((tmp_path / "out" / "L40S_matx3" / copied.name).read_text())
    workloads = {b["run"]["spec"]["sourceNative"]["externalId"].split("/", 2)[2]: b["run"]["spec"]["workloadDigest"]
                 for b in bundles}
    assert workloads == {
        "level1/1_A.py": source_workload("level1/1_A.py", kb["A-new"]),
        "level1/2_Old.py": source_workload("level1/2_Old.py", kb["Old"]),
        "level2/5_Side.py": source_workload("level2/5_Side.py", side_source),
        "level3/35_LSTM.py": source_workload("level3/35_LSTM.py", kb["LSTM"]),
    }


@needs_git
def test_reimport_with_repo_is_byte_identical(tmp_path, capsys):
    repo, _ = _resized_and_renamed(tmp_path)
    src = tmp_path / "timing"
    write_timing(src, "L40S_matx3", "torch", {"level1": {"1_A.py": row(hardware="NVIDIA L40S")},
                                              "level3": {"35_LTSM.py": None}}, date="2025-01-19T19:25:46-08:00")
    _, _ = imported(capsys, src, "--out", tmp_path / "out", "--repo", repo.root)
    first = snapshot(tmp_path / "out")
    code, out, _ = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", repo.root)
    assert code == 0 and "(0 written, 1 unchanged)" in out
    assert snapshot(tmp_path / "out") == first


def test_repo_must_be_a_kernelbench_git_checkout(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row()}}, date="2026-01-01T00:00:00Z")
    plain = tmp_path / "plain" / "KernelBench" / "level1"
    plain.mkdir(parents=True)
    (plain / "1_A.py").write_text("import torch\n")
    cases = [(tmp_path / "nowhere", "not found"), (tmp_path / "plain", "not a git repository")]
    if shutil.which("git"):
        other = GitRepo(tmp_path / "other")
        other.commit("2025-01-01T00:00:00Z", {"README.md": "not KernelBench\n"})
        cases.append((other.root, "its HEAD commit has no KernelBench/levelN/*.py problem sources"))
    for folder, message in cases:
        code, _, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", folder)
        assert code == 1, err
        assert f"--repo: {folder}: {message}" in err
        assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_repo_without_git_is_an_error_naming_repo(tmp_path, capsys, monkeypatch):
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row()}}, date="2026-01-01T00:00:00Z")
    (tmp_path / "kb").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    code, _, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", tmp_path / "kb")
    assert code == 1
    assert "--repo: the git command was not found" in err and "Traceback" not in err


def test_repo_and_problems_are_mutually_exclusive(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row()}}, date="2026-01-01T00:00:00Z")
    with pytest.raises(SystemExit) as exit_:
        main(["import", "kernelbench", str(src), "--out", str(tmp_path / "out"),
              "--repo", str(tmp_path), "--problems", str(tmp_path)])
    assert exit_.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_without_history_a_late_file_naming_pre_rename_problems_is_of_the_old_sizes(tmp_path, capsys):
    src = tmp_path / "timing"
    l40s = row(hardware="NVIDIA L40S")
    old_names = {"level3": {"35_LTSM.py": l40s, "1_MLP.py": l40s}}
    early = write_timing(src, "L40S_matx3", "torch", old_names, date="2025-01-19T19:25:46-08:00")
    late = write_timing(src, "L40S_matx3", "torch_compile_inductor_default", old_names, date="2026-01-01T00:00:00Z")
    write_timing(src, "L40S_matx3", "torch_compile_cudagraphs", {"level3": {"35_LSTM.py": l40s, "1_MLP.py": l40s}},
                 date="2026-01-01T00:00:00Z")
    bundles, err = imported(capsys, src, "--out", tmp_path / "out")

    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and str(late) in warnings[0] and "level3/35_LTSM.py" in warnings[0]
    assert str(early) not in err
    workload = {(impl, problem): spec_of(bundles, impl, problem)["workloadDigest"]
                for impl, problem in [("torch", "level3/35_LTSM.py"), ("torch", "level3/1_MLP.py"),
                                      ("torch_compile_inductor_default", "level3/35_LTSM.py"),
                                      ("torch_compile_inductor_default", "level3/1_MLP.py"),
                                      ("torch_compile_cudagraphs", "level3/1_MLP.py")]}
    # The late file's timings are of the old sizes, as the early file's are: all of them, not only the renamed one's.
    assert workload["torch", "level3/35_LTSM.py"] == workload["torch_compile_inductor_default", "level3/35_LTSM.py"]
    assert workload["torch", "level3/1_MLP.py"] == workload["torch_compile_inductor_default", "level3/1_MLP.py"]
    assert workload["torch", "level3/1_MLP.py"] != workload["torch_compile_cudagraphs", "level3/1_MLP.py"]
    # Either way the run is shown under the problem's newest name.
    native = spec_of(bundles, "torch_compile_inductor_default", "level3/35_LTSM.py")["sourceNative"]
    assert native["externalId"] == "L40S_matx3/torch_compile_inductor_default/level3/35_LSTM.py"
    assert native["formerExternalId"] == "L40S_matx3/torch_compile_inductor_default/level3/35_LTSM.py"
    assert "formerExternalId" not in spec_of(bundles, "torch_compile_cudagraphs", "level3/35_LSTM.py")["sourceNative"]


# --- a host timed again ------------------------------------------------------------------------


def problem_api(capsys, content: Path, site: Path, slug: str) -> dict:
    """Build `content` and return the built site's API document of one problem."""
    code, _, err = run_cli(capsys, "build", "--content", content, "--out", site)
    assert code == 0, err
    return json.loads((site / "api" / "v1" / "problems" / f"{slug}.json").read_text(encoding="utf-8"))


def h100(mean: float) -> dict:
    return row(mean=mean, lo=round(mean - 0.1, 3), hi=round(mean + 0.1, 3), hardware="NVIDIA H100 80GB HBM3")


@needs_git
def test_host_folders_differing_in_case_are_one_host_timed_twice(tmp_path, capsys):
    # KernelBench's H100_modal (timed in November) and H100_Modal (January): one GPU at one provider, timed again.
    repo = GitRepo(tmp_path / "kb")
    repo.commit("2025-10-01T00:00:00Z", {f"{KB}/level1/1_A.py": problem_source("A", 1024),
                                         f"{KB}/level1/2_B.py": problem_source("B", 64)})
    src = tmp_path / "timing"
    nov = write_timing(src, "H100_modal", "torch", {"level1": {"1_A.py": h100(1.5), "2_B.py": h100(2.0)}},
                       date="2025-11-20T10:00:00Z")
    jan = write_timing(src, "H100_Modal", "torch", {"level1": {"1_A.py": h100(1.2), "2_B.py": h100(2.0)}},
                       date="2026-01-10T10:00:00Z")
    repo.commit("2025-11-20T10:00:00Z", {f"{TIMING}/H100_modal/{nov.name}": nov.read_bytes()})
    repo.commit("2026-01-10T10:00:00Z", {f"{TIMING}/H100_Modal/{jan.name}": jan.read_bytes()})

    content = tmp_path / "content"
    code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", content / "kb", "--repo", repo.root)
    assert code == 0, err
    assert err == ""
    assert "Imported 4 runs (4 passed) from 2 files on 1 host" in out
    # One host, in the host table's spelling; the later timing's runs and file carry its date.
    assert sorted(snapshot(content)) == ["kb/H100_Modal/baseline_time_torch.20260110t100000z.json",
                                         "kb/H100_Modal/baseline_time_torch.json"]
    bundles = [b for p in sorted(content.rglob("*.json")) for b in json.loads(p.read_text())]
    assert {json.dumps(b["environment"], sort_keys=True) for b in bundles} == {json.dumps(bundles[0]["environment"],
                                                                                         sort_keys=True)}
    assert bundles[0]["environment"]["metadata"] == {"name": "kernelbench-h100-modal",
                                                     "title": "KernelBench host · H100 (Modal)"}
    assert sorted(b["run"]["metadata"]["name"] for b in bundles) == [
        "kernelbench-h100-modal-torch-20260110t100000z-l1-1-a", "kernelbench-h100-modal-torch-20260110t100000z-l1-2-b",
        "kernelbench-h100-modal-torch-l1-1-a", "kernelbench-h100-modal-torch-l1-2-b"]
    assert {b["run"]["spec"]["sourceNative"]["benchmark"] for b in bundles} == {
        "H100_modal/baseline_time_torch.json", "H100_Modal/baseline_time_torch.json"}

    # The site shows January's runs as current and November's as their history, with a verdict.
    api = problem_api(capsys, content, tmp_path / "site", "level1-1-a")
    [board] = api["boards"]
    assert board["host"] == "kernelbench-h100-modal"
    [current] = board["entries"]
    [earlier] = board["history"]
    assert (current["observed_at"], earlier["observed_at"]) == ("2026-01-10T10:00:00.000Z", "2025-11-20T10:00:00.000Z")
    assert current["trend"]["previous"] == earlier["run"] == "kernelbench-h100-modal-torch-l1-1-a"
    assert current["trend"]["verdict"] == "improved"
    assert earlier["superseded_by"] == current["run"]
    b_api = problem_api(capsys, content, tmp_path / "site", "level1-2-b")
    assert b_api["boards"][0]["entries"][0]["trend"]["verdict"] == "unchanged"
    _imported_one_by_one_in_either_order(capsys, tmp_path, src, repo, content)


def _imported_one_by_one_in_either_order(capsys, tmp_path: Path, src: Path, repo: GitRepo, content: Path) -> None:
    """Imported one after the other into one --out, the folders give the same files; the second import neither
    clashes with the first's runs nor replaces its file."""
    one_by_one = tmp_path / "one-by-one"
    for folder in ("H100_modal", "H100_Modal"):
        _, err = imported(capsys, src / folder, "--out", one_by_one / "kb", "--repo", repo.root)
        assert err == ""
    assert snapshot(one_by_one) == snapshot(content)
    # In the other order the later timing keeps the names it was given first, and is still the current one.
    reversed_ = tmp_path / "reversed"
    for folder in ("H100_Modal", "H100_modal"):
        imported(capsys, src / folder, "--out", reversed_ / "kb", "--repo", repo.root)
    assert sorted(snapshot(reversed_)) == ["kb/H100_Modal/baseline_time_torch.20251120t100000z.json",
                                           "kb/H100_Modal/baseline_time_torch.json"]
    [board] = problem_api(capsys, reversed_, tmp_path / "site2", "level1-1-a")["boards"]
    assert [e["observed_at"] for e in board["entries"]] == ["2026-01-10T10:00:00.000Z"]
    assert [e["observed_at"] for e in board["history"]] == ["2025-11-20T10:00:00.000Z"]
    assert board["entries"][0]["trend"]["verdict"] == "improved"
    # Again, together, into either: every file is unchanged.
    for folder in (one_by_one, reversed_):
        code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", folder / "kb", "--repo", repo.root)
        assert code == 0 and err == "" and "(0 written, 2 unchanged)" in out, err


def test_provenance_line_with_a_commit_dates_the_file(tmp_path, capsys):
    # PROVENANCE.txt lines as a history's extraction writes them: path, the commit that added the file, its date.
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row(hardware="NVIDIA L4")}})
    write_timing(src, "My Host", "torch", {"level1": {"1_A.py": row()}})
    (src / "PROVENANCE.txt").write_text(
        "L4_GCP/baseline_time_torch.json 4caba1c 2026-01-14T16:21:49-08:00\n"
        "My Host/baseline_time_torch.json 2d949ab985ccbbc91fbd4bb55da36b386abf0da5 2025-07-15T04:08:57+00:00\n",
        encoding="utf-8")
    bundles, err = imported(capsys, src, "--out", tmp_path / "out")
    assert err.count("warning: ") == 1 and "'My Host' is not in the importer's table" in err
    dates = {b["run"]["spec"]["sourceNative"]["benchmark"]: b["run"]["spec"]["observedAt"] for b in bundles}
    assert dates == {"L4_GCP/baseline_time_torch.json": "2026-01-15T00:21:49.000Z",
                     "My Host/baseline_time_torch.json": "2025-07-15T04:08:57.000Z"}


@needs_git
def test_commit_a_plain_clone_lacks_is_named_with_how_to_fetch_it(tmp_path, capsys):
    # A timing file added by a pull request whose commit only GitHub's refs/pull/<n>/head reaches: a plain
    # clone lacks it.
    repo = GitRepo(tmp_path / "kb")
    before, fixed = problem_source("A", 1024), problem_source("A", 1024) + "\n# fixed in the pull request\n"
    repo.commit("2025-01-01T00:00:00Z", {f"{KB}/level1/1_A.py": before})
    repo.git("checkout", "-q", "-b", "pull-request")
    src = tmp_path / "timing"
    timed = write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row(hardware="NVIDIA L4")}})
    pull = repo.commit("2025-02-01T00:00:00Z", {f"{KB}/level1/1_A.py": fixed,
                                                f"{TIMING}/L4_GCP/{timed.name}": timed.read_bytes()})
    repo.git("checkout", "-q", "main")
    repo.git("update-ref", "refs/pull/7/head", pull)
    repo.git("branch", "-q", "-D", "pull-request")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo.root), str(clone)], check=True, capture_output=True, env=repo.env)
    (src / "PROVENANCE.txt").write_text(f"L4_GCP/{timed.name} {pull} 2025-02-01T00:00:00Z\n", encoding="utf-8")

    code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", clone)
    assert code == 0, err
    assert err.splitlines() == [
        f"warning: {timed}: PROVENANCE.txt says commit {pull} added it, which {clone} lacks (commits reachable only "
        f"from a pull request's ref are not in a plain clone: fetch them in {clone} with "
        "git fetch origin '+refs/pull/*/head:refs/remotes/origin/pr/*'); matched by its date instead"]
    assert (f"L4_GCP/{timed.name}: KernelBench version {repo.git('rev-parse', 'main')[:7]} (2025-01-01), in force "
            f"on its date, 2025-02-01 (the file is not in --repo's history; commit {pull} is not in --repo)") in out
    [b] = json.loads((tmp_path / "out" / "L4_GCP" / timed.name).read_text())
    assert b["run"]["spec"]["workloadDigest"] == source_workload("level1/1_A.py", before)

    # The command the warning gives fetches it; the file is then of the pull request's version.
    subprocess.run(["git", "-C", str(clone), "fetch", "-q", "origin", "+refs/pull/*/head:refs/remotes/origin/pr/*"],
                   check=True, capture_output=True, env=repo.env)
    code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", clone)
    assert code == 0 and err == "", err
    assert f"L4_GCP/{timed.name}: KernelBench version {pull[:7]} (2025-02-01), the commit that added this file" in out
    [b] = json.loads((tmp_path / "out" / "L4_GCP" / timed.name).read_text())
    assert b["run"]["spec"]["workloadDigest"] == source_workload("level1/1_A.py", fixed)
    # A file whose bytes no commit holds (edited since) is of the commit PROVENANCE.txt names, when --repo has it.
    timed.write_text(json.dumps({"level1": {"1_A.py": row(mean=1.45, hardware="NVIDIA L4")}}), encoding="utf-8")
    code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out", "--repo", clone)
    assert code == 0 and err == "", err
    assert (f"L4_GCP/{timed.name}: KernelBench version {pull[:7]} (2025-02-01), the commit PROVENANCE.txt names for "
            "it (its bytes are not in --repo's history)") in out


# --- hosts and implementations -----------------------------------------------------------------


def test_unknown_host_is_built_from_its_hardware_strings_with_a_warning(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "H200_somewhere", "torch_compile_aot_eager", {"level1": {"1_A.py": row(hardware="NVIDIA H200")}},
                 date="2026-01-01T00:00:00Z")
    [b], err = imported(capsys, src, "--out", tmp_path / "out")
    assert "warning: host 'H200_somewhere' is not in the importer's table" in err
    assert "'NVIDIA H200'" in err
    env = b["environment"]
    assert env["metadata"]["name"] == "kernelbench-h200-somewhere"
    assert env["spec"]["hardware"] == {"vendor": "nvidia", "product": "NVIDIA H200"}
    assert b["run"]["metadata"]["title"] == "A · torch.compile (aot_eager) · H200_somewhere"


@pytest.mark.parametrize("suffix, label", [
    ("torch", "PyTorch eager"),
    ("torch_compile_inductor_max-autotune-no-cudagraphs", "torch.compile (inductor, max-autotune-no-cudagraphs)"),
    ("torch_compile_cudagraphs", "torch.compile (cudagraphs)"),
    ("triton_handwritten", "triton handwritten"),
])
def test_implementation_label_comes_from_the_file_name(tmp_path, capsys, suffix, label):
    src = tmp_path / "timing"
    write_timing(src, "MI250", suffix, {"level1": {"1_A.py": row(hardware="AMD Instinct MI250X/MI250")}},
                 date="2025-04-25T18:57:48-05:00")
    [b], err = imported(capsys, src / "MI250", "--out", tmp_path / "out")  # a host folder works too
    assert err == ""
    assert b["run"]["metadata"]["title"] == f"A · {label} · MI250"
    assert b["environment"]["spec"]["hardware"]["architecture"] == "gfx90a"


def test_long_names_still_make_valid_unique_run_names(tmp_path, capsys):
    import re

    src = tmp_path / "timing"
    long = "Conv" + "_Very_Long_Operator_Chain" * 10
    write_timing(src, "L40S_matx3", "torch_compile_inductor_max-autotune-no-cudagraphs",
                 {"level2": {f"1_{long}.py": row(hardware="NVIDIA L40S"), f"2_{long}.py": None}},
                 date="2025-01-01T00:00:00Z")
    bundles, _ = imported(capsys, src, "--out", tmp_path / "out")
    names = [b["run"]["metadata"]["name"] for b in bundles]
    assert len(set(names)) == 2
    assert all(re.match(NAME_PATTERN, n) and len(n) <= 200 for n in names)


# --- writing ---------------------------------------------------------------------------------


def test_rerun_is_byte_identical_and_one_file_per_run_works(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row(), "2_B.py": None}}, date="2026-01-01T00:00:00Z")
    _, _ = imported(capsys, src, "--out", tmp_path / "out")
    first = snapshot(tmp_path / "out")
    code, out, _ = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out")
    assert code == 0 and "(0 written, 1 unchanged)" in out
    assert snapshot(tmp_path / "out") == first

    bundles, _ = imported(capsys, src, "--out", tmp_path / "per-run", "--one-file-per-run")
    assert sorted(snapshot(tmp_path / "per-run")) == [
        "L4_GCP/kernelbench-l4-gcp-torch-l1-1-a.json", "L4_GCP/kernelbench-l4-gcp-torch-l1-2-b.json"]
    assert bundles == json.loads(first["L4_GCP/baseline_time_torch.json"])


def test_a_stale_copy_of_runs_an_import_writes_is_warned_about(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row(hardware="NVIDIA L4")}}, date="2026-01-01T00:00:00Z")
    write_timing(src, "L4_GCP", "torch_compile_inductor_default", {"level1": {"1_A.py": row(hardware="NVIDIA L4")}},
                 date="2026-01-01T00:00:00Z")
    imported(capsys, src, "--out", tmp_path / "out")
    # The same runs, one file each: the arrays written before now hold runs of the same names.
    _, err = imported(capsys, src, "--out", tmp_path / "out", "--one-file-per-run")
    assert err.splitlines() == [
        f"warning: {tmp_path / 'out'}: 2 files this import did not write hold runs it writes (e.g. "
        f"{tmp_path / 'out' / 'L4_GCP' / 'baseline_time_torch.json'}: kernelbench-l4-gcp-torch-l1-1-a); delete "
        "them, or two runs of one name will clash"]


@pytest.mark.parametrize("text, message", [
    ('{"level1": {"1_A.py": {"mean": 1.0,}}}', "invalid JSON at line 1"),
    ('[1, 2]', "expected an object of levels"),
    ('{"level1": {"1_A.py": {"std": 0.1}}}', "level1/1_A.py: has no 'mean'"),
    ('{"level1": {"1_A.py": {"mean": "1.0"}}}', "level1/1_A.py: mean: expected a number of milliseconds, not a string"),
    ('{"level1": {"1_A.py": {"mean": NaN}}}', "NaN is not a JSON number"),
    ('{"level1": {"1_A.py": {"mean": 1e1000000000000000000}}}', "number 1e1000000000000000000 is out of range"),
    ('{"level1": {"A.py": null}}', "expected a problem file name"),
    ('{"levelone": {}}', "expected level names like 'level1'"),
])
def test_malformed_source_is_an_error_naming_it_and_nothing_is_written(tmp_path, capsys, text, message):
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row()}}, date="2026-01-01T00:00:00Z")
    bad = write_timing(src, "L4_GCP", "torch_compile_inductor_default", text, date="2026-01-01T00:00:00Z")
    code, out, err = run_cli(capsys, "import", "kernelbench", src, "--out", tmp_path / "out")
    assert code == 1
    assert str(bad) in err and message in err
    assert "Traceback" not in err and "nothing was written" in err
    assert not (tmp_path / "out").exists()


def test_one_timing_given_twice_is_imported_once(tmp_path, capsys):
    # The same timings in two places (a folder extracted from two commits that both hold the file): one timing,
    # at the earlier date.
    a, b = (tmp_path / root / "L4_GCP" / "baseline_time_torch.json" for root in ("a", "b"))
    for root, date in (("a", "2026-01-01T00:00:00Z"), ("b", "2026-02-01T00:00:00Z")):
        write_timing(tmp_path / root, "L4_GCP", "torch", {"level1": {"1_A.py": row(hardware="NVIDIA L4")}}, date=date)
    code, out, err = run_cli(capsys, "import", "kernelbench", tmp_path / "b", tmp_path / "a", "--out", tmp_path / "out")
    assert code == 0, err
    assert err.splitlines() == [f"warning: {b}: the same timings as {a}, one timing of host 'L4_GCP': imported once, "
                                "observed at 2026-01-01T00:00:00.000Z"]
    assert "Imported 1 run (1 passed) from 1 file on 1 host" in out
    assert sorted(snapshot(tmp_path / "out")) == ["L4_GCP/baseline_time_torch.json"]

    # Imported one after the other, too: the copy is not imported again under its own date.
    written = snapshot(tmp_path / "out")
    code, out, err = run_cli(capsys, "import", "kernelbench", tmp_path / "b", "--out", tmp_path / "out")
    assert code == 0 and "Imported 0 runs" in out, err
    assert err.splitlines() == [
        f"warning: {b}: the same timings as {tmp_path / 'out' / 'L4_GCP' / 'baseline_time_torch.json'}, which an "
        "earlier import wrote (observed at 2026-01-01T00:00:00.000Z): not imported again"]
    assert snapshot(tmp_path / "out") == written
    imported(capsys, tmp_path / "b", "--out", tmp_path / "later-first")
    _, err = imported(capsys, tmp_path / "a", "--out", tmp_path / "later-first")
    assert "this file is dated earlier: if its date is the right one, delete that file and import again" in err
    assert len(snapshot(tmp_path / "later-first")) == 1

    # Two different timings of one implementation observed at one time cannot be ordered: an error naming both.
    write_timing(tmp_path / "c", "L4_GCP", "torch", {"level1": {"1_A.py": row(mean=1.45, hardware="NVIDIA L4")}},
                 date="2026-01-01T00:00:00Z")
    err = failed_import(capsys, "kernelbench", tmp_path / "a", tmp_path / "c", "--out", tmp_path / "out2")
    assert err.splitlines()[0] == (
        f"{tmp_path / 'c' / 'L4_GCP' / 'baseline_time_torch.json'}: another timing of host 'L4_GCP''s torch, "
        f"{tmp_path / 'a' / 'L4_GCP' / 'baseline_time_torch.json'}, is observed at the same time "
        "(2026-01-01T00:00:00.000Z): the site could not tell which is the newer; date each in PROVENANCE.txt")


def test_missing_source_is_an_error(tmp_path, capsys):
    code, _, err = run_cli(capsys, "import", "kernelbench", tmp_path / "nope", "--out", tmp_path / "out")
    assert code == 1 and "nope: not found" in err


# --- edge and hostile input: an error naming file and field, never a traceback ----------------------


def failed_import(capsys, *argv) -> str:
    """Run an import that must fail as a user's mistake: exit 1, no traceback, nothing written; its stderr."""
    code, out, err = run_cli(capsys, "import", *argv)
    assert code == 1, err
    assert "Traceback" not in err and "nothing was written" in err
    outdir = Path(argv[list(argv).index("--out") + 1])
    assert not outdir.exists() or snapshot(outdir) == {}, sorted(snapshot(outdir))
    return err


@pytest.mark.parametrize("field, number, message", [
    ("mean", "1e21", "mean: 1E+21 ms is too large to be written in whole nanoseconds"),
    ("mean", "1e22", "mean: 1E+22 ms is too large to be written in whole nanoseconds"),
    ("std", "1e30", "std: 1E+30 ms is too large to be written in whole nanoseconds"),
    ("max", "1e400", "max: 1E+400 ms is too large to be written in whole nanoseconds"),
    ("min", "-1e400", "min: -1E+400 ms is too large to be written in whole nanoseconds"),
    ("max", "9" * 5000, "max: 999999…999 (5000 digits) ms is too large to be written in whole nanoseconds"),
    ("max", "9" * 5000 + ".5", "max: 999999…9.5 (5002 characters) ms is too large to be written"),
    ("num_trials", "18446744073709551616", "num_trials: 18446744073709551616 is beyond 2⁵³−1"),
    ("num_trials", "9" * 5000, "num_trials: 999999…999 (5000 digits) is beyond 2⁵³−1"),
])
def test_numbers_too_large_for_whole_nanoseconds_are_an_error_naming_record_and_field(tmp_path, capsys, field,
                                                                                     number, message):
    src = tmp_path / "timing"
    record = SEED_ROW.replace(f'"{field}": ', f'"{field}": {number}, "was": ')
    bad = write_timing(src, "L4_GCP", "torch", '{"level1": {"1_A.py": %s, "2_B.py": %s}}' % (record, SEED_ROW),
                       date="2026-01-14T00:00:00Z")
    err = failed_import(capsys, "kernelbench", src, "--out", tmp_path / "out")
    [line] = [line for line in err.splitlines() if "level1/" in line]  # one line, for the one record
    assert line.startswith(f"{bad}: level1/1_A.py: {message}"), line
    assert len(line) < 300


@pytest.mark.parametrize("value, message", [
    ("1e400", "number inf is beyond ±1e300"),
    ("18446744073709551616", "integer 18446744073709551616 is beyond ±9007199254740991"),
    ("[" * 40 + "]" * 40, "nested more than 32 levels deep"),
])
def test_source_values_the_content_cannot_hold_are_an_error_naming_record_and_key(tmp_path, capsys, value, message):
    # The record's other keys are kept in sourceNative.extra: written as they are, `check` would refuse them.
    src = tmp_path / "timing"
    record = SEED_ROW.replace('"device"', '"note": {"deep": %s}, "device"' % value)
    bad = write_timing(src, "L4_GCP", "torch", '{"level1": {"1_A.py": %s}}' % record, date="2026-01-14T00:00:00Z")
    err = failed_import(capsys, "kernelbench", src, "--out", tmp_path / "out")
    where = re.escape(f"{bad}: level1/1_A.py: note.deep")
    assert re.search(rf"^{where}[.0-9]*: {re.escape(message)}", err, re.M), err


@pytest.mark.parametrize("key", ["1_a/../../../secret.py", "1_a\\b.py", "1_a\u0000b.py"])
@pytest.mark.parametrize("problems", [False, True])
def test_problem_key_that_is_not_a_file_name_is_an_error_naming_it(tmp_path, capsys, key, problems):
    src = tmp_path / "timing"
    bad = write_timing(src, "L4_GCP", "torch", {"level1": {key: row(), "2_B.py": row()}},
                       date="2026-01-14T00:00:00Z")
    (tmp_path / "secret.py").write_text("SECRET = 1\n")
    extra = []
    if problems:
        (tmp_path / "kb" / "level1" / "1_a").mkdir(parents=True)
        extra = ["--problems", tmp_path / "kb"]
    err = failed_import(capsys, "kernelbench", src, "--out", tmp_path / "out", *extra)
    shown = key.replace("\u0000", "\\x00")  # (as Python writes it: a NUL would not show)
    assert (f"{bad}: level1/{shown}: expected a problem file name like '1_Square_matrix_multiplication_.py'"
            in err.splitlines())


@pytest.mark.parametrize("when", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00+01:00"])
def test_observed_at_beyond_the_utc_calendar_is_an_error_naming_it(tmp_path, capsys, when):
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row()}})
    err = failed_import(capsys, "kernelbench", src, "--out", tmp_path / "out", "--observed-at", when)
    assert err.splitlines()[0] == (f"--observed-at: {when!r} is outside the dates a timestamp can have in UTC "
                                   "(0001-01-01 to 9999-12-31)")

    (src / "PROVENANCE.txt").write_text(f"L4_GCP/baseline_time_torch.json {when}\n", encoding="utf-8")
    err = failed_import(capsys, "kernelbench", src, "--out", tmp_path / "out")
    assert err.splitlines()[0] == (f"{src / 'PROVENANCE.txt'}:1: {when!r} is outside the dates a timestamp can "
                                   "have in UTC (0001-01-01 to 9999-12-31)")


def test_host_folder_named_with_spaces_is_dated_by_provenance(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "My  Host", "torch", {"level1": {"1_A.py": row()}}, date="2026-01-14T16:21:49-08:00")
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row(hardware="NVIDIA L4")}},
                 date="2026-01-14T16:21:49-08:00")
    with (src / "PROVENANCE.txt").open("a", encoding="utf-8") as f:  # a tab between name and date is white space too
        f.write("My  Host/baseline_time_torch_compile_inductor_default.json\t2025-01-01T00:00:00Z\n")
    write_timing(src, "My  Host", "torch_compile_inductor_default", {"level1": {"1_A.py": row()}})
    bundles, err = imported(capsys, src, "--out", tmp_path / "out")
    assert "modification time" not in err
    dates = {b["run"]["spec"]["sourceNative"]["benchmark"]: b["run"]["spec"]["observedAt"] for b in bundles}
    assert dates == {"My  Host/baseline_time_torch.json": "2026-01-15T00:21:49.000Z",
                     "My  Host/baseline_time_torch_compile_inductor_default.json": "2025-01-01T00:00:00.000Z",
                     "L4_GCP/baseline_time_torch.json": "2026-01-15T00:21:49.000Z"}


def test_provenance_line_without_a_date_says_how_to_date_the_file(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "My Host", "torch", {"level1": {"1_A.py": row()}})
    (src / "PROVENANCE.txt").write_text("My Host/baseline_time_torch.json\n", encoding="utf-8")
    err = failed_import(capsys, "kernelbench", src, "--out", tmp_path / "out")
    assert err.splitlines()[0] == (
        f"{src / 'PROVENANCE.txt'}:1: expected 'HOST/FILE [COMMIT] DATE-TIME', the date-time last with a time zone "
        "and the commit that added the file before it if known, e.g. "
        "'L4_GCP/baseline_time_torch.json 2026-01-14T16:21:49-08:00'")


def test_hosts_whose_names_make_one_slug_get_distinct_names_and_never_replace_each_other(tmp_path, capsys):
    # Höst and Hást both slug to h-st, but are two hosts (their environments differ): the second imported gets a
    # name and folder of its own, ending in a digest of its environment, and the first's file is left as it was.
    src = tmp_path / "src"
    first = write_timing(src, "Höst", "torch", {"level1": {"1_A.py": row()}})
    write_timing(src, "Hást", "torch", {"level1": {"1_A.py": row(mean=1.45)}})
    out = tmp_path / "c" / "kb"
    imported(capsys, src / "Höst", "--out", out, "--observed-at", "2026-01-14T00:00:00Z")
    before = snapshot(out)
    assert list(before) == ["h-st/baseline_time_torch.json"]

    _, err = imported(capsys, src / "Hást", "--out", out, "--observed-at", "2026-01-14T00:00:00Z")
    assert "did not write" not in err
    after = snapshot(out)
    assert after["h-st/baseline_time_torch.json"] == before["h-st/baseline_time_torch.json"]
    [(other, data)] = [(path, data) for path, data in after.items() if path not in before]
    assert re.fullmatch(r"h-st-[0-9a-f]{8}/baseline_time_torch\.json", other)
    [b] = json.loads(data)
    assert b["environment"]["metadata"]["name"] == f"kernelbench-{other.split('/')[0]}"
    assert b["run"]["metadata"]["name"] == f"kernelbench-{other.split('/')[0]}-torch-l1-1-a"
    code, _, err = run_cli(capsys, "build", "--content", tmp_path / "c", "--out", tmp_path / "site")
    assert code == 0, err
    assert json.loads((tmp_path / "site" / "api" / "v1" / "index.json").read_text())["runs"] == 2

    # Imported again, each keeps its name; together, too.
    code, stdout, err = run_cli(capsys, "import", "kernelbench", src, "--out", out, "--observed-at",
                                "2026-01-14T00:00:00Z")
    assert code == 0, err
    assert "(0 written, 2 unchanged)" in stdout and snapshot(out) == after
    # …and so with one file per run.
    imported(capsys, src / "Höst", "--out", tmp_path / "per-run", "--observed-at", "2026-01-14T00:00:00Z",
             "--one-file-per-run")
    imported(capsys, src / "Hást", "--out", tmp_path / "per-run", "--observed-at", "2026-01-14T00:00:00Z",
             "--one-file-per-run")
    assert len(snapshot(tmp_path / "per-run")) == 2

    # The same host imported again replaces its own file, as ever.
    first.write_text(json.dumps({"level1": {"1_A.py": row(mean=1.55)}}), encoding="utf-8")
    code, stdout, err = run_cli(capsys, "import", "kernelbench", src / "Höst", "--out", out,
                                "--observed-at", "2026-01-14T00:00:00Z")
    assert code == 0, err
    assert "(1 written, 0 unchanged)" in stdout
    [b] = json.loads((out / "h-st" / "baseline_time_torch.json").read_text(encoding="utf-8"))
    assert b["run"]["spec"]["timing"]["latencyNs"]["mean"] == 1550000


def test_host_whose_environment_an_earlier_import_wrote_otherwise_keeps_its_name_and_files(tmp_path, capsys):
    # An importer whose host table has changed since writes another environment for the same folder: importing
    # it again replaces that host's files, under its name, and adds no host.
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row(hardware="NVIDIA L4")}}, date="2026-01-14T00:00:00Z")
    out = tmp_path / "kb"
    imported(capsys, src, "--out", out)
    written = out / "L4_GCP" / "baseline_time_torch.json"
    [b] = json.loads(written.read_text(encoding="utf-8"))
    b["environment"]["spec"]["hardware"]["formFactor"] = "SXM"
    written.write_text(json.dumps([b]), encoding="utf-8")
    code, stdout, err = run_cli(capsys, "import", "kernelbench", src, "--out", out)
    assert code == 0 and err == "", err
    assert "(1 written, 0 unchanged)" in stdout
    assert sorted(snapshot(out)) == ["L4_GCP/baseline_time_torch.json"]
    [b] = json.loads(written.read_text(encoding="utf-8"))
    assert b["environment"]["metadata"]["name"] == "kernelbench-l4-gcp"
    assert b["environment"]["spec"]["hardware"]["formFactor"] == "PCIe"


def test_host_folder_without_ascii_letters_or_digits_is_an_error_naming_it(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "测试", "torch", {"level1": {"1_A.py": row(), "2_B.py": row()}}, date="2026-01-14T00:00:00Z")
    err = failed_import(capsys, "kernelbench", src, "--out", tmp_path / "out")
    assert err.splitlines() == [
        f"{src / '测试'}: host folder '测试' has no ASCII letters or digits, of which the host's name "
        "(kernelbench-<host>) and its folder under --out are made; rename the folder (KernelBench's are named "
        "like L4_GCP: GPU and provider)",
        "error: 1 problem in 1 file; nothing was written"]


def test_host_folder_whose_name_is_not_utf8_is_an_error_naming_it(tmp_path, capsys):
    src = tmp_path / "timing"
    try:
        write_timing(src, os.fsdecode(b"L4_\xff"), "torch", {"level1": {"1_A.py": row()}})
    except (OSError, UnicodeError):
        pytest.skip("this file system holds UTF-8 names only")
    err = failed_import(capsys, "kernelbench", src, "--out", tmp_path / "out", "--observed-at", "2026-01-14")
    assert f"{src}/L4_\\udcff/baseline_time_torch.json: its folder's or its own name is not UTF-8 text; rename it" \
        in err.splitlines()


def test_docs_name_only_statuses_the_import_gives(tmp_path, capsys):
    """docs/importing.md says what each kind of record becomes: every status it names is one a record gets."""
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {
        "1_Full.py": row(), "2_Null.py": None, "3_Impossible.py": row(mean=1.0, lo=1.2),
        "4_NoMin.py": {"mean": 1.5, "std": 0.01, "max": 1.6, "num_trials": 100},
        "5_NoMax.py": {"mean": 1.5, "std": 0.01, "min": 1.4, "num_trials": 100},
        "6_NoTrials.py": {"mean": 1.5, "std": 0.01, "min": 1.4, "max": 1.6},
        "7_MeanOnly.py": {"mean": 1.5},
    }}, date="2026-01-14T00:00:00Z")
    bundles, _ = imported(capsys, src, "--out", tmp_path / "out")
    status = {b["run"]["spec"]["sourceNative"]["externalId"].rsplit("/", 1)[1]: b["run"]["spec"]["status"]
              for b in bundles}
    assert status == {"1_Full.py": "passed", "2_Null.py": "failed", "3_Impossible.py": "invalid-timing",
                      "4_NoMin.py": "passed", "5_NoMax.py": "passed", "6_NoTrials.py": "passed",
                      "7_MeanOnly.py": "passed"}
    doc = " ".join((REPO / "docs" / "importing.md").read_text(encoding="utf-8").split())
    kernelbench = doc.split("# Importing the KernelBench leaderboard")[0]
    assert set(re.findall(r"status `([a-z-]+)`", kernelbench)) == set(status.values())
    assert "A record without `min`, `max` or `num_trials` still gets status `passed`" in kernelbench


# --- importing then building ---------------------------------------------------------------


def test_importing_then_building_loses_no_run(tmp_path, capsys):
    src = tmp_path / "timing"
    write_timing(src, "H100_PCIe_LambdaLabs", "torch",
                 {"level1": {"1_A.py": row(), "2_B.py": None}, "level2": {"1_C.py": row(mean=3.0, lo=2.0, hi=4.0)}},
                 date="2026-01-23T00:42:52+01:00")
    write_timing(src, "MI250", "torch_compile_inductor_default",
                 {"level1": {"1_A.py": row(hardware="AMD Instinct MI250X/MI250"), "2_B.py": {"mean": 9.0}}},
                 date="2025-04-25T18:57:48-05:00")
    bundles, _ = imported(capsys, src, "--out", tmp_path / "content" / "kernelbench")
    assert len(bundles) == 5

    code, out, err = run_cli(capsys, "build", "--content", tmp_path / "content", "--out", tmp_path / "site")
    assert code == 0, err
    assert "from 5 runs" in out
    index = json.loads((tmp_path / "site" / "api" / "v1" / "index.json").read_text())
    assert index["runs"] == 5
    for b in bundles:
        assert (tmp_path / "site" / "runs" / b["run"]["metadata"]["name"] / "index.html").is_file()


@pytest.mark.skipif(not SHARED.is_dir() or not HISTORY_BUNDLE.is_file(), reason="shared KernelBench data not present")
@needs_git
def test_shipped_content_is_a_fresh_import_of_the_shared_data(tmp_path, capsys):
    checkout = tmp_path / "KernelBench"
    subprocess.run(["git", "clone", "-q", str(HISTORY_BUNDLE), str(checkout)], check=True, capture_output=True)
    code, out, err = run_cli(capsys, "import", "kernelbench", SHARED, "--out", tmp_path / "kernelbench",
                             "--repo", checkout)
    assert code == 0, err
    assert err == ""
    assert "Imported 4250 runs (502 failed, 3748 passed) from 17 files on 4 hosts" in out
    # docs/importing.md lists these versions.
    assert "L40S_matx3/baseline_time_torch.json: KernelBench version 8a52d49 (2025-01-19)" in out
    assert "H100_PCIe_LambdaLabs/baseline_time_torch.json: KernelBench version eff1959 (2025-07-21)" in out
    assert "L4_GCP/baseline_time_torch.json: KernelBench version 4caba1c (2026-01-07)" in out
    assert snapshot(tmp_path / "kernelbench") == snapshot(REPO / "content" / "kernelbench")
    assert not (REPO / "content" / "seed.json").exists()


def test_observed_at_of_a_year_before_1000_is_written_with_four_digits(tmp_path, capsys):
    """observedAt is written in UTC to the millisecond, its year in four digits, whatever the year."""
    src = tmp_path / "timing"
    write_timing(src, "L4_GCP", "torch", {"level1": {"1_A.py": row()}})
    bundles, _ = imported(capsys, src, "--out", tmp_path / "out", "--observed-at", "0999-06-01T01:30:00.25+01:00")
    assert [b["run"]["spec"]["observedAt"] for b in bundles] == ["0999-06-01T00:30:00.250Z"]
