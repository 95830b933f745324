"""A problem's boards, ranked: current entries and history, speedups against the reference, trends,
and the physics and implausibility judges (about page, "Ranks", "Physics")."""

from __future__ import annotations

from fractions import Fraction

from .hardware import same_gpu
from .load import Content, Run
from .physics import Limits, limits
from .stats import Noise, Speedup, ranks, ratio, rounding_step, trend_verdict
from .boards import Board, Entry, Problem, Trend, Workload, primary_value, utc
from .rules import Rules, claimed_lab, lab_folder, speaks_for_its_lab
from .table_warnings import board_warnings


def problem_boards(problem: Problem, runs: list[Run], content: Content, rules: Rules, judges: Judges
                    ) -> tuple[list[Board], list[Workload]]:
    """One problem's boards, ranked and in page order, and its workloads, oldest first."""
    boards: dict[tuple, Board] = {}
    runs_of_board: dict[tuple, list[Entry]] = {}
    for run in runs:
        _, label, impl_slug = run.grouping
        key = (run.facts.workload_digest, run.environment, run.protocol)
        board = boards.get(key)
        if board is None:
            protocol = content.protocols[run.protocol]
            statistic = protocol.spec.measurement.primaryStatistic
            board = boards[key] = Board(problem, key[0], run.environment, run.protocol, statistic)
            runs_of_board[key] = []
        runs_of_board[key].append(Entry(run, label, impl_slug))
    problem_boards = list(boards.values())
    for key, board in boards.items():
        environment = content.environments[board.host]
        protocol = content.protocols[board.protocol]
        figures, step_ns = _resolution(protocol)
        board.significant_figures = figures
        entries = runs_of_board[key]
        _mark_mixed_hardware(entries, environment)
        judges.judge(entries, board, _flushed(protocol), (figures, step_ns))
        _measure(entries, board.statistic, figures, step_ns)
        unordered = _current_and_history(board, entries, rules)
        _rank(board)
        references = _speedups(board, rules.reference)
        _flag_implausible(board, rules)
        for e in entries:
            e.noise = None  # (compared by now: a million runs' noise kept would weigh 100 MB)
        _disambiguate_labels(board)
        board.warnings = board_warnings(board, environment, rules, references, unordered)
    workloads = _workloads(problem_boards)
    # Oldest workload first, then host title (readers look for their GPU); protocol breaks ties.
    order = {w.digest: i for i, w in enumerate(workloads)}
    problem_boards.sort(key=lambda b: (
        order[b.workload], content.environments[b.host].metadata.title.casefold(), b.host, b.protocol))
    _assign_anchors(problem_boards)
    return problem_boards, workloads


def _resolution(protocol) -> tuple[int | None, int | None]:
    """(significant figures, step in ns) the protocol says its source reports latencies to."""
    measurement = protocol.spec.measurement
    resolution = getattr(measurement, "resolution", None)
    if resolution is None:
        resolution = (measurement.model_extra or {}).get("resolution")
    if resolution is None:
        return None, None
    if not isinstance(resolution, dict):
        resolution = resolution.model_dump(exclude_none=True)
    figures, step = resolution.get("significantFigures"), resolution.get("stepNs")
    return (figures if type(figures) is int and figures > 0 else None,
            step if type(step) is int and step > 0 else None)


def _measure(entries: list[Entry], statistic: str, figures: int | None, step_ns: int | None) -> None:
    """Each timed run's value of the board's statistic with its noise (its 95% interval under the
    mean only), widened by half the source's rounding step."""
    for e in entries:
        value = primary_value(e, statistic)
        if value is None:
            continue
        step = rounding_step(value, figures, step_ns) if figures or step_ns else 0
        e.noise = Noise.of(value, e.ci95 if statistic == "mean" else None, step)


def _earliest(e: Entry) -> tuple:
    """Earliest first by observedAt; runs without one count last, then by name."""
    return (_observed(e) is None, _observed(e) or "", e.run.name)


def _mark_other_sources(entries: list[Entry], rules: Rules) -> None:
    """Which runs of the reference implementation may be the board's reference (about page,
    "Speedups"); the others are marked `other_source`."""
    runs = [e for e in entries if e.implementation == rules.reference]
    if not runs:
        return
    chosen = [e for e in runs if e.run.name in rules.reference_runs]
    if not chosen:
        publisher = rules.publisher_labs
        may = [e for e in runs if speaks_for_its_lab(e.run, rules)
               and (not publisher or claimed_lab(e.run) in publisher)]
        if may:
            lab = claimed_lab(min(may, key=_earliest).run)
            chosen = [e for e in may if claimed_lab(e.run) == lab]
    kept = set(map(id, chosen))
    for e in runs:
        e.other_source = id(e) not in kept


