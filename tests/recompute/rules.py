"""The about page's rules, one function each, written from its text (content/pages/about.md) alone.

Exact decisions are made on Fractions of the given nanoseconds; floats (math.exp, math.log) only where a
formula needs exp(±1.96·sd) or a logarithm.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from fractions import Fraction

from .gpus import Figures
from .inputs import Run, Settings

Z = 1.96
P_VALUES = {"0": Fraction(0), "1": Fraction(1), "1.5": Fraction(3, 2), "2": Fraction(2)}


# --- Precision ------------------------------------------------------------------------------------------

def resolution_stated(run: Run) -> bool:
    return run.significant_figures is not None or run.step_ns is not None


def rounding_step(run: Run) -> Fraction:
    """The rounding step of the mean: 10^(digits(mean) − n) at n significant figures, the larger of that and
    stepNs when both are stated, 0 when neither is."""
    steps = []
    if run.significant_figures is not None:
        steps.append(Fraction(10) ** (len(str(abs(int(run.mean)))) - run.significant_figures))
    if run.step_ns is not None:
        steps.append(Fraction(run.step_ns))
    return max(steps) if steps else Fraction(0)


def half_step(run: Run) -> Fraction:
    """h = step / 2, never more than 0.9 × mean."""
    return min(rounding_step(run) / 2, Fraction(9, 10) * Fraction(run.mean))


def relative_se(run: Run) -> float:
    """s = (hi − lo) / 2 / 1.96 / mean; 0 without an interval."""
    if run.ci95 is None:
        return 0.0
    lo, hi = run.ci95
    return (hi - lo) / 2 / Z / run.mean


# --- Physics: the floor and the speed of light (about page, "Physics", "Reviews") --------------------------

NS = 10**9
HELD_VERDICTS = ("reward-hack", "incorrect-output", "timing-bug", "under-review")  # every verdict but "clean"


def l2_resident(cost: dict, gpu: Figures, flushed: bool) -> int:
    """The bytes that may stay in the L2 between two timed calls: as many as it holds, or (the protocol
    flushes the cache before each call) only the outputs the call writes."""
    return min(cost["outputBytes"], gpu.l2) if flushed else gpu.l2


def _judgeable(cost: dict | None, gpu: Figures | None) -> bool:
    return (cost is not None and cost["status"] == "counted" and gpu is not None and bool(gpu.bandwidth)
            and gpu.l2 is not None)


def floor_ns(cost: dict | None, gpu: Figures | None, flushed: bool) -> Fraction | None:
    """floor = (input bytes + output bytes − L2-resident bytes) / DRAM bandwidth; none when the inputs
    and outputs fit in the L2, and none without a counted cost or the GPU's bandwidth and cache."""
    if not _judgeable(cost, gpu):
        return None
    from_dram = cost["inputBytes"] + cost["outputBytes"] - l2_resident(cost, gpu, flushed)
    return Fraction(from_dram * NS) / gpu.bandwidth if from_dram > 0 else None


def roofline_ns(cost: dict | None, gpu: Figures | None, flushed: bool = False) -> Fraction | None:
    """roofline = max(Σ flops[p] / peak[p], (input + output + parameter bytes − L2-resident bytes) /
    DRAM bandwidth), each precision at its dense peak; none without a counted cost, the GPU's bandwidth
    and cache or a counted precision's peak. (The text says nothing of a roofline of 0, bytes that all
    stay in the L2 and no operations counted: read here as none, nothing to hold a run against.)"""
    if not _judgeable(cost, gpu):
        return None
    compute = Fraction(0)
    for precision, count in cost.get("flops", {}).items():
        if count:
            peak = gpu.peak(precision)
            if peak is None:
                return None
            compute += Fraction(count * NS) / peak
    moved = cost["inputBytes"] + cost["outputBytes"] + cost["parameterBytes"] - l2_resident(cost, gpu, flushed)
    return max(compute, Fraction(max(0, moved) * NS) / gpu.bandwidth) or None


def sol(roofline: Fraction | None, mean: int | None) -> float | None:
    """A run's fraction of the speed of light: roofline / its latency."""
    return None if roofline is None or not mean else float(roofline / mean)


