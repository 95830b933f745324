"""The comparison model as readers get it: a problem is its workload, re-runs keep a history, ranks
agree with the speedup intervals, and precision is never more than the source's.

Numbers are computed by hand in the comments (about page: "Comparing two runs")."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SEED, bundle, latency_tables, release, tables, visible_text
from kindex_site.stats import Noise, faster_beyond_noise, ranks, ratio

PROBLEM = "problems/level2-84-gemm-batchnorm-scaling-softmax"
API = "problems/level2-84-gemm-batchnorm-scaling-softmax.json"
NOW = "2026-03-01T00:00:00Z"


def run(name: str, implementation: str, mean: int, ci: tuple[int, int] | None, *, observed: str = NOW,
        status: str = "passed", host: str = "h", digest: str | None = None, resolution: dict | None = None,
        **changes) -> dict:
    """A run of the seed's problem (its workload) on `host`."""
    doc = bundle(name=name, title=f"Gemm BatchNorm Scaling Softmax · {implementation} · lab", host=host,
                 status=status, changes={"run.spec.observedAt": observed, "run.spec.measurements": [], **changes})
    spec = doc["run"]["spec"]
    if status == "passed":
        latency = spec["timing"]["latencyNs"] = {"mean": mean, "minimum": mean, "maximum": mean}
        if ci is not None:
            latency["confidence95"] = list(ci)
    else:
        del spec["timing"]
    if digest is not None:
        spec["implementationDigest"] = "sha256:" + digest * 64
    if resolution is not None:
        doc["protocol"]["spec"]["measurement"]["resolution"] = resolution
    return doc


def board_of(project, api: str = API) -> dict:
    [board] = project.api(api)["boards"]
    return board


def by_run(board: dict) -> dict[str, dict]:
    return {e["run"]: e for e in board["entries"] + board["history"]}


# --- re-runs and history ----------------------------------------------------------------------


def test_a_rerun_of_the_reference_keeps_every_speedup_and_shows_the_old_run_in_history(project):
    project.write("content/a.json", [
        run("eager-feb", "PyTorch eager", 10_000_000, (9_900_000, 10_100_000), observed="2026-02-01T00:00:00Z"),
        run("eager-mar", "PyTorch eager", 8_000_000, (7_920_000, 8_080_000)),
        run("kernel-mar", "Triton kernel", 4_000_000, (3_960_000, 4_040_000), digest="b"),
    ])
    project.built()
    board = board_of(project)
    assert board["reference"] == "eager-mar"
    assert [(e["run"], e["rank"]) for e in board["entries"]] == [("kernel-mar", 1), ("eager-mar", 2)]
    kernel = board["entries"][0]
    # 8 / 4 = 2; se/mean = 80000/1.96/8e6 = 40000/1.96/4e6 = 0.0051020; sd = 0.0072154;
    # 2 · exp(±1.96 · 0.0072154) = [1.971917, 2.028492].
    assert kernel["speedup"]["value"] == 2.0
    assert kernel["speedup"]["ci95"] == pytest.approx([1.971917, 2.028492], rel=1e-5)  # (six figures in the API)
    [old] = board["history"]
    assert old["run"] == "eager-feb" and old["superseded_by"] == "eager-mar"
    assert old["rank"] is None and old["speedup"] is None
    # 8 / 10 = 0.8, both se/mean 0.0051020: 0.8 · exp(±0.0141421) = [0.788766, 0.811396], wholly below 1.
    trend = board["entries"][1]["trend"]
    assert trend["previous"] == "eager-feb" and trend["verdict"] == "improved"
    assert trend["ratio"] == 0.8 and trend["ratio_ci95"] == pytest.approx([0.788766, 0.811396], rel=1e-5)
    html = project.page(PROBLEM)
    rows = latency_tables(html)
    assert [r[:2] for r in rows[0]["rows"][1:]] == [["1", "Triton kernel"], ["2", "PyTorch eager reference improved"]]
    assert tables(html, "history")[0]["rows"][1][:3] == ["PyTorch eager", "2026-02-01", "passed"]
    assert "History: 1 earlier run on this table" in visible_text(html)
    assert "<details" in html and "<svg" in html.split("<details", 1)[1]  # the trend chart, without JavaScript
    assert "superseded by eager-mar" in visible_text(project.page("runs/eager-feb"))


