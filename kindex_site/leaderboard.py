"""Check phase: group validated runs into problems and boards, and rank within each board.

A board is one problem × one workload × one timing host × one protocol. Its entries are the only
numbers ever compared with each other; nothing here ranks across boards.
"""

from __future__ import annotations

import hashlib
import marshal
import re
import unicodedata
from dataclasses import dataclass, field, replace
from fractions import Fraction
from datetime import datetime, timezone
from functools import cached_property, lru_cache
from typing import NamedTuple

from .errors import KindexError, plural
from .hardware import same_gpu
from .naming import problem_naming
from .load import Content, Run
from .runs import READ_MODULES
from .gpus import GpuFigures, GpuTable, load_gpus
from .models import HELD_VERDICTS, NAME_PATTERN, is_windows_device
from .physics import Limits, duration, limits
from .stats import Noise, Speedup, geometric_mean, ranks, ratio, rounding_step, trend_verdict

DEFAULT_REFERENCE = "PyTorch eager"
HIGH_VARIANCE = 0.10  # std / mean above this is flagged
OUTLIER_FACTOR = 2  # maximum above this many means is flagged
FOREIGN_LAB = "foreign-lab"  # a run whose title claims a lab its folder may not speak for (about page, "Labs")
NO_PUBLISHER_REFERENCE = "no-publisher-reference"  # runs of the reference, none of which may be the table's
# Warnings under a table that are also the leaderboard's (printed by build and check, errors with
# --strict): the content asks the table something it cannot tell (against which reference, which run
# came first) or claims what it may not (another lab's name), rather than describing runs the table
# can still compare.
CONTENT_WARNINGS = ("several-references", "unordered-runs", FOREIGN_LAB)
# The leaderboard's own warnings' codes (docs/building.md, "Warnings"), each line `where: code: what`.
PROBLEM_NAMES = "problem-names"  # two names for one workload
WORKLOAD_OVERLAP = "workload-overlap"  # overlapping workloads of one problem, where that changes a result
UNITS = "implausible-latency"  # a host off in units (host_units), as its tables flag its runs

_NAME = re.compile(NAME_PATTERN)


@dataclass(frozen=True)
class Problem:
    slug: str
    title: str
    level: int | None = None  # KernelBench level; None for other sources
    number: int | None = None
    # Its other names: former ones (a renamed KernelBench problem) and those other sources gave its
    # workloads. Each old slug answers with a page leading here.
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
        """Left out of the summaries: below its floor, judged anything but clean, or an implausible
        speedup or host not yet reviewed clean."""
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


@dataclass(frozen=True)
class Workload:
    digest: str
    first_observed: str | None
    last_observed: str | None
    hosts: list[str]


FAST_P = (0.0, 1.0, 1.5, 2.0)  # KernelBench's fast_p thresholds, shown on implementation and host pages
ALL_LEVELS = "all"  # the summaries' group of every level
OTHER_LEVEL = "other"  # the group of problems without a KernelBench level


def level_group(problem: Problem) -> str:
    """The suite's group a problem counts in: its KernelBench level, else "other"."""
    return OTHER_LEVEL if problem.level is None else str(problem.level)


def suite_slot(problem: Problem) -> tuple | str:
    """A problem's place in its suite: its KernelBench level and number (a number whose problem was
    replaced is one place), else the problem itself."""
    if problem.level is not None and problem.number is not None:
        return (problem.level, problem.number)
    return problem.slug


def group_order(group: str) -> tuple:
    """Levels by number, then "other", then "all"."""
    return (group == ALL_LEVELS, group == OTHER_LEVEL, int(group) if group.isdigit() else 0, group)


def group_title(group: str) -> str:
    return {ALL_LEVELS: "All levels", OTHER_LEVEL: "Other problems"}.get(group) or f"Level {group}"


@dataclass(frozen=True, slots=True)
class Result:
    """One implementation's result on one problem on one host, for the summaries (about page,
    "Summaries"): its current run on the host's tables of the problem's newest workload there."""

    passed: bool  # passed, ranked and not held out as implausible
    speedup: Speedup | None  # of its best passed run, where its table has a reference
    reference_value: int | None  # (the two means the speedup is of, for exact fast_p)
    value: int | None
    held_out: tuple[str, ...] = ()  # its runs held out as implausible (when it did not pass otherwise)
    earlier: Workload | None = None  # the earlier workload it is on, where the newest has no run of it
    uncompared: int = 0  # its runs on earlier workloads of the problem, none of them with a reference run
    uncompared_passed: int = 0

    def fast(self, p: float) -> bool:
        """KernelBench's "fast_p" on this problem: passed, with reference mean > p × its mean (exactly)."""
        if not self.passed:
            return False
        if p == 0:
            return True
        return self.speedup is not None and _P_EXACT[p] * self.value < self.reference_value


_P_EXACT = {p: Fraction(str(p)) for p in FAST_P}


@dataclass(frozen=True)
class Tally:
    """An implementation on a host over one group of the suite (a level, or all of them): counts of
    the suite's problems, every one of which counts (about page, "Summaries")."""

    group: str  # a level ("1"), OTHER_LEVEL or ALL_LEVELS
    suite: int  # problems of the suite in this group: the denominator
    attempted: int  # problems where it has a current run on the host
    passed: int
    fast_p: dict[float, int]  # p → problems passed with speedup > p
    beyond_noise: int  # problems passed with the speedup's interval wholly above 1
    geomean_speedup: float | None  # over the passed with a speedup
    geomean_over: int
    held_out: tuple[str, ...] = ()  # runs held out as implausible, one per problem
    speedups: tuple[float, ...] = ()  # the passed ones', ascending (the fast_p chart)
    elsewhere: int = 0  # problems it was timed on here, but not on the workloads this tally counts
    uncompared: int = 0  # its runs here on workloads without a reference run, where it has no other
    uncompared_passed: int = 0
    levels: tuple[str, ...] = ()  # (ALL_LEVELS) the groups it is over
    some_levels: bool = False  # (ALL_LEVELS) over fewer groups than the site's suite has

    def share(self, p: float) -> float:
        return self.fast_p[p] / self.suite

    @property
    def title(self) -> str:
        """"Level 1", "Other problems", "All levels"; over fewer than the suite's: "Levels 1–3", "Levels 1, 2 and other"."""
        if self.group == ALL_LEVELS and self.some_levels:
            numbers = [int(g) for g in self.levels if g.isdigit()]
            span = len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1))
            named = [f"{numbers[0]}–{numbers[-1]}"] if span else [str(n) for n in numbers]
            named += ["other"] if OTHER_LEVEL in self.levels else []
            return "Level " + named[0] if len(named) == 1 else f"Levels {', '.join(named[:-1])} and {named[-1]}"
        return group_title(self.group)


# What a summary counts (about page, "Summaries"): the host's newest workloads; where the implementation has
# no run on those, the newest earlier workloads with a reference run; else nothing (its runs said, uncounted).
CURRENT, EARLIER, UNCOMPARED = "current", "earlier", "uncompared"


