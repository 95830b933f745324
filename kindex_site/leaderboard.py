"""Check phase: group validated runs into problems and boards, and rank within each board.

A board is one problem × one workload × one timing host × one protocol. Its entries are the only
numbers ever compared with each other; nothing here ranks across boards.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property

from .errors import KindexError
from .hardware import same_gpu
from .load import Content, Run
from .models import NAME_PATTERN, is_windows_device
from .stats import Speedup, geometric_mean, rank_groups, speedup

DEFAULT_REFERENCE = "PyTorch eager"
HIGH_VARIANCE = 0.10  # std / mean above this is flagged
OUTLIER_FACTOR = 2  # maximum above this many means is flagged

_KERNELBENCH_PROBLEM = re.compile(r"^level(\d+)/(\d+)_(.+?)(?:\.py)?$")
_NAME = re.compile(NAME_PATTERN)


@dataclass(frozen=True)
class Problem:
    slug: str
    title: str
    level: int | None = None  # KernelBench level; None for other sources
    number: int | None = None

    @property
    def sort_key(self) -> tuple:
        return (self.level is None, self.level or 0, self.number or 0, self.title.casefold(), self.slug)


@dataclass(eq=False, slots=True)  # identity: entries are compared by being the same entry, never field by field
class Entry:
    run: Run
    implementation: str  # label shown in the table
    implementation_slug: str
    rank: int | None = None  # None: not ranked (not passed, no timing, or another GPU)
    tied: bool = False  # shares its rank with others whose intervals overlap
    mixed_hardware: bool = False  # recorded a different GPU than its host's
    is_reference: bool = False
    speedup: Speedup | None = None  # reference mean / this mean, on this board only

    @property
    def ci95(self) -> tuple[int, int] | None:
        return self.run.facts.ci95

    @property
    def no_ci(self) -> bool:
        return self.rank is not None and self.ci95 is None


@dataclass(frozen=True)
class Warning:
    code: str
    message: str
    runs: list[str]


@dataclass
class Board:
    problem: Problem
    workload: str
    host: str  # environment metadata.name
    protocol: str  # protocol metadata.name
    statistic: str  # which latencyNs field ranks the board
    entries: list[Entry] = field(default_factory=list)
    anchor: str = ""  # the board's id on its problem page; unique within that page
    reference: Entry | None = None
    warnings: list[Warning] = field(default_factory=list)


@dataclass(frozen=True)
class Workload:
    digest: str
    first_observed: str | None
    last_observed: str | None
    hosts: list[str]


@dataclass(frozen=True)
class Summary:
    """One implementation against the reference on one host, over the boards where both passed."""

    implementation: str
    implementation_slug: str
    host: str
    problems: int
    geomean_speedup: float | None
    fast_1: float | None  # share whose speedup interval lies wholly above 1
    faster_share: float | None  # share whose speedup is above 1


@dataclass
class Implementation:
    slug: str
    label: str
    entries: list[Entry] = field(default_factory=list)  # problem by problem, in no other order
    hosts: set[str] = field(default_factory=set)  # where it was timed
    # (sort key of a board with a reference, its best speedup there), for the page's chart
    board_speedups: list[tuple[tuple, float]] = field(default_factory=list)


@dataclass
class Leaderboard:
    content: Content
    problems: list[Problem]
    boards: dict[str, list[Board]]  # problem slug → its boards, in page order
    implementations: list[Implementation]
    reference: str  # the reference implementation's label
    workloads: dict[str, list[Workload]]  # problem slug → its workloads, oldest first
    summaries: dict[str, list[Summary]]  # host name → one per implementation (not the reference)
    problem_keys: dict[str, str] = field(default_factory=dict)  # slug → digest of what its boards were made from
    problems_of_implementation: dict[str, set[str]] = field(default_factory=dict)  # slug → problem slugs

    # Made when first asked for (links without run pages): a rebuild need not touch every run.
    @cached_property
    def board_of_run(self) -> dict[str, Board]:
        return {e.run.name: b for boards in self.boards.values() for b in boards for e in b.entries}


def slugify(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:120].strip("-")


def problem_of(run: Run, known: dict | None = None) -> Problem | str:
    """The problem a run times, or a message saying why it cannot be told.

    `known` remembers problems by the text they were told from: a corpus has thousands of runs
    of each problem, and the same text always gives the same answer.
    """
    if isinstance(run.grouping, tuple):
        return run.grouping[0]  # told before, by build_leaderboard
    key = run.facts.problem_text
    if run.facts.kernelbench:
        if key is None:
            return "run.spec.sourceNative.externalId: a kernelbench run needs its externalId (…/levelN/M_Name.py)"
        make = _kernelbench_problem
    else:
        make = _titled_problem
    problem = known.get((make, key)) if known is not None else None
    if problem is None:
        problem = make(key)
        if isinstance(problem, str):
            return problem
        if known is not None:
            known[make, key] = problem
    return problem


def _kernelbench_problem(tail: str) -> Problem | str:
    m = _KERNELBENCH_PROBLEM.match(tail)
    if not m:
        return (f"run.spec.sourceNative.externalId: ends in {tail!r}, not in levelN/M_Name.py "
                "as KernelBench ids do")
    level, number, name = int(m[1]), int(m[2]), m[3]
    title = " ".join(name.replace("_", " ").split())
    return Problem(f"level{level}-{number}-{slugify(title)}".strip("-"), title, level, number)


def _titled_problem(title: str) -> Problem | str:
    slug = slugify(title)
    if not slug:
        return f"run.metadata.title: the problem part {title!r} has no letters or digits to name a page by"
    if is_windows_device(slug):
        return f"run.metadata.title: problem {title!r} would be the folder {slug!r}, a reserved device name on Windows"
    return Problem(slug, title)


def implementation_label(run: Run) -> str:
    parts = run.facts.title_parts
    if len(parts) >= 2 and parts[1].strip():
        return parts[1].strip()
    return "implementation " + run.facts.implementation_digest.removeprefix("sha256:")[:12]


def build_leaderboard(content: Content, reference: str = DEFAULT_REFERENCE, memo: dict | None = None) -> Leaderboard:
    """Group, rank and summarise; `memo` (kept by a long-running caller) holds each problem's boards
    by the keys of its runs, so a rebuild re-ranks only the problems whose runs changed."""
    problems: dict[str, Problem] = {}
    problem_source: dict[str, object] = {}  # a Source, made a string only for a message
    implementations: dict[str, Implementation] = {}
    implementation_source: dict[str, object] = {}
    runs_of_problem: dict[str, list[Run]] = {}
    errors: list[str] = []

    known_problems: dict = {}
    label_slugs: dict[str, str] = {}
    told: dict[tuple, tuple | str] = {}  # what _grouping reads of a run → its answer
    for run in content.runs:
        grouping = run.grouping  # told from the document alone, so kept on the run across rebuilds
        if grouping is None:
            f = run.facts
            from_ = (f.kernelbench, f.problem_text, f.title_parts[1:2], f.implementation_digest)
            grouping = told.get(from_)
            if grouping is None:
                grouping = told[from_] = _grouping(run, known_problems, label_slugs)
            run.grouping = grouping
        if isinstance(grouping, str):
            errors.append(f"{run.source}: {grouping}")
            continue
        problem, label, impl_slug = grouping
        slug = problem.slug
        known = problems.get(slug)
        if known is None:
            problems[slug], problem_source[slug], runs_of_problem[slug] = problem, run.source, []
        elif known is not problem:
            if known != problem:
                errors.append(f"{run.source}: problem {problem.title!r} would share the page /problems/{slug}/ "
                              f"with {known.title!r} from {problem_source[slug]}")
                continue
            run.grouping = (known, label, impl_slug)  # one object per problem: next time, `is` will do
        impl = implementations.get(impl_slug)
        if impl is None:
            implementations[impl_slug], implementation_source[impl_slug] = Implementation(impl_slug, label), run.source
        elif impl.label != label:
            errors.append(
                f"{run.source}: run.metadata.title: implementation {label!r} would share the page "
                f"/implementations/{impl_slug}/ with {impl.label!r} from {implementation_source[impl_slug]}"
            )
            continue
        runs_of_problem[slug].append(run)

    if errors:
        raise KindexError(errors)

    by_problem: dict[str, list[Board]] = {}
    workloads: dict[str, list[Workload]] = {}
    keys: dict[str, tuple] = {}
    problems_of_implementation: dict[str, set[str]] = {}
    speedups: dict[tuple[str, str], list[Speedup]] = {}  # (host, implementation slug) → best per board
    for slug, runs in runs_of_problem.items():
        # A run's key covers its bundle's bytes (protocol and environment included) and where it
        # sits: equal keys, equal boards.
        key = keys[slug] = _runs_key(reference, runs)
        state = memo.get(slug) if memo is not None else None
        if state is None or state.key != key:
            state = _ProblemState(key, *_problem_boards(problems[slug], runs, content, reference))
        if memo is not None:
            memo[slug] = state
        by_problem[slug], workloads[slug] = state.boards, state.workloads
        for impl_slug, entries in state.entries_of_implementation.items():
            implementations[impl_slug].entries += entries
            implementations[impl_slug].hosts |= state.hosts_of_implementation[impl_slug]
            problems_of_implementation.setdefault(impl_slug, set()).add(slug)
        for impl_slug, points in state.board_speedups.items():
            implementations[impl_slug].board_speedups += points
        for host, impl_slug, value in state.best_speedups:
            speedups.setdefault((host, impl_slug), []).append(value)
    if memo is not None:
        for slug in [s for s in memo if s not in runs_of_problem]:
            del memo[slug]
    return Leaderboard(
        content=content,
        problems=sorted(problems.values(), key=lambda p: p.sort_key),
        boards=by_problem,
        implementations=sorted(implementations.values(), key=lambda i: (i.label.casefold(), i.slug)),
        reference=reference,
        workloads=workloads,
        summaries=_summaries(speedups, content, implementations),
        problem_keys=keys,
        problems_of_implementation=problems_of_implementation,
    )


def _runs_key(reference: str, runs: list[Run]) -> str:
    """A digest of what a problem's boards are made from: the reference and its runs' keys, in order."""
    h = hashlib.sha256(reference.encode())
    for run in runs:
        h.update(b"\0" + run.key.encode())
    return h.hexdigest()


def _grouping(run: Run, known_problems: dict, label_slugs: dict[str, str]) -> tuple[Problem, str, str] | str:
    """(problem, implementation label, implementation slug) of a run, or what is wrong."""
    problem = problem_of(run, known_problems)
    if isinstance(problem, str):
        return problem
    label = implementation_label(run)
    impl_slug = label_slugs.get(label)
    if impl_slug is None:
        impl_slug = label_slugs[label] = slugify(label) or "implementation"
    if is_windows_device(impl_slug):
        return (f"run.metadata.title: implementation {label!r} would be the folder {impl_slug!r}, "
                "a reserved device name on Windows")
    # One tuple (and label string) for all runs of a problem and implementation, not one per run.
    grouping = (problem, label, impl_slug)
    return known_problems.setdefault(grouping, grouping)


class _ProblemState:
    """One problem's boards and workloads, made from the runs its key names, with maps by run."""

    def __init__(self, key: str, boards: list[Board], workloads: list[Workload]):
        self.key, self.boards, self.workloads = key, boards, workloads
        self.entries_of_implementation: dict[str, list[Entry]] = {}
        # (host, implementation slug, its best speedup) per board, for the summaries: a flat list, as a
        # dict of one-element lists per problem weighs more than the speedups themselves.
        self.best_speedups: list[tuple[str, str, Speedup]] = []
        self.board_speedups: dict[str, list[tuple[tuple, float]]] = {}  # for implementation charts
        self.hosts_of_implementation: dict[str, set[str]] = {}
        for b in boards:
            for e in b.entries:
                self.entries_of_implementation.setdefault(e.implementation_slug, []).append(e)
                self.hosts_of_implementation.setdefault(e.implementation_slug, set()).add(e.run.environment)
            if b.reference is None:
                continue
            best: dict[str, Entry] = {}
            highest: dict[str, float] = {}
            board_key = (b.host, b.problem.slug, b.workload, b.protocol)  # one per board, shared by its points
            for e in b.entries:  # ranked entries come first, fastest first
                if e.speedup is not None and not e.is_reference:
                    best.setdefault(e.implementation_slug, e)
                    highest[e.implementation_slug] = max(highest.get(e.implementation_slug, 0.0), e.speedup.value)
            for impl_slug, e in best.items():
                self.best_speedups.append((b.host, impl_slug, e.speedup))
            for impl_slug, value in highest.items():
                self.board_speedups.setdefault(impl_slug, []).append((board_key, value))