def test_every_run_appears_once_across_entries_and_history(project):
    docs = [run(f"r{i}", f"Impl {i % 3}", 1_000_000 + i, None, observed=f"2026-03-0{i % 5 + 1}T00:00:00Z")
            for i in range(10)]
    project.write("content/a.json", docs)
    project.built()
    board = board_of(project)
    names = [e["run"] for e in board["entries"] + board["history"]]
    assert sorted(names) == sorted(f"r{i}" for i in range(10)) and len(board["entries"]) == 3
    for e in board["history"]:
        assert (project.root / "site/runs" / e["run"] / "index.html").is_file()


def test_the_latest_run_is_current_and_the_name_breaks_a_tie(project):
    project.write("content/a.json", [
        run("b-run", "PyTorch eager", 2_000_000, None, observed="2026-03-01T01:00:00+01:00"),  # = 00:00 UTC
        run("a-run", "PyTorch eager", 1_000_000, None, observed="2026-03-01T00:00:00Z"),
    ])
    project.built()
    board = board_of(project)
    assert [e["run"] for e in board["entries"]] == ["b-run"] and board["history"][0]["superseded_by"] == "b-run"
    # The name says which is current, never which came first: no trend between them, and a warning.
    assert [e["trend"] for e in board["entries"] + board["history"]] == [None, None]
    (warning,) = [w for w in board["warnings"] if w["code"] == "unordered-runs"]
    assert sorted(warning["runs"]) == ["a-run", "b-run"]


def test_a_regression_beyond_noise_is_flagged_and_one_within_noise_is_not(project):
    project.write("content/a.json", [
        run("slow-old", "Slow kernel", 1_000_000, (990_000, 1_010_000), observed="2026-01-01T00:00:00Z", digest="1"),
        run("slow-new", "Slow kernel", 1_100_000, (1_089_000, 1_111_000), digest="1"),     # ×1.1: regressed
        run("same-old", "Same kernel", 1_000_000, (990_000, 1_010_000), observed="2026-01-01T00:00:00Z", digest="2"),
        run("same-new", "Same kernel", 1_005_000, (995_000, 1_015_000), digest="2"),       # inside the noise
    ])
    project.built()
    runs = by_run(board_of(project))
    assert runs["slow-new"]["trend"]["verdict"] == "regressed"
    assert runs["same-new"]["trend"]["verdict"] == "unchanged"
    assert runs["slow-old"]["trend"] is None


def test_a_current_run_that_failed_is_listed_failed_with_when_it_last_passed(project):
    project.write("content/a.json", [
        run("k-jan", "Triton kernel", 1_000_000, None, observed="2026-01-05T00:00:00Z"),
        run("k-feb", "Triton kernel", 0, None, observed="2026-02-05T00:00:00Z", status="failed"),
    ])
    project.built()
    [current] = board_of(project)["entries"]
    assert current["run"] == "k-feb" and current["rank"] is None and current["last_passed"] == "2026-01-05T00:00:00Z"
    assert "failed (last passed 2026-01-05)" in visible_text(project.page(PROBLEM))


# --- the rank rule ----------------------------------------------------------------------------


def test_a_speedup_interval_that_excludes_1_is_never_tied_with_the_reference(project):
    # Intervals overlap (975–995 and 990–1010 µs), yet 1000 / 985 = 1.015228 with se/mean 0.0051020 and
    # 0.0051799: sd = 0.0072707, lower end 1.015228 · exp(−0.0142506) = 1.000863 > 1. Faster beyond noise.
    project.write("content/a.json", [
        run("eager", "PyTorch eager", 1_000_000, (990_000, 1_010_000)),
        run("inductor", "torch.compile (inductor)", 985_000, (975_000, 995_000), digest="c"),
    ])
    project.built()
    runs = by_run(board_of(project))
    assert runs["inductor"]["speedup"]["ci95"][0] == pytest.approx(1.000863, rel=1e-5)
    assert (runs["inductor"]["rank"], runs["inductor"]["tied"]) == (1, False)
    assert (runs["eager"]["rank"], runs["eager"]["tied"]) == (2, False)