@dataclass(frozen=True)
class Summary:
    """One implementation against the reference on one host: a Tally per level it has tables in, and
    over all of them (`tallies[ALL_LEVELS]`)."""

    implementation: str
    implementation_slug: str
    host: str
    tallies: dict[str, Tally]
    basis: str = CURRENT  # CURRENT, EARLIER or UNCOMPARED
    observed: tuple[str | None, str | None] = (None, None)  # (EARLIER) when its workloads were first and last timed

    @property
    def all(self) -> Tally:
        return self.tallies[ALL_LEVELS]

    @property
    def comparable(self) -> bool:
        return self.basis != UNCOMPARED

    def why_not_compared(self, reference: str, group: str = ALL_LEVELS) -> str:
        """Why a summary with nothing compared has no figures: its runs here, and where they are."""
        t = self.tallies[group]
        if self.basis != UNCOMPARED:
            return ""
        passed = f" ({t.uncompared_passed} passed)" if t.uncompared_passed != t.uncompared else ""
        return (f"Not comparable: {plural(t.uncompared, 'run')}{passed} on earlier workloads, which have no "
                f"{reference} run on this host")

    @property
    def order(self) -> tuple:
        """The one order of summaries on a host: those of the newest workloads, then of earlier ones, then
        those with nothing compared; each by fast_1 over the suite, then fast_0, then the name."""
        return ((CURRENT, EARLIER, UNCOMPARED).index(self.basis), -self.all.fast_p[1.0], -self.all.fast_p[0.0],
                self.implementation.casefold(), self.implementation_slug)


@dataclass
class Implementation:
    slug: str
    label: str
    entries: list[Entry] = field(default_factory=list)  # current entries, problem by problem, in no other order
    hosts: set[str] = field(default_factory=set)  # where it was timed


@dataclass(frozen=True)
class Rules:
    """The settings the leaderboard's statistics follow (kindex.toml)."""

    reference: str = "PyTorch eager"
    implausible_speedup: float = 10.0  # with no floor, a speedup at or above this vs the reference: flagged
    gpus_overrides: tuple = ()  # kindex.toml's corrections to the GPU table (Config.gpus)
    implausible_latency: float = 1000.0  # a host this many times off the others on the same workloads: flagged
    labs: tuple[tuple[str, tuple[str, ...]], ...] = ()  # a top folder of the content → the labs it speaks for
    publisher_labs: frozenset[str] = frozenset()  # the labs whose runs of the reference may be a reference
    reference_runs: frozenset[str] = frozenset()  # runs a maintainer names as their table's reference

    @classmethod
    def of(cls, config) -> Rules:
        return cls(config.reference, config.implausible_speedup, tuple(config.gpus),
                   config.implausible_latency, tuple(config.labs), frozenset(config.publisher_labs),
                   frozenset(config.reference_runs))

    @property
    def key(self) -> str:
        return repr((self.reference, self.implausible_speedup, self.gpus_overrides, self.implausible_latency,
                     self.labs, sorted(self.publisher_labs), sorted(self.reference_runs)))

    @cached_property
    def gpus(self) -> GpuTable:
        return _gpu_table(self.gpus_overrides)

    @cached_property
    def _gpu_of(self) -> dict:
        return {}

    def gpu_of(self, recorded: str | None, product: str, form_factor: str | None, memory: str | None
               ) -> GpuFigures | None:
        """A run's GPU in the table (GpuTable.find_for_run), found once per naming."""
        key = (recorded, product, form_factor, memory)
        found = self._gpu_of
        if key not in found:
            found[key] = self.gpus.find_for_run(*key)
        return found[key]

    def labs_of(self, folder: str) -> tuple[str, ...] | None:
        """The labs `labs` lets a top folder of the content speak for; None when it does not list the folder."""
        return dict(self.labs).get(folder)

    def may_speak_for(self, folder: str, lab: str) -> bool:
        """Whether runs in a top folder of the content ("" for its root, the publisher's) may claim `lab`:
        one `labs` lists for the folder, else the lab whose name slugs to the folder's; no lab, anywhere."""
        if not folder or not lab:
            return True
        listed = self.labs_of(folder)
        return slugify(lab) == folder if listed is None else lab in listed


@dataclass
class Leaderboard:
    content: Content
    problems: list[Problem]
    boards: dict[str, list[Board]]  # problem slug → its boards, in page order
    implementations: list[Implementation]
    reference: str  # the reference implementation's label
    workloads: dict[str, list[Workload]]  # problem slug → its workloads, oldest first
    summaries: dict[str, list[Summary]]  # host name → one per implementation (not the reference), in Summary.order
    suite: dict[str, int] = field(default_factory=dict)  # group (a level, OTHER_LEVEL, ALL_LEVELS) → its problems
    problem_keys: dict[str, str] = field(default_factory=dict)  # slug → digest of what its boards were made from
    # slug → its ranking as stored by the last command-line build (ranking_bytes), for the problems
    # whose boards were made again from it rather than ranked.
    restored: dict[str, bytes] = field(default_factory=dict)
    problems_of_implementation: dict[str, set[str]] = field(default_factory=dict)  # slug → problem slugs
    # Old problem slug → the problem it names now (renamed, or named otherwise by another source).
    redirects: dict[str, Problem] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # what `check` reports (errors with --strict)
    gpus: GpuTable | None = None  # the GPU table its runs were judged by (the site's corrections in)
    off_hosts: dict[str, float] = field(default_factory=dict)  # host → its factor off the others (host_units)

    # Made when first asked for (links without run pages): a rebuild need not touch every run.
    @cached_property
    def board_of_run(self) -> dict[str, Board]:
        return {e.run.name: b for boards in self.boards.values() for b in boards for e in b.runs}

    @cached_property
    def compared_boards(self) -> dict[str, int]:
        """Per host, its boards with a reference run: what an implementation's "attempted" is of."""
        found: dict[str, int] = {}
        for boards in self.boards.values():
            for b in boards:
                if b.reference is not None:
                    found[b.host] = found.get(b.host, 0) + 1
        return found


# Latin letters that Unicode does not decompose into an ASCII letter and a mark, spelt as their
# languages spell them without it (Straße → strasse, Ørsted → orsted).
_LATIN = str.maketrans({"ß": "ss", "ẞ": "SS", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "Ø": "O", "ø": "o",
                        "Ł": "L", "ł": "l", "Đ": "D", "đ": "d", "Ð": "D", "ð": "d", "Þ": "Th", "þ": "th",
                        "Ħ": "H", "ħ": "h", "Ŧ": "T", "ŧ": "t", "ı": "i"})


@lru_cache(maxsize=4)
def _gpu_table(overrides: tuple) -> GpuTable:
    return load_gpus(overrides)


def slugify(text: str) -> str:
    """A name as a URL's part: lowercase ASCII letters and digits, '-' between ("Ångström kernel" →
    angstrom-kernel, "Straße" → strasse). A name with letters or digits that have no ASCII form
    (Qwen-中文, Ωmega) ends in a digest of the whole name (qwen-43d87f64), so that two such names
    never share a page."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_LATIN))
    slug = re.sub(r"[^a-z0-9]+", "-", decomposed.encode("ascii", "ignore").decode().lower()).strip("-")[:120].strip("-")
    if not decomposed.isascii() and any(not c.isascii() and unicodedata.category(c)[0] in "LN" for c in decomposed):
        slug = f"{slug[:111].strip('-')}-{hashlib.sha256(decomposed.encode()).hexdigest()[:8]}".lstrip("-")
    return slug


def problem_of(run: Run, known: dict | None = None) -> Problem | str:
    """The problem a run times, or a message saying why it cannot be told.

    `known` remembers problems by the text they were told from: a corpus has thousands of runs
    of each problem, and the same text always gives the same answer.
    """
    if isinstance(run.grouping, tuple):
        return run.grouping[0]  # told before, by build_leaderboard
    key = run.facts.problem_text
    naming = problem_naming(run.facts.naming)
    if naming is not None and key is None:
        return naming.missing
    problem = known.get((naming, key)) if known is not None else None
    if problem is None:
        problem = _titled_problem(key) if naming is None else _named_problem(naming, key)
        if isinstance(problem, str):
            return problem
        if known is not None:
            known[naming, key] = problem
    return problem


def _named_problem(naming, text: str) -> Problem | str:
    """The problem a source's own id names (naming.py), or why it names none."""
    named = naming.problem(text, slugify)
    return named if isinstance(named, str) else Problem(*named)


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


