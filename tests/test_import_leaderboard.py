"""`kindex-site import kernelbench-leaderboard`: the leaderboard's rows → bundles and source files."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from kindex_site.models import Bundle
from test_import_kernelbench import (KB, TIMING, GitRepo, needs_git, problem_source, row, run_cli, snapshot,
                                     source_workload, write_timing)

pytestmark = needs_git

SQUARE = "level1/1_Square_matrix_multiplication_.py"
RELU = "level1/19_ReLU.py"
GEMM = "level2/41_Gemm_BatchNorm_GELU_GroupNorm_Mean_ReLU.py"  # renamed to …_GELU_ReLU.py later
DATE = "2024-12-03T00:00:00.000Z"
KERNEL = 'import torch\nfrom torch.utils.cpp_extension import load_inline\n\nsource = """// ünïcode\\n"""\n'


def kernel_row(model, display, level, problem_id, time, eager, compiled, code=KERNEL, file="0" * 32) -> dict:
    """A raw_data.json row as the leaderboard writes it (problem_id counts from 0)."""
    return {"problem_id": problem_id, "code": code, "torch_speedup": 0.5, "torch_compile_speedup": 0.25,
            "baseline_torch_time": eager, "baseline_torch_compile_time": compiled, "kernel_eval_time": time,
            "level": level, "model": model, "display_name": display, "file": file}


@pytest.fixture
def leaderboard(tmp_path, monkeypatch):
    """A KernelBench history, a leaderboard folder (raw_data.json, PROVENANCE.txt, problems/) beside it,
    and the working directory in the leaderboard folder, so errors name `raw_data.json[i]`."""
    repo = GitRepo(tmp_path / "kb")
    sources = {SQUARE: problem_source("Square", 16), RELU: problem_source("ReLU", 32),
               GEMM: problem_source("Gemm", 64)}
    repo.commit("2024-11-08T00:00:00Z", {f"{KB}/{name}": text for name, text in sources.items()})
    # KernelBench's own timing of two of them, with those sources (see the workload test).
    timing = write_timing(tmp_path / "timing", "L40S_matx3", "torch", {"level1": {
        "1_Square_matrix_multiplication_.py": row(hardware="NVIDIA L40S"), "19_ReLU.py": row(hardware="NVIDIA L40S")}})
    repo.commit("2024-11-20T00:00:00Z", {f"{TIMING}/L40S_matx3/{timing.name}": timing.read_bytes()})
    # After the leaderboard's date: 41 renamed (same source), 19 resized.
    repo.rename(f"{KB}/{GEMM}", f"{KB}/level2/41_Gemm_BatchNorm_GELU_ReLU.py")
    repo.commit("2025-07-10T00:00:00Z", {f"{KB}/{RELU}": problem_source("ReLU", 4096)}, "resize")
    data = tmp_path / "leaderboard"
    (data / "problems").mkdir(parents=True)
    (data / "PROVENANCE.txt").write_text(
        "Source: the public KernelBench leaderboard repository anneouyang/KernelBenchLeaderboard, commit "
        "170ca7965f53bba599d1078b6fcaa5dd2658ec50 (2024-12-03).\n", encoding="utf-8")
    for name, text in sources.items():
        level, number = name.split("/")[0].removeprefix("level"), name.split("/")[1].split("_")[0]
        (data / "problems" / f"l{level}_p{number}.py").write_text(text, encoding="utf-8")
    monkeypatch.chdir(data)
    return {"repo": repo, "data": data, "sources": sources, "out": tmp_path / "out", "timing": timing}


def write_rows(lb, rows: list) -> None:
    (lb["data"] / "raw_data.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")


def do_import(capsys, lb, *extra) -> tuple[int, str, str]:
    return run_cli(capsys, "import", "kernelbench-leaderboard", "raw_data.json", "--problems", "problems",
                   "--repo", lb["repo"].root, "--out", lb["out"], *extra)


def written(out: Path) -> dict[str, dict]:
    """Every bundle under out by run name, with the file it is in."""
    found = {}
    for path in sorted(out.glob("*.json")):
        for b in json.loads(path.read_text(encoding="utf-8")):
            Bundle.model_validate(b)
            found[b["run"]["metadata"]["name"]] = {"file": path, **b}
    return found