def test_a_speedup_interval_that_contains_1_is_always_tied_with_the_reference(project):
    project.write("content/a.json", [
        run("eager", "PyTorch eager", 1_000_000, (995_000, 1_005_000)),
        run("other", "Other kernel", 1_003_000, (998_000, 1_008_000), digest="d"),
    ])
    project.built()
    runs = by_run(board_of(project))
    low, high = runs["other"]["speedup"]["ci95"]
    assert low < 1 < high
    assert [(runs[n]["rank"], runs[n]["tied"]) for n in ("eager", "other")] == [(1, True), (1, True)]
    assert [r[0] for r in latency_tables(project.page(PROBLEM))[0]["rows"][1:]] == ["=1", "=1"]


def _noise(mean: int, relative_se: float, step: int) -> Noise:
    return Noise(mean, relative_se, min(Fraction(step, 2), Fraction(9, 10) * mean) if step else 0)


# Means that collide and sit one rounding step apart (three figures) as well as anywhere.
means = st.one_of(st.integers(1, 10**9), st.sampled_from([4_930_000, 4_940_000, 4_950_000, 4_960_000, 5_000_000]))
noises = st.builds(_noise, means, st.one_of(st.just(0.0), st.floats(0, 0.2)), st.sampled_from([0, 0, 1, 10_000, 100_000]))
# The rules' properties: 1,000 examples each in a release run, 100 otherwise, from a fixed seed.
PROPERTY = settings(max_examples=1000 if release() else 100, deadline=None, derandomize=True, database=None)


@pytest.mark.release
@PROPERTY
@given(st.lists(noises, min_size=1, max_size=12))
def test_ranks_follow_the_one_rule(values):
    """rank(i) = 1 + the number of runs faster beyond noise than i or than any run at most i's
    (about page, "Ranks"): a faster one always ranks better, a smaller mean never ranks worse, equal
    ranks are tied, and the shortcut in `ranks` changes nothing."""
    got = ranks(values)
    for i, a in enumerate(values):
        counted = {j for j, b in enumerate(values) for c in values if c.value <= a.value and faster_beyond_noise(b, c)}
        assert got[i][0] == 1 + len(counted)
        for j, b in enumerate(values):
            if faster_beyond_noise(a, b):
                assert got[i][0] < got[j][0]
            if a.value < b.value:
                assert got[i][0] <= got[j][0]
            if i != j and got[i][0] == got[j][0]:
                assert got[i][1] and got[j][1]


@pytest.mark.release
@PROPERTY
@given(noises, noises, noises)
def test_faster_beyond_noise_is_transitive(a, b, c):
    """What makes the rank rule consistent: A faster than B and B than C beyond noise → A than C."""
    if faster_beyond_noise(a, b) and faster_beyond_noise(b, c):
        assert faster_beyond_noise(a, c)


def test_a_faster_mean_is_never_ranked_below_a_slower_one():
    # C (0.150 ms, narrow) is faster beyond noise than A (0.187 ms, narrow) but not than B (0.189 ms,
    # wide): counting only the runs faster than each, A would rank 2 and B 1.
    c, a, b = Noise(150_000, 0.001), Noise(187_000, 0.001), Noise(189_000, 0.3)
    assert faster_beyond_noise(c, a) and not faster_beyond_noise(c, b)
    assert ranks([c, a, b]) == [(1, False), (2, True), (2, True)]


def test_adjacent_three_figure_means_are_never_told_apart_by_rounding_alone():
    # 4.94 and 4.95 ms to three figures: each may be 0.005 ms off, so 4.945 / 4.945 is possible; the
    # bound touches 1 exactly, which floats would put at 0.9999999999999999.
    for m in range(100, 1000):
        low, high = (_noise(m * 10_000, 0.0, 10_000), _noise((m + 1) * 10_000, 0.0, 10_000 if m < 999 else 100_000))
        assert not faster_beyond_noise(low, high), m
        assert ranks([low, high]) == [(1, True), (1, True)]
        assert ratio(low, high).kind == "rounding" and ratio(low, high).ci95 is None