class Kept(NamedTuple):
    """What ranking may take from the last build (reuse.Reuse.for_ranking): `problems`, each
    problem's boards by the keys of its runs (kept by a resident builder, so a rebuild re-ranks only
    the problems whose runs changed); `stored`, slug → its key and ranking_bytes, as the last
    command-line build stored them (a problem whose key is the stored one is made again from it)."""

    problems: dict | None
    stored: dict[str, tuple[str, bytes]]


def build_leaderboard(content: Content, rules: Rules = Rules(), reuse: Kept | None = None) -> Leaderboard:
    """Group, rank and summarise; with `reuse`, unchanged problems are not ranked again."""
    named, implementations = _name_runs(content)
    identity = _Identity(named)
    problems, runs_of_problem = identity.problems()
    off_hosts = host_units(content.runs, content, rules.implausible_latency)
    ranked = _Ranked(content, rules, reuse, off_hosts)
    for slug, runs in runs_of_problem.items():
        ranked.add(problems[slug], runs, implementations)
    ranked.forget_others(runs_of_problem)
    in_order = sorted(problems.values(), key=lambda p: p.sort_key)
    suite, summaries = _suite_summaries(in_order, problems, ranked.on_slot, ranked.results_of, implementations,
                                        rules, content)
    return Leaderboard(
        content=content,
        problems=in_order,
        boards=ranked.boards,
        implementations=sorted(implementations.values(), key=lambda i: (i.label.casefold(), i.slug)),
        reference=rules.reference,
        workloads=ranked.workloads,
        summaries=summaries,
        suite=suite,
        problem_keys=ranked.keys,
        restored=ranked.restored,
        problems_of_implementation=ranked.problems_of_implementation,
        redirects=identity.redirects,
        warnings=identity.warnings + _foreign_lab_lines(content.runs, rules) + _units_lines(content, off_hosts)
        + [w for p in in_order for w in ranked.warnings_of.get(p.slug, ())],
        gpus=rules.gpus,
        off_hosts=off_hosts,
    )


SHOWN_RUNS = 3  # runs named in a line that speaks of many (the count is whole)


def _foreign_lab_lines(runs: list[Run], rules: Rules) -> list[str]:
    """One warning per folder and the lab its runs claim without the right to (the tables say it per
    run): an import into a folder no [labs] entry names is one line, not one per run."""
    claims: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        if not speaks_for_its_lab(run, rules):
            claims.setdefault((lab_folder(run), claimed_lab(run)), []).append(run)
    lines = []
    for (folder, lab), claiming in sorted(claims.items()):
        listed = rules.labs_of(folder)
        may = (f"kindex.toml's [labs] lets it speak for {_listed([repr(x) for x in listed])}" if listed
               else f"it may speak for the lab whose name slugs to {folder!r}")
        names = [f"{r.name} ({r.source.on_site})" for r in claiming[:SHOWN_RUNS]]
        more = len(claiming) - SHOWN_RUNS
        if len(claiming) == 1:
            who = f"run {names[0]} claims"
            kept = "It is shown as a run of its own and replaces none of that lab's runs. Move it to its"
        else:
            who = f"{len(claiming)} runs ({', '.join(names)}{f' and {more} more' if more > 0 else ''}) claim"
            kept = "They are shown as runs of their own and replace none of that lab's runs. Move them to their"
        lines.append(f"{claiming[0].source}: {FOREIGN_LAB}: {who} the lab {lab!r}, which its folder {folder}/ may not "
                     f"speak for ({may}). {kept} lab's folder ({slugify(lab) or 'lab'}/ in the content folder), or "
                     f"have a maintainer list {lab!r} for {folder!r} under [labs] in kindex.toml.")
    return lines


def _units_lines(content: Content, off_hosts: dict[str, float]) -> list[str]:
    """One warning per host off in units (host_units), with its factor: its tables flag each run,
    but a wrong unit is the host's files' to fix, not any run's."""
    if not off_hosts:
        return []
    files: dict[str, dict[str, int]] = {host: {} for host in off_hosts}  # host → its held runs' files → runs
    for run in content.runs:
        said = content.reviews.get(run.name) if run.environment in files else None
        if run.environment in files and run.facts.status == "passed" and not (said and said[-1].spec.verdict == "clean"):
            counts = files[run.environment]
            counts[run.source.file] = counts.get(run.source.file, 0) + 1
    lines = []
    for host, factor in sorted(off_hosts.items()):
        counts = files[host]
        named = sorted(counts, key=lambda f: (-counts[f], f))  # (the file holding most of them first)
        place = (named[0] if named else host) + (f" (and {plural(len(named) - 1, 'other file')})" if len(named) > 1 else "")
        way = f"{_factor(factor)}× above" if factor >= 1 else f"{_factor(1 / factor)}× below"
        held = sum(counts.values())
        lines.append(f"{place}: host {host}: {UNITS}: its latencies are {way} the other hosts' for the same "
                     "workloads (the median over the workloads it shares with them): probably not in the unit its "
                     f"files state. Its {held} passed {'run' if held == 1 else 'runs'} not reviewed clean are ranked, "
                     "but held out of summaries (about page, \"Units\").")
    return lines


def _factor(x: float) -> str:
    """A factor to three significant figures, in digits (1,000, 1,230, 12.3)."""
    rounded = float(f"{x:.3g}")
    return f"{rounded:,.0f}" if rounded >= 100 else f"{rounded:g}"


