"""Every statistical value of the JSON API, recomputed from the raw inputs by the about page's rules.

The rules are written again in tests/recompute/ from the text of content/pages/about.md ("Precision",
"Comparing two runs", "Speedups", "Physics", "Units", "Reviews", "Summaries: fast_p over the suite",
"Ranks", "History") without the product's code: nothing there imports kindex_site, and the GPU figures
are read from gpus.toml with tomllib and converted there. The site is built through the real command.

- the bundled site: every board's ranks, ties, speedups and their intervals, implausible flags, trends,
  each run's GPU, floor, roofline, share of speed of light, below-floor flag and verdict, each workload's
  cost, and every host's summaries, with zero differences;
- a small site whose content exercises what the bundled one does not (trends, no interval at all,
  stepNs, several references, a failed reference, reviews, two workloads, the "other" level, floors on
  the site's own GPU and on none, a host off in units);
- issue 43's done-when checks on the bundled data (skipped until content/costs/ ships);
- the comparison fails when it should: API documents written from the rules pass, and each tampered
  value in a copy of them is reported;
- the rules reproduce the about page's own worked examples.
"""

from __future__ import annotations

import ast
import copy
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from recompute import rules, synthetic
from recompute.check import Report, compare, expect, judge_runs, recompute
from recompute.ideal import ideal_api, problem_key
from recompute.inputs import Run, read_api, read_inputs, read_settings

ROOT = Path(__file__).resolve().parent.parent