def _current_and_history(board: Board, entries: list[Entry], rules: Rules) -> list[list[Entry]]:
    """Per implementation and lab folder, its latest run by observedAt is current and the earlier ones
    its history (about page, "Ranks"); each run is compared (a trend) with its group's latest passed
    run observed strictly before it. Returns the runs that cannot be ordered in time, for a warning."""
    _mark_other_sources(entries, rules)
    reference = rules.reference
    by_implementation: dict[tuple, list[Entry]] = {}
    for e in entries:
        source = (claimed_lab(e.run), e.other_source) if e.implementation == reference else None
        key = (e.implementation, e.run.facts.implementation_digest, lab_folder(e.run), source)
        by_implementation.setdefault(key, []).append(e)
    board.entries, board.history = [], []
    unordered: list[list[Entry]] = []
    for runs in by_implementation.values():
        if len(runs) > 1:
            runs.sort(key=lambda e: (_observed(e) or "", e.run.name))
            unordered += _unordered(runs)
        # Walked one observedAt at a time (`at`): a run's previous is of an earlier observedAt.
        previous: Entry | None = None
        latest: Entry | None = None  # the latest passed run observed at `at`
        at: str | None = ""
        several = len(runs) > 1  # (a lone run has nothing to be compared with: its time is not looked up)
        for i, e in enumerate(runs):
            when = _observed(e) if several else None
            if when != at:
                if at is not None and latest is not None:
                    previous = latest
                at, latest = when, None
            if _comparable(e):
                if when is not None and previous is not None:
                    change = ratio(e.noise, previous.noise)
                    e.trend = Trend(previous, change, trend_verdict(change))
                latest = e
            if i + 1 < len(runs):
                e.current, e.superseded_by = False, runs[i + 1].run.name
        current = runs[-1]
        if current.run.facts.status != "passed" and previous is not None:
            current.last_passed = previous.run.facts.observed_at
        board.entries.append(current)
        board.history += reversed(runs[:-1])
    board.history.sort(key=lambda e: (e.implementation.casefold(), e.run.facts.implementation_digest))
    return unordered


def _observed(e: Entry) -> str | None:
    """When the run was observed, in UTC (comparable as text); None when it does not say."""
    return utc(e.run.facts.observed_at) if e.run.facts.observed_at else None


def _unordered(runs: list[Entry]) -> list[list[Entry]]:
    """Of one implementation's runs in time order, those sharing an observedAt, and those without one."""
    groups: dict[str | None, list[Entry]] = {}
    for e in runs:
        groups.setdefault(_observed(e), []).append(e)
    return [group for when, group in groups.items() if len(group) > 1 or when is None]


def _comparable(e: Entry) -> bool:
    """A passed run timed on its host's GPU, neither below its floor nor judged anything but clean:
    ranked when current, compared with when earlier."""
    return e.run.facts.status == "passed" and e.noise is not None and not e.mixed_hardware and not e.unrankable


def _rank(board: Board) -> None:
    """Rank = 1 + the number of entries faster beyond noise (stats.ranks), of current passed runs on
    the host's own GPU; the rest follow unranked, by value, then by status and name."""
    rankable = [e for e in board.entries if _comparable(e)]
    chosen = set(map(id, rankable))
    others = [e for e in board.entries if id(e) not in chosen]

    def order(e: Entry):
        value = primary_value(e, board.statistic)
        return (value is None, value or 0, e.implementation.casefold(), e.run.name)

    for entry, (rank, tied) in zip(rankable, ranks([e.noise for e in rankable])):
        entry.rank, entry.tied = rank, tied
    rankable.sort(key=lambda e: (e.rank, *order(e)))
    others.sort(key=lambda e: (e.run.facts.status != "passed", e.run.facts.status, *order(e)))
    board.entries = rankable + others


def _mark_mixed_hardware(entries: list[Entry], environment) -> None:
    hw = environment.spec.hardware
    memory = (hw.model_extra or {}).get("memory")
    for e in entries:
        recorded = e.run.facts.hardware
        if recorded is not None and recorded.strip():
            e.mixed_hardware = not same_gpu(recorded, hw.product, hw.formFactor, memory if isinstance(memory, str) else None)


