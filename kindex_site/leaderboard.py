"""Check phase: group validated runs into problems and boards (problem × workload × timing host ×
protocol), and rank within each board; nothing here compares across boards."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from .load import Content, Run
from .gpus import GpuTable
# Also the names the other phases and the tests take from the leaderboard, wherever each is defined.
from .boards import (Board, CONTENT_WARNINGS, Entry, FOREIGN_LAB, HIGH_VARIANCE, Implementation, OUTLIER_FACTOR,
                     Problem, Trend, UNITS, WORKLOAD_OVERLAP, Warning, Workload, in_words, primary_value, std_ns,
                     utc)
from .identity import Identity, name_runs, problem_of, slugify
from .ranking import Judges, problem_boards
from .rules import Rules, claimed_lab, lab_folder, speaks_for_its_lab
from .state.rankings import StoredBoard, StoredEntry, ranking_bytes, rankings_format, restored_ranking
from .summaries import (ALL_LEVELS, EARLIER, FAST_P, Result, Summary, Tally, earlier_results, group_order,
                        group_title, level_group, problem_results, suite_slot, suite_summaries)
from .units import host_units, units_lines


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
    # slug → its ranking_bytes, for the problems whose boards were restored from the last build's.
    restored: dict[str, bytes] = field(default_factory=dict)
    problems_of_implementation: dict[str, set[str]] = field(default_factory=dict)  # slug → problem slugs
    # Old problem slug → the problem it names now.
    redirects: dict[str, Problem] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # what `check` reports (errors with --strict)
    gpus: GpuTable | None = None  # the GPU table its runs were judged by (the site's corrections in)
    off_hosts: dict[str, float] = field(default_factory=dict)  # host → its factor off the others (host_units)

    # Made when first asked for: a rebuild need not touch every run.
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


class Kept(NamedTuple):
    """What ranking may take from the last build (reuse.Reuse.for_ranking): `problems`, a resident
    builder's boards by the keys of their runs; `stored`, slug → its key and ranking_bytes as the last
    command-line build stored them."""

    problems: dict | None
    stored: dict[str, tuple[str, bytes]]


def build_leaderboard(content: Content, rules: Rules = Rules(), reuse: Kept | None = None) -> Leaderboard:
    """Group, rank and summarise; with `reuse`, unchanged problems are not ranked again."""
    named, implementations = name_runs(content)
    identity = Identity(named)
    problems, runs_of_problem = identity.problems()
    off_hosts = host_units(content.runs, content, rules.implausible_latency)
    ranked = _Ranked(content, rules, reuse, off_hosts)
    for slug, runs in runs_of_problem.items():
        ranked.add(problems[slug], runs, implementations)
    ranked.forget_others(runs_of_problem)
    in_order = sorted(problems.values(), key=lambda p: p.sort_key)
    suite, summaries = suite_summaries(in_order, problems, ranked.on_slot, ranked.results_of, implementations,
                                        rules, content)
    return Leaderboard(
        content=content, problems=in_order, boards=ranked.boards, reference=rules.reference,
        implementations=sorted(implementations.values(), key=lambda i: (i.label.casefold(), i.slug)),
        workloads=ranked.workloads, summaries=summaries, suite=suite, problem_keys=ranked.keys,
        restored=ranked.restored, problems_of_implementation=ranked.problems_of_implementation,
        redirects=identity.redirects, gpus=rules.gpus, off_hosts=off_hosts,
        warnings=identity.warnings + _foreign_lab_lines(content.runs, rules) + units_lines(content, off_hosts)
        + [w for p in in_order for w in ranked.warnings_of.get(p.slug, ())],
    )


SHOWN_RUNS = 3  # runs named in a line that speaks of many (the count is whole)


def _foreign_lab_lines(runs: list[Run], rules: Rules) -> list[str]:
    """One warning per folder and the lab its runs claim without the right to (not one per run)."""
    claims: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        if not speaks_for_its_lab(run, rules):
            claims.setdefault((lab_folder(run), claimed_lab(run)), []).append(run)
    lines = []
    for (folder, lab), claiming in sorted(claims.items()):
        listed = rules.labs_of(folder)
        may = (f"kindex.toml's [labs] lets it speak for {in_words([repr(x) for x in listed])}" if listed
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


class _Ranked:
    """Each problem's boards, ranked or kept or restored, and what the summaries gather from them."""

    def __init__(self, content: Content, rules: Rules, reuse: Kept | None, off_hosts: dict[str, float]):
        self.content, self.rules = content, rules
        self.judges = Judges(content, rules, off_hosts)
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
        """The problem's ranking: kept (the same run objects), restored from the stored one with the
        same key, or made. Equal keys, equal boards."""
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
            state = _ProblemState(key, *(ranked or problem_boards(problem, runs, self.content, rules, self.judges)),
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


class _ProblemState:
    """One problem's boards and workloads, made from the runs its key names, with maps by run."""

    def __init__(self, key: str, boards: list[Board], workloads: list[Workload], reference: str):
        self.key, self.boards, self.workloads = key, boards, workloads
        # A resident builder's: what `key` was hashed from (the rules, the problem, the run objects).
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
                    places = in_words(list(dict.fromkeys(str(runs[name].source) for name in w.runs)))
                    self.warnings.append(f"{places}: problem {b.problem.title!r} on host {b.host}: {w.code}: {w.message}")
            for e in b.entries:
                self.entries_of_implementation.setdefault(e.implementation_slug, []).append(e)
                self.hosts_of_implementation.setdefault(e.implementation_slug, set()).add(e.run.environment)
        for w in workloads:  # (oldest first: the last one of a host is its newest)
            for host in w.hosts:
                self.newest_on_host[host] = (utc(w.first_observed) if w.first_observed else "", w.digest)
        for host, (_, digest) in self.newest_on_host.items():
            on_host = [b for b in boards if b.host == host]
            found = problem_results([b for b in on_host if b.workload == digest], reference)
            self.results[host] = found + earlier_results(on_host, digest, workloads, {s for s, _ in found}, reference)


# --- a problem's ranking as plain values, stored by a command-line build for the next ---------------


def foreign_lab_runs(lb: Leaderboard) -> dict[str, str]:
    """Run name → what is wrong, for every run claiming a lab its folder may not speak for."""
    return {w.runs[0]: w.message for boards in lb.boards.values() for b in boards for w in b.warnings
            if w.code == FOREIGN_LAB}


