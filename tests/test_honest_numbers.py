"""Speedups with intervals, ranks that respect noise, and comparability warnings — as readers get them."""

from __future__ import annotations

import re

import pytest

from conftest import DELETE, latency_tables, seed_problem_run, tables, visible_text
from kindex_site.hardware import same_gpu

PROBLEM = "problems/level2-84-gemm-batchnorm-scaling-softmax"
API = "problems/level2-84-gemm-batchnorm-scaling-softmax.json"


def timed(host: str, implementation: str, mean: int, ci: tuple[int, int] | None, **changes) -> dict:
    doc = seed_problem_run(host, implementation, mean)
    latency = doc["run"]["spec"]["timing"]["latencyNs"]
    latency.update(minimum=mean, maximum=mean)
    if ci is None:
        del latency["confidence95"]
    else:
        latency["confidence95"] = list(ci)
    doc["run"]["spec"]["measurements"] = []
    for path, value in changes.items():
        node = doc["run"]["spec"]
        *parents, last = path.split(".")
        for key in parents:
            node = node[key]
        if value is DELETE:
            del node[last]
        else:
            node[last] = value
    return doc


def entries(project) -> dict[str, dict]:
    [board] = project.api(API)["boards"]
    return {e["implementation"]: e for e in board["entries"]}


def test_speedup_and_its_interval_by_the_delta_method(project):
    # Reference 2 ms ± 40 µs (se = 40000/1.96 ns), candidate 1 ms ± 9.8 µs (se = 5000 ns):
    # ratio 2; sd of ln ratio = sqrt((20408.16/2e6)² + (5000/1e6)²) = 0.011363; 2·exp(±1.96·0.011363).
    project.write("content/a.json", [
        timed("h", "PyTorch eager", 2_000_000, (1_960_000, 2_040_000)),
        timed("h", "Triton kernel", 1_000_000, (990_200, 1_009_800)),
        timed("h", "No CI kernel", 4_000_000, None),
    ])
    project.built()
    got = entries(project)
    assert got["Triton kernel"]["speedup"]["value"] == 2.0
    assert got["Triton kernel"]["speedup"]["ci95"] == pytest.approx([1.95595, 2.04504], rel=1e-5)
    assert got["PyTorch eager"]["speedup"] == {"value": 1.0, "ci95": None, "rounding_bounds": None}  # exactly 1
    # Without an interval of its own, only the reference's noise (rel. se 40000/1.96/2e6) widens it.
    assert got["No CI kernel"]["speedup"]["value"] == 0.5
    assert got["No CI kernel"]["speedup"]["ci95"] == pytest.approx([0.490099, 0.510101], rel=1e-5)
    rows = {r[1]: r for r in latency_tables(project.page(PROBLEM))[0]["rows"][1:]}
    assert rows["Triton kernel"][5:7] == ["2.00", "1.955–2.046"]  # rounded outwards
    assert rows["No CI kernel"][5:7] == ["0.500", "0.490–0.511"]


def test_no_reference_on_the_board_means_no_speedup(project):
    project.write("content/a.json", [timed("h", "Triton kernel", 1_000_000, (990_000, 1_010_000))])
    project.built()
    assert entries(project)["Triton kernel"]["speedup"] is None
    assert latency_tables(project.page(PROBLEM))[0]["rows"][1][5:7] == ["—", "—"]


def test_overlapping_intervals_tie_and_the_next_group_ranks_after_them(project):
    project.write("content/a.json", [
        timed("h", "A kernel", 1_000_000, (980_000, 1_020_000)),
        timed("h", "B kernel", 1_010_000, (990_000, 1_030_000)),   # overlaps A: tied
        timed("h", "C kernel", 1_100_000, (1_080_000, 1_120_000)),  # clear of A: new group, rank 3
    ])
    project.built()
    got = entries(project)
    assert [(got[k]["rank"], got[k]["tied"]) for k in ("A kernel", "B kernel", "C kernel")] == \
        [(1, True), (1, True), (3, False)]
    rows = latency_tables(project.page(PROBLEM))[0]["rows"][1:]
    assert [(r[0], r[1]) for r in rows] == [("=1", "A kernel"), ("=1", "B kernel"), ("3", "C kernel")]


