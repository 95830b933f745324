"""What the rules give, compared with what the built API says: one function per rule, each returning
`Difference`s. `recompute(content, settings, site)` runs them all.

The API shape compared (apiVersion kindex-site/v1):
- problems/<slug>.json: {"workloads": [{"digest", "cost": C | null}], "boards": [{"host", "workload",
  "protocol", "reference", "entries": [E], "history": [E]}]} with E = {"run", "implementation", "rank",
  "tied", "mixed_hardware", "speedup": {"value", "ci95", "rounding_bounds"} | null, "implausible",
  "implausible_latency", "trend": T | null, "gpu", "floor_ns", "floor_why_not", "roofline_ns",
  "roofline_why_not", "sol", "below_floor", "verdict"},
  T = {"previous", "ratio", "ratio_ci95", "ratio_rounding_bounds", "verdict"} and
  C = {"status", "inputBytes", "outputBytes", "parameterBytes", "flops", …} (a WorkloadCost's spec);
- hosts/<host>.json: {"implementations": [{"implementation", "host", "levels": {"1", …, "other", "all": S}}]}
  with S = {"suite", "attempted", "passed", "held_out_implausible", "held_out_runs", "fast_p", "fast_p_count",
  "faster_beyond_noise", "geomean_speedup", "geomean_over"}.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from . import gpus, rules
from .inputs import Inputs, Run, read_api, read_inputs

VALUE_TOLERANCE = 1e-12  # the exact ratio, as a float
LIMITS_TOLERANCE = 5e-3  # floor_ns, roofline_ns and sol: the API rounds them to 3 significant figures
INTERVAL_TOLERANCE = 1e-9  # exp(±1.96·sd): the order of float operations may differ
SHARE_TOLERANCE = 1e-12
GEOMEAN_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Difference:
    where: str
    what: str
    expected: object
    got: object
    note: str = ""

    def __str__(self) -> str:
        note = f" ({self.note})" if self.note else ""
        return f"{self.where}: {self.what}: expected {self.expected!r}, got {self.got!r}{note}"


@dataclass
class Report:
    differences: list[Difference] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # values compared, by rule
    borderline: list[str] = field(default_factory=list)

    def summary(self, limit: int = 20) -> str:
        lines = [f"{len(self.differences)} differences between the API and the about page's rules "
                 f"(checked: {dict(self.checked)})"]
        by_kind: dict[str, int] = defaultdict(int)
        for d in self.differences:
            by_kind[d.what.split("[")[0].split(".")[0]] += 1
        lines.append(f"by field: {dict(sorted(by_kind.items()))}")
        # The first difference of each field, then the others in order: every kind is seen.
        firsts = list({d.what: d for d in reversed(self.differences)}.values())[::-1]
        shown = (firsts + [d for d in self.differences if d not in firsts])[:limit]
        lines += [f"  {d}" for d in sorted(shown, key=self.differences.index)]
        if len(self.differences) > limit:
            lines.append(f"  … and {len(self.differences) - limit} more")
        if self.borderline:
            lines.append(f"float decisions within 1e-9 of 1 (either answer may be right): {self.borderline[:5]}")
        return "\n".join(lines)


def close(expected, got, rel: float) -> bool:
    """Equal, numbers within a relative tolerance, lists element by element."""
    if expected is None or got is None:
        return expected is None and got is None
    if isinstance(expected, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(expected) and all(
            close(e, g, rel) for e, g in zip(expected, got))
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected is got
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        return expected == got or abs(expected - got) <= rel * max(abs(expected), abs(got))
    return expected == got


# --- Building the boards from the raw runs --------------------------------------------------------------

def entries_of(board_doc: dict) -> list[dict]:
    return list(board_doc.get("entries") or [])


def history_of(board_doc: dict) -> list[dict]:
    return list(board_doc.get("history") or [])


def board_key(problem: str, doc: dict) -> tuple[str, str, str, str]:
    return problem, doc["workload"], doc["host"], doc["protocol"]


def judge_runs(inputs: Inputs, report: Report) -> dict[str, rules.Judged]:
    """Each run's GPU, floor, roofline, share of the speed of light, verdict and whether it is below its
    floor (about page, "Physics"): its workload's cost on the GPU it was timed on."""
    table = gpus.read_gpus(inputs.settings.gpus)
    judged: dict[str, rules.Judged] = {}
    for run in inputs.runs.values():
        try:
            name = gpus.gpu_of_run(run.hardware, run.product, run.form_factor)
        except gpus.UnknownName as e:
            report.differences.append(Difference(f"run {run.name} ({run.file})", "gpu", "a GPU the recomputation "
                                                 "knows", str(e), "add its name to tests/recompute/gpus.py NAMES"))
            name = None
        verdict = inputs.reviews.get(run.name)
        if run.mean is None:  # nothing timed: nothing to judge, on no GPU
            judged[run.name] = rules.Judged(None, None, None, None, False, verdict)
            continue
        cost, gpu = inputs.costs.get(run.workload), table.get(name) if name else None
        floor, roofline = (rules.floor_ns(cost, gpu, run.cache_flushed),
                           rules.roofline_ns(cost, gpu, run.cache_flushed))
        judged[run.name] = rules.Judged(name, floor, roofline, rules.sol(roofline, run.mean),
                                        rules.below_floor(run, floor, verdict), verdict)
    return judged