def _speedups(board: Board, reference: str) -> list[Entry]:
    """Each ranked entry against the board's current reference run (stats.ratio); with several
    reference runs, none: they are returned, for a warning."""
    candidates = [e for e in board.entries if e.implementation == reference and e.rank is not None and not e.other_source]
    if len(candidates) != 1:
        return candidates
    ref = board.reference = candidates[0]
    ref.is_reference = True
    for e in board.entries:
        if e.rank is None:
            continue
        if e is ref:  # exactly 1: no noise against itself
            e.speedup = Speedup(1.0)
        else:
            e.speedup = ratio(ref.noise, e.noise)
    return []


def _flag_implausible(board: Board, rules: Rules) -> None:
    """Where no floor judges a run, a speedup at or above the bound is too fast to believe until
    reviewed clean; a slow one is a result."""
    bound = rules.implausible_speedup
    for e in board.entries:
        s = e.speedup
        if s is not None and not e.is_reference and s.value >= bound and e.judged_by_speedup:
            e.implausible = e.verdict != "clean"


def _flushed(protocol) -> bool:
    """Whether the protocol states that the GPU's cache is flushed before each timed call."""
    measurement = protocol.spec.measurement
    flushed = getattr(measurement, "cacheFlushed", None)
    if flushed is None:
        flushed = (measurement.model_extra or {}).get("cacheFlushed")
    return flushed is True


class Judges:
    """What judges a build's runs besides their table: physics (each workload's floor and roofline on
    each GPU, made once a build), the reviews, and the hosts off in units (host_units)."""

    def __init__(self, content: Content, rules: Rules, off_hosts: dict[str, float]):
        self.content, self.rules, self.off_hosts = content, rules, off_hosts
        self.found: dict[tuple, Limits] = {}

    def limits(self, workload: str, recorded: str | None, hw, flushed: bool) -> Limits:
        memory = (hw.model_extra or {}).get("memory")
        memory = memory if isinstance(memory, str) else None
        key = (workload, recorded, hw.product, hw.formFactor, memory, flushed)
        judged = self.found.get(key)
        if judged is None:
            gpu = self.rules.gpu_of(recorded, hw.product, hw.formFactor, memory)
            cost = self.content.costs.get(workload)
            named = recorded or " ".join(filter(None, (hw.product, hw.formFactor)))
            judged = self.found[key] = limits(None if cost is None else cost.spec, gpu, named, flushed)
        return judged

    def judge(self, entries: list[Entry], board: Board, flushed: bool, resolution: tuple[int | None, int | None]
              ) -> None:
        """Each run's floor and roofline on its own GPU, whether it is below the floor, its verdict,
        and whether its host is off in units."""
        hw = self.content.environments[board.host].spec.hardware
        reviews, off = self.content.reviews, board.host in self.off_hosts
        figures, step_ns = resolution
        for e in entries:
            facts = e.run.facts
            said = reviews.get(e.run.name)
            e.verdict = said[-1].spec.verdict if said else None
            value = primary_value(e, board.statistic)
            if value is None:
                continue
            recorded = facts.hardware if facts.hardware and facts.hardware.strip() else None
            e.limits = judged = self.limits(board.workload, recorded, hw, flushed)
            passed, clean = facts.status == "passed", e.verdict == "clean"
            half_step = Fraction(rounding_step(value, figures, step_ns), 2) if figures or step_ns else 0
            e.below_floor = passed and not clean and judged.below_floor(value, half_step)
            e.implausible_latency = passed and not clean and off


def _workloads(boards: list[Board]) -> list[Workload]:
    observed: dict[str, list[str]] = {}
    hosts: dict[str, set[str]] = {}
    for b in boards:
        hosts.setdefault(b.workload, set()).add(b.host)
        times = observed.setdefault(b.workload, [])
        times += [e.run.facts.observed_at for e in b.runs if e.run.facts.observed_at]
    result = []
    for digest in hosts:
        times = sorted(set(observed[digest]), key=utc)  # (a few distinct times among many runs)
        result.append(Workload(digest, times[0] if times else None, times[-1] if times else None, sorted(hosts[digest])))
    # Oldest first; workloads never observed last; the digest breaks ties.
    return sorted(result, key=lambda w: (w.first_observed is None, utc(w.first_observed) if w.first_observed else "", w.digest))


def _disambiguate_labels(board: Board) -> None:
    """Two different implementations with one label on one board get their digest shown."""
    digests: dict[str, set[str]] = {}
    for e in board.runs:
        digests.setdefault(e.implementation, set()).add(e.run.facts.implementation_digest)
    for e in board.runs:
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