@pytest.mark.release
@PROPERTY
@given(noises, noises)
def test_two_runs_tie_exactly_when_their_ratio_interval_contains_1(a, b):
    (rank_a, tied_a), (rank_b, _) = ranks([a, b])
    r = ratio(a, b)
    inside = r.beyond == 0
    assert tied_a == inside == (rank_a == rank_b)
    if r.bounds is not None and 0.01 < r.value < 100:
        assert (r.ci_low <= 1 <= r.ci_high) == inside or min(abs(r.ci_low - 1), abs(r.ci_high - 1)) < 1e-12
    inverse = ratio(b, a)  # one interval, seen from either side
    assert inverse.beyond == -r.beyond and inverse.kind == r.kind
    if r.bounds:
        assert inverse.ci_low == pytest.approx(1 / r.ci_high) and inverse.ci_high == pytest.approx(1 / r.ci_low)


# --- precision --------------------------------------------------------------------------------

THREE_FIGURES = {"significantFigures": 3}


def test_26_5_and_26_6_ms_to_three_figures_with_tiny_std_are_tied(project):
    # Rounded to 0.1 ms, each mean may be 0.05 ms off: 26.55 / 26.55 is possible, so the interval
    # [26.55/26.65 · e^−ε, 26.65/26.55 · e^+ε] contains 1.
    project.write("content/a.json", [
        run("eager", "PyTorch eager", 26_600_000, (26_599_000, 26_601_000), resolution=THREE_FIGURES),
        run("kernel", "Kernel", 26_500_000, (26_499_000, 26_501_000), resolution=THREE_FIGURES, digest="e"),
    ])
    project.built()
    runs = by_run(board_of(project))
    assert [(runs[n]["rank"], runs[n]["tied"]) for n in ("eager", "kernel")] == [(1, True), (1, True)]
    low, high = runs["kernel"]["speedup"]["ci95"]
    assert low < 1 < high
    # Shown to four significant figures at most (the source's three, plus one), rounded outwards.
    [table] = latency_tables(project.page(PROBLEM))
    kernel_row = next(r for r in table["rows"] if r[1] == "Kernel")
    assert kernel_row[3:5] == ["26.5", "26.49–26.51"]
    assert runs["kernel"]["speedup"]["value"] == 26_600_000 / 26_500_000  # the exact ratio; the page rounds it once
    assert kernel_row[5] == "1.00"
    host = project.api("hosts/h.json")
    # KernelBench's fast_1 is the point speedup against 1: 1.0038 > 1, within noise or not.
    [summary] = host["implementations"]
    assert summary["levels"]["all"]["fast_p_count"]["1"] == 1 and summary["levels"]["all"]["faster_beyond_noise"] == 0


def test_without_a_stated_resolution_the_same_pair_is_ranked_apart(project):
    project.write("content/a.json", [
        run("eager", "PyTorch eager", 26_600_000, (26_599_000, 26_601_000)),
        run("kernel", "Kernel", 26_500_000, (26_499_000, 26_501_000), digest="e"),
    ])
    project.built()
    runs = by_run(board_of(project))
    assert (runs["kernel"]["rank"], runs["eager"]["rank"]) == (1, 2)
    [table] = latency_tables(project.page(PROBLEM))
    assert next(r for r in table["rows"] if r[1] == "Kernel")[4] == "26.4990–26.5010"


def test_a_run_with_an_interval_reaching_1_ns_is_ranked_with_it_and_flagged_noisy(project):
    noisy = run("noisy", "Noisy kernel", 2_000, (1, 5_000), digest="f",
                **{"run.spec.measurements": [{"metric": "latency", "statistic": "std", "unit": "ns", "value": 9_000}]})
    project.write("content/a.json", [run("eager", "PyTorch eager", 1_000, (990, 1_010)), noisy])
    project.built()
    board = board_of(project)
    runs = by_run(board)
    assert runs["noisy"]["ci95_ns"] == [1, 5_000] and runs["noisy"]["rank"] == 1 and runs["noisy"]["tied"]
    assert "noisy" in next(w for w in board["warnings"] if w["code"] == "high-variance")["runs"]


# --- plausibility -----------------------------------------------------------------------------