def _problem_of_workloads(problems: dict[str, dict], report: Report) -> tuple[dict[str, str], set[str]]:
    """Which problem each workload is on, and which runs are on another GPU, as the API says."""
    problem_of: dict[str, str] = {}
    mixed: set[str] = set()
    for slug, doc in problems.items():
        for w in doc.get("workloads", []):
            digest = w["digest"] if isinstance(w, dict) else w
            if digest in problem_of and problem_of[digest] != slug:
                report.differences.append(Difference(f"workload {digest}", "problem", problem_of[digest], slug,
                                                     "one workload on two problems"))
            problem_of[digest] = slug
        for b in doc.get("boards", []):
            for e in entries_of(b) + history_of(b):
                if e.get("mixed_hardware"):
                    mixed.add(e["run"])
    return problem_of, mixed


def boards_from_inputs(inputs: Inputs, problems: dict[str, dict], report: Report) -> dict[tuple, rules.Board]:
    """Every board (problem × workload × host × protocol) of the raw runs. Which problem a workload is on
    is taken from the API's problem documents (naming, not a statistical rule), and so is which runs are
    on another GPU (the `mixed_hardware` flag)."""
    problem_of, mixed = _problem_of_workloads(problems, report)
    grouped: dict[tuple, list[Run]] = defaultdict(list)
    for run in inputs.runs.values():
        problem = problem_of.get(run.workload)
        if problem is None:
            report.differences.append(Difference(f"run {run.name} ({run.file})", "problem", "a problem page",
                                                 None, "its workload is on no problem of the API"))
            continue
        grouped[(problem, run.workload, run.host, run.protocol)].append(run)
    judged = judge_runs(inputs, report)
    off = frozenset(rules.hosts_off_in_units(list(inputs.runs.values()), inputs.settings))
    return {key: rules.make_board(*key, group, frozenset(r.name for r in group if r.name in mixed), inputs.settings,
                                  {r.name: judged[r.name] for r in group}, off)
            for key, group in grouped.items()}


# --- One function per rule ------------------------------------------------------------------------------

def check_board_membership(board: rules.Board | None, doc: dict | None, key: tuple, report: Report) -> None:
    """The board exists on both sides; its current entries, history and reference are the rule's
    (History: one current entry per implementation, its latest run by observedAt)."""
    where = board.where if board else f"{key[0]} · {key[2]} · {key[3]} · {key[1].removeprefix('sha256:')[:12]}"
    if board is None or doc is None:
        report.differences.append(Difference(where, "board", "present" if board else "absent",
                                             "present" if doc else "absent"))
        return
    report.checked["boards"] += 1
    got_entries = sorted(e["run"] for e in entries_of(doc))
    got_history = sorted(e["run"] for e in history_of(doc))
    expected_entries = sorted(r.name for r in board.current)
    expected_history = sorted(r.name for r in board.history)
    if got_entries != expected_entries:
        report.differences.append(Difference(where, "entries (current runs)", expected_entries, got_entries))
    if got_history != expected_history:
        report.differences.append(Difference(where, "history", expected_history, got_history))
    expected_ref = board.reference.name if board.reference else None
    if doc.get("reference") != expected_ref:
        report.differences.append(Difference(where, "reference", expected_ref, doc.get("reference")))
    runs = {r.name: r for r in board.runs}
    for e in entries_of(doc) + history_of(doc):
        run = runs.get(e["run"])
        if run is not None and "implementation" in e and not same_label(run, e["implementation"]):
            report.differences.append(Difference(f"{where} · {run.name}", "implementation", run.label,
                                                 e["implementation"]))