GOOD = [
    kernel_row("claude-3-5-sonnet-20241022", "claude-3.5-sonnet", 1, 0, 2.45, 0.413, 0.415, file="a" * 32),
    # The same problem's baselines in another row: eager differs, torch.compile agrees.
    kernel_row("gpt-4o-2024-08-06", "gpt-4o", 1, 0, 0.5, 0.42, 0.415, code="# gpt-4o's kernel\n", file="b" * 32),
    kernel_row("gpt-4o-2024-08-06", "gpt-4o", 1, 18, 0.0111, 0.0103, 0.0245, code="# relu\n", file="c" * 32),
    kernel_row("gpt-4o-2024-08-06", "gpt-4o", 2, 40, 196.0, 36.7, 35.2, code="# gemm\n", file="d" * 32),
]


def test_rows_become_kernel_runs_and_baselines(leaderboard, capsys):
    write_rows(leaderboard, GOOD)
    code, out, err = do_import(capsys, leaderboard)
    assert code == 0, err
    runs = written(leaderboard["out"])
    assert sorted(runs) == [
        "kernelbench-leaderboard-claude-3-5-sonnet-l1-1-square-matrix-multiplication",
        "kernelbench-leaderboard-gpt-4o-l1-1-square-matrix-multiplication",
        "kernelbench-leaderboard-gpt-4o-l1-19-relu",
        "kernelbench-leaderboard-gpt-4o-l2-41-gemm-batchnorm-gelu-groupnorm-mean-relu",
        "kernelbench-leaderboard-torch-compile-l1-1-square-matrix-multiplication",
        "kernelbench-leaderboard-torch-compile-l1-19-relu",
        "kernelbench-leaderboard-torch-compile-l2-41-gemm-batchnorm-gelu-groupnorm-mean-relu",
        # Two eager times for one problem: two runs, told apart by their time.
        "kernelbench-leaderboard-torch-l1-1-square-matrix-multiplication-413000ns",
        "kernelbench-leaderboard-torch-l1-1-square-matrix-multiplication-420000ns",
        "kernelbench-leaderboard-torch-l1-19-relu",
        "kernelbench-leaderboard-torch-l2-41-gemm-batchnorm-gelu-groupnorm-mean-relu",
    ]
    assert err == (f"warning: {SQUARE}: its rows give 2 PyTorch eager times (0.413 ms (1 row), 0.42 ms (1 row)); "
                   "each is its own run\n")
    assert "Imported 11 runs (4 generated kernels from 4 rows of 2 models, 7 baselines) on 3 problems" in out
    assert "3 problems named by KernelBench's history: 3 in KernelBench version" in out
    assert "Baselines: 7 runs; the rows of a problem disagree on 1 baseline time (each time is its own run)" in out

    claude = runs["kernelbench-leaderboard-claude-3-5-sonnet-l1-1-square-matrix-multiplication"]
    assert claude["file"].name == "claude-3-5-sonnet.json"
    run = claude["run"]
    assert run["metadata"]["title"] == \
        "Square matrix multiplication · claude-3.5-sonnet (generated CUDA) · KernelBench leaderboard (L40S)"
    spec = run["spec"]
    assert spec["status"] == "passed"
    assert spec["timing"] == {"latencyNs": {"mean": 2450000}, "primaryStatistic": "mean"}
    assert spec["observedAt"] == DATE
    assert spec["sourceNative"] == {
        "source": "kernelbench-leaderboard", "externalId": f"claude-3-5-sonnet-20241022/{SQUARE}", "problem": SQUARE,
        "problem_id": 0, "torch_speedup": 0.5, "torch_compile_speedup": 0.25, "baseline_torch_time": 0.413,
        "baseline_torch_compile_time": 0.415, "kernel_eval_time": 2.45, "level": 1,
        "model": "claude-3-5-sonnet-20241022", "display_name": "claude-3.5-sonnet", "file": "a" * 32}
    assert spec["implementationDigest"] == "sha256:" + hashlib.sha256(KERNEL.encode()).hexdigest()
    assert claude["protocol"]["metadata"]["name"] == "kernelbench-leaderboard-eval"
    assert claude["protocol"]["spec"]["measurement"] == {"primaryStatistic": "mean",
                                                         "resolution": {"significantFigures": 3}}
    assert claude["environment"]["metadata"]["name"] == "kernelbench-leaderboard-l40s"
    assert claude["environment"]["spec"]["hardware"] == {"vendor": "nvidia", "product": "NVIDIA L40S",
                                                         "formFactor": "PCIe", "architecture": "sm_89"}
    assert runs["kernelbench-leaderboard-gpt-4o-l1-19-relu"]["run"]["spec"]["timing"]["latencyNs"] == {"mean": 11100}
    _baselines_are_runs_of_their_own(runs, leaderboard)