def _problem_boards(problem: Problem, runs: list[Run], content: Content, reference: str
                    ) -> tuple[list[Board], list[Workload]]:
    """One problem's boards, ranked and in page order, and its workloads, oldest first."""
    boards: dict[tuple, Board] = {}
    for run in runs:
        _, label, impl_slug = run.grouping
        key = (run.facts.workload_digest, run.environment, run.protocol)
        board = boards.get(key)
        if board is None:
            statistic = content.protocols[run.protocol].spec.measurement.primaryStatistic
            board = boards[key] = Board(problem, key[0], run.environment, run.protocol, statistic)
        board.entries.append(Entry(run, label, impl_slug, is_reference=(label == reference)))
    problem_boards = list(boards.values())
    for board in problem_boards:
        environment = content.environments[board.host]
        _mark_mixed_hardware(board, environment)
        _rank(board)
        _speedups(board, reference)
        board.warnings = _warnings(board, environment)
    workloads = _workloads(problem_boards)
    # Oldest workload first, then host title (readers look for their GPU); protocol breaks ties.
    order = {w.digest: i for i, w in enumerate(workloads)}
    problem_boards.sort(key=lambda b: (
        order[b.workload], content.environments[b.host].metadata.title.casefold(), b.host, b.protocol))
    _assign_anchors(problem_boards)
    return problem_boards, workloads