def review(name: str, verdict: str, date: str = "2026-03-10") -> dict:
    """A publisher's RunReview of a run (content/reviews/)."""
    return {"apiVersion": "kindex-site.dev/v1", "kind": "RunReview",
            "metadata": {"name": f"review-{name}", "title": f"Review of {name}"},
            "spec": {"run": name, "verdict": verdict, "reason": "profiled and checked against the reference",
                     "date": date, "evidence": f"https://example.org/reviews/{name}"}}


def test_an_implausible_speedup_is_flagged_ranked_and_left_out_of_summaries_until_reviewed(project):
    docs = [run("eager", "PyTorch eager", 20_000_000, (19_900_000, 20_100_000)),
            run("magic", "Magic kernel", 1_000_000, (990_000, 1_010_000), digest="9")]  # 20×
    project.write("content/a.json", docs)
    project.built()
    board = board_of(project)
    runs = by_run(board)
    assert runs["magic"]["implausible"] is True and runs["magic"]["rank"] == 1
    [warning] = [w for w in board["warnings"] if w["code"] == "implausible"]
    assert warning["runs"] == ["magic"] and "10×" in warning["message"]
    [summary] = project.api("hosts/h.json")["implementations"]
    everything = summary["levels"]["all"]
    assert (everything["attempted"], everything["passed"], everything["held_out_implausible"],
            everything["held_out_runs"], everything["geomean_speedup"]) == (1, 0, 1, ["magic"], None)
    assert everything["fast_p_count"] == {"0": 0, "1": 0, "1.5": 0, "2": 0}  # held out: not fast, still in the suite
    assert "Magic kernel implausible" in visible_text(project.page(PROBLEM))
    host_page = project.page("hosts/h/")
    row = next(t for t in tables(host_page) if t["caption"].startswith("All levels"))["rows"][1]
    assert row[0] == "Magic kernel" and row[-1].startswith("1") and 'href="/runs/magic/">magic</a>' in host_page

    project.write("content/reviews/magic.json", review("magic", "clean"))
    project.built()
    board = board_of(project)
    assert by_run(board)["magic"]["implausible"] is False and by_run(board)["magic"]["verdict"] == "clean"
    assert [w["code"] for w in board["warnings"]] == []
    [summary] = project.api("hosts/h.json")["implementations"]
    assert summary["implementation"] == "Magic kernel" and summary["levels"]["all"]["geomean_speedup"] == 20.0
    assert summary["levels"]["all"]["fast_p_count"]["2"] == 1 and summary["levels"]["all"]["held_out_runs"] == []


def test_a_slow_result_is_a_result_however_slow(project):
    project.write("content/a.json", [run("eager", "PyTorch eager", 1_000_000, (990_000, 1_010_000)),
                                     run("slow", "Slow kernel", 50_000_000, (49_000_000, 51_000_000), digest="7")])
    project.built()
    board = board_of(project)
    assert by_run(board)["slow"]["implausible"] is False
    assert "implausible" not in [w["code"] for w in board["warnings"]]
    everything = project.api("hosts/h.json")["implementations"][0]["levels"]["all"]
    assert (everything["passed"], everything["held_out_implausible"], everything["geomean_speedup"]) == (1, 0, 0.02)
    assert everything["fast_p_count"] == {"0": 1, "1": 0, "1.5": 0, "2": 0}


def test_the_implausible_bound_is_a_setting(project):
    project.write("content/a.json", [run("eager", "PyTorch eager", 3_000_000, None),
                                     run("fast", "Fast kernel", 1_000_000, None, digest="8")])
    project.write("kindex.toml", "implausible_speedup = 2.5\n")
    project.built()
    assert by_run(board_of(project))["fast"]["implausible"] is True


# --- problem identity -------------------------------------------------------------------------