def test_overlapping_intervals_need_not_tie_the_ratios_interval_decides(project):
    # Each interval overlaps the next, yet each ratio's interval lies wholly below 1. A / B: ln 1.015 =
    # 0.014889 > 1.96 · √((10000/1.96/1e6)² + (10000/1.96/1.015e6)²) = 0.014038; B / C: ln(1030/1015) =
    # 0.014670 > 0.013834. So each is faster than the next beyond noise: ranks 1, 2, 3, none tied.
    project.write("content/a.json", [
        timed("h", "A kernel", 1_000_000, (990_000, 1_010_000)),
        timed("h", "B kernel", 1_015_000, (1_005_000, 1_025_000)),
        timed("h", "C kernel", 1_030_000, (1_020_000, 1_040_000)),
    ])
    project.built()
    got = entries(project)
    assert [(got[k]["rank"], got[k]["tied"]) for k in ("A kernel", "B kernel", "C kernel")] == \
        [(1, False), (2, False), (3, False)]


def test_entry_without_interval_ranks_by_mean_and_is_flagged(project):
    project.write("content/a.json", [
        timed("h", "A kernel", 1_000_000, None), timed("h", "B kernel", 2_000_000, (1_900_000, 2_100_000))])
    project.built()
    rows = latency_tables(project.page(PROBLEM))[0]["rows"][1:]
    assert rows[0][0] == "1 no CI" and rows[1][0] == "2"
    [board] = project.api(API)["boards"]
    assert [w["code"] for w in board["warnings"]] == ["no-ci"]
    assert board["warnings"][0]["runs"] == ["run-h-a-kernel"]


def codes(project) -> list[str]:
    [board] = project.api(API)["boards"]
    return [w["code"] for w in board["warnings"]]


def clean_board() -> list[dict]:
    return [timed("h", "PyTorch eager", 2_000_000, (1_990_000, 2_010_000), **{"sourceNative.hardware": "NVIDIA H100 PCIe"}),
            timed("h", "Triton kernel", 1_000_000, (990_000, 1_010_000))]


def test_clean_board_has_no_warnings(project):
    project.write("content/a.json", clean_board())
    project.built()
    assert codes(project) == []
    assert "Comparability warnings" not in visible_text(project.page(PROBLEM))


@pytest.mark.parametrize("code, run", [
    ("mixed-hardware", timed("h", "Other GPU kernel", 900_000, (890_000, 910_000), **{"sourceNative.hardware": "NVIDIA H200"})),
    ("failed-runs", timed("h", "Broken kernel", 900_000, None, status="failed", timing=DELETE)),
    ("no-ci", timed("h", "Quiet kernel", 900_000, None)),
    ("high-variance", timed("h", "Noisy kernel", 900_000, (800_000, 1_000_000),
                            measurements=[{"metric": "latency", "statistic": "std", "unit": "ns", "value": 100_000}])),
    ("outliers", timed("h", "Spiky kernel", 900_000, (890_000, 910_000), **{"timing.latencyNs.maximum": 1_900_000})),
    ("environment-changed", timed("h", "Moved kernel", 900_000, (890_000, 910_000),
                                  environmentDigest="sha256:" + "e" * 64)),
])
def test_each_warning_is_raised_by_a_minimal_case(project, code, run):
    project.write("content/a.json", clean_board() + [run])
    project.built()
    [board] = project.api(API)["boards"]
    assert [w["code"] for w in board["warnings"]] == [code]
    warning = board["warnings"][0]
    expected_runs = [e["run"] for e in board["entries"]] if code == "environment-changed" else [run["run"]["metadata"]["name"]]
    assert sorted(warning["runs"]) == sorted(expected_runs)
    assert warning["message"] in visible_text(project.page(PROBLEM))