def below_floor(run: Run, floor: Fraction | None, verdict: str | None) -> bool:
    """A passed run whose latency, even rounded up by half its source's rounding step, is under its
    floor: faster than the hardware allows, unless reviewed clean."""
    if floor is None or run.status != "passed" or run.mean is None or verdict == "clean":
        return False
    return run.mean + rounding_step(run) / 2 < floor


@dataclass(frozen=True)
class Judged:
    """What physics and the reviews say of one run."""

    gpu: str | None  # the GPU table's name of the GPU it was timed on
    floor: Fraction | None
    roofline: Fraction | None
    sol: float | None
    below_floor: bool
    verdict: str | None  # of its newest review

    @property
    def unrankable(self) -> bool:
        """Out of ranks: below its floor, or judged anything but clean."""
        return self.below_floor or self.verdict in HELD_VERDICTS

    @property
    def by_speedup(self) -> bool:
        """No floor judges it: the implausible-speedup bound does."""
        return self.floor is None


NOT_JUDGED = Judged(None, None, None, None, False, None)


# --- Units: hosts off by a steady factor (about page, "Units") ------------------------------------------

UNITS_MIN_SHARED = 3


def host_medians(runs: list[Run]) -> list[dict[str, Fraction]]:
    """Per workload timed on two hosts or more: each host's median of its passed runs' latencies."""
    values: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        if run.status == "passed" and run.mean:
            values[run.workload][run.host].append(run.mean)
    return [{h: statistics.median(Fraction(v) for v in vs) for h, vs in hosts.items()}
            for hosts in values.values() if len(hosts) > 1]