def same_label(run: Run, shown: str) -> bool:
    """The title's implementation, or (where a table holds two implementations of one label) that label with
    the start of its implementationDigest: "PyTorch eager (d93662a4)"."""
    if shown == run.label:
        return True
    digest = run.implementation_digest.removeprefix("sha256:")
    prefix, _, rest = shown.rpartition(" (")
    return prefix == run.label and rest.endswith(")") and len(rest) > 4 and digest.startswith(rest[:-1])


def check_ranks(board: rules.Board, doc: dict, report: Report) -> None:
    """Rank and tied by the rule in "Ranks"; runs not ranked have no rank."""
    ranks = board.rank
    counts: dict[int, int] = defaultdict(int)
    for r in ranks.values():
        counts[r] += 1
    note = f"borderline float decisions on this board: {board.borderline}" if board.borderline else ""
    for e in entries_of(doc):
        where = f"{board.where} · {e['run']}"
        expected = ranks.get(e["run"])
        report.checked["rank"] += 1
        if e.get("rank") != expected:
            report.differences.append(Difference(where, "rank", expected, e.get("rank"), note))
        expected_tied = expected is not None and counts[expected] > 1
        if bool(e.get("tied")) != expected_tied:
            report.differences.append(Difference(where, "tied", expected_tied, e.get("tied"), note))


def check_rank_invariants(board: rules.Board, doc: dict, report: Report) -> None:
    """On the API's own ranks: a faster mean is never ranked below a slower one, and a run faster than
    another beyond noise has the better rank."""
    runs = {r.name: r for r in board.ranked}
    got = {e["run"]: e.get("rank") for e in entries_of(doc) if e["run"] in runs and e.get("rank") is not None}
    for a in got:
        for b in got:
            if a == b:
                continue
            ra, rb = runs[a], runs[b]
            if ra.mean < rb.mean and got[a] > got[b]:
                report.differences.append(Difference(f"{board.where} · {a}", "rank (invariant)",
                                                     f"≤ {got[b]} (rank of slower {b}, {rb.mean} ns)", got[a],
                                                     f"its mean is {ra.mean} ns"))
            if rules.faster_beyond_noise(ra, rb) and not got[a] < got[b]:
                report.differences.append(Difference(f"{board.where} · {a}", "rank (invariant)",
                                                     f"< {got[b]} (rank of {b}, slower beyond noise)", got[a]))


def _speedup_doc(e: dict) -> dict | None:
    sp = e.get("speedup")
    return None if sp is None or sp.get("value") is None else sp


def check_speedups(board: rules.Board, doc: dict, report: Report) -> None:
    """speedup = reference mean / run mean for every ranked entry of a board with a reference, with "ci95"
    when either run gave an interval, "rounding_bounds" when neither did but a resolution is stated."""
    for e in entries_of(doc):
        where = f"{board.where} · {e['run']}"
        expected, got = board.speedup.get(e["run"]), _speedup_doc(e)
        report.checked["speedup"] += 1
        if expected is None or got is None:
            if expected is not got:
                report.differences.append(Difference(where, "speedup", expected, e.get("speedup")))
            continue
        if not close(expected["value"], got.get("value"), VALUE_TOLERANCE):
            report.differences.append(Difference(where, "speedup.value", expected["value"], got.get("value")))
        for kind in ("ci95", "rounding_bounds"):
            if not close(expected[kind], got.get(kind), INTERVAL_TOLERANCE):
                report.differences.append(Difference(where, f"speedup.{kind}", expected[kind], got.get(kind)))


def check_implausible(board: rules.Board, doc: dict, report: Report) -> None:
    """Where no floor judges a run: speedup ≥ implausible_speedup, unless reviewed clean."""
    for e in entries_of(doc):
        expected = e["run"] in board.implausible
        report.checked["implausible"] += 1
        if bool(e.get("implausible")) != expected:
            report.differences.append(Difference(f"{board.where} · {e['run']}", "implausible", expected,
                                                 e.get("implausible")))


def check_implausible_latency(board: rules.Board, doc: dict, report: Report) -> None:
    """A passed run of a host off in units (steadily implausible_latency × or more off the other hosts on
    the workloads they share), unless reviewed clean."""
    for e in entries_of(doc) + history_of(doc):
        expected = e["run"] in board.implausible_latency
        report.checked["implausible latency"] += 1
        if bool(e.get("implausible_latency")) != expected:
            report.differences.append(Difference(f"{board.where} · {e['run']}", "implausible_latency", expected,
                                                 e.get("implausible_latency")))