def build(content: Path, config: Path, out: Path) -> None:
    """`kindex-site build` in a subprocess: the product's modules never enter this process."""
    exe = Path(sys.executable).parent / "kindex-site"
    command = [str(exe)] if exe.is_file() else [
        sys.executable, "-c", "import sys; from kindex_site.cli import main; sys.exit(main(sys.argv[1:]))"]
    done = subprocess.run([*command, "build", "--config", str(config), "--content", str(content), "--out", str(out)],
                          cwd=out.parent, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"build failed:\n{done.stdout}\n{done.stderr}"


def test_every_statistic_of_the_bundled_site_follows_the_about_page(bundled_site):
    report = recompute(ROOT / "content", ROOT / "kindex.toml", bundled_site)
    assert report.checked["boards"] > 1000 and report.checked["summary values"] > 100, report.summary()
    if report.differences:
        pytest.fail(report.summary(20), pytrace=False)


def test_the_rules_the_bundled_content_does_not_exercise_hold_on_a_small_site(tmp_path):
    content, settings = synthetic.write(tmp_path)
    build(content, settings, tmp_path / "site")
    report = recompute(content, settings, tmp_path / "site")
    assert report.checked["boards"] >= 8, report.summary()
    if report.differences:
        pytest.fail(report.summary(20), pytrace=False)


# --- Issue 43's done-when checks on the bundled data, recomputed ---------------------------------------

COSTS = ROOT / "content" / "costs"


@pytest.fixture(scope="module")
def bundled_inputs():
    """The bundled content's runs, costs and reviews, as the recomputation reads them."""
    if not any(COSTS.glob("*.json")) and not any(COSTS.glob("*.jsonl")):
        pytest.skip("content/costs/ holds no cost documents yet: the bundled workloads' costs are not shipped")
    return read_inputs(ROOT / "content", ROOT / "kindex.toml")


def _kernelbench_runs(inputs, level: str, number: int) -> list[Run]:
    return [r for r in inputs.runs.values()
            if r.file.startswith("kernelbench/") and (r.level, r.number) == (level, number)]


def test_level_1_square_matmul_at_4096_costs_what_its_arithmetic_says(bundled_inputs):
    n = 4096
    costs = [bundled_inputs.costs[r.workload] for r in _kernelbench_runs(bundled_inputs, "1", 1)
             if r.workload in bundled_inputs.costs]
    at_4096 = [c for c in costs if [t["shape"] for t in c.get("inputs", [])] == [[n, n], [n, n]]]
    assert at_4096, f"no cost of level 1 #1 at N = {n} among {len(costs)}"
    for cost in at_4096:
        assert cost["status"] == "counted" and sum(cost["flops"].values()) == 2 * n**3, cost["flops"]
        assert cost["inputBytes"] + cost["outputBytes"] == 3 * n * n * 4, cost


def test_level_1_relu_reads_and_writes_its_tensor_once(bundled_inputs):
    size = 4096 * 393216 * 4
    costs = {r.workload: bundled_inputs.costs.get(r.workload) for r in _kernelbench_runs(bundled_inputs, "1", 19)}
    big = [c for c in costs.values() if c and c.get("inputBytes") == size]
    assert big, f"no cost of level 1 #19 reads {size:,} bytes: {[c and c.get('inputBytes') for c in costs.values()]}"
    assert all(c["outputBytes"] == size for c in big), [c["outputBytes"] for c in big]


def _pytorch(run: Run) -> bool:
    return run.label == "PyTorch eager" or run.label.startswith("torch.compile")


@pytest.fixture(scope="module")
def bundled_judged(bundled_inputs):
    report = Report()
    judged = judge_runs(bundled_inputs, report)
    assert not report.differences, report.summary()
    return judged


def test_no_pytorch_run_of_kernelbenchs_own_timings_is_below_its_floor(bundled_inputs, bundled_judged):
    runs = [r for r in bundled_inputs.runs.values() if r.file.startswith("kernelbench/") and _pytorch(r)]
    floors = [r for r in runs if bundled_judged[r.name].floor is not None]
    assert len(floors) > 500, f"only {len(floors)} of {len(runs)} runs have a floor"
    below = [f"{r.name}: {r.mean} ns < {float(bundled_judged[r.name].floor):.0f} ns on {bundled_judged[r.name].gpu}"
             for r in floors if bundled_judged[r.name].below_floor]
    assert not below, "\n".join(below)


def test_no_pytorch_run_of_kernelbenchs_own_timings_beats_its_roofline(bundled_inputs, bundled_judged):
    """A check of the GPU figures and the counts: the reference's own timings at most 100% of speed of light."""
    runs = [r for r in bundled_inputs.runs.values() if r.file.startswith("kernelbench/") and _pytorch(r)]
    judged = [(r, bundled_judged[r.name]) for r in runs if bundled_judged[r.name].sol is not None]
    assert len(judged) > 1000, f"only {len(judged)} of {len(runs)} runs have a speed of light"
    over = [f"{r.name}: {r.mean} ns, roofline {float(j.roofline):.0f} ns on {j.gpu}: {j.sol:.1%}"
            for r, j in judged if j.sol > 1]
    assert not over, f"{len(over)} runs above 100% of their roofline:\n" + "\n".join(over)


def test_the_leaderboards_diagonal_matmuls_count_in_fast_1(bundled_inputs, bundled_site):
    """Level 1 #12 computed as a broadcast multiply: 13× PyTorch eager, above its floor, a result."""
    problems, hosts = read_api(bundled_site)
    expected = expect(bundled_inputs, problems, Report())
    boards = [b for b in expected.boards.values() if any(r.file.startswith("kernelbench-leaderboard/")
                                                         and (r.level, r.number) == ("1", 12) for r in b.runs)]
    assert len(boards) == 1 and boards[0].reference is not None, [b.where for b in boards]
    board = boards[0]
    models = [r for r in board.current if r.label.endswith("(generated CUDA)") and r.status == "passed"]
    assert len(models) == 4, [r.name for r in models]
    docs = {e["run"]: e for doc in problems.values() for b in doc["boards"] for e in b["entries"]}
    fast = [r for r in models if board.speedup_exact[r.name] >= 10]
    assert len(fast) == 3, {r.name: float(board.speedup_exact[r.name]) for r in models}
    for run in models:
        judged, entry = board.judge(run), docs[run.name]
        assert board.speedup_exact[run.name] > 1 and run.name in board.rank, run.name
        assert judged.floor is not None and not judged.below_floor and not board.held_out(run), run.name
        assert entry["rank"] is not None and not entry.get("implausible") and not entry.get("below_floor"), entry
        summary = next(s for s in hosts[board.host]["implementations"] if s["implementation"] == run.label)
        level = summary["levels"]["1"]
        assert run.name not in level["held_out_runs"], (run.name, level["held_out_runs"])
        ours = next(s for s in expected.summaries[board.host] if s["implementation"] == run.label)
        assert level["fast_p_count"]["1"] == ours["levels"]["1"]["fast_p_count"]["1"], (run.label, level)


# --- The comparison can fail ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ideal(tmp_path_factory):
    """The synthetic content's runs and settings, and API documents written from the rules."""
    content, settings_file = synthetic.write(tmp_path_factory.mktemp("recompute-ideal"))
    inputs = read_inputs(content, settings_file)
    problems, hosts, expected = ideal_api(inputs, problem_key)
    return inputs, problems, hosts, expected


def _entry(problems: dict, run: str) -> dict:
    for doc in problems.values():
        for board in doc["boards"]:
            for e in board["entries"] + board["history"]:
                if e["run"] == run:
                    return e
    raise KeyError(run)


def _board(problems: dict, run: str) -> dict:
    return next(b for doc in problems.values() for b in doc["boards"]
                if any(e["run"] == run for e in b["entries"] + b["history"]))


def _summary(hosts: dict, host: str, implementation: str, level: str = "all") -> dict:
    return next(s for s in hosts[host]["implementations"] if s["implementation"] == implementation)["levels"][level]


def _scale(value, factor):
    return [v * factor for v in value] if isinstance(value, list) else value * factor


def _set(key, value):
    def change(d):
        d[key] = value
    return change


def _move_history_run_to_entries(problems, hosts):
    board = _board(problems, "alpha-a-1")
    board["entries"].append(next(e for e in board["history"] if e["run"] == "alpha-a-1"))
    board["history"] = [e for e in board["history"] if e["run"] != "alpha-a-1"]


def _swap_first_two(problems, hosts):
    impls = hosts["h1"]["implementations"]
    impls[0], impls[1] = impls[1], impls[0]


TAMPERINGS = {
    # name: (change of the documents, the field the difference names, a text the difference holds)
    "speedup value": (lambda p, h: _entry(p, "alpha-b")["speedup"].update(
        value=_entry(p, "alpha-b")["speedup"]["value"] * (1 + 1e-10)), "speedup.value", "alpha-b"),
    "speedup ci95": (lambda p, h: _entry(p, "alpha-b")["speedup"].update(
        ci95=_scale(_entry(p, "alpha-b")["speedup"]["ci95"], 1 + 1e-7)), "speedup.ci95", "alpha-b"),
    "rounding bounds called ci95": (lambda p, h: _entry(p, "beta-h2-a")["speedup"].update(
        ci95=_entry(p, "beta-h2-a")["speedup"]["rounding_bounds"], rounding_bounds=None), "speedup.ci95", "beta-h2-a"),
    "speedup left out": (lambda p, h: _set("speedup", None)(_entry(p, "beta-a-2")), "speedup", "beta-a-2"),
    "speedup on a table with several references": (lambda p, h: _set("speedup", {
        "value": 2.0, "ci95": None, "rounding_bounds": None})(_entry(p, "delta-a")), "speedup", "delta-a"),
    "rank": (lambda p, h: _set("rank", 1)(_entry(p, "eta-e")), "rank", "eta-e"),
    "tied": (lambda p, h: _set("tied", not _entry(p, "alpha-c-2")["tied"])(_entry(p, "alpha-c-2")), "tied",
             "alpha-c-2"),
    "implausible": (lambda p, h: _set("implausible", True)(_entry(p, "alpha-slow")), "implausible", "alpha-slow"),
    "implausible latency missed": (lambda p, h: _set("implausible_latency", False)(_entry(p, "iota-a-h4")),
                                   "implausible_latency", "iota-a-h4"),
    "implausible latency invented": (lambda p, h: _set("implausible_latency", True)(
        _entry(p, synthetic.ONLY_WITH_OFF_HOST)), "implausible_latency", synthetic.ONLY_WITH_OFF_HOST),
    "one workload off flags a host": (lambda p, h: _set("implausible_latency", True)(_entry(p, "theta-a-h2")),
                                      "implausible_latency", "theta-a-h2"),
    "reviewed run flagged": (lambda p, h: _set("implausible", True)(_entry(p, synthetic.REVIEWED)), "implausible",
                             synthetic.REVIEWED),
    "trend verdict": (lambda p, h: _entry(p, "alpha-c-2")["trend"].update(verdict="unchanged"), "trend.verdict",
                      "alpha-c-2"),
    "trend previous": (lambda p, h: _entry(p, "alpha-a-3")["trend"].update(previous="alpha-a-2"), "trend.previous",
                       "alpha-a-3"),
    "trend ratio": (lambda p, h: _entry(p, "beta-a-2")["trend"].update(
        ratio=_entry(p, "beta-a-2")["trend"]["ratio"] * (1 + 1e-10)), "trend.ratio", "beta-a-2"),
    "trend rounding bounds": (lambda p, h: _entry(p, "alpha-d-2")["trend"].update(
        ratio_rounding_bounds=None), "trend.ratio_rounding_bounds", "alpha-d-2"),
    "trend invented": (lambda p, h: _set("trend", {"previous": "alpha-touch-1", "ratio": 1.0, "ratio_ci95": None,
                                                  "ratio_rounding_bounds": None, "verdict": "unchanged"})(
        _entry(p, "alpha-touch-1")), "trend", "alpha-touch-1"),
    "reference": (lambda p, h: _set("reference", "delta-eager-1")(_board(p, "delta-a")), "reference", "delta"),
    "current entry": (_move_history_run_to_entries, "entries (current runs)", "alpha"),
    "suite": (lambda p, h: _summary(h, "h1", "A", "1").update(suite=_summary(h, "h1", "A", "1")["suite"] + 1),
              "suite", "level 1"),
    "attempted": (lambda p, h: _summary(h, "h1", "A").update(attempted=0), "attempted", "h1 · A"),
    "a statistic not recomputed": (lambda p, h: _summary(h, "h1", "A").update(median_speedup=1.0), "median_speedup",
                                   "h1 · A"),
    "fast_p count": (lambda p, h: _summary(h, "h1", "A")["fast_p_count"].update(
        {"1.5": _summary(h, "h1", "A")["fast_p_count"]["1.5"] + 1}), "fast_p_count", "h1 · A"),
    "fast_p share": (lambda p, h: _summary(h, "h1", "A")["fast_p"].update(
        {"1": _summary(h, "h1", "A")["fast_p"]["1"] + 1e-9}), "fast_p", "h1 · A"),
    "faster beyond noise": (lambda p, h: _summary(h, "h1", "A").update(faster_beyond_noise=0), "faster_beyond_noise",
                            "h1 · A"),
    "geomean": (lambda p, h: _summary(h, "h1", "A").update(
        geomean_speedup=_summary(h, "h1", "A")["geomean_speedup"] * (1 + 1e-6)), "geomean_speedup", "h1 · A"),
    "geomean coverage": (lambda p, h: _summary(h, "h1", "A").update(geomean_over=1), "geomean_over", "h1 · A"),
    "held-out runs": (lambda p, h: _summary(h, "h1", "G").update(held_out_runs=[]), "held_out_runs", "h1 · G"),
    "held-out count": (lambda p, h: _summary(h, "h1", "G").update(held_out_implausible=0), "held_out_implausible",
                       "h1 · G"),
    "order": (_swap_first_two, "implementations (order: fast_1, fast_0, name)", "h1"),
    # Physics and reviews.
    "floor": (lambda p, h: _entry(p, "floor-eager").update(floor_ns=_entry(p, "floor-eager")["floor_ns"] * 1.01),
              "floor_ns", "floor-eager"),
    "floor claimed on a workload the L2 holds": (lambda p, h: _set("floor_ns", 1000.0)(_entry(p, "alpha-b")),
                                                 "floor_ns", "alpha-b"),
    "no floor without the flushed cache": (lambda p, h: _set("floor_ns", None)(_entry(p, "nu-a")), "floor_ns",
                                           "nu-a"),
    "roofline": (lambda p, h: _entry(p, "floor-a-2").update(
        roofline_ns=_entry(p, "floor-a-2")["roofline_ns"] * 0.99), "roofline_ns", "floor-a-2"),
    "sol": (lambda p, h: _entry(p, synthetic.ABOVE_FLOOR_13X).update(
        sol=_entry(p, synthetic.ABOVE_FLOOR_13X)["sol"] * 1.01), "sol", synthetic.ABOVE_FLOOR_13X),
    "gpu": (lambda p, h: _set("gpu", "NVIDIA H100 PCIe")(_entry(p, "floor-eager")), "gpu", "floor-eager"),
    "the run's own GPU": (lambda p, h: _set("gpu", "NVIDIA H100 PCIe")(_entry(p, "alpha-other-gpu")), "gpu",
                          "alpha-other-gpu"),
    "a floor on an unknown GPU": (lambda p, h: _set("floor_ns", 2e6)(_entry(p, "floor-z9-fast")), "floor_ns",
                                  "floor-z9-fast"),
    "below floor missed": (lambda p, h: _set("below_floor", False)(_entry(p, synthetic.BELOW_FLOOR)),
                           "below_floor", synthetic.BELOW_FLOOR),
    "below floor in a history missed": (lambda p, h: _set("below_floor", False)(_entry(p, "floor-a-1")),
                                        "below_floor", "floor-a-1"),
    "below floor reviewed clean": (lambda p, h: _set("below_floor", True)(_entry(p, synthetic.CLEAN_BELOW_FLOOR)),
                                   "below_floor", synthetic.CLEAN_BELOW_FLOOR),
    "below floor ranked": (lambda p, h: _set("rank", 1)(_entry(p, synthetic.BELOW_FLOOR)), "rank",
                           synthetic.BELOW_FLOOR),
    "clean below floor unranked": (lambda p, h: _set("rank", None)(_entry(p, synthetic.CLEAN_BELOW_FLOOR)), "rank",
                                   synthetic.CLEAN_BELOW_FLOOR),
    "reward hack ranked": (lambda p, h: _set("rank", 2)(_entry(p, synthetic.REWARD_HACK)), "rank",
                           synthetic.REWARD_HACK),
    "verdict": (lambda p, h: _set("verdict", None)(_entry(p, synthetic.REWARD_HACK)), "verdict",
                synthetic.REWARD_HACK),
    "older verdict": (lambda p, h: _set("verdict", "under-review")(_entry(p, synthetic.REVIEWED)), "verdict",
                      synthetic.REVIEWED),
    "10× rule where a floor judges": (lambda p, h: _set("implausible", True)(_entry(p, synthetic.ABOVE_FLOOR_13X)),
                                     "implausible", synthetic.ABOVE_FLOOR_13X),
    "10× rule missed where no floor": (lambda p, h: _set("implausible", False)(_entry(p, "floor-z9-fast")),
                                      "implausible", "floor-z9-fast"),
    "trend against a run below its floor": (lambda p, h: _set("trend", {
        "previous": "floor-a-1", "ratio": 8.0, "ratio_ci95": None, "ratio_rounding_bounds": None,
        "verdict": "regressed"})(_entry(p, "floor-a-2")), "trend", "floor-a-2"),
    "below-floor run not held out": (lambda p, h: _summary(h, "h5", "Hack").update(held_out_runs=[]),
                                     "held_out_runs", "h5 · Hack"),
    "reward hack counted": (lambda p, h: _summary(h, "h5", "RH").update(passed=1), "passed", "h5 · RH"),
    "13× above the floor not counted": (lambda p, h: _summary(h, "h5", "Diag")["fast_p_count"].update(
        {"1": 0}), "fast_p_count", "h5 · Diag"),
    "workload cost": (lambda p, h: _workload_cost(p, "floor-eager").update(inputBytes=1), "cost.inputBytes",
                      "workload"),
}


def _workload_cost(problems: dict, run: str) -> dict:
    digest = _board(problems, run)["workload"]
    return next(w["cost"] for doc in problems.values() for w in doc["workloads"] if w["digest"] == digest)


def test_documents_written_from_the_rules_pass_and_cover_each_rule(ideal):
    inputs, problems, hosts, expected = ideal
    report = compare(inputs, problems, hosts, expected)
    assert not report.differences, report.summary()
    entries = [e for doc in problems.values() for b in doc["boards"] for e in b["entries"] + b["history"]]
    # The synthetic content exercises every branch of the rules it claims to.
    assert {e["trend"]["verdict"] for e in entries if e["trend"]} == {"improved", "regressed", "unchanged"}
    speedups = [e["speedup"] for e in entries if e["speedup"]]
    assert any(s["ci95"] for s in speedups) and any(s["rounding_bounds"] for s in speedups)
    assert any(not s["ci95"] and not s["rounding_bounds"] and s["value"] != 1.0 for s in speedups)
    assert any(e["tied"] for e in entries) and any(e["implausible"] for e in entries)
    assert any(e["implausible_latency"] for e in entries)
    assert any(b["reference"] is None and len(b["entries"]) > 1 for doc in problems.values() for b in doc["boards"])
    summaries = [s for host in hosts.values() for s in host["implementations"]]
    assert any(s["levels"]["all"]["held_out_implausible"] for s in summaries)
    assert any("other" in s["levels"] for s in summaries)
    # The union rule decides a rank: nothing is faster than E beyond noise, but A is faster than the
    # reference, whose mean is below E's: E shares the reference's rank.
    eta = next(b for b in expected.boards.values() if b.problem == "eta")
    runs_of = {r.name: r for r in eta.ranked}
    assert not any(rules.faster_beyond_noise(r, runs_of["eta-e"]) for r in eta.ranked)
    assert rules.faster_beyond_noise(runs_of["eta-a"], runs_of["eta-eager"])
    assert eta.rank == {"eta-a": 1, "eta-eager": 2, "eta-e": 2}
    # Another lab's later run of the reference implementation is a run of its own, not the reference.
    theta = next(b for b in expected.boards.values() if b.problem == "theta" and b.host == "h1")
    assert theta.reference.name == "theta-eager-h1" and "theta-eager-h1-other-lab" in {r.name for r in theta.current}
    # Physics and reviews: each case the synthetic content claims is there.
    judged = {r.name: b.judge(r) for b in expected.boards.values() for r in b.runs}
    held = {r.name for b in expected.boards.values() for r in b.runs if b.held_out(r)}
    ranked = {name for b in expected.boards.values() for name in b.rank}
    assert judged[synthetic.BELOW_FLOOR].below_floor and synthetic.BELOW_FLOOR in held - ranked
    assert judged["floor-a-1"].below_floor and judged["nu-hack"].below_floor  # in a history; cache flushed
    clean = judged[synthetic.CLEAN_BELOW_FLOOR]
    assert clean.verdict == "clean" and not clean.below_floor and synthetic.CLEAN_BELOW_FLOOR in ranked
    assert synthetic.CLEAN_BELOW_FLOOR not in held and inputs.runs[synthetic.CLEAN_BELOW_FLOOR].mean < clean.floor
    assert judged[synthetic.REWARD_HACK].verdict == "reward-hack" and synthetic.REWARD_HACK in held - ranked
    assert judged[synthetic.REVIEWED].verdict == "clean"  # its newer review, not its first
    diag = next(b for b in expected.boards.values() if synthetic.ABOVE_FLOOR_13X in b.rank)
    assert diag.speedup_exact[synthetic.ABOVE_FLOOR_13X] > 13 and synthetic.ABOVE_FLOOR_13X not in held
    assert judged[synthetic.ABOVE_FLOOR_13X].sol > 1  # less work than the reference counted
    assert judged["alpha-g"].floor is None and judged["alpha-g"].roofline is not None  # the L2 holds it
    assert judged["floor-z9-fast"].gpu is None and "floor-z9-fast" in held  # a GPU no table has: the 10× rule
    assert judged["floor-eager"].gpu == "Synth X1" and judged["alpha-other-gpu"].gpu == "NVIDIA A100 80GB SXM"
    assert judged["epsilon-a"].floor is None and inputs.costs[inputs.runs["epsilon-a"].workload]["status"] == "failed"
    off = rules.hosts_off_in_units(list(inputs.runs.values()), inputs.settings)
    assert off == {synthetic.OFF_HOST} and synthetic.ONLY_WITH_OFF_HOST not in held
    assert all(b.held_out(r) for b in expected.boards.values() for r in b.runs
               if b.host == synthetic.OFF_HOST and r.status == "passed")


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_a_tampered_value_is_reported(ideal, name):
    inputs, problems, hosts, expected = ideal
    change, what, where = TAMPERINGS[name]
    problems, hosts = copy.deepcopy(problems), copy.deepcopy(hosts)
    change(problems, hosts)
    report = compare(inputs, problems, hosts, expected)
    found = [d for d in report.differences if d.what == what and where in str(d)]
    assert found, f"{name} not reported as {what} at {where}: {report.summary()}"


# --- The about page's own examples ----------------------------------------------------------------------

def _run(mean: int, ci=None, figures: int | None = 3, step_ns: int | None = None, name: str = "r") -> Run:
    return Run(name=name, title="", label="x", implementation_digest="d", status="passed", mean=mean,
               ci95=ci, observed_at=None, host="h", protocol="p", workload="w", significant_figures=figures,
               step_ns=step_ns, level="1", file="")


def test_the_rules_give_the_about_pages_examples():
    # 4.94 ms to three figures: step 0.01 ms, h = 0.005 ms; stepNs when larger; never more than 0.9 × mean.
    assert rules.rounding_step(_run(4_940_000)) == 10_000 and rules.half_step(_run(4_940_000)) == 5_000
    assert rules.half_step(_run(4_940_000, step_ns=50_000)) == 25_000
    assert rules.half_step(_run(4_940_000, figures=None)) == 0
    assert rules.half_step(_run(10, figures=None, step_ns=100)) == 9
    assert rules.half_step(_run(12, figures=3)) == Fraction(1, 20)
    # Two means that touch at their rounding bounds (4.94 ms and 4.95 ms to three figures) are not told apart.
    a, b, c = _run(4_940_000, name="a"), _run(4_950_000, name="b"), _run(4_960_000, name="c")
    assert not rules.faster_beyond_noise(a, b) and rules.faster_beyond_noise(a, c)
    assert rules.ranks([a, b]) == {"a": 1, "b": 1}
    # Without noise or rounding the means decide; the ratio has no interval.
    plain = [_run(900, figures=None, name="x"), _run(1000, figures=None, name="y")]
    assert rules.ratio(*plain).kind is None and rules.ranks(plain) == {"x": 1, "y": 2}
    # The kind of interval: a CI from either run; rounding bounds from neither.
    assert rules.ratio(a, _run(4_950_000, ci=(4_900_000, 5_000_000))).kind == "ci95"
    assert rules.speedup(b, a)["rounding_bounds"] == [4_945_000 / 4_945_000, 4_955_000 / 4_935_000]
    # The reference's own speedup is exactly 1, with no interval.
    assert rules.speedup(a, a) == {"value": 1.0, "ci95": None, "rounding_bounds": None}
    # A 10× speedup is implausible (≥), a slow one never.
    settings = read_settings(None)
    assert rules.implausible(_run(10_000_000), _run(1_000_000), settings)
    assert not rules.implausible(_run(1_000_000), _run(100_000_000), settings)
    # fast_p compares exactly: a speedup of exactly 1.5 is not > 1.5.
    assert not Fraction(3_000_000) > Fraction(3, 2) * 2_000_000


def test_the_recomputation_does_not_import_the_products_code():
    """Independent means independent: no module of tests/recompute/ nor this file imports kindex_site."""
    files = [Path(__file__), *sorted((Path(__file__).parent / "recompute").glob("*.py"))]
    for file in files:
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n == "kindex_site" or n.startswith("kindex_site.") for n in names), (file, names)