class _Ranked:
    """Each problem's boards, ranked (or as the last build ranked them, when its runs are the same),
    and what the summaries gather from them."""

    def __init__(self, content: Content, rules: Rules, reuse: Kept | None, off_hosts: dict[str, float]):
        self.content, self.rules = content, rules
        self.judges = _Judges(content, rules, off_hosts)
        self.memo, self.stored = reuse if reuse is not None else (None, None)
        self.boards: dict[str, list[Board]] = {}
        self.workloads: dict[str, list[Workload]] = {}
        self.keys: dict[str, str] = {}
        self.problems_of_implementation: dict[str, set[str]] = {}
        # (host, suite slot) → (newest workload's key, problem slug)
        self.on_slot: dict[tuple[str, object], tuple[tuple, str]] = {}
        self.results_of: dict[str, dict[str, list[tuple[str, Result]]]] = {}  # problem slug → host → its results
        self.restored: dict[str, bytes] = {}
        self.warnings_of: dict[str, list[str]] = {}

    def add(self, problem: Problem, runs: list[Run], implementations: dict[str, Implementation]) -> None:
        slug = problem.slug
        state = self._state(problem, runs)
        self.keys[slug] = state.key
        self.boards[slug], self.workloads[slug] = state.boards, state.workloads
        self.results_of[slug] = state.results
        if state.warnings:
            self.warnings_of[slug] = state.warnings
        for impl_slug, entries in state.entries_of_implementation.items():
            implementations[impl_slug].entries += entries
            implementations[impl_slug].hosts |= state.hosts_of_implementation[impl_slug]
            self.problems_of_implementation.setdefault(impl_slug, set()).add(slug)
        slot = suite_slot(problem)
        for host, newest in state.newest_on_host.items():
            held = self.on_slot.get((host, slot))
            if held is None or newest > held[0]:
                self.on_slot[host, slot] = (newest, slug)

    def _state(self, problem: Problem, runs: list[Run]) -> _ProblemState:
        """The problem's ranking: kept (the same run objects, each unchanged since: the same key,
        unhashed), restored from the stored one with the same key, or made. A run's key covers its
        bundle's bytes (protocol and environment included) and where it sits: equal keys, equal boards."""
        memo, rules, slug = self.memo, self.rules, problem.slug
        state = memo.get(slug) if memo is not None else None
        judged_by = _judged_by(self.content, runs, self.judges.off_hosts)
        made_from = (rules.key, problem, problem.aliases, runs, [run.files for run in runs],
                     judged_by) if memo is not None else None
        if state is not None and state.made_from == made_from:
            return state
        key = _runs_key(rules, problem, runs, judged_by)
        if state is None or state.key != key:
            kept = self.stored.get(slug) if self.stored else None
            ranked = restored_ranking(kept[1], problem, runs) if kept is not None and kept[0] == key else None
            if ranked is not None:
                self.restored[slug] = kept[1]
            state = _ProblemState(key, *(ranked or _problem_boards(problem, runs, self.content, rules, self.judges)),
                                  rules.reference)
        if memo is not None:
            state.made_from = made_from
            memo[slug] = state
        return state

    def forget_others(self, runs_of_problem: dict) -> None:
        """Problems gone since the last build are not kept for ever."""
        if self.memo is not None:
            for slug in [s for s in self.memo if s not in runs_of_problem]:
                del self.memo[slug]


def _name_runs(content: Content) -> tuple[list[Run], dict[str, Implementation]]:
    """Tell each run's named problem and implementation (`run.grouping`); one KindexError for all
    runs that cannot be told, or whose names would share a page with another's."""
    names: dict[str, tuple[Problem, object]] = {}  # slug → the problem named so, where first (a Source)
    implementations: dict[str, Implementation] = {}
    implementation_source: dict[str, object] = {}
    named: list[Run] = []
    errors: list[str] = []
    known_problems: dict = {}
    label_slugs: dict[str, str] = {}
    told: dict[tuple, tuple | str] = {}  # what _grouping reads of a run → its answer
    for run in content.runs:
        grouping = run.grouping  # told from the document alone, so kept on the run across rebuilds
        if grouping is None:
            f = run.facts
            from_ = (f.naming, f.problem_text, f.title_parts[1:2], f.implementation_digest)
            grouping = told.get(from_)
            if grouping is None:
                grouping = told[from_] = _grouping(run, known_problems, label_slugs)
            run.grouping = grouping
        if isinstance(grouping, str):
            errors.append(f"{run.source}: {grouping}")
            continue
        problem, label, impl_slug = grouping
        known = names.get(problem.slug)
        if known is None:
            names[problem.slug] = (problem, run.source)
        elif known[0] is not problem:
            if known[0] != problem:
                errors.append(f"{run.source}: problem {problem.title!r} would share the page /problems/{problem.slug}/ "
                              f"with {known[0].title!r} from {known[1]}")
                continue
            run.grouping = (known[0], label, impl_slug)  # one object per problem: next time, `is` will do
        impl = implementations.get(impl_slug)
        if impl is None:
            implementations[impl_slug], implementation_source[impl_slug] = Implementation(impl_slug, label), run.source
        elif impl.label != label:
            errors.append(
                f"{run.source}: run.metadata.title: implementation {label!r} would share the page "
                f"/implementations/{impl_slug}/ with {impl.label!r} from {implementation_source[impl_slug]}"
            )
            continue
        named.append(run)
    if errors:
        raise KindexError(errors)
    return named, implementations