def primary_value(entry: Entry, statistic: str) -> int | None:
    return entry.run.facts[statistic]


def _rank(board: Board) -> None:
    """Fastest first by the protocol's primary statistic, in noise-aware groups (see stats.rank_groups).

    Only passed runs with timing on the host's own GPU are ranked. The rest follow, unranked:
    runs on another GPU by their value, then runs that did not pass by status and name.
    """
    rankable = [e for e in board.entries
                if e.run.facts.status == "passed" and e.run.facts.timed and not e.mixed_hardware]
    chosen = set(map(id, rankable))
    others = [e for e in board.entries if id(e) not in chosen]

    def order(e: Entry):
        value = primary_value(e, board.statistic)
        return (value is None, value or 0, e.implementation.casefold(), e.run.name)

    rankable.sort(key=order)
    # Intervals are of the mean; under another primary statistic only equal values tie.
    use_ci = board.statistic == "mean"
    groups = rank_groups([(primary_value(e, board.statistic), e.ci95 if use_ci else None) for e in rankable])
    for entry, (rank, tied) in zip(rankable, groups):
        entry.rank, entry.tied = rank, tied
    others.sort(key=lambda e: (e.run.facts.status != "passed", e.run.facts.status, *order(e)))
    board.entries = rankable + others
    _disambiguate_labels(board)