PHYSICS_FIELDS = (("gpu", 0), ("floor_ns", LIMITS_TOLERANCE), ("roofline_ns", LIMITS_TOLERANCE),
                  ("sol", LIMITS_TOLERANCE), ("below_floor", 0), ("verdict", 0))


def _physics_of(judged: rules.Judged) -> dict:
    return {"gpu": judged.gpu, "floor_ns": _float(judged.floor), "roofline_ns": _float(judged.roofline),
            "sol": judged.sol, "below_floor": judged.below_floor, "verdict": judged.verdict}


def _float(value) -> float | None:
    return None if value is None else float(value)


def check_physics(board: rules.Board, doc: dict, report: Report) -> None:
    """Each run's GPU, floor, roofline and share of the speed of light (about page, "Physics"), whether it
    is below its floor, and its newest review's verdict."""
    for e in entries_of(doc) + history_of(doc):
        run = next((r for r in board.runs if r.name == e["run"]), None)
        if run is None:
            continue
        expected = _physics_of(board.judge(run))
        for key, tolerance in PHYSICS_FIELDS:
            report.checked[key] += 1
            got = e.get(key)
            same = bool(got) is expected[key] if key == "below_floor" else close(expected[key], got, tolerance)
            if not same:
                report.differences.append(Difference(f"{board.where} · {e['run']}", key, expected[key], got))
        for key in ("floor", "roofline"):  # null where unknown, with the reason; a reason only then
            why = e.get(f"{key}_why_not")
            if (e.get(f"{key}_ns") is None) != (isinstance(why, str) and bool(why.strip())):
                report.differences.append(Difference(f"{board.where} · {e['run']}", f"{key}_why_not",
                                                     "a reason exactly where there is no value", why))


COST_FIELDS = ("status", "inputBytes", "outputBytes", "parameterBytes", "flops")


def check_costs(problems: dict[str, dict], costs: dict[str, dict], report: Report) -> None:
    """Each problem's workload gives its cost as the content's WorkloadCost counted it (or none)."""
    for slug, doc in problems.items():
        for w in doc.get("workloads", []):
            if not isinstance(w, dict):
                continue
            expected, got = costs.get(w["digest"]), w.get("cost")
            report.checked["workload costs"] += 1
            if expected is None or got is None:
                if expected is not got:
                    report.differences.append(Difference(f"{slug} · workload {w['digest']}", "cost", expected, got))
                continue
            for key in COST_FIELDS:
                if key in got and got[key] != expected.get(key, {} if key == "flops" else None):
                    report.differences.append(Difference(f"{slug} · workload {w['digest']}", f"cost.{key}",
                                                         expected.get(key), got[key]))


def check_trends(board: rules.Board, doc: dict, report: Report) -> None:
    """Each run against the implementation's previous passed run on the table (History)."""
    for e in entries_of(doc) + history_of(doc):
        where = f"{board.where} · {e['run']}"
        expected, got = board.trend.get(e["run"]), e.get("trend")
        report.checked["trend"] += 1
        if expected is None or got is None:
            if expected is not got:
                report.differences.append(Difference(where, "trend", expected, got))
            continue
        for key, tolerance in (("previous", 0), ("verdict", 0), ("ratio", VALUE_TOLERANCE),
                               ("ratio_ci95", INTERVAL_TOLERANCE), ("ratio_rounding_bounds", INTERVAL_TOLERANCE)):
            if not close(expected[key], got.get(key), tolerance):
                report.differences.append(Difference(where, f"trend.{key}", expected[key], got.get(key)))


SUMMARY_FIELDS = (("suite", 0), ("attempted", 0), ("passed", 0), ("held_out_implausible", 0),
                  ("held_out_runs", 0), ("fast_p_count", 0), ("fast_p", SHARE_TOLERANCE),
                  ("faster_beyond_noise", 0), ("geomean_speedup", GEOMEAN_TOLERANCE), ("geomean_over", 0))
# A summary's fields that are not statistics of the about page: coverage counts and titles. Any other
# field the API gives is a statistic this check must be taught, and is reported until it is.
SUMMARY_OTHER_FIELDS = {"timed_elsewhere", "uncompared_runs", "uncompared_passed", "over_levels", "title"}