class _Identity:
    """Which problem each run is on: a problem is what its workload is.

    Runs of one workload are on one problem, whatever their source or title; runs naming one problem
    (by its slug) are too, across the workloads it was timed at (KernelBench resized its problems).
    So a problem is a connected group of workloads and names. It is shown by a benchmark's own name
    for it (a KernelBench level and number) if it has one, else by the name most of its runs give,
    then the one given first (so a newcomer's name never moves a page), then the slug; its other names,
    and the former names of renamed problems, are its aliases, whose pages lead to it.
    """

    def __init__(self, runs: list[Run]):
        self.runs = runs
        self.warnings: list[str] = []
        self.redirects: dict[str, Problem] = {}
        # What a pass over the runs learns, kept small: per (workload, name) pair, per workload.
        self.pairs: dict[tuple[str, str], object] = {}  # (workload, name slug) → first source naming it
        self.hosts: dict[str, set[str]] = {}  # workload → hosts it was timed on
        self.times: dict[str, set[str]] = {}  # workload → its runs' observedAt
        self.named: dict[str, Problem] = {}  # slug → the problem a run names
        self.count: dict[str, int] = {}  # name slug → runs giving it
        self.first: dict[str, str] = {}  # name slug → its first observedAt, in UTC
        self.former: dict[str, set[tuple[str, str]]] = {}  # name slug → (source, former id) of its runs
        self.spans: dict[tuple[str, str], list[str]] = {}  # (workload, host) → [first, last] observedAt, in UTC
        for run in runs:
            f = run.facts
            problem = run.grouping[0]
            slug, workload = problem.slug, f.workload_digest
            if (workload, slug) not in self.pairs:
                self.pairs[workload, slug] = run.source
                self.named[slug] = problem
            self.hosts.setdefault(workload, set()).add(run.environment)
            if f.observed_at:
                self.times.setdefault(workload, set()).add(f.observed_at)
                when = utc(f.observed_at)
                if when < self.first.get(slug, "~"):
                    self.first[slug] = when
                span = self.spans.setdefault((workload, run.environment), [when, when])
                span[0], span[1] = min(span[0], when), max(span[1], when)
            self.count[slug] = self.count.get(slug, 0) + 1
            if f.former_problem_text is not None:
                self.former.setdefault(slug, set()).add((f.naming, f.former_problem_text))

    def problems(self) -> tuple[dict[str, Problem], dict[str, list[Run]]]:
        parent: dict[str, str] = {}

        def find(node: str) -> str:
            root = node
            while parent.get(root, root) != root:
                root = parent[root]
            while node != root:
                parent[node], node = root, parent.get(node, node)
            return root

        for workload, slug in self.pairs:
            a, b = find("w" + workload), find("n" + slug)
            if a != b:
                parent[a] = b
        groups: dict[str, list[str]] = {}  # root → name slugs
        for slug in self.named:
            groups.setdefault(find("n" + slug), []).append(slug)

        problems: dict[str, Problem] = {}
        problem_of_name: dict[str, Problem] = {}
        for slugs in groups.values():
            shown = self._problem(slugs)
            problems[shown.slug] = shown
            for slug in slugs:
                problem_of_name[slug] = shown
        self._redirect(problems)
        self._check_names(problem_of_name)
        runs_of_problem: dict[str, list[Run]] = {}
        for run in self.runs:
            runs_of_problem.setdefault(problem_of_name[run.grouping[0].slug].slug, []).append(run)
        return problems, runs_of_problem

    def _problem(self, slugs: list[str]) -> Problem:
        def preference(slug: str) -> tuple:  # (smallest first)
            p = self.named[slug]
            return (p.level is None, -self.count[slug], self.first.get(slug, "~"), slug)

        slugs = sorted(slugs, key=preference)
        shown = self.named[slugs[0]]
        aliases: dict[str, Problem] = {slug: self.named[slug] for slug in slugs[1:]}
        for slug in slugs:
            for source, text in sorted(self.former.get(slug, ())):
                former = _named_problem(problem_naming(source), text)
                if isinstance(former, Problem) and former.slug != shown.slug:
                    aliases.setdefault(former.slug, former)
        return replace(shown, aliases=tuple(sorted(aliases.values(), key=lambda p: p.sort_key)))

    def _redirect(self, problems: dict[str, Problem]) -> None:
        for problem in sorted(problems.values(), key=lambda p: p.sort_key):
            for alias in problem.aliases:
                if alias.slug in problems:
                    continue  # a problem of its own: its page stays
                if alias.slug in self.redirects:
                    other = self.redirects[alias.slug]
                    self.warnings.append(
                        f"problem {alias.title!r} is a former name of both {other.title!r} and {problem.title!r}; "
                        f"/problems/{alias.slug}/ leads to {other.title!r}")
                    continue
                self.redirects[alias.slug] = problem

    def _check_names(self, problem_of_name: dict[str, Problem]) -> None:
        """Two names for one workload; then the workload overlaps that change a result (_overlaps)."""
        names_of: dict[str, list[str]] = {}
        for workload, slug in self.pairs:
            names_of.setdefault(workload, []).append(slug)
        for workload, slugs in names_of.items():
            titles: dict[str, str] = {}  # (differing only in case, spacing or KernelBench's level prefix: one name)
            for slug in slugs:
                titles.setdefault(" ".join(self.named[slug].title.casefold().split()), slug)
            if len(titles) > 1:
                a, b = list(titles.values())[:2]
                more = f" (and {len(titles) - 2} more)" if len(titles) > 2 else ""
                self.warnings.append(
                    f"{self.pairs[workload, a]}: {PROBLEM_NAMES}: problem {self.named[a].title!r} and "
                    f"{self.pairs[workload, b]}: problem {self.named[b].title!r}{more} name one workload "
                    f"({_short(workload)}); both are shown as {problem_of_name[a].title!r}")
        self._overlaps(problem_of_name)

    def _overlaps(self, problem_of_name: dict[str, Problem]) -> None:
        """Workloads of one problem timed over overlapping periods, said only where that changes a result
        (docs/building.md, "Workload overlaps"): one host timed both, so its summaries' newest workload is
        a guess; or a title alone names two workloads timed on different hosts, so they may be two problems."""
        names_of: dict[str, set[str]] = {}  # workload → the name slugs giving it
        for workload, slug in self.pairs:
            names_of.setdefault(workload, set()).add(slug)
        workloads_of: dict[str, list[str]] = {}  # problem slug → its workloads
        for workload, slugs in names_of.items():
            workloads_of.setdefault(problem_of_name[min(slugs)].slug, []).append(workload)
        spans = {w: sorted(map(utc, t)) for w, t in self.times.items()}
        for workloads in workloads_of.values():
            ordered = sorted(workloads, key=lambda w: (spans[w][0] if w in spans else "~", w))  # (as summaries order them)
            newest = {host: w for w in ordered for host in self.hosts[w]}  # host → the workload its summaries take
            for i, a in enumerate(ordered):
                for b in ordered[i + 1:]:
                    line = self._overlap_line(a, b, newest, names_of, spans, problem_of_name)
                    if line:
                        self.warnings.append(line)

    def _overlap_line(self, a: str, b: str, newest: dict[str, str], names_of: dict[str, set[str]],
                      spans: dict[str, list[str]], problem_of_name: dict[str, Problem]) -> str | None:
        """What overlapping workloads `a` and `b` (`b` first timed later) change, if anything."""
        where = f"{self.pairs[a, min(names_of[a])]} and {self.pairs[b, min(names_of[b])]}: {WORKLOAD_OVERLAP}"
        both = sorted(h for h in self.hosts[a] & self.hosts[b]
                      if newest[h] == b and _overlap(self.spans.get((a, h)), self.spans.get((b, h))))
        if both:
            return (f"{where}: problem {problem_of_name[min(names_of[a])].title!r}: {_listed(both)} timed its workloads "
                    f"{_short(a)} and {_short(b)} over overlapping periods, so which is newer cannot be told; "
                    f"the summaries there take {_short(b)}, first timed later, and leave out {_short(a)}'s runs")
        titles = sorted(slug for slug in names_of[a] & names_of[b] if self.named[slug].level is None)
        if titles and not self.hosts[a] & self.hosts[b] and _overlap(spans.get(a), spans.get(b)):
            return (f"{where}: problem {self.named[titles[0]].title!r} names two workloads ({_short(a)}, {_short(b)}) "
                    "timed at the same time on different hosts, never on one, and no benchmark's own id names "
                    "them: two problems sharing a name? They are counted as one problem, in separate tables")
        return None


def _overlap(a: list[str] | None, b: list[str] | None) -> bool:
    """Whether two workloads' observation periods (their runs' sorted UTC times) overlap."""
    if not a or not b:
        return False
    return a[0] <= b[-1] and b[0] <= a[-1]


def _short(digest: str) -> str:
    return digest.removeprefix("sha256:")[:12]


def _runs_key(rules: Rules, problem: Problem, runs: list[Run], judged_by: tuple) -> str:
    """A digest of what a problem's boards are made from: the rules, its names, its runs' keys and lab
    folders, in order, and what judges them (_judged_by)."""
    h = hashlib.sha256(rules.key.encode())
    h.update(repr((problem, [(a.slug, a.title) for a in problem.aliases])).encode())
    for run in runs:
        h.update(b"\0" + run.key.encode() + b"\0" + lab_folder(run).encode())
    costs, reviews, off = judged_by
    h.update(repr(([c.model_dump_json() for c in costs], [r.model_dump_json() for r in reviews], off)).encode())
    return h.hexdigest()


def _judged_by(content: Content, runs: list[Run], off_hosts: dict[str, float]) -> tuple:
    """What judges a problem's runs besides the runs themselves: its workloads' costs, the runs'
    reviews and which of its hosts are off in units."""
    costs, reviews = content.costs, content.reviews
    workloads = sorted({run.facts.workload_digest for run in runs})
    hosts = sorted({run.environment for run in runs})
    return (tuple(costs[w] for w in workloads if w in costs),
            tuple(r for run in runs for r in reviews.get(run.name, ())),
            tuple((h, off_hosts[h]) for h in hosts if h in off_hosts))


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

    def __init__(self, key: str, boards: list[Board], workloads: list[Workload], reference: str):
        self.key, self.boards, self.workloads = key, boards, workloads
        # (A resident builder's) what `key` was hashed from: the rules, the problem, the run objects
        # and their source files. Runs of a file kept unchanged are the same objects in the next build.
        self.made_from: tuple | None = None
        self.entries_of_implementation: dict[str, list[Entry]] = {}
        self.results: dict[str, list[tuple[str, Result]]] = {}  # host → (implementation slug, its Result), for the summaries
        # host → its newest workload's (first observed, digest): which of a slot's problems a host's summaries take
        self.newest_on_host: dict[str, tuple[str, str]] = {}
        self.hosts_of_implementation: dict[str, set[str]] = {}
        self.warnings: list[str] = []  # (CONTENT_WARNINGS, for the leaderboard's: where the runs are is no part of a board)
        for b in boards:
            for w in b.warnings:
                if w.code in CONTENT_WARNINGS and w.code != FOREIGN_LAB:  # (said per lab and folder: _foreign_lab_lines)
                    runs = {e.run.name: e.run for e in b.runs}
                    places = _listed(list(dict.fromkeys(str(runs[name].source) for name in w.runs)))
                    self.warnings.append(f"{places}: problem {b.problem.title!r} on host {b.host}: {w.code}: {w.message}")
            for e in b.entries:
                self.entries_of_implementation.setdefault(e.implementation_slug, []).append(e)
                self.hosts_of_implementation.setdefault(e.implementation_slug, set()).add(e.run.environment)
        for w in workloads:  # (oldest first: the last one of a host is its newest)
            for host in w.hosts:
                self.newest_on_host[host] = (utc(w.first_observed) if w.first_observed else "", w.digest)
        for host, (_, digest) in self.newest_on_host.items():
            on_host = [b for b in boards if b.host == host]
            found = _results([b for b in on_host if b.workload == digest], reference)
            self.results[host] = found + _earlier_results(on_host, digest, workloads, {s for s, _ in found}, reference)