def _baselines_are_runs_of_their_own(runs: dict[str, dict], leaderboard: dict) -> None:
    """Baselines: in baselines.json, one digest per implementation, every run of a problem on one workload."""
    eager = [runs[f"kernelbench-leaderboard-torch-l1-1-square-matrix-multiplication-{ns}ns"] for ns in (413000, 420000)]
    compiled = runs["kernelbench-leaderboard-torch-compile-l1-1-square-matrix-multiplication"]
    assert {b["file"].name for b in (*eager, compiled)} == {"baselines.json"}
    assert [b["run"]["spec"]["timing"]["latencyNs"]["mean"] for b in eager] == [413000, 420000]
    assert [b["run"]["metadata"]["title"] for b in eager] == \
        ["Square matrix multiplication · PyTorch eager · KernelBench leaderboard (L40S)"] * 2
    assert compiled["run"]["metadata"]["title"] == \
        "Square matrix multiplication · torch.compile · KernelBench leaderboard (L40S)"
    torch_digest = "sha256:" + hashlib.sha256(
        b'{"implementation":"torch","source":"kernelbench-leaderboard"}').hexdigest()
    assert {b["run"]["spec"]["implementationDigest"] for b in eager} == {torch_digest}
    assert eager[0]["run"]["spec"]["sourceNative"] == {
        "source": "kernelbench-leaderboard", "externalId": f"torch/{SQUARE}", "problem": SQUARE, "level": 1,
        "problem_id": 0, "baseline_torch_time": 0.413, "files": ["a" * 32]}
    assert compiled["run"]["spec"]["sourceNative"]["files"] == ["a" * 32, "b" * 32]
    assert {b["run"]["spec"]["observedAt"] for b in (*eager, compiled)} == {DATE}
    square = {b["run"]["spec"]["workloadDigest"] for name, b in runs.items() if "l1-1-square" in name}
    assert square == {source_workload(SQUARE, leaderboard["sources"][SQUARE])}