def _mark_mixed_hardware(board: Board, environment) -> None:
    hw = environment.spec.hardware
    memory = (hw.model_extra or {}).get("memory")
    for e in board.entries:
        recorded = e.run.facts.hardware
        if recorded is not None and recorded.strip():
            e.mixed_hardware = not same_gpu(recorded, hw.product, hw.formFactor, memory if isinstance(memory, str) else None)


def _speedups(board: Board, reference: str) -> None:
    """Each ranked entry against the board's one reference run: reference mean / its mean."""
    candidates = [e for e in board.entries if e.is_reference and e.rank is not None]
    if len(candidates) != 1:
        return  # none, or several and no way to tell which one is *the* reference
    ref = board.reference = candidates[0]
    for e in board.entries:
        if e.rank is None:
            continue
        if e is ref:
            e.speedup = Speedup(1.0, 1.0, 1.0) if ref.ci95 else Speedup(1.0)  # exactly 1, no noise against itself
        else:
            e.speedup = speedup(ref.run.facts.mean, ref.ci95, e.run.facts.mean, e.ci95)


def std_ns(entry: Entry) -> int | float | None:
    """The latency standard deviation the run reports in nanoseconds, if it does."""
    return entry.run.facts.std_ns


def _warnings(board: Board, environment) -> list[Warning]:
    found: list[Warning] = []
    entries = board.entries
    hw = environment.spec.hardware
    host_gpu = " ".join(filter(None, [hw.product, hw.formFactor]))

    mixed = [e for e in entries if e.mixed_hardware]
    if mixed:
        recorded = sorted({str(e.run.facts.hardware) for e in mixed})
        found.append(Warning("mixed-hardware",
            f"{_runs(len(mixed))} recorded another GPU ({', '.join(recorded)}) than this host's {host_gpu}; "
            "they are marked and left out of ranks and summaries.", [e.run.name for e in mixed]))

    not_passed = [e for e in entries if e.run.facts.status != "passed"]
    if not_passed:
        counts: dict[str, int] = {}
        for e in not_passed:
            counts[e.run.facts.status] = counts.get(e.run.facts.status, 0) + 1
        detail = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        found.append(Warning("failed-runs", f"{_runs(len(not_passed))} did not pass ({detail}); they are listed unranked.",
                             [e.run.name for e in not_passed]))

    no_ci = [e for e in entries if e.no_ci]
    if no_ci:
        found.append(Warning("no-ci", f"{_runs(len(no_ci))} gave no confidence interval; ranked by the mean alone, "
                             "a difference may be noise.", [e.run.name for e in no_ci]))

    noisy = [e for e in entries if e.run.facts.timed and (sd := std_ns(e)) is not None
             and sd > HIGH_VARIANCE * e.run.facts.mean]
    if noisy:
        found.append(Warning("high-variance", f"{_runs(len(noisy))} had a standard deviation above "
                             f"{HIGH_VARIANCE:.0%} of the mean; their timings are noisy.", [e.run.name for e in noisy]))

    outliers = [e for e in entries if e.run.facts.maximum is not None
                and e.run.facts.maximum > OUTLIER_FACTOR * e.run.facts.mean]
    if outliers:
        found.append(Warning("outliers", f"{_runs(len(outliers))} had a slowest sample above {OUTLIER_FACTOR}× "
                             "the mean: some samples were disturbed.", [e.run.name for e in outliers]))

    digests = {e.run.facts.environment_digest for e in entries}
    if len(digests) > 1:
        found.append(Warning("environment-changed", f"The runs on this host carry {len(digests)} different "
                             "environment digests: its hardware or software changed between them.",
                             [e.run.name for e in entries]))
    return found