def test_a_second_sources_run_of_a_known_workload_joins_its_problem(project):
    mine = bundle(name="mylab-eager", title="Gemm BatchNorm Scaling Softmax · PyTorch eager · mylab",
                  changes={"run.spec.sourceNative": {"source": "mylab"}, "run.spec.observedAt": "2026-04-01T00:00:00Z",
                           "run.spec.workloadDigest": SEED["run"]["spec"]["workloadDigest"]})
    project.write("content/kernelbench.json", SEED)
    project.write("content/mylab.json", mine)
    code, out, err = project.run("check", "--strict")
    assert code == 0, err  # one name (the same title), one workload: nothing to warn about
    project.built()
    index = project.api("index.json")
    assert [p["slug"] for p in index["problems"]] == ["level2-84-gemm-batchnorm-scaling-softmax"]
    board = board_of(project)
    # The same implementation (digest) from another lab: a run of its own, never the table's reference.
    seed = SEED["run"]["metadata"]["name"]
    assert sorted(e["run"] for e in board["entries"]) == sorted([seed, "mylab-eager"]) and board["history"] == []
    assert board["reference"] == seed
    assert {e["run"]: e["lab"] for e in board["entries"]} == {seed: "Lambda Labs", "mylab-eager": "mylab"}
    # The title-named page the lab's run alone would have had leads to the problem's.
    redirect = project.page("problems/gemm-batchnorm-scaling-softmax")
    assert 'http-equiv="refresh" content="0; url=/problems/level2-84-gemm-batchnorm-scaling-softmax/"' in redirect
    assert 'href="/problems/level2-84-gemm-batchnorm-scaling-softmax/"' in redirect


def test_two_names_for_one_workload_are_reported_naming_both_files(project):
    other = bundle(name="other-name", title="Fused GEMM softmax · Triton kernel · lab",
                   changes={"run.spec.sourceNative": {"source": "mylab"},
                            "run.spec.workloadDigest": SEED["run"]["spec"]["workloadDigest"]})
    project.write("content/kernelbench.json", SEED)
    project.write("content/mylab.json", other)
    code, out, err = project.run("check")
    assert code == 0
    assert "content/kernelbench.json" in err and "content/mylab.json" in err and "name one workload" in err
    code, out, err = project.run("check", "--strict")
    assert code == 1 and "name one workload" in err and "Traceback" not in err
    project.built()
    doc = project.api(API)
    assert {a["title"] for a in doc["aliases"]} == {"Fused GEMM softmax"}
    assert "Also known as Fused GEMM softmax" in visible_text(project.page(PROBLEM))


def test_one_name_for_two_workloads_timed_at_once_on_different_hosts_is_reported(project):
    a = bundle(name="a-run", title="Matmul · PyTorch eager · lab a", host="gpu-a",
               changes={"run.spec.sourceNative": {"source": "a"}, "run.spec.workloadDigest": "sha256:" + "a" * 64})
    b = bundle(name="b-run", title="Matmul · PyTorch eager · lab b", host="gpu-b",
               changes={"run.spec.sourceNative": {"source": "b"}, "run.spec.workloadDigest": "sha256:" + "b" * 64})
    project.write("content/a.json", a)
    project.write("content/b.json", b)
    code, out, err = project.run("check", "--strict")
    assert code == 1 and "content/a.json" in err and "content/b.json" in err and "two workloads" in err
    # One after the other (a new version of the problem), it is no warning.
    b["run"]["spec"]["observedAt"] = "2027-01-01T00:00:00Z"
    project.write("content/b.json", b)
    code, out, err = project.run("check", "--strict")
    assert code == 0, err


def test_a_renamed_problems_old_url_leads_to_its_page_which_lists_the_former_name(project):
    renamed = bundle(name="lstm-run", title="LSTM · PyTorch eager · lab", changes={
        "run.spec.sourceNative.externalId": "L40S_matx3/torch/level3/35_LSTM.py",
        "run.spec.sourceNative.formerExternalId": "L40S_matx3/torch/level3/35_LTSM.py"})
    project.write("content/a.json", renamed)
    project.built()
    doc = project.api("problems/level3-35-lstm.json")
    assert doc["title"] == "LSTM" and doc["aliases"] == [{"slug": "level3-35-ltsm", "title": "LTSM"}]
    assert "LTSM" in visible_text(project.page("problems/level3-35-lstm"))
    old = project.page("problems/level3-35-ltsm")
    assert 'url=/problems/level3-35-lstm/"' in old
    assert "This problem is now named LSTM" in visible_text(old)
    assert "problems/level3-35-ltsm" not in [p["slug"] for p in project.api("index.json")["problems"]]


# --- pages that gather problems ---------------------------------------------------------------