def check_summary(where: str, expected: dict, got: dict, report: Report) -> None:
    """One implementation on one host, level by level (Summaries: fast_p over the suite)."""
    if sorted(expected["levels"]) != sorted(got.get("levels") or {}):
        report.differences.append(Difference(where, "levels", sorted(expected["levels"]),
                                             sorted(got.get("levels") or {})))
    for key in ("host", "basis"):
        if got.get(key) != expected[key]:
            report.differences.append(Difference(where, key, expected[key], got.get(key)))
    for level, s in expected["levels"].items():
        g = (got.get("levels") or {}).get(level)
        if g is None:
            continue
        for key in sorted(g.keys() - {k for k, _ in SUMMARY_FIELDS} - SUMMARY_OTHER_FIELDS):
            report.differences.append(Difference(f"{where} · level {level}", key, "(not recomputed)", g[key]))
        for key, tolerance in SUMMARY_FIELDS:
            report.checked["summary values"] += 1
            e_value, g_value = s[key], g.get(key)
            if key == "held_out_runs" and isinstance(g_value, list):
                g_value = sorted(g_value)  # the about page gives them no order
            if isinstance(e_value, dict):
                same = isinstance(g_value, dict) and sorted(e_value) == sorted(g_value) and all(
                    close(e_value[p], g_value[p], tolerance) for p in e_value)
            else:
                same = close(e_value, g_value, tolerance)
            if not same:
                report.differences.append(Difference(f"{where} · level {level}", key, e_value, g_value))


def check_host(host: str, expected: list[dict], doc: dict | None, report: Report) -> None:
    """The host's implementations (all but the reference), each summarised, in the site's order."""
    if doc is None:
        report.differences.append(Difference(f"host {host}", "host document", "present", "absent"))
        return
    got = list(doc.get("implementations") or [])
    order_expected = [s["implementation"] for s in expected]
    order_got = [s.get("implementation") for s in got]
    if order_got != order_expected:
        report.differences.append(Difference(f"host {host}", "implementations (order: fast_1, fast_0, name)",
                                             order_expected, order_got))
    by_label = {s.get("implementation"): s for s in got}
    for s in expected:
        if s["implementation"] in by_label:
            check_summary(f"host {host} · {s['implementation']}", s, by_label[s["implementation"]], report)


# --- All of it ------------------------------------------------------------------------------------------

BOARD_RULES = (check_ranks, check_rank_invariants, check_speedups, check_implausible, check_implausible_latency,
               check_trends, check_physics)


@dataclass
class Expected:
    """What the rules give: every board, and each host's summaries in order."""

    boards: dict[tuple, rules.Board]
    summaries: dict[str, list[dict]]


def expect(inputs: Inputs, problems: dict[str, dict], report: Report) -> Expected:
    boards = boards_from_inputs(inputs, problems, report)
    runs_of_problem: dict[str, list[Run]] = defaultdict(list)
    for b in boards.values():
        runs_of_problem[b.problem] += b.runs
    levels = {slug: rules.problem_level(runs_of_problem.get(slug, [])) for slug in problems}
    slots = {slug: rules.problem_slot(slug, runs_of_problem.get(slug, []), levels[slug]) for slug in problems}
    board_list = list(boards.values())
    return Expected(boards, {host: rules.host_summaries(host, board_list, levels, slots, inputs.settings)
                             for host in sorted({b.host for b in board_list})})


def compare(inputs: Inputs, problems: dict[str, dict], hosts: dict[str, dict],
            expected: Expected | None = None) -> Report:
    """Every rule's values against the API documents (`expected`, if given, is `expect`'s for these inputs
    and problems: the boards do not depend on the values compared)."""
    report = Report()
    if expected is None:
        expected = expect(inputs, problems, report)
    boards = expected.boards
    docs = {board_key(slug, b): b for slug, doc in problems.items() for b in doc.get("boards", [])}
    for key in sorted(set(boards) | set(docs)):
        board, doc = boards.get(key), docs.get(key)
        check_board_membership(board, doc, key, report)
        if board is None or doc is None:
            continue
        report.borderline += [f"{board.where}: {pair}" for pair in board.borderline]
        for rule in BOARD_RULES:
            rule(board, doc, report)
    check_costs(problems, inputs.costs, report)
    if sorted(hosts) != sorted(expected.summaries):
        report.differences.append(Difference("hosts", "host documents", sorted(expected.summaries), sorted(hosts)))
    for host, summaries in expected.summaries.items():
        check_host(host, summaries, hosts.get(host), report)
    return report


def recompute(content: Path, settings_file: Path | None, site: Path) -> Report:
    problems, hosts = read_api(site)
    return compare(read_inputs(content, settings_file), problems, hosts)