def test_run_on_another_gpu_is_marked_unranked_and_left_out_of_summaries(project):
    other = timed("h", "Triton kernel", 500_000, (490_000, 510_000), **{"sourceNative.hardware": "NVIDIA H200"})
    other["run"]["metadata"]["name"] = "run-on-h200"
    other["run"]["spec"]["implementationDigest"] = "sha256:" + "7" * 64  # another kernel, not a re-run
    project.write("content/a.json", clean_board() + [other])
    project.built()
    [board] = project.api(API)["boards"]
    mixed = next(e for e in board["entries"] if e["run"] == "run-on-h200")
    assert mixed["rank"] is None and mixed["mixed_hardware"] is True and mixed["speedup"] is None
    assert [e["rank"] for e in board["entries"]] == [1, 2, None]
    rows = latency_tables(project.page(PROBLEM))[0]["rows"]
    assert rows[3][:2] == ["—", "Triton kernel (77777777) other GPU"]
    host = project.api("hosts/h.json")
    [summary] = host["implementations"]
    everything = summary["levels"]["all"]
    assert summary["implementation"] == "Triton kernel" and everything["passed"] == 1
    assert everything["geomean_speedup"] == 2.0  # from the H100 run alone, not the H200 one


def test_a_history_row_shows_the_flags_its_table_would(project):
    """A run timed on another GPU, then re-run on the host's: its history row says "other GPU" as the API does."""
    earlier = timed("h", "Triton kernel", 500_000, (490_000, 510_000),
                    **{"sourceNative.hardware": "NVIDIA H200", "observedAt": "2026-03-01T08:00:00.000Z"})
    earlier["run"]["metadata"]["name"] = "run-on-h200"
    project.write("content/a.json", clean_board() + [earlier])
    project.built()
    [board] = project.api(API)["boards"]
    assert [(e["run"], e["mixed_hardware"]) for e in board["history"]] == [("run-on-h200", True)]
    [history] = tables(project.page(PROBLEM), "history")
    assert history["rows"][1][0] == "Triton kernel other GPU"


@pytest.mark.parametrize("recorded, product, form_factor, same", [
    ("NVIDIA H100 PCIe", "NVIDIA H100", "PCIe", True),
    ("NVIDIA H200", "NVIDIA H100", "PCIe", False),
    ("NVIDIA A10", "NVIDIA A10G", None, False),
    ("NVIDIA A10G", "NVIDIA A10G", None, True),
    ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 40GB", "SXM", False),
    ("NVIDIA A100-SXM4-40GB", "NVIDIA A100 40GB", "SXM", True),
    ("NVIDIA H100 SXM5", "NVIDIA H100", "PCIe", False),
    ("AMD Instinct MI250X/MI250", "AMD Instinct MI250", None, True),
    ("NVIDIA L4", "NVIDIA L40S", None, False),
    ("NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3090 Ti", None, False),
])
def test_mixed_hardware_rules(recorded, product, form_factor, same):
    assert same_gpu(recorded, product, form_factor) is same


