"""A problem's ranking as plain values, stored by a command-line build for the next (`ranking_bytes`)
and read back by the ranking (`restored_ranking`) when the problem's runs are the same."""

from __future__ import annotations

import marshal
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from ..load import Run
from ..runs import READ_MODULES
from .files import record_format
from ..physics import Limits
from ..stats import Speedup
from ..boards import Board, Entry, Problem, Trend, Warning, Workload


class StoredBoard(NamedTuple):
    """A ranked board as the rankings cache keeps it (ranking_bytes writes it, `_board_of` reads it
    back): its entries by their place, runs by name."""

    VERSION = 1
    workload: str
    host: str
    protocol: str
    statistic: str
    anchor: str
    significant_figures: int | None
    current: int  # how many of `entries` are the board's current runs (the rest: its history)
    reference: int | None  # the reference entry's place
    warnings: list  # (code, message, runs)
    entries: list  # StoredEntry records


class StoredEntry(NamedTuple):
    """An entry of a StoredBoard."""

    VERSION = 1
    run: str  # the run's name
    implementation: str
    implementation_slug: str
    rank: int | None
    tied: bool
    mixed_hardware: bool
    is_reference: bool
    speedup: tuple | None  # Speedup's fields
    current: bool
    superseded_by: str | None
    trend: tuple | None  # (the previous entry's place, the change's Speedup fields, the verdict)
    last_passed: object
    implausible: bool
    implausible_latency: bool
    other_source: object
    limits: tuple | None  # Limits' fields, fractions as (numerator, denominator)
    below_floor: bool
    verdict: str | None


@lru_cache(maxsize=1)  # (the code it digests does not change while a process runs)
def rankings_format() -> bytes:
    """The rankings cache's header: its records, and the rules that ranked them."""
    return record_format("rankings", (StoredBoard, StoredEntry, Workload, Warning), (
        "leaderboard.py", *RANKING_MODULES, "stats.py", "hardware.py", *READ_MODULES, "models.py", "physics.py",
        "gpus.py", "gpus.toml"))


# The modules whose rules a stored ranking was made by, besides the leaderboard's own.
RANKING_MODULES = ("boards.py", "identity.py", "ranking.py", "rules.py", "summaries.py", "table_warnings.py",
                   "units.py", "state/rankings.py")


def ranking_bytes(boards: list[Board], workloads: list[Workload]) -> bytes:
    """A problem's ranked boards and workloads as marshal'd plain values (StoredBoard, Workload): what
    `restored_ranking` makes the same boards again from."""
    return marshal.dumps(([_board_record(b) for b in boards],
                          [(w.digest, w.first_observed, w.last_observed, w.hosts) for w in workloads]))


def _board_record(b: Board) -> tuple:
    runs = b.runs
    place = {id(e): i for i, e in enumerate(runs)}
    return tuple(StoredBoard(
        b.workload, b.host, b.protocol, b.statistic, b.anchor, b.significant_figures, len(b.entries),
        None if b.reference is None else place[id(b.reference)], [(w.code, w.message, w.runs) for w in b.warnings],
        [tuple(StoredEntry(
            e.run.name, e.implementation, e.implementation_slug, e.rank, e.tied, e.mixed_hardware, e.is_reference,
            _speedup_record(e.speedup), e.current, e.superseded_by,
            None if e.trend is None else (place[id(e.trend.previous)], _speedup_record(e.trend.change), e.trend.verdict),
            e.last_passed, e.implausible, e.implausible_latency, e.other_source, _limits_record(e.limits),
            e.below_floor, e.verdict)) for e in runs]))


def _limits_record(x: Limits | None) -> tuple | None:
    if x is None:
        return None
    return (x.gpu, *_fraction_record(x.floor_ns), x.floor_why_not, *_fraction_record(x.roofline_ns),
            x.roofline_why_not, x.moved_bytes, x.bandwidth)


def _fraction_record(f: Fraction | None) -> tuple:
    return (None, None) if f is None else (f.numerator, f.denominator)


def _limits_of(r: tuple | None) -> Limits | None:
    if r is None:
        return None
    gpu, fn, fd, fwhy, rn, rd, rwhy, moved, bandwidth = r
    return Limits(gpu, None if fn is None else Fraction(fn, fd), fwhy, None if rn is None else Fraction(rn, rd), rwhy,
                  moved, bandwidth)


def _speedup_record(s: Speedup | None) -> tuple | None:
    return None if s is None else (s.value, s.ci_low, s.ci_high, s.kind, s.beyond)


def restored_ranking(data: bytes, problem: Problem, runs: list[Run]) -> tuple[list[Board], list[Workload]] | None:
    """The boards and workloads ranking_bytes stored, of these runs (the ones its problem key was made
    from); None when the record does not fit them (damaged: the problem is ranked again)."""
    try:
        boards_record, workloads_record = marshal.loads(data)
        run_of = {run.name: run for run in runs}
        boards = [_board_of(StoredBoard._make(record), problem, run_of) for record in boards_record]
        workloads = [Workload(*w) for w in workloads_record]
    except (ValueError, TypeError, EOFError, KeyError, IndexError):
        return None
    if sum(len(b.entries) + len(b.history) for b in boards) != len(runs):
        return None
    return boards, workloads


def _board_of(stored: StoredBoard, problem: Problem, run_of: dict[str, Run]) -> Board:
    rows = [StoredEntry._make(row) for row in stored.entries]
    made = [Entry(run_of[r.run], r.implementation, r.implementation_slug, r.rank, r.tied, r.mixed_hardware,
                  r.is_reference, r.speedup and Speedup(*r.speedup), None, r.current, r.superseded_by, None,
                  r.last_passed, r.implausible, r.implausible_latency, r.other_source, _limits_of(r.limits),
                  r.below_floor, r.verdict) for r in rows]
    for e, r in zip(made, rows):
        if r.trend is not None:
            previous, change, verdict = r.trend
            e.trend = Trend(made[previous], Speedup(*change), verdict)
    current = stored.current
    return Board(problem, stored.workload, stored.host, stored.protocol, stored.statistic, made[:current],
                 stored.anchor, None if stored.reference is None else made[stored.reference],
                 [Warning(*w) for w in stored.warnings], made[current:], stored.significant_figures)