def _earlier_results(on_host: list[Board], newest: str, workloads: list[Workload], done: set[str], reference: str
                     ) -> list[tuple[str, Result]]:
    """The Results of the implementations with no run on the host's newest workload of the problem: on the
    newest earlier workload that has a reference run there, else their runs counted as compared with none."""
    found: list[tuple[str, Result]] = []
    uncompared: dict[str, list[Entry]] = {}
    for w in reversed(workloads):  # (newest first)
        boards = [b for b in on_host if b.workload == w.digest]
        if w.digest == newest or not boards:
            continue
        if any(b.reference is not None for b in boards):
            for slug, result in _results(boards, reference):
                if slug not in done:
                    done.add(slug)
                    found.append((slug, replace(result, earlier=w)))
            continue
        for e in (e for b in boards for e in b.entries if e.run.grouping[1] != reference and not e.mixed_hardware):
            uncompared.setdefault(e.implementation_slug, []).append(e)
    for slug, entries in uncompared.items():
        if slug not in done:
            passed = sum(1 for e in entries if e.run.facts.status == "passed")
            found.append((slug, Result(False, None, None, None, uncompared=len(entries), uncompared_passed=passed)))
    return found


def _results(boards: list[Board], reference: str) -> list[tuple[str, Result]]:
    """Each implementation's Result on one problem on one host, from the host's tables of the
    problem's newest workload there (the best passed run among them). The reference is what the
    others are measured against, not one of them."""
    attempted: dict[str, list[tuple[Board, Entry]]] = {}
    for b in boards:
        for e in b.entries:
            if e.mixed_hardware or e.run.grouping[1] == reference:  # (another GPU is no attempt on this host)
                continue
            attempted.setdefault(e.implementation_slug, []).append((b, e))
    found = []
    for impl_slug, pairs in attempted.items():
        passed = [(b, e) for b, e in pairs if e.rank is not None and not e.held_out]
        if not passed:
            held = tuple(e.run.name for _, e in pairs if e.held_out and e.run.facts.status == "passed")
            found.append((impl_slug, Result(False, None, None, None, held)))
            continue
        with_speedup = [(b, e) for b, e in passed if e.speedup is not None]
        if not with_speedup:
            found.append((impl_slug, Result(True, None, None, None)))
            continue
        b, e = max(with_speedup, key=lambda be: be[1].speedup.value)
        found.append((impl_slug, Result(True, e.speedup, primary_value(b.reference, b.statistic),
                                        primary_value(e, b.statistic))))
    return found


# --- a problem's ranking as plain values, stored by a command-line build for the next ---------------


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
    from .cache import record_format

    return record_format("rankings", (StoredBoard, StoredEntry, Workload, Warning), (
        "leaderboard.py", "stats.py", "hardware.py", *READ_MODULES, "models.py", "physics.py",
        "gpus.py", "gpus.toml"))


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