def off_hosts(medians: list[dict[str, Fraction]], factor: Fraction, excluded: frozenset[str]) -> set[str]:
    """The hosts more than `factor` times above the upper middle, or below the lower middle, of the
    other hosts' medians (but `excluded`) on more than half of at least 3 workloads they share, the same way."""
    ways: dict[str, list[int]] = defaultdict(list)
    for hosts in medians:
        for host, m in hosts.items():
            others = sorted(v for h, v in hosts.items() if h != host and h not in excluded)
            if others:
                low, high = others[(len(others) - 1) // 2], others[len(others) // 2]
                ways[host].append(1 if m > factor * high else -1 if m * factor < low else 0)
    return {host for host, found in ways.items() if len(found) >= UNITS_MIN_SHARED
            and any(2 * found.count(way) > len(found) for way in (1, -1))}


def hosts_off_in_units(runs: list[Run], settings: Settings) -> set[str]:
    """Judged once against every other host, then again against the hosts not found off: a host stays
    off when it is off again, or when it shares fewer than 3 workloads with the hosts not off (two hosts
    that only have each other are both off)."""
    medians, factor = host_medians(runs), Fraction(str(settings.implausible_latency))
    first = off_hosts(medians, factor, frozenset())
    again = off_hosts(medians, factor, frozenset(first))
    shared = {h: sum(1 for hosts in medians if h in hosts and any(o != h and o not in first for o in hosts))
              for h in first}
    return {h for h in first if h in again or shared[h] < UNITS_MIN_SHARED}


# --- Comparing two runs ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ratio:
    """a / b with its interval (see "Comparing two runs")."""

    exact: Fraction
    low: float
    high: float
    kind: str | None  # "ci95", "rounding_bounds" or None (no interval)
    noiseless: bool  # sd == 0: decided exactly
    low_exact: Fraction  # (a − h_a) / (b + h_b)
    high_exact: Fraction  # (a + h_a) / (b − h_b)

    def interval(self, kind: str) -> list[float] | None:
        return [self.low, self.high] if self.kind == kind else None


def ratio(a: Run, b: Run) -> Ratio:
    s_a, s_b = relative_se(a), relative_se(b)
    sd = math.sqrt(s_a * s_a + s_b * s_b)
    h_a, h_b = half_step(a), half_step(b)
    low_exact = (a.mean - h_a) / (b.mean + h_b)
    high_exact = (a.mean + h_a) / (b.mean - h_b)
    if a.ci95 is not None or b.ci95 is not None:
        kind = "ci95"
    elif resolution_stated(a) or resolution_stated(b):
        kind = "rounding_bounds"
    else:
        kind = None
    noiseless = _width(a) == 0 and _width(b) == 0
    return Ratio(Fraction(a.mean, b.mean), float(low_exact) * math.exp(-Z * sd), float(high_exact) * math.exp(Z * sd),
                 kind, noiseless, low_exact, high_exact)


def _width(run: Run) -> int:
    return 0 if run.ci95 is None else run.ci95[1] - run.ci95[0]


def wholly_below_one(r: Ratio) -> bool:
    """high < 1; without noise exactly: a + h_a < b − h_b."""
    return r.high_exact < 1 if r.noiseless else r.high < 1


def wholly_above_one(r: Ratio) -> bool:
    """low > 1; without noise exactly: a − h_a > b + h_b."""
    return r.low_exact > 1 if r.noiseless else r.low > 1


def faster_beyond_noise(a: Run, b: Run) -> bool:
    """A is faster than B beyond noise (or beyond rounding) when high of a / b is below 1."""
    return wholly_below_one(ratio(a, b))


def borderline(r: Ratio, tolerance: float = 1e-9) -> bool:
    """A float decision this close to 1 may go either way by the order of the float operations."""
    return not r.noiseless and (abs(r.high - 1) <= tolerance or abs(r.low - 1) <= tolerance)


# --- History: current entries, previous runs, trends ----------------------------------------------------

_EARLIEST = datetime.min.replace(tzinfo=timezone.utc)


def time_order(run: Run) -> tuple:
    """Latest last: by observedAt (none counts as the earliest), then of the same time the name sorting last."""
    return (run.observed_at is not None, run.observed_at or _EARLIEST, run.name)


def lab_of(run: Run) -> str:
    """The title's parts after the implementation."""
    return " · ".join(run.title.split(" · ")[2:])


def implementation_of(run: Run, reference: str) -> tuple:
    """Label and digest; for the reference implementation, its lab as well (only a run of the same lab
    can supersede a reference)."""
    return run.label, run.implementation_digest, lab_of(run) if run.label == reference else None


def incumbent_lab(runs: list[Run], reference: str) -> str | None:
    """The lab of the table's earliest run of the reference (observedAt; none counts last; then name)."""
    refs = [r for r in runs if r.label == reference]
    if not refs:
        return None
    return lab_of(min(refs, key=lambda r: (r.observed_at is None, r.observed_at or _EARLIEST, r.name)))


def current_and_history(runs: list[Run], reference: str) -> tuple[list[Run], list[Run]]:
    by_impl: dict[tuple, list[Run]] = defaultdict(list)
    for run in runs:
        by_impl[implementation_of(run, reference)].append(run)
    current = [max(group, key=time_order) for group in by_impl.values()]
    names = {r.name for r in current}
    return sorted(current, key=lambda r: r.name), sorted((r for r in runs if r.name not in names), key=lambda r: r.name)


def previous_run(run: Run, runs: list[Run], reference: str, comparable) -> Run | None:
    """The implementation's latest comparable run on the table observed strictly before `run`, a
    comparable run itself (runs without observedAt are not ordered in time: neither compared nor a
    previous run). `comparable(run)`: passed and timed on the host's GPU, neither below its floor nor
    judged anything but clean."""
    if run.observed_at is None or not comparable(run):
        return None
    earlier = [p for p in runs if p.name != run.name and implementation_of(p, reference) == implementation_of(run, reference)
               and comparable(p) and p.observed_at is not None and p.observed_at < run.observed_at]
    return max(earlier, key=time_order) if earlier else None


def trend(run: Run, previous: Run) -> dict:
    """change = run mean / previous mean with its interval; regressed above 1, improved below, else unchanged."""
    r = ratio(run, previous)
    verdict = "regressed" if wholly_above_one(r) else "improved" if wholly_below_one(r) else "unchanged"
    return {"previous": previous.name, "ratio": float(r.exact), "ratio_ci95": r.interval("ci95"),
            "ratio_rounding_bounds": r.interval("rounding_bounds"), "verdict": verdict}


# --- Ranks ----------------------------------------------------------------------------------------------

def ranks(ranked: list[Run]) -> dict[str, int]:
    """rank(i) = 1 + |∪ faster(k) for every k with mean_k ≤ mean_i|, faster(k) = runs faster than k beyond noise."""
    faster = {k.name: {j.name for j in ranked if j.name != k.name and faster_beyond_noise(j, k)} for k in ranked}
    out = {}
    for i in ranked:
        union: set[str] = set()
        for k in ranked:
            if k.mean <= i.mean:
                union |= faster[k.name]
        out[i.name] = 1 + len(union)
    return out


# --- Speedups -------------------------------------------------------------------------------------------

def reference_of(ranked: list[Run], settings: Settings, lab: str | None) -> Run | None:
    """The table's ranked current reference run of the incumbent lab; none when there are several (of
    different digests)."""
    refs = [r for r in ranked if r.label == settings.reference and lab_of(r) == lab]
    return refs[0] if len(refs) == 1 else None


def speedup(reference: Run, run: Run) -> dict:
    if run.name == reference.name:
        return {"value": 1.0, "ci95": None, "rounding_bounds": None}
    r = ratio(reference, run)
    return {"value": float(r.exact), "ci95": r.interval("ci95"), "rounding_bounds": r.interval("rounding_bounds")}


def implausible(reference: Run, run: Run, settings: Settings, judged: Judged = NOT_JUDGED) -> bool:
    """Where no floor judges the run: speedup ≥ implausible_speedup (exactly, the setting read as the
    decimal it is written as), unless reviewed clean."""
    bound = Fraction(str(settings.implausible_speedup))
    return judged.by_speedup and Fraction(reference.mean, run.mean) >= bound and judged.verdict != "clean"


# --- A board --------------------------------------------------------------------------------------------

@dataclass
class Board:
    problem: str
    workload: str
    host: str
    protocol: str
    runs: list[Run]
    mixed: frozenset[str]  # runs on another GPU (the API's mixed_hardware flag: not a statistical rule)
    current: list[Run] = field(default_factory=list)
    history: list[Run] = field(default_factory=list)
    ranked: list[Run] = field(default_factory=list)
    reference: Run | None = None
    rank: dict[str, int] = field(default_factory=dict)
    speedup: dict[str, dict] = field(default_factory=dict)  # run name → speedup document
    speedup_exact: dict[str, Fraction] = field(default_factory=dict)
    beyond_noise: dict[str, bool] = field(default_factory=dict)  # run faster than the reference beyond noise
    implausible: set[str] = field(default_factory=set)
    implausible_latency: set[str] = field(default_factory=set)
    trend: dict[str, dict | None] = field(default_factory=dict)
    borderline: list[str] = field(default_factory=list)  # float decisions within 1e-9 of 1
    judged: dict[str, Judged] = field(default_factory=dict)  # run name → its floor, roofline and verdict

    def judge(self, run: Run) -> Judged:
        return self.judged.get(run.name, NOT_JUDGED)

    def comparable(self, run: Run) -> bool:
        """Passed with a latency, timed on the host's GPU, neither below its floor nor judged anything
        but clean: ranked when current, compared with when earlier."""
        return (run.status == "passed" and run.mean is not None and run.name not in self.mixed
                and not self.judge(run).unrankable)

    def held_out(self, run: Run) -> bool:
        """Left out of the summaries: below its floor, judged anything but clean, or flagged implausible
        (a speedup where no floor judges, or a host off in units) and not reviewed clean."""
        return run.status == "passed" and (run.name in self.implausible or run.name in self.implausible_latency
                                           or self.judge(run).unrankable)

    @property
    def where(self) -> str:
        return f"{self.problem} · {self.host} · {self.protocol} · {self.workload.removeprefix('sha256:')[:12]}"


def make_board(problem: str, workload: str, host: str, protocol: str, runs: list[Run], mixed: frozenset[str],
               settings: Settings, judged: dict[str, Judged] | None = None, off: frozenset[str] = frozenset()) -> Board:
    """`judged`: run name → what physics and the reviews say of it; `off`: the hosts off in units."""
    b = Board(problem, workload, host, protocol, runs, mixed, judged=judged or {})
    b.current, b.history = current_and_history(runs, settings.reference)
    b.ranked = [r for r in b.current if b.comparable(r)]
    for i in b.ranked:
        for j in b.ranked:
            if i.name != j.name and borderline(ratio(i, j)):
                b.borderline.append(f"{i.name} / {j.name}")
    b.rank = ranks(b.ranked)
    b.reference = reference_of(b.ranked, settings, incumbent_lab(runs, settings.reference))
    if b.reference is not None:
        for run in b.ranked:
            b.speedup[run.name] = speedup(b.reference, run)
            b.speedup_exact[run.name] = Fraction(b.reference.mean, run.mean)
            b.beyond_noise[run.name] = run.name != b.reference.name and faster_beyond_noise(run, b.reference)
            if run.name != b.reference.name and implausible(b.reference, run, settings, b.judge(run)):
                b.implausible.add(run.name)
    for run in runs:
        previous = previous_run(run, runs, settings.reference, b.comparable)
        b.trend[run.name] = trend(run, previous) if previous is not None else None
        if host in off and run.status == "passed" and b.judge(run).verdict != "clean":
            b.implausible_latency.add(run.name)
    return b


# --- Summaries: fast_p over the suite -------------------------------------------------------------------

@dataclass(frozen=True)
class Result:
    """An implementation's result on a problem on a host."""

    run: Run
    board: Board
    passed: bool  # passed, ranked and not held out
    held_out: bool  # passed, but held out (below its floor, judged by a review, implausible)
    speedup: Fraction | None

    def order(self) -> tuple:  # "the best of them, if several tables"
        return (self.passed, self.held_out, self.speedup is not None, self.speedup or 0, self.run.name)


def result_on(board: Board, run: Run) -> Result:
    held_out = board.held_out(run)
    return Result(run, board, run.name in board.rank and not held_out, held_out, board.speedup_exact.get(run.name))


def problem_level(runs: list[Run]) -> str:
    levels = {r.level for r in runs} - {"other"}
    return min(levels, key=int) if levels else "other"


def level_summary(suite: list[str], results: dict[str, Result]) -> dict:
    counts = {p: 0 for p in P_VALUES}
    beyond, logs, held = 0, [], []
    attempted = passed = 0
    for problem in suite:
        result = results.get(problem)
        if result is None:
            continue
        attempted += 1
        if result.held_out:
            held.append(result.run.name)
        if not result.passed:
            continue
        passed += 1
        run = result.run
        for p, value in P_VALUES.items():
            if p == "0":
                counts[p] += 1
            elif result.speedup is not None and Fraction(result.board.reference.mean) > value * run.mean:
                counts[p] += 1
        if result.speedup is not None:
            logs.append(math.log(result.board.reference.mean) - math.log(run.mean))
            beyond += result.board.beyond_noise[run.name]
    n = len(suite)
    return {
        "suite": n, "attempted": attempted, "passed": passed,
        "held_out_implausible": len(held), "held_out_runs": sorted(held),
        "fast_p": {p: k / n for p, k in counts.items()}, "fast_p_count": counts,
        "faster_beyond_noise": beyond,
        "geomean_speedup": math.exp(math.fsum(logs) / len(logs)) if logs else None,
        "geomean_over": len(logs),
    }


def problem_slot(slug: str, runs: list[Run], level: str) -> tuple | str:
    """A problem's place in the suite: its KernelBench level and number (a number whose problem was replaced
    is one place); a problem without a level is its own."""
    numbers = {r.number for r in runs if r.number is not None}
    return (level, min(numbers)) if level != "other" and numbers else slug


def level_order(level: str) -> tuple:
    return (level == "other", int(level) if level != "other" else 0)


def suites(levels: dict[str, str], slots: dict[str, object], host_problems: set[str]) -> dict[str, list]:
    """The suite of a level is its slots (problems counted by KernelBench number); a host is summarised over
    the levels in which an implementation other than the reference was timed on it (`host_problems`: those
    problems); "all" is those levels' suites together."""
    host_levels = sorted({levels[p] for p in host_problems}, key=level_order)
    out = {level: sorted({slots[p] for p, lv in levels.items() if lv == level}, key=repr) for level in host_levels}
    out["all"] = [s for level in host_levels for s in out[level]]
    return out


def summarised(boards_on_host: list[Board], settings: Settings) -> set[str]:
    """The implementations a host summarises: every label with a current run on its tables (on another GPU
    too), but the reference's."""
    return {r.label for b in boards_on_host for r in b.current if r.label != settings.reference}


def workload_order(boards: list[Board]) -> dict[str, tuple]:
    """Workloads from oldest to newest: by when first observed (site-wide; never observed: newest), then digest."""
    seen: dict[str, list[datetime]] = defaultdict(list)
    for b in boards:
        seen[b.workload] += [r.observed_at for r in b.runs if r.observed_at is not None]
    return {w: (not times, min(times) if times else _EARLIEST, w) for w, times in seen.items()}


def newest_workloads(boards: list[Board], host: str) -> dict[str, str]:
    """Each problem's newest workload timed on the host."""
    order = workload_order(boards)
    workloads: dict[str, set[str]] = defaultdict(set)
    for b in boards:
        if b.host == host:
            workloads[b.problem].add(b.workload)
    return {p: max(ws, key=order.__getitem__) for p, ws in workloads.items()}


def results_on_host(boards_on_host: list[Board], newest: dict[str, str], settings: Settings) -> dict[str, dict[str, Result]]:
    """label → problem → its result: its current run on the tables of the problem's newest workload (the best
    of them, if several)."""
    results: dict[str, dict[str, Result]] = defaultdict(dict)
    for b in boards_on_host:
        if b.workload != newest[b.problem]:
            continue
        for run in b.current:
            if run.label == settings.reference or run.name in b.mixed:
                continue
            result = result_on(b, run)
            held = results[run.label].get(b.problem)
            if held is None or result.order() > held.order():
                results[run.label][b.problem] = result
    return results


def implementation_order(summary: dict) -> tuple:
    """By fast_1 over the suite, highest first; then by fast_0; then by name."""
    counts = summary["levels"]["all"]["fast_p_count"]
    return (("current", "earlier", "uncompared").index(summary["basis"]), -counts["1"], -counts["0"], summary["implementation"].casefold(), summary["implementation"])


def earlier_results(boards_on_host: list[Board], newest: dict[str, str], order: dict[str, tuple], label: str
                    ) -> dict[str, Result]:
    """problem → the label's result on the newest earlier workload of the problem on the host that has a
    reference run and a run of the label (where the label has no run on the newest workloads)."""
    with_reference = {(b.problem, b.workload) for b in boards_on_host if b.reference is not None}
    candidates: dict[str, list[tuple[Board, Run]]] = defaultdict(list)
    for b in boards_on_host:
        if b.workload != newest[b.problem] and (b.problem, b.workload) in with_reference:
            candidates[b.problem] += [(b, r) for r in b.current if r.label == label and r.name not in b.mixed]
    found = {}
    for problem, pairs in candidates.items():
        if pairs:
            workload = max((b.workload for b, _ in pairs), key=order.__getitem__)
            found[problem] = max((result_on(b, r) for b, r in pairs if b.workload == workload), key=Result.order)
    return found


def host_summaries(host: str, boards: list[Board], levels: dict[str, str], slots: dict[str, object],
                   settings: Settings) -> list[dict]:
    """Each implementation other than the reference on the host, in the order the site ranks them: those
    with a run on the newest workloads, then those summarised on earlier ones, then those compared nowhere."""
    mine = [b for b in boards if b.host == host]
    timed = {b.problem for b in mine for r in b.current if r.label != settings.reference and r.name not in b.mixed}
    suite = suites(levels, slots, timed)
    newest = newest_workloads(boards, host)
    order = workload_order(boards)
    # On each slot, the problem whose newest workload on this host is the newest.
    on_slot: dict[object, str] = {}
    for problem, workload in newest.items():
        held = on_slot.get(slots[problem])
        if held is None or order[workload] > order[newest[held]]:
            on_slot[slots[problem]] = problem
    results = results_on_host(mine, newest, settings)
    out = []
    for label in summarised(mine, settings):
        basis, found = "current", results.get(label, {})
        if not found and any(r.label == label and r.name not in b.mixed for b in mine for r in b.current):
            found = earlier_results(mine, newest, order, label)
            basis = "earlier" if found else "uncompared"
        by_slot = {slots[p]: r for p, r in found.items() if on_slot.get(slots[p]) == p}
        out.append({"implementation": label, "host": host, "basis": basis,
                    "levels": {level: level_summary(problems, by_slot) for level, problems in suite.items()}})
    return sorted(out, key=implementation_order)