def test_host_summary_is_kernelbench_fast_p_over_the_whole_suite_per_level(project):
    def problem(level: int, n: int, impl: str, mean: int, ci, status: str = "passed") -> dict:
        doc = timed("h", impl, mean, ci, status=status)
        doc["run"]["metadata"]["name"] = f"l{level}-p{n}-{impl.split()[0].lower()}"
        doc["run"]["spec"]["sourceNative"]["externalId"] = f"H/t/level{level}/{n}_Problem_{n}.py"
        doc["run"]["spec"]["workloadDigest"] = f"sha256:{level:032x}{n:032x}"
        return doc

    project.write("content/a.json", [
        problem(1, 1, "PyTorch eager", 2_000_000, (1_990_000, 2_010_000)),
        problem(1, 1, "Triton kernel", 1_000_000, (990_000, 1_010_000)),   # 2×, clearly faster
        problem(1, 2, "PyTorch eager", 1_000_000, (990_000, 1_010_000)),
        problem(1, 2, "Triton kernel", 2_000_000, (1_990_000, 2_010_000)),  # 0.5×: slow, and counted
        problem(1, 3, "PyTorch eager", 1_000_000, (900_000, 1_100_000)),
        problem(1, 3, "Triton kernel", 990_000, (890_000, 1_090_000)),      # 1.0101×, inside the noise
        problem(1, 4, "PyTorch eager", 1_000_000, (990_000, 1_010_000)),    # not attempted: not fast
        problem(2, 1, "PyTorch eager", 1_000_000, (990_000, 1_010_000)),
        problem(2, 1, "Triton kernel", 500_000, None, status="failed"),     # failed: not fast
    ])
    project.built()
    [summary] = project.api("hosts/h.json")["implementations"]
    level1, level2, everything = (summary["levels"][g] for g in ("1", "2", "all"))
    assert list(summary["levels"]) == ["1", "2", "all"]
    assert (level1["suite"], level1["attempted"], level1["passed"]) == (4, 3, 3)
    assert (level2["suite"], level2["attempted"], level2["passed"]) == (1, 1, 0)
    assert (everything["suite"], everything["attempted"], everything["passed"]) == (5, 4, 3)
    # KernelBench's fast_p: the point speedup above p, over the whole suite. 2× > 1 and > 1.5 but not > 2;
    # 1.0101× > 1 (within noise or not); 0.5× is not.
    assert level1["fast_p_count"] == {"0": 3, "1": 2, "1.5": 1, "2": 0}
    assert level1["fast_p"] == {"0": 3 / 4, "1": 2 / 4, "1.5": 1 / 4, "2": 0.0}
    assert everything["fast_p"] == {"0": 3 / 5, "1": 2 / 5, "1.5": 1 / 5, "2": 0.0}
    assert level1["faster_beyond_noise"] == 1  # the site's own, stricter count
    assert everything["geomean_speedup"] == pytest.approx((2 * 0.5 * (1_000_000 / 990_000)) ** (1 / 3), rel=1e-12)
    assert everything["geomean_over"] == 3
    host_page = tables(project.page("hosts/h"))
    level_page = tables(project.page("hosts/h/levels/1"))
    row = next(t for t in level_page if t["caption"].startswith("Level 1 on Host h"))["rows"][1]
    assert row == ["Triton kernel", "3 of 4", "3 (75%)", "2 (50%)", "1 (25%)", "0 (0%)", "1 (25%)", "1.00 over 3", "0"]
    row = next(t for t in host_page if t["caption"].startswith("All levels on Host h"))["rows"][1]
    assert row == ["Triton kernel", "4 of 5", "3 (60%)", "2 (40%)", "1 (20%)", "0 (0%)", "1 (20%)", "1.00 over 3", "0"]
    impl_page = tables(project.page("implementations/triton-kernel"))
    assert next(t for t in impl_page if "All levels, within each host" in t["caption"])["rows"][1] == \
        ["Host h", "4 of 5", "3 (60%)", "2 (40%)", "1 (20%)", "0 (0%)", "1 (20%)", "1.00 over 3", "0"]
    assert "fast_p against p" in project.page("hosts/h")


def test_problem_page_speedup_matrix_is_within_host(project):
    project.write("content/a.json", [
        timed("a", "PyTorch eager", 2_000_000, (1_990_000, 2_010_000)), timed("a", "Triton kernel", 1_000_000, (990_000, 1_010_000)),
        timed("b", "PyTorch eager", 3_000_000, (2_990_000, 3_010_000)), timed("b", "Triton kernel", 1_000_000, (990_000, 1_010_000)),
    ])
    project.built()
    [matrix] = tables(project.page(PROBLEM), "matrix")
    assert "within-host ratio" in matrix["caption"]
    assert matrix["rows"] == [["Timing host", "PyTorch eager", "Triton kernel"],
                              ["Host a", "1.00", "2.00"], ["Host b", "1.00", "3.00"]]