def _problem_boards(problem: Problem, runs: list[Run], content: Content, rules: Rules, judges: _Judges
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
        board.warnings = _warnings(board, environment, rules, references, unordered)
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


def primary_value(entry: Entry, statistic: str) -> int | None:
    return entry.run.facts[statistic]


def _measure(entries: list[Entry], statistic: str, figures: int | None, step_ns: int | None) -> None:
    """Each timed run's value of the board's statistic with its noise: its 95% interval (intervals are
    of the mean, so only under that statistic) widened by half the source's rounding step."""
    for e in entries:
        value = primary_value(e, statistic)
        if value is None:
            continue
        step = rounding_step(value, figures, step_ns) if figures or step_ns else 0
        e.noise = Noise.of(value, e.ci95 if statistic == "mean" else None, step)


def claimed_lab(run: Run) -> str:
    """The lab a run's title names: its parts after the implementation ("" when it names none)."""
    return " · ".join(run.facts.title_parts[2:]).strip()


def lab_folder(run: Run) -> str:
    """The top folder of the content a run's file is in, the lab folder that owns it ("" for the root)."""
    top, inside, _ = run.source.rel.partition("/")
    return top if inside else ""


def speaks_for_its_lab(run: Run, rules: Rules) -> bool:
    """Whether the lab a run's title claims is one its folder may speak for (about page, "Labs")."""
    return _may_speak_for(rules.labs, lab_folder(run), claimed_lab(run))


@lru_cache(maxsize=4096)  # (a folder's runs name a few labs, each asked once)
def _may_speak_for(labs: tuple, folder: str, lab: str) -> bool:
    return Rules(labs=labs).may_speak_for(folder, lab)


def foreign_lab_runs(lb: Leaderboard) -> dict[str, str]:
    """Run name → what is wrong, for every run whose title claims a lab its folder may not speak for
    (the `foreign-lab` warnings of its table)."""
    return {w.runs[0]: w.message for boards in lb.boards.values() for b in boards for w in b.warnings
            if w.code == FOREIGN_LAB}


def _earliest(e: Entry) -> tuple:
    """Earliest first by observedAt; runs without one count last, then by name."""
    return (_observed(e) is None, _observed(e) or "", e.run.name)


def _mark_other_sources(entries: list[Entry], rules: Rules) -> None:
    """Which runs of the reference implementation may be the board's reference (about page, "Speedups");
    the others are marked `other_source`, runs of their own. A run named in reference_runs, when the board
    has one; else the lab of the earliest run that may be: any lab's, or with publisher_labs one of those
    labs'. A run claiming a lab its folder may not speak for never is."""
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
    """Per implementation (label and digest) and lab folder (for the reference, its lab and whether it
    may be the reference too): its latest run by observedAt is current (runs without one count as
    earliest; among runs observed at the same time, the name that sorts last), and the earlier ones are
    its history, each superseded by the next: a run never replaces another lab folder's. Each run is
    compared (a trend) with its group's latest passed run observed strictly before it: runs observed at
    the same time, or without observedAt, cannot be ordered in time, and a trend between them would
    follow their names. Returns those runs, one list per group and observedAt, for a warning."""
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
        # Walked in time order, one observedAt at a time (`at`; "" before the first): a run's previous
        # is the latest passed run of an earlier observedAt, never one of its own or of none.
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
    """Of one implementation's runs in time order, those that cannot be ordered against another of them:
    runs sharing an observedAt, and (among several runs) those without one."""
    groups: dict[str | None, list[Entry]] = {}
    for e in runs:
        groups.setdefault(_observed(e), []).append(e)
    return [group for when, group in groups.items() if len(group) > 1 or when is None]


def _comparable(e: Entry) -> bool:
    """A passed run timed on its host's GPU, neither below its floor nor judged anything but clean:
    ranked when current, compared with when earlier."""
    return e.run.facts.status == "passed" and e.noise is not None and not e.mixed_hardware and not e.unrankable


def _rank(board: Board) -> None:
    """Rank = 1 + the number of entries on the board faster beyond noise (stats.ranks).

    Only current passed runs with timing on the host's own GPU are ranked. The rest follow, unranked:
    runs on another GPU by their value, then runs that did not pass by status and name.
    """
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
    """Each ranked entry against the board's current reference run: reference / it (stats.ratio).
    With several (of different digests under the reference's label, or in different lab folders) none is
    chosen: they are returned, for a warning, and the board has no speedups."""
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


class _Judges:
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


def host_units(runs: list[Run], content: Content, factor: float) -> dict[str, float]:
    """The hosts whose latencies are steadily `factor` times or more above or below the other hosts'
    for the same workloads (about page, "Units"), each with that factor (the median over its workloads
    of its median / the others' middle median). A host is judged on each workload it shares with
    another: off when its median is more than `factor` times above the upper middle, or below the
    lower middle, of the other hosts' medians; off as a whole when more than half of at least
    UNITS_MIN_SHARED such workloads are off the same way. Judged again against the hosts not off
    alone, so that a bad host does not condemn a good one it shares few workloads with; two hosts
    that only have each other are both flagged. In floats: a factor of 1000 needs no exactness."""
    values: dict[str, dict[str, list[int]]] = {}  # workload → host → passed values
    statistic_of = {name: p.spec.measurement.primaryStatistic for name, p in content.protocols.items()}
    for run in runs:
        value = run.facts[statistic_of[run.protocol]] if run.facts.status == "passed" else None
        if value:
            values.setdefault(run.facts.workload_digest, {}).setdefault(run.environment, []).append(value)
    medians = [{host: float(_middle(sorted(v))) for host, v in hosts.items()}
               for hosts in values.values() if len(hosts) > 1]
    off = _off_hosts(medians, factor, set())
    again = _off_hosts(medians, factor, set(off))
    return {host: f for host, f in off.items() if host in again or not _judged_against(medians, host, set(off))}


UNITS_MIN_SHARED = 3  # workloads a host must share with others before its units are judged


def _off_hosts(medians: list[dict[str, float]], bound: float, excluded: set[str]) -> dict[str, float]:
    """The hosts off in units against the others but `excluded`, with their factor."""
    ways: dict[str, list[tuple[int, float]]] = {}  # host → (direction, its median / the others' middle)
    for hosts in medians:
        for host, m in hosts.items():
            others = sorted(v for h, v in hosts.items() if h != host and h not in excluded)
            if not others:
                continue
            low, high = others[(len(others) - 1) // 2], others[len(others) // 2]
            way = 1 if m > bound * high else -1 if m * bound < low else 0
            half = len(others) // 2
            middle = others[half] if len(others) % 2 else (others[half - 1] + others[half]) / 2
            ways.setdefault(host, []).append((way, m / middle))
    off = {}
    for host, judged in ways.items():
        for way in (1, -1):
            if len(judged) >= UNITS_MIN_SHARED and 2 * sum(w == way for w, _ in judged) > len(judged):
                ratios = sorted(r for _, r in judged)
                off[host] = ratios[len(ratios) // 2]  # (the upper middle: a factor to state, not to compare)
    return off


def _judged_against(medians: list[dict[str, float]], host: str, excluded: set[str]) -> bool:
    """Whether the host shares at least UNITS_MIN_SHARED workloads with hosts not `excluded`."""
    shared = sum(1 for hosts in medians if host in hosts and any(h != host and h not in excluded for h in hosts))
    return shared >= UNITS_MIN_SHARED


def _middle(values: list[int]) -> Fraction:
    """The median of sorted values: the middle one, or the mean of the middle two."""
    half = len(values) // 2
    return Fraction(values[half]) if len(values) % 2 else Fraction(values[half - 1] + values[half], 2)


def std_ns(entry: Entry) -> int | float | None:
    """The latency standard deviation the run reports in nanoseconds, if it does."""
    return entry.run.facts.std_ns


def _warnings(board: Board, environment, rules: Rules, references: list[Entry],
              unordered: list[list[Entry]]) -> list[Warning]:
    """What a reader must know to read the table; `references` (_speedups) and `unordered`
    (_current_and_history) are what the table could not tell."""
    found = _content_warnings(rules, references, unordered) + _lab_warnings(board, rules)
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
        found.append(Warning("no-ci", f"{_runs(len(no_ci))} gave no confidence interval; compared by the mean alone "
                             "(beyond the source's rounding, where it states one), a difference may be noise.",
                             [e.run.name for e in no_ci]))

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

    found += _held_out_warnings(board, rules)

    digests = {e.run.facts.environment_digest for e in board.runs}
    if len(digests) > 1:
        found.append(Warning("environment-changed", f"The runs on this host carry {len(digests)} different "
                             "environment digests: its hardware or software changed between them.",
                             [e.run.name for e in board.runs]))
    return found


def _content_warnings(rules: Rules, references: list[Entry], unordered: list[list[Entry]]) -> list[Warning]:
    """What the content asks a table that it cannot tell (CONTENT_WARNINGS): against which reference,
    which run came first."""
    found: list[Warning] = []
    if len(references) > 1:
        named = _listed([f"{e.run.name} ({e.implementation})" for e in references])
        found.append(Warning("several-references",
            f"{len(references)} current {rules.reference} runs of different implementations or lab folders: "
            f"{named}. Which one speedups are against cannot be told, so speedups on this table are left out until "
            "one reference remains.", [e.run.name for e in references]))

    if unordered:
        said = "; ".join(
            f"{group[0].implementation}: {_listed([e.run.name for e in group])} "
            + (f"observed at {group[0].run.facts.observed_at}" if group[0].run.facts.observed_at else "without observedAt")
            for group in unordered)
        found.append(Warning("unordered-runs",
            f"Runs of one implementation that cannot be ordered in time have no trend between them ({said}); "
            "the current one is the latest by observedAt, then the one whose name sorts last.",
            [e.run.name for group in unordered for e in group]))
    return found


def _lab_warnings(board: Board, rules: Rules) -> list[Warning]:
    """Each run claiming a lab its folder may not speak for (a content warning of its own, naming the run:
    `foreign_lab_runs`), and runs of the reference none of which may be the table's reference."""
    found = []
    for e in board.runs:
        if not speaks_for_its_lab(e.run, rules):
            lab, folder = claimed_lab(e.run), lab_folder(e.run)
            listed = rules.labs_of(folder)
            may = (f"kindex.toml's [labs] lets it speak for {_listed([repr(x) for x in listed])}" if listed
                   else f"it may speak for the lab whose name slugs to {folder!r}")
            found.append(Warning(FOREIGN_LAB,
                f"run {e.run.name} ({e.run.source.on_site}) claims the lab {lab!r}, which its folder {folder}/ may "
                f"not speak for ({may}). It is shown as a run of its own and replaces none of that lab's runs. "
                f"Move it to its lab's folder ({slugify(lab) or 'lab'}/ in the content folder), or have a "
                f"maintainer list {lab!r} for {folder!r} under [labs] in kindex.toml.", [e.run.name]))
    refs = [e for e in board.runs if e.implementation == rules.reference]
    if refs and all(e.other_source for e in refs):
        publisher = sorted(rules.publisher_labs)
        why = (f"the reference is the publisher's: a run of a lab in publisher_labs ({_listed(publisher)}) in a "
               "folder that may speak for it, or a run named in reference_runs" if publisher else
               "each claims a lab its folder may not speak for")
        named = _listed([f"{e.run.name} ({claimed_lab(e.run) or 'no lab'})" for e in refs])
        own = "is listed as a run of its own" if len(refs) == 1 else "are listed as runs of their own"
        found.append(Warning(NO_PUBLISHER_REFERENCE,
            f"{_runs(len(refs))} of {rules.reference} ({named}) {own}, not as this table's reference: {why}. "
            "The table has no reference and no speedups until such a run is added.", [e.run.name for e in refs]))
    return found


def _held_out_warnings(board: Board, rules: Rules) -> list[Warning]:
    """The runs a table ranks but the summaries hold out until reviewed: implausible speedups and latencies."""
    found = []
    implausible = [e for e in board.entries if e.implausible]
    if implausible:
        bound = f"{rules.implausible_speedup:g}"
        found.append(Warning("implausible", f"{_runs(len(implausible))} had a speedup of {bound}× or more "
                             "against the reference, which is rarely real (a wrong unit, a kernel that skips work): "
                             "ranked, but held out of summaries until reviewed.",
                             [e.run.name for e in implausible]))
    far = [e for e in board.runs if e.implausible_latency]
    if far:
        factor = f"{rules.implausible_latency:,g}"
        found.append(Warning("implausible-latency", f"This host's latencies are steadily {factor}× or more above or "
                             "below the other hosts' for the same workloads: probably not in the stated unit. "
                             f"{_runs(len(far))} here are ranked, but held out of summaries until reviewed clean.",
                             [e.run.name for e in far]))
    below = [e for e in board.runs if e.below_floor]
    if below:
        floors = _listed([f"{duration(x.floor_ns)} on {x.gpu} ({x.moved_bytes:,} bytes at {x.bandwidth / 1e12:.3g} TB/s)"
                          for x in dict.fromkeys(e.limits for e in below)])
        found.append(Warning("below-floor", f"{_runs(len(below))} faster than the hardware allows: below the floor, "
                             f"the time the workload's inputs and outputs take to move through DRAM ({floors}). "
                             "Not a result: unranked and held out of summaries.", [e.run.name for e in below]))
    judged = [e for e in board.runs if e.verdict in HELD_VERDICTS]
    if judged:
        verdicts = ", ".join(sorted({e.verdict for e in judged}))
        found.append(Warning("reviewed", f"{_runs(len(judged))} judged by a review ({verdicts}): shown with the "
                             "verdict, unranked and held out of summaries.", [e.run.name for e in judged]))
    return found


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _runs(n: int) -> str:
    return "1 run" if n == 1 else f"{n} runs"


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


@lru_cache(maxsize=4096)
def utc(timestamp: str) -> str:
    return datetime.fromisoformat(timestamp).astimezone(timezone.utc).isoformat()


def _suite_summaries(in_order: list[Problem], problems: dict[str, Problem], on_slot: dict, results_of: dict,
                     implementations: dict[str, Implementation], rules: Rules, content: Content
                     ) -> tuple[dict[str, int], dict[str, list[Summary]]]:
    """The suite (its slots per group: about page, "Summaries") and each host's summaries; a host's
    results on a slot are those on the problem timed there last (`on_slot`)."""
    slots: dict[str, set] = {}
    for p in in_order:
        slots.setdefault(level_group(p), set()).add(suite_slot(p))
    suite = {group: len(s) for group, s in slots.items()}
    suite[ALL_LEVELS] = sum(suite.values())
    results: dict[tuple[str, str], dict[str, list[Result]]] = {}  # (host, impl) → group → its results
    groups_of_host: dict[str, set[str]] = {}  # host → the suite's groups where something is compared
    for (host, _), (_, slug) in on_slot.items():
        group = level_group(problems[slug])
        for impl_slug, result in results_of[slug].get(host, ()):
            groups_of_host.setdefault(host, set()).add(group)
            results.setdefault((host, impl_slug), {}).setdefault(group, []).append(result)
    # Every implementation timed on a host is summarised there, one with no result in the host's
    # suite (timed on another GPU only) as not fast on any problem.
    for impl in implementations.values():
        if impl.label != rules.reference:
            for host in impl.hosts:
                if host in groups_of_host:
                    results.setdefault((host, impl.slug), {})
    return suite, _summaries(results, suite, groups_of_host, content, implementations)


def _summaries(results: dict[tuple[str, str], dict[str, list[Result]]], suite: dict[str, int],
               groups_of_host: dict[str, set[str]], content: Content,
               implementations: dict[str, Implementation]) -> dict[str, list[Summary]]:
    """Per host and implementation, per level where something is compared on the host and over all of them:
    KernelBench's fast_p over the whole suite (a problem without a passed result counts as not fast), the
    stricter count beyond noise and the geometric mean over the passed, with its coverage (about page, "Summaries")."""
    result: dict[str, list[Summary]] = {name: [] for name in content.environments}
    for (host, slug), by_group in results.items():
        groups = tuple(sorted(groups_of_host[host], key=group_order))
        every = [r for g in groups for r in by_group.get(g, [])]
        basis = _basis(every)
        counted = {g: [r for r in by_group.get(g, []) if _on_basis(r, basis)] for g in groups}
        tallies = {g: _tally(g, suite[g], counted[g], by_group.get(g, [])) for g in groups}
        tallies[ALL_LEVELS] = replace(
            _tally(ALL_LEVELS, sum(suite[g] for g in groups), [r for g in groups for r in counted[g]], every),
            levels=groups, some_levels=len(groups) < len(suite) - 1)
        times = sorted((t for r in every if r.earlier for t in (r.earlier.first_observed, r.earlier.last_observed)
                        if t), key=utc)
        result[host].append(Summary(implementations[slug].label, slug, host, tallies, basis,
                                    (times[0], times[-1]) if basis == EARLIER and times else (None, None)))
    for summaries in result.values():
        summaries.sort(key=lambda s: s.order)
    return result


def _basis(results: list[Result]) -> str:
    """CURRENT where it has a result on a newest workload (or no run at all), else EARLIER where it has one
    on an earlier workload with a reference run, else UNCOMPARED."""
    if not results or any(r.earlier is None and not r.uncompared for r in results):
        return CURRENT
    return EARLIER if any(r.earlier is not None for r in results) else UNCOMPARED


def _on_basis(result: Result, basis: str) -> bool:
    if basis == CURRENT:
        return result.earlier is None and not result.uncompared
    return basis == EARLIER and result.earlier is not None


def _tally(group: str, suite: int, results: list[Result], every: list[Result]) -> Tally:
    """`results`: those the tally counts, of `every` result of the implementation in the group."""
    speedups = sorted(r.speedup.value for r in results if r.passed and r.speedup is not None)
    return Tally(
        group=group, suite=suite, attempted=len(results),
        passed=sum(1 for r in results if r.passed),
        fast_p={p: sum(1 for r in results if r.fast(p)) for p in FAST_P},
        beyond_noise=sum(1 for r in results if r.passed and r.speedup is not None and r.speedup.above_1),
        geomean_speedup=geometric_mean(speedups), geomean_over=len(speedups),
        held_out=tuple(r.held_out[0] for r in results if r.held_out), speedups=tuple(speedups),
        elsewhere=len(every) - len(results),
        uncompared=sum(r.uncompared for r in every), uncompared_passed=sum(r.uncompared_passed for r in every),
    )


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
