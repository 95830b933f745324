"""What the leaderboard is made of: problems, boards (one problem × workload × timing host × protocol),
their entries and warnings, and the warnings' codes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property, lru_cache

from .load import Run
from .models import HELD_VERDICTS
from .physics import Limits
from .stats import Noise, Speedup


HIGH_VARIANCE = 0.10  # std / mean above this is flagged
OUTLIER_FACTOR = 2  # maximum above this many means is flagged
FOREIGN_LAB = "foreign-lab"  # a run whose title claims a lab its folder may not speak for (about page, "Labs")
NO_PUBLISHER_REFERENCE = "no-publisher-reference"  # runs of the reference, none of which may be the table's
# Warnings under a table that are also the leaderboard's (errors with --strict): the content asks
# what the table cannot tell, or claims what it may not.
CONTENT_WARNINGS = ("several-references", "unordered-runs", FOREIGN_LAB)
# The leaderboard's own warnings' codes (docs/building.md, "Warnings"), each line `where: code: what`.
PROBLEM_NAMES = "problem-names"  # two names for one workload
WORKLOAD_OVERLAP = "workload-overlap"  # overlapping workloads of one problem, where that changes a result
UNITS = "implausible-latency"  # a host off in units (host_units), as its tables flag its runs


@dataclass(frozen=True)
class Problem:
    slug: str
    title: str
    level: int | None = None  # KernelBench level; None for other sources
    number: int | None = None
    # Its other names (former ones, other sources'): each old slug answers with a page leading here.
    aliases: tuple[Problem, ...] = field(default=(), compare=False)

    @property
    def sort_key(self) -> tuple:
        return (self.level is None, self.level or 0, self.number or 0, self.title.casefold(), self.slug)


@dataclass(frozen=True, slots=True)
class Trend:
    """A run against the implementation's previous passed run on its board: current / previous."""

    previous: Entry
    change: Speedup
    verdict: str  # stats.TREND_VERDICTS


@dataclass(eq=False, slots=True)  # identity: entries are compared by being the same entry, never field by field
class Entry:
    run: Run
    implementation: str  # label shown in the table
    implementation_slug: str
    rank: int | None = None  # None: not ranked (not passed, no timing, another GPU, or an earlier run)
    tied: bool = False  # shares its rank with another entry
    mixed_hardware: bool = False  # recorded a different GPU than its host's
    is_reference: bool = False  # the board's current reference entry
    speedup: Speedup | None = None  # reference / this, on this board only
    # Its value of the board's statistic, with the noise it is compared by; while its board is ranked only.
    noise: Noise | None = None
    current: bool = True  # False: an earlier run of its implementation on this board (history)
    superseded_by: str | None = None  # (history) the run of its implementation that came next
    trend: Trend | None = None  # against its implementation's previous passed run
    last_passed: str | None = None  # (a current run that did not pass) when its implementation last passed
    implausible: bool = False  # no floor judges it, and its speedup is beyond the implausible bound; not reviewed clean
    implausible_latency: bool = False  # its host's latencies are steadily off the other hosts' (a unit); not reviewed clean
    other_source: bool = False  # a run of the reference implementation that may not be the board's reference
    limits: Limits | None = None  # its workload's floor and roofline on its GPU (physics.py); None: not timed
    below_floor: bool = False  # faster than the hardware allows (physics.py), and not reviewed clean
    verdict: str | None = None  # the verdict of its newest review (models.RunReview), if any

    @property
    def held_out(self) -> bool:
        """Left out of the summaries: below its floor, judged unclean, or implausible until reviewed clean."""
        return self.implausible or self.implausible_latency or self.below_floor or self.verdict in HELD_VERDICTS

    @property
    def unrankable(self) -> bool:
        """Out of ranks as well: faster than the hardware allows, or judged anything but clean."""
        return self.below_floor or self.verdict in HELD_VERDICTS

    @property
    def judged_by_speedup(self) -> bool:
        """No floor judges it, so the implausible-speedup bound does (about page, "Physics")."""
        return self.limits is None or self.limits.floor_ns is None

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

    @cached_property  # (a problem page reads it several times for each warning of each table)
    def counted(self) -> tuple[str, str]:
        """("2 runs", "had …") for a message that opens with how many of its table's runs it is about,
        else ("", the message)."""
        found = _COUNTED.fullmatch(self.message)
        return (found[1], found[2]) if found else ("", self.message)


_COUNTED = re.compile(r"(\d[\d,]* runs?) (.+)", re.S)


@dataclass
class Board:
    problem: Problem
    workload: str
    host: str  # environment metadata.name
    protocol: str  # protocol metadata.name
    statistic: str  # which latencyNs field ranks the board
    entries: list[Entry] = field(default_factory=list)  # one current entry per implementation
    anchor: str = ""  # the board's id on its problem page; unique within that page
    reference: Entry | None = None
    warnings: list[Warning] = field(default_factory=list)
    history: list[Entry] = field(default_factory=list)  # earlier runs, by implementation, newest first
    significant_figures: int | None = None  # the resolution the protocol says its source reports

    @property
    def runs(self) -> list[Entry]:
        """Every run on the board: its current entries, then its history."""
        return self.entries + self.history

    # Made when first asked for, once ranked (by a run page: a scan per page would make a table's pages quadratic).
    @cached_property
    def runs_by_name(self) -> dict[str, Entry]:
        return {e.run.name: e for e in self.runs}

    @cached_property
    def ranked(self) -> int:
        """How many of its current entries are ranked (what a rank is out of)."""
        return sum(1 for e in self.entries if e.rank is not None)


@dataclass(frozen=True)
class Workload:
    digest: str
    first_observed: str | None
    last_observed: str | None
    hosts: list[str]


@dataclass
class Implementation:
    slug: str
    label: str
    entries: list[Entry] = field(default_factory=list)  # current entries, problem by problem, in no other order
    hosts: set[str] = field(default_factory=set)  # where it was timed


def primary_value(entry: Entry, statistic: str) -> int | None:
    return entry.run.facts[statistic]


def std_ns(entry: Entry) -> int | float | None:
    """The latency standard deviation the run reports in nanoseconds, if it does."""
    return entry.run.facts.std_ns


def in_words(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def runs_counted(n: int) -> str:
    return "1 run" if n == 1 else f"{n} runs"


@lru_cache(maxsize=4096)
def utc(timestamp: str) -> str:
    return datetime.fromisoformat(timestamp).astimezone(timezone.utc).isoformat()


def observed_span(workloads: list[Workload]) -> tuple[str | None, str | None]:
    """When the earliest of `workloads` was first timed and the latest last, as given."""
    times = sorted((t for w in workloads for t in (w.first_observed, w.last_observed) if t), key=utc)
    return (times[0], times[-1]) if times else (None, None)