def test_kernel_and_problem_sources_are_written_byte_for_byte_and_referenced(leaderboard, capsys):
    write_rows(leaderboard, GOOD)
    code, _, err = do_import(capsys, leaderboard)
    assert code == 0, err
    out = leaderboard["out"]
    runs = written(out)
    for name, b in runs.items():
        spec = b["run"]["spec"]
        refs = [spec["workloadSource"]] + ([spec["implementationSource"]] if "implementationSource" in spec else [])
        for ref in refs:
            assert ref["language"] == "python"
            assert not ref["path"].startswith("/") and ".." not in ref["path"].split("/") and "\\" not in ref["path"]
            assert (b["file"].parent / ref["path"]).is_file()
    claude = runs["kernelbench-leaderboard-claude-3-5-sonnet-l1-1-square-matrix-multiplication"]["run"]["spec"]
    assert claude["implementationSource"] == {
        "path": "claude-3-5-sonnet.src/kernelbench-leaderboard-claude-3-5-sonnet-l1-1-square-matrix-multiplication.py",
        "language": "python"}
    kernel = (out / claude["implementationSource"]["path"]).read_bytes()
    assert kernel == KERNEL.encode("utf-8")
    assert claude["implementationDigest"] == "sha256:" + hashlib.sha256(kernel).hexdigest()
    assert claude["workloadSource"] == {"path": f"problems/{SQUARE}", "language": "python"}
    assert (out / "problems" / SQUARE).read_bytes() == (leaderboard["data"] / "problems" / "l1_p1.py").read_bytes()
    # The renamed problem: its source where KernelBench had it on the leaderboard's date, titled by its new name.
    gemm = runs["kernelbench-leaderboard-gpt-4o-l2-41-gemm-batchnorm-gelu-groupnorm-mean-relu"]["run"]
    assert gemm["spec"]["workloadSource"]["path"] == f"problems/{GEMM}"
    assert gemm["metadata"]["title"].startswith("Gemm BatchNorm GELU ReLU · ")
    assert gemm["spec"]["sourceNative"]["externalId"] == "gpt-4o-2024-08-06/level2/41_Gemm_BatchNorm_GELU_ReLU.py"
    assert gemm["spec"]["sourceNative"]["formerExternalId"] == f"gpt-4o-2024-08-06/{GEMM}"
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == sorted([
        "baselines.json", "claude-3-5-sonnet.json",
        "claude-3-5-sonnet.src/kernelbench-leaderboard-claude-3-5-sonnet-l1-1-square-matrix-multiplication.py",
        "gpt-4o.json",
        "gpt-4o.src/kernelbench-leaderboard-gpt-4o-l1-1-square-matrix-multiplication.py",
        "gpt-4o.src/kernelbench-leaderboard-gpt-4o-l1-19-relu.py",
        "gpt-4o.src/kernelbench-leaderboard-gpt-4o-l2-41-gemm-batchnorm-gelu-groupnorm-mean-relu.py",
        f"problems/{SQUARE}", f"problems/{RELU}", f"problems/{GEMM}",
    ])


def test_workload_digest_is_the_kernelbench_importers_for_the_same_source(leaderboard, capsys, tmp_path):
    path = leaderboard["timing"]  # KernelBench's own timing file, committed with the sources of 2024-11-08
    code, _, err = run_cli(capsys, "import", "kernelbench", path.parent, "--out", tmp_path / "kb-out",
                           "--repo", leaderboard["repo"].root, "--observed-at", "2024-11-20")
    assert code == 0, err
    kernelbench = {b["run"]["spec"]["sourceNative"]["externalId"].split("/", 2)[2]: b["run"]
                   for b in json.loads((tmp_path / "kb-out" / "L40S_matx3" / path.name).read_text())}

    write_rows(leaderboard, GOOD)
    code, _, err = do_import(capsys, leaderboard)
    assert code == 0, err
    runs = written(leaderboard["out"])
    for problem, name in ((SQUARE, "kernelbench-leaderboard-gpt-4o-l1-1-square-matrix-multiplication"),
                          (RELU, "kernelbench-leaderboard-gpt-4o-l1-19-relu")):
        ours = runs[name]["run"]
        assert ours["spec"]["workloadDigest"] == kernelbench[problem]["spec"]["workloadDigest"]
        # …and one title for one problem.
        assert ours["metadata"]["title"].split(" · ")[0] == kernelbench[problem]["metadata"]["title"].split(" · ")[0]


def test_reimport_is_byte_identical_and_stale_files_are_warned_about(leaderboard, capsys):
    write_rows(leaderboard, GOOD)
    code, out, err = do_import(capsys, leaderboard)
    assert code == 0, err
    assert "(10 written, 0 unchanged)" in out
    before = snapshot(leaderboard["out"])
    code, out, err = do_import(capsys, leaderboard)
    assert code == 0, err
    assert "(0 written, 10 unchanged)" in out
    assert snapshot(leaderboard["out"]) == before

    write_rows(leaderboard, GOOD[:1])  # gpt-4o's rows gone: its files are left, and named
    code, out, err = do_import(capsys, leaderboard)
    assert code == 0, err
    assert f"warning: {leaderboard['out']}: 6 files this import did not write (e.g. {leaderboard['out']}/gpt-4o.json)" \
        in err