def _runs(n: int) -> str:
    return "1 run" if n == 1 else f"{n} runs"


def _workloads(boards: list[Board]) -> list[Workload]:
    observed: dict[str, list[str]] = {}
    hosts: dict[str, set[str]] = {}
    for b in boards:
        hosts.setdefault(b.workload, set()).add(b.host)
        times = observed.setdefault(b.workload, [])
        times += [e.run.facts.observed_at for e in b.entries if e.run.facts.observed_at]
    result = []
    for digest in hosts:
        times = sorted(set(observed[digest]), key=_utc)  # (a few distinct times among many runs)
        result.append(Workload(digest, times[0] if times else None, times[-1] if times else None, sorted(hosts[digest])))
    # Oldest first; workloads never observed last; the digest breaks ties.
    return sorted(result, key=lambda w: (w.first_observed is None, _utc(w.first_observed) if w.first_observed else "", w.digest))


def _utc(timestamp: str) -> str:
    from datetime import datetime, timezone

    return datetime.fromisoformat(timestamp).astimezone(timezone.utc).isoformat()


def _summaries(speedups: dict[tuple[str, str], list[Speedup]], content: Content,
               implementations: dict[str, Implementation]) -> dict[str, list[Summary]]:
    """Per host and implementation: geometric-mean speedup, fast_1 and share faster, over its boards
    (each implementation's best run on each board with a reference, as _ProblemState gathers them)."""
    result: dict[str, list[Summary]] = {name: [] for name in content.environments}
    for (host, slug), values in sorted(speedups.items()):
        n = len(values)
        result[host].append(Summary(
            implementation=implementations[slug].label, implementation_slug=slug, host=host, problems=n,
            geomean_speedup=geometric_mean([s.value for s in values]),
            fast_1=sum(1 for s in values if s.ci95 is not None and s.ci95[0] > 1) / n,
            faster_share=sum(1 for s in values if s.value > 1) / n,
        ))
    return result


def _disambiguate_labels(board: Board) -> None:
    """Two different implementations with one label on one board get their digest shown."""
    digests: dict[str, set[str]] = {}
    for e in board.entries:
        digests.setdefault(e.implementation, set()).add(e.run.facts.implementation_digest)
    for e in board.entries:
        if len(digests[e.implementation]) > 1:
            short = e.run.facts.implementation_digest.removeprefix("sha256:")[:8]
            e.implementation = f"{e.implementation} ({short})"


def _assign_anchors(boards: list[Board]) -> None:
    per_host: dict[str, int] = {}
    for b in boards:
        per_host[b.host] = per_host.get(b.host, 0) + 1
    for b in boards:
        if per_host[b.host] == 1:
            b.anchor = b.host
        else:
            b.anchor = f"{b.host}--{b.workload.removeprefix('sha256:')[:8]}-{b.protocol}"
