"""Check phase: group validated runs into problems and boards, and rank within each board.

A board is one problem × one workload × one timing host × one protocol. Its entries are the only
numbers ever compared with each other; nothing here ranks across boards.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from .errors import KindexError
from .load import Content, Run
from .models import NAME_PATTERN

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


@dataclass
class Entry:
    run: Run
    implementation: str  # label shown in the table
    implementation_slug: str
    rank: int | None  # None: not ranked (not passed, or no timing)


@dataclass
class Board:
    problem: Problem
    workload: str
    host: str  # environment metadata.name
    protocol: str  # protocol metadata.name
    statistic: str  # which latencyNs field ranks the board
    entries: list[Entry] = field(default_factory=list)
    anchor: str = ""  # the board's id on its problem page; unique within that page


@dataclass
class Implementation:
    slug: str
    label: str
    entries: list[Entry] = field(default_factory=list)


@dataclass
class Leaderboard:
    content: Content
    problems: list[Problem]
    boards: dict[str, list[Board]]  # problem slug → its boards, in page order
    implementations: list[Implementation]
    board_of_run: dict[str, Board]  # run name → its board
    entry_of_run: dict[str, Entry]


def slugify(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:120].strip("-")


def problem_of(run: Run) -> Problem | str:
    """The problem a run times, or a message saying why it cannot be told."""
    native = run.doc.spec.sourceNative
    if native.get("source") == "kernelbench":
        external = native.get("externalId")
        if not isinstance(external, str):
            return "run.spec.sourceNative.externalId: a kernelbench run needs its externalId (…/levelN/M_Name.py)"
        m = _KERNELBENCH_PROBLEM.match("/".join(external.split("/")[-2:]))
        if not m:
            return (
                f"run.spec.sourceNative.externalId: {external!r} does not end in levelN/M_Name.py "
                "as KernelBench ids do"
            )
        level, number, name = int(m[1]), int(m[2]), m[3]
        title = " ".join(name.replace("_", " ").split())
        return Problem(f"level{level}-{number}-{slugify(title)}".strip("-"), title, level, number)
    title = run.doc.metadata.title.split(" · ")[0].strip()
    slug = slugify(title)
    if not slug:
        return f"run.metadata.title: the problem part {title!r} has no letters or digits to name a page by"
    return Problem(slug, title)


def implementation_label(run: Run) -> str:
    parts = [p.strip() for p in run.doc.metadata.title.split(" · ")]
    if len(parts) >= 2 and parts[1]:
        return parts[1]
    return "implementation " + run.doc.spec.implementationDigest.removeprefix("sha256:")[:12]


def build_leaderboard(content: Content) -> Leaderboard:
    problems: dict[str, Problem] = {}
    problem_source: dict[str, str] = {}
    implementations: dict[str, Implementation] = {}
    implementation_source: dict[str, str] = {}
    boards: dict[tuple, Board] = {}
    errors: list[str] = []

    for run in content.runs:
        problem = problem_of(run)
        if isinstance(problem, str):
            errors.append(f"{run.source}: {problem}")
            continue
        known = problems.setdefault(problem.slug, problem)
        if known != problem:
            errors.append(
                f"{run.source}: problem {problem.title!r} would share the page /problems/{problem.slug}/ "
                f"with {known.title!r} from {problem_source[problem.slug]}"
            )
            continue
        problem_source.setdefault(problem.slug, str(run.source))

        label = implementation_label(run)
        impl_slug = slugify(label) or "implementation"
        impl = implementations.setdefault(impl_slug, Implementation(impl_slug, label))
        if impl.label != label:
            errors.append(
                f"{run.source}: run.metadata.title: implementation {label!r} would share the page "
                f"/implementations/{impl_slug}/ with {impl.label!r} from {implementation_source[impl_slug]}"
            )
            continue
        implementation_source.setdefault(impl_slug, str(run.source))

        protocol = content.protocols[run.protocol]
        key = (problem.slug, run.doc.spec.workloadDigest, run.environment, run.protocol)
        board = boards.get(key)
        if board is None:
            statistic = protocol.spec.measurement.primaryStatistic
            board = boards[key] = Board(problem, key[1], run.environment, run.protocol, statistic)
        entry = Entry(run, label, impl_slug, rank=None)
        board.entries.append(entry)
        impl.entries.append(entry)

    if errors:
        raise KindexError(errors)

    by_problem: dict[str, list[Board]] = {}
    for board in boards.values():
        _rank(board)
        by_problem.setdefault(board.problem.slug, []).append(board)
    for slug, problem_boards in by_problem.items():
        # Host title first: readers look for their GPU; workload and protocol break ties fully.
        problem_boards.sort(
            key=lambda b: (content.environments[b.host].metadata.title.casefold(), b.host, b.workload, b.protocol)
        )
        _assign_anchors(problem_boards)

    for impl in implementations.values():
        impl.entries.sort(key=lambda e: e.run.name)

    board_of_run = {e.run.name: b for b in boards.values() for e in b.entries}
    entry_of_run = {e.run.name: e for b in boards.values() for e in b.entries}
    return Leaderboard(
        content=content,
        problems=sorted(problems.values(), key=lambda p: p.sort_key),
        boards=by_problem,
        implementations=sorted(implementations.values(), key=lambda i: (i.label.casefold(), i.slug)),
        board_of_run=board_of_run,
        entry_of_run=entry_of_run,
    )


def primary_value(entry: Entry, statistic: str) -> int | None:
    timing = entry.run.doc.spec.timing
    return getattr(timing.latencyNs, statistic) if timing is not None else None


def _rank(board: Board) -> None:
    """Fastest first by the protocol's primary statistic; equal values share a rank (1, 2, 2, 4).

    Only passed runs with timing are ranked; the rest follow, unranked, by status then name.
    """
    ranked = [e for e in board.entries if e.run.doc.spec.status == "passed" and e.run.doc.spec.timing]
    others = [e for e in board.entries if e not in ranked]
    ranked.sort(key=lambda e: (primary_value(e, board.statistic), e.implementation.casefold(), e.run.name))
    previous = None
    for position, entry in enumerate(ranked, start=1):
        value = primary_value(entry, board.statistic)
        entry.rank = previous.rank if previous and primary_value(previous, board.statistic) == value else position
        previous = entry
    others.sort(key=lambda e: (e.run.doc.spec.status, e.implementation.casefold(), e.run.name))
    board.entries = ranked + others
    _disambiguate_labels(board)


def _disambiguate_labels(board: Board) -> None:
    """Two different implementations with one label on one board get their digest shown."""
    digests: dict[str, set[str]] = {}
    for e in board.entries:
        digests.setdefault(e.implementation, set()).add(e.run.doc.spec.implementationDigest)
    for e in board.entries:
        if len(digests[e.implementation]) > 1:
            short = e.run.doc.spec.implementationDigest.removeprefix("sha256:")[:8]
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