def test_rows_that_cannot_be_runs_are_errors_and_nothing_is_written(leaderboard, capsys):
    write_rows(leaderboard, GOOD)
    code, _, err = do_import(capsys, leaderboard)
    assert code == 0, err
    before = snapshot(leaderboard["out"])

    bad = GOOD + [
        kernel_row("gpt-4o-2024-08-06", "gpt-4o", 1, 41, 1.0, 1.0, 1.0),  # no l1_p42.py
        kernel_row("gpt-4o-2024-08-06", "gpt-4o", 1, 18, 0, 1.0, 1.0),
        kernel_row("gpt-4o-2024-08-06", "gpt-4o", 1, 18, -1.5, 1.0, 1.0),
        kernel_row("gpt-4o-2024-08-06", "gpt-4o", 1, 18, "fast", 1.0, 0.0),
        {k: v for k, v in kernel_row("gpt-4o-2024-08-06", "gpt-4o", 1, 18, 1.0, 1.0, 1.0).items() if k != "code"},
        {k: v for k, v in GOOD[2].items() if k != "kernel_eval_time"},
        [],
    ]
    write_rows(leaderboard, bad)
    code, out, err = do_import(capsys, leaderboard)
    assert code == 1
    assert out == ""
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("raw_data.json[")]
    assert lines == [
        "raw_data.json[4]: problem_id: 41 (KernelBench's level 1 problem 42): no l1_p42.py in problems",
        "raw_data.json[5]: kernel_eval_time: expected a time greater than 0 ms, not 0",
        "raw_data.json[6]: kernel_eval_time: expected a time greater than 0 ms, not -1.5",
        "raw_data.json[7]: kernel_eval_time: expected a number of milliseconds, not 'fast'",
        "raw_data.json[7]: baseline_torch_compile_time: expected a time greater than 0 ms, not 0.0",
        "raw_data.json[8]: code: missing (the kernel's source)",
        "raw_data.json[9]: kernel_eval_time: missing (the kernel's mean time in ms)",
        "raw_data.json[10]: expected a row (an object), not an array",
    ]
    assert "nothing was written" in err
    assert snapshot(leaderboard["out"]) == before