def test_two_workloads_are_separate_groups_with_dates(project):
    old = timed("a", "PyTorch eager", 2_000_000, (1_990_000, 2_010_000), observedAt="2025-01-19T00:00:00Z",
                workloadDigest="sha256:" + "1" * 64)
    new = timed("b", "PyTorch eager", 1_000_000, (990_000, 1_010_000), observedAt="2026-01-14T00:00:00Z",
                workloadDigest="sha256:" + "2" * 64)
    project.write("content/a.json", [new, old])
    project.built()
    doc = project.api(API)
    assert doc["workloads"] == [
        {"digest": "sha256:" + "1" * 64, "first_observed": "2025-01-19T00:00:00Z",
         "last_observed": "2025-01-19T00:00:00Z", "hosts": ["a"], "cost": None,
         "cost_why_not": "no cost was counted for its workload"},
        {"digest": "sha256:" + "2" * 64, "first_observed": "2026-01-14T00:00:00Z",
         "last_observed": "2026-01-14T00:00:00Z", "hosts": ["b"], "cost": None,
         "cost_why_not": "no cost was counted for its workload"},
    ]
    text = visible_text(project.page(PROBLEM))
    assert "This problem was timed at 2 different workloads" in text
    assert "Workload 1 of 2: 111111111111 Observed 2025-01-19; not comparable with the other workload." in text
    assert "Workload 2 of 2: 222222222222 Observed 2026-01-14" in text
    assert "Host a (workload 1)" in text and "Host b (workload 2)" in text  # the jump links


def test_reference_implementation_is_configurable(project):
    project.write("content/a.json", [timed("h", "PyTorch eager", 2_000_000, (1_990_000, 2_010_000)),
                                     timed("h", "Triton kernel", 1_000_000, (990_000, 1_010_000))])
    project.write("kindex.toml", 'reference = "Triton kernel"\n')
    project.built()
    got = entries(project)
    assert got["PyTorch eager"]["speedup"]["value"] == 0.5 and got["Triton kernel"]["reference"] is True
    assert "Speedup vs Triton kernel (×)" in latency_tables(project.page(PROBLEM))[0]["rows"][0]


def test_the_lab_is_shown_beside_its_implementation_and_absent_values_read_not_given(project):
    mine = timed("h", "Triton kernel", 1_000_000, None)
    mine["run"]["metadata"]["title"] = "Gemm BatchNorm Scaling Softmax · Triton kernel · Acme Lab"
    mine["run"]["spec"]["timing"]["latencyNs"] = {"mean": 1_000_000}  # means only
    del mine["run"]["spec"]["timing"]["samples"]
    project.write("content/a.json", [timed("h", "PyTorch eager", 2_000_000, (1_990_000, 2_010_000)), mine])
    project.built()
    rows = {r[1]: r for r in latency_tables(project.page(PROBLEM))[0]["rows"][1:]}
    assert "Triton kernel · Acme Lab" in rows and "PyTorch eager · Somewhere reference" in rows  # two labs: each row its own
    assert entries(project)["Triton kernel"]["lab"] == "Acme Lab"
    run_page = visible_text(project.page(f"runs/{mine['run']['metadata']['name']}"))
    assert re.search(r"Lab ?Acme Lab", run_page)
    for fact in ("Minimum", "Maximum", "Standard deviation", "Samples"):
        assert re.search(fact + " ?not given", run_page), fact
    assert "None" not in run_page and "— ms" not in run_page


def test_a_table_whose_runs_share_one_lab_names_it_once(project):
    project.write("content/a.json", clean_board())
    project.built()
    html = project.page(PROBLEM)
    assert "every run by Somewhere" in visible_text(html) and 'class="lab"' not in html