def test_implementation_pages_never_put_two_workloads_in_one_row(project):
    old = run("old-size", "Triton kernel", 3_810_000, None, host="h100", digest="3",
              observed="2025-01-01T00:00:00Z")
    new = run("new-size", "Triton kernel", 429_000, None, host="l40s", digest="3",
              **{"run.spec.workloadDigest": "sha256:" + "5" * 64})
    project.write("content/a.json", [old, new])
    project.built()
    [table] = [t for t in tables(project.page("implementations/triton-kernel")) if "per problem" in t["caption"]]
    body = table["rows"][1:]
    assert len(body) == 2
    assert [row[0] for row in body] == ["Gemm BatchNorm Scaling Softmax workload 1 of 2",
                                       "Gemm BatchNorm Scaling Softmax workload 2 of 2"]
    for row in body:  # each row holds one workload's numbers only
        assert sum(cell != "—" for cell in row[1:]) == 1


def _on(host: str, name: str, mean: int, implementation: str = "PyTorch eager") -> dict:
    return run(name, implementation, mean, (mean - mean // 100, mean + mean // 100), host=host,
               digest=None if implementation == "PyTorch eager" else "5")


def _elsewhere(problem: int, host: str, name: str, mean: int) -> dict:
    """PyTorch eager on `host` for level 1 problem `problem` (its own workload), not the seed's."""
    doc = _on(host, name, mean)
    doc["run"]["metadata"]["title"] = f"Problem {problem} · PyTorch eager · lab"
    doc["run"]["spec"]["sourceNative"]["externalId"] = f"H/t/level1/{problem}_Problem_{problem}.py"
    doc["run"]["spec"]["workloadDigest"] = f"sha256:{problem:064x}"
    return doc


def test_a_latency_far_off_its_workloads_on_other_hosts_is_flagged_and_held_out_until_reviewed(project):
    # Square matmul at 2.66 ms on two hosts; on the third, 33,179 ms (a unit error upstream): 12,473× the
    # median of the others, and so on the two other workloads the three hosts share: h3 is off in units.
    # Its kernel there is 2× its eager, so nothing about its speedup is odd.
    project.write("content/a.json", [
        _on("h1", "eager-h1", 2_660_000), _on("h2", "eager-h2", 2_700_000),
        _on("h3", "eager-h3", 33_179_000_000), _on("h3", "kernel-h3", 16_589_500_000, "Kernel"),
        _on("h1", "kernel-h1", 2_000_000, "Kernel"),
        *[_elsewhere(n, host, f"p{n}-{host}", mean * 1_000_000) for n in (1, 2)
          for host, mean in (("h1", 3), ("h2", 4), ("h3", 41_000))],
    ])
    project.built()
    boards = {b["host"]: b for b in project.api(API)["boards"]}
    runs = {e["run"]: e for b in boards.values() for e in b["entries"]}
    assert runs["eager-h3"]["implausible_latency"] and runs["kernel-h3"]["implausible_latency"]
    assert not any(runs[n]["implausible_latency"] for n in ("eager-h1", "eager-h2", "kernel-h1"))
    assert runs["kernel-h3"]["rank"] == 1 and runs["kernel-h3"]["speedup"]["value"] == 2.0  # still ranked
    [warning] = [w for w in boards["h3"]["warnings"] if w["code"] == "implausible-latency"]
    assert sorted(warning["runs"]) == ["eager-h3", "kernel-h3"] and "1,000×" in warning["message"]
    html = project.page(PROBLEM)
    assert "Kernel implausible latency" in visible_text(html)
    # Its host page says by how much: 41,000 / 3.5 ms on two of the three workloads (the upper middle).
    assert "steadily 11,700× above the other hosts'" in visible_text(project.page("hosts/h3/"))
    everything = project.api("hosts/h3.json")["implementations"][0]["levels"]["all"]
    assert (everything["passed"], everything["held_out_runs"]) == (0, ["kernel-h3"])

    # A review finds the kernel's run clean: it counts again; its host's other runs stay flagged.
    project.write("content/reviews/kernel-h3.json", review("kernel-h3", "clean"))
    project.built()
    runs = {e["run"]: e for b in project.api(API)["boards"] for e in b["entries"]}
    assert runs["eager-h3"]["implausible_latency"] and not runs["kernel-h3"]["implausible_latency"]
    assert runs["kernel-h3"]["verdict"] == "clean"
    assert project.api("hosts/h3.json")["implementations"][0]["levels"]["all"]["passed"] == 1
    # A bound above the host's factor flags nothing.
    project.write("kindex.toml", "implausible_latency = 20000\n")
    project.built()
    runs = {e["run"]: e for b in project.api(API)["boards"] for e in b["entries"]}
    assert not runs["eager-h3"]["implausible_latency"] and not runs["kernel-h3"]["implausible_latency"]


def _three_workloads(means: dict[str, int]) -> list[dict]:
    """PyTorch eager on each host at `means[host]` ns on the seed's problem and two others: three
    workloads every host shares, as many as the units rule needs to judge a host."""
    docs = [_on(host, f"eager-{host}", mean) for host, mean in means.items()]
    return docs + [_elsewhere(n, host, f"p{n}-{host}", mean) for n in (1, 2) for host, mean in means.items()]


def test_a_host_exactly_at_the_bound_is_a_result(project):
    # h3 is exactly 1,000 × h2 (the upper middle of h1 and h2) on every workload: not beyond the bound.
    project.write("content/a.json", _three_workloads({"h1": 1_000_000, "h2": 3_000_000, "h3": 3_000_000_000}))
    project.built()
    runs = {e["run"]: e for b in project.api(API)["boards"] for e in b["entries"]}
    assert not any(e["implausible_latency"] for e in runs.values())
    # One nanosecond more on each workload, and h3 is off in units: its runs alone are flagged.
    project.write("content/a.json", _three_workloads({"h1": 1_000_000, "h2": 3_000_000, "h3": 3_000_000_001}))
    project.built()
    runs = {e["run"]: e for b in project.api(API)["boards"] for e in b["entries"]}
    assert runs["eager-h3"]["implausible_latency"]
    assert not runs["eager-h1"]["implausible_latency"] and not runs["eager-h2"]["implausible_latency"]


def test_two_hosts_that_disagree_by_more_than_the_bound_are_both_flagged(project):
    project.write("content/a.json", _three_workloads({"h1": 1_000_000, "h2": 1_000_000_001}))
    project.built()  # which one is wrong cannot be told
    runs = {e["run"]: e for b in project.api(API)["boards"] for e in b["entries"]}
    assert runs["eager-h1"]["implausible_latency"] and runs["eager-h2"]["implausible_latency"]


def test_a_host_is_judged_on_three_shared_workloads_at_least(project):
    # Two hosts 1,000,001× apart on two workloads only: too little to judge either's units.
    docs = _three_workloads({"h1": 1_000_000, "h2": 1_000_000_001})
    project.write("content/a.json", [d for d in docs if not d["run"]["metadata"]["name"].startswith("p2-")])
    project.built()
    runs = {e["run"]: e for b in project.api(API)["boards"] for e in b["entries"]}
    assert not any(e["implausible_latency"] for e in runs.values())


def test_a_reference_run_from_another_lab_cannot_take_over_the_table(project):
    # A hostile "PyTorch eager" run with the reference's digest and a later observedAt would be the
    # reference's current run if labs did not count: every speedup on the table would change.
    docs = [run("eager", "PyTorch eager", 10_000_000, (9_900_000, 10_100_000), observed="2026-01-01T00:00:00Z"),
            run("kernel", "Kernel", 4_000_000, (3_960_000, 4_040_000), digest="c")]
    project.write("content/a.json", docs)
    project.built()
    before = {e["run"]: e["speedup"] for e in board_of(project)["entries"]}
    hostile = run("hostile", "PyTorch eager", 1_000_000, (990_000, 1_010_000), observed="2026-06-01T00:00:00Z")
    hostile["run"]["metadata"]["title"] = "Gemm BatchNorm Scaling Softmax · PyTorch eager · Any Lab"
    project.write("content/b.json", hostile)
    project.built()
    board = board_of(project)
    assert board["reference"] == "eager" and board["history"] == []
    after = {e["run"]: e["speedup"] for e in board["entries"]}
    assert {name: after[name] for name in before} == before  # no speedup moved
    assert after["hostile"]["value"] == 10.0 and by_run(board)["hostile"]["reference"] is False
    assert "several-references" not in [w["code"] for w in board["warnings"]]