def test_problems_are_named_as_kernelbench_had_them_on_the_leaderboards_date(tmp_path, capsys, monkeypatch):
    """A source KernelBench renamed to its replacement's name just before replacing it keeps its own name;
    a source not in the version of that date is found elsewhere in the history; one found nowhere is an error."""
    repo = GitRepo(tmp_path / "kb")
    product, conv = problem_source("Product", 64), problem_source("Conv", 64) + "# conv\n"
    later = problem_source("Later", 8)
    repo.commit("2024-11-08T00:00:00Z", {f"{KB}/level1/50_Product_reduction_over_a_dimension.py": product})
    repo.rename(f"{KB}/level1/50_Product_reduction_over_a_dimension.py",
                f"{KB}/level1/50_conv_standard_2D__square_input__square_kernel.py")
    repo.commit("2025-07-10T00:00:00Z", {}, "rename 50 before replacing it")
    repo.commit("2025-07-10T00:01:00Z", {f"{KB}/level1/50_conv_standard_2D__square_input__square_kernel.py": conv,
                                         f"{KB}/level1/60_Later.py": later}, "replace 50")
    data = tmp_path / "leaderboard"
    (data / "problems").mkdir(parents=True)
    (data / "problems" / "l1_p50.py").write_text(product, encoding="utf-8")
    (data / "problems" / "l1_p60.py").write_text(later, encoding="utf-8")
    (data / "problems" / "l1_p70.py").write_text("print('not a KernelBench problem')\n", encoding="utf-8")
    rows = [kernel_row("m", "m", 1, 49, 1.0, 1.0, 1.0), kernel_row("m", "m", 1, 59, 1.0, 1.0, 1.0)]
    (data / "raw_data.json").write_text(json.dumps(rows), encoding="utf-8")
    monkeypatch.chdir(data)
    argv = ["import", "kernelbench-leaderboard", "raw_data.json", "--problems", "problems", "--repo", repo.root,
            "--out", tmp_path / "out", "--observed-at", "2024-12-03"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert re.search(r"^2 problems named by KernelBench's history: 1 in KernelBench version [0-9a-f]{7} "
                     r"\(2024-11-08\), in force on the data's date; 1 elsewhere in it "
                     r"\(l1_p60\.py → level1/60_Later\.py\)$", out, re.M), out
    names = {b["run"]["spec"]["sourceNative"]["problem"] for b in json.loads((tmp_path / "out" / "m.json").read_text())}
    assert names == {"level1/50_Product_reduction_over_a_dimension.py", "level1/60_Later.py"}

    rows.append(kernel_row("m", "m", 1, 69, 1.0, 1.0, 1.0))
    (data / "raw_data.json").write_text(json.dumps(rows), encoding="utf-8")
    code, _, err = run_cli(capsys, *argv)
    assert code == 1
    assert ("problems/l1_p70.py: its source is not a KernelBench problem source anywhere in --repo's history "
            f"({repo.root}); cannot tell which problem it is") in err


def test_a_source_found_elsewhere_is_named_where_its_bytes_were_first(tmp_path, capsys, monkeypatch):
    """A source not in the version in force on the data's date is named by the path that held its bytes first:
    a later move (and a copy to another problem's path) never renames it; KernelBench's rename since is its
    newest name."""
    repo = GitRepo(tmp_path / "kb")
    repo.commit("2024-11-08T00:00:00Z", {f"{KB}/level1/1_A.py": problem_source("A", 8)})
    later = problem_source("Later", 8)
    repo.commit("2025-07-10T00:00:00Z", {f"{KB}/level1/60_Later.py": later}, "a problem after the leaderboard")
    repo.rename(f"{KB}/level1/60_Later.py", f"{KB}/level1/60_Later_Renamed.py")
    repo.commit("2025-08-01T00:00:00Z", {f"{KB}/level2/7_Copy.py": later}, "move it, and copy it elsewhere")
    data = tmp_path / "leaderboard"
    (data / "problems").mkdir(parents=True)
    (data / "problems" / "l1_p60.py").write_text(later, encoding="utf-8")
    (data / "raw_data.json").write_text(json.dumps([kernel_row("m", "m", 1, 59, 1.0, 1.0, 1.0)]), encoding="utf-8")
    monkeypatch.chdir(data)
    code, out, err = run_cli(capsys, "import", "kernelbench-leaderboard", "raw_data.json", "--problems", "problems",
                             "--repo", repo.root, "--out", tmp_path / "out", "--observed-at", "2024-12-03")
    assert code == 0, err
    assert "1 elsewhere in it (l1_p60.py → level1/60_Later.py)" in out
    [kernel] = json.loads((tmp_path / "out" / "m.json").read_text())
    native = kernel["run"]["spec"]["sourceNative"]
    assert native["problem"] == "level1/60_Later.py"
    assert native["externalId"] == "m/level1/60_Later_Renamed.py" and native["formerExternalId"] == "m/level1/60_Later.py"
    assert kernel["run"]["metadata"]["title"].startswith("Later Renamed · ")


def test_sources_larger_than_the_site_shows_are_errors(leaderboard, capsys, monkeypatch):
    import kindex_site.importers.kernelbench_leaderboard as importer

    monkeypatch.setattr(importer, "MAX_SOURCE_BYTES", len(KERNEL.encode()) - 1)
    write_rows(leaderboard, GOOD[:2])
    code, _, err = do_import(capsys, leaderboard)
    assert code == 1
    assert f"raw_data.json[0]: code: {len(KERNEL.encode())} bytes, more than the " in err
    assert not leaderboard["out"].exists()


# --- edge and hostile rows: an error naming the row and field, never a traceback --------------------


def test_numbers_and_names_that_cannot_be_written_are_errors_naming_row_and_field(leaderboard, capsys):
    huge = "9" * 5000
    rows = [kernel_row("m", "m", 1, 0, 1.0, 1.0, 1.0) for _ in range(9)]
    rows[0]["kernel_eval_time"] = 1e30
    rows[1]["baseline_torch_time"] = "@1e400"
    rows[2]["baseline_torch_compile_time"] = f"@{huge}"
    rows[3]["torch_speedup"] = "@1e400"
    rows[4]["problem_id"] = f"@{huge}"
    rows[5]["display_name"] = "模型-中文"
    rows[6]["display_name"] = "Baselines"
    rows[7]["model"] = "@\"\\ud800\""
    rows[8]["extra"] = {"deep": 18446744073709551616}
    # JSON numbers Python's json module would not write, spliced in as text.
    text = re.sub(r'"@((?:[^"\\]|\\.)*)"', lambda m: json.loads(f'"{m[1]}"'), json.dumps(rows, indent=1))
    (leaderboard["data"] / "raw_data.json").write_text(text, encoding="utf-8")
    code, out, err = do_import(capsys, leaderboard)
    assert code == 1 and out == ""
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if line.startswith("raw_data.json[")] == [
        "raw_data.json[0]: kernel_eval_time: 1E+30 ms is too large to be written in whole nanoseconds "
        "(beyond 9007199254740991 ns, 2⁵³−1)",
        "raw_data.json[1]: baseline_torch_time: 1E+400 ms is too large to be written in whole nanoseconds "
        "(beyond 9007199254740991 ns, 2⁵³−1)",
        "raw_data.json[2]: baseline_torch_compile_time: 999999…999 (5000 digits) ms is too large to be written in "
        "whole nanoseconds (beyond 9007199254740991 ns, 2⁵³−1)",
        "raw_data.json[3]: torch_speedup: number inf is beyond ±1e300",
        "raw_data.json[4]: problem_id: expected a whole number from 0, not 999999…999 (5000 digits)",
        "raw_data.json[7]: model: the string holds a lone surrogate (\\ud800), which UTF-8 cannot encode: "
        "a \\ud800–\\udfff escape must be half of a pair",
        "raw_data.json[8]: extra.deep: integer 18446744073709551616 is beyond ±9007199254740991 (2⁵³−1, the "
        "largest a JavaScript reader holds exactly)",
    ]
    assert not leaderboard["out"].exists()

    write_rows(leaderboard, rows[5:7])
    code, out, err = do_import(capsys, leaderboard)
    assert code == 1
    assert [line for line in err.splitlines() if line.startswith("raw_data.json[")] == [
        "raw_data.json[0]: display_name: '模型-中文' has no ASCII letters or digits, of which its bundle file's "
        "name (<display name>.json) and its runs' names are made; give the model a display_name with some in "
        "raw_data.json (its model, 'm', has)",
        "raw_data.json[1]: display_name: 'Baselines' would name its bundle file baselines.json, which holds "
        "the PyTorch baseline runs; give the model another display_name in raw_data.json",
    ]
    assert not leaderboard["out"].exists()


@pytest.mark.parametrize("when", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00+01:00"])
def test_observed_at_beyond_the_utc_calendar_is_an_error_naming_it(leaderboard, capsys, when):
    write_rows(leaderboard, GOOD)
    code, out, err = do_import(capsys, leaderboard, "--observed-at", when)
    assert code == 1 and out == ""
    assert err.splitlines()[0] == (f"--observed-at: {when!r} is outside the dates a timestamp can have in UTC "
                                   "(0001-01-01 to 9999-12-31)")
    assert not leaderboard["out"].exists()


def test_two_models_under_one_display_name_are_imported_and_said(leaderboard, capsys):
    """The leaderboard shows rows by display_name: two models that share one are one implementation on
    the site too (their kernels told apart by digest), and the import says so."""
    rows = [*GOOD, kernel_row("gpt-4o-2024-11-20", "gpt-4o", 1, 18, 0.0099, 0.0103, 0.0245, code="# relu 2\n",
                              file="e" * 32)]
    write_rows(leaderboard, rows)
    code, out, err = do_import(capsys, leaderboard)
    assert code == 0, err
    assert ("display_name 'gpt-4o' is given to 2 models ('gpt-4o-2024-08-06', 'gpt-4o-2024-11-20'): their kernels "
            "are one implementation here") in err
    write_rows(leaderboard, GOOD)
    code, out, err = do_import(capsys, leaderboard)
    assert code == 0 and "is given to" not in err, err
