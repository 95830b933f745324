"""Home, the level pages (the overview: each level's problems × timing hosts) and the folder pages, with
the home page's headline and what changed lately."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from . import paging
from .entry_rows import entry_row
from .boards import observed_span
from .leaderboard import ALL_LEVELS, Board, Entry, Leaderboard, Problem, utc
from .paging import Page, Pager, ProblemRow, paged
from .urls import Urls


def home_pages(lb: Leaderboard, urls: Urls, problem_row: ProblemRow) -> list[Page]:
    """Home: what the site is, the headline, what changed lately and a line per level leading to that
    level's page; then the level pages, each level's problems × timing hosts (`level_pages`)."""
    levels = overview_levels(lb)
    return ([Page("", "home.html", "Home", partial(_home_context, lb, urls, levels))]
            + level_pages(lb, urls, problem_row, levels) + folder_pages(lb, urls, levels))


def folder_pages(lb: Leaderboard, urls: Urls, levels: list[Level]) -> list[Page]:
    """/problems/, /levels/ and /runs/: a reader trimming a URL lands on a page, not a 404. Bounded
    whatever the data: a long level is a link to its own pages, and runs are only counted."""
    context = {"levels": levels, "per_page": paging.PROBLEMS_PER_PAGE, "runs": len(lb.content.runs),
               "problems": lb.suite.get(ALL_LEVELS, 0)}
    return [Page(f"{folder}/", "folder.html", title, {**context, "folder": folder})
            for folder, title in (("problems", "Problems"), ("levels", "Levels"), ("runs", "Runs"))
            if folder != "runs" or urls.run_pages]


def _home_context(lb: Leaderboard, urls: Urls, levels: list[Level]) -> dict:
    return {
        "headline": headline(lb, urls), "lately": what_changed(lb, urls), "levels": levels,
        "search_url": urls("search/"), "api_url": urls("api/v1/index.json"), "reference": lb.reference,
        "counts": {
            "problems": lb.suite.get(ALL_LEVELS, 0),
            "replaced": sum(len(versions) - 1 for level in levels for _, versions in level.replaced),
            "hosts": len(lb.content.environments), "implementations": len(lb.implementations),
            "runs": len(lb.content.runs),
        },
    }


@dataclass(frozen=True)
class Level:
    """One page of the problem overview: KernelBench's level n at /levels/<n>/, the problems without a
    level at /levels/other/. (Not under /problems/: a problem titled "Level 1" has the slug level-1.)"""

    key: str  # its URL's part: the level's number, or "other"
    title: str  # "Level 1", "Other problems"
    problems: tuple[Problem, ...]  # in page order
    counted: int = 0  # its problems as the suite counts them: a KernelBench number once (about page, "Summaries")
    # The numbers whose problem was replaced: (number, its problems with their first and last observed, oldest first)
    replaced: tuple[tuple[int, tuple[tuple[Problem, str | None, str | None], ...]], ...] = ()

    @property
    def url(self) -> str:  # (relative to the site root)
        return f"levels/{self.key}/"


def _level_of(p: Problem) -> tuple[str, str]:
    """The level page a problem is listed on: (its key, its title)."""
    return (str(p.level), f"Level {p.level}") if p.level is not None else ("other", "Other problems")


def overview_levels(lb: Leaderboard) -> list[Level]:
    """The overview's pages in page order (KernelBench's levels by number, then the other problems),
    each with its problems in page order."""
    found: dict[tuple[str, str], list[Problem]] = {}
    for p in lb.problems:
        found.setdefault(_level_of(p), []).append(p)
    return [Level(key, title, tuple(problems), lb.suite.get(key, len(problems)), _replaced(lb, problems))
            for (key, title), problems in found.items()]


def _replaced(lb: Leaderboard, problems: list[Problem]) -> tuple:
    """The KernelBench numbers of a level held by more than one problem, each with its versions, oldest first."""
    by_number: dict[int, list[Problem]] = {}
    for p in problems:
        if p.number is not None:
            by_number.setdefault(p.number, []).append(p)
    found = []
    for number, versions in sorted(by_number.items()):
        if len(versions) > 1:
            dated = [(p, *observed_span(lb.workloads[p.slug])) for p in versions]
            found.append((number, tuple(sorted(dated, key=lambda d: (d[1] is None, utc(d[1]) if d[1] else "", d[0].slug)))))
    return tuple(found)


def level_pages(lb: Leaderboard, urls: Urls, problem_row: ProblemRow, levels: list[Level]) -> list[Page]:
    """Each level's page: a row per problem, a cell per timing host (`overview_cells`), split at
    /levels/<key>/page/<n>/ past PROBLEMS_PER_PAGE problems."""
    hosts = overview_hosts(lb)
    overview = _Overview(lb, urls, problem_row, hosts, tuple(e.metadata.name for e in hosts), tuple(levels))
    pages: list[Page] = []
    for level in levels:
        pages += paged(urls, level.url, "level.html", level.title, len(level.problems),
                       partial(overview.context, level))
    return pages


@dataclass(frozen=True)
class _Overview:
    """What the level pages' contexts are made from (when each page is rendered)."""

    lb: Leaderboard
    urls: Urls
    problem_row: ProblemRow
    hosts: list
    host_names: tuple[str, ...]
    levels: tuple[Level, ...]

    def row(self, p: Problem) -> str:
        # A problem is listed on one level page only: kept while it and the columns are unchanged.
        return self.problem_row("home_row.html", p, ("levels", self.host_names), lambda: {
            "problem": p, "cells": overview_cells(self.lb, p, self.host_names, self.urls),
            "reference": self.lb.reference})

    def context(self, level: Level, pager: Pager | None) -> dict:
        lb, urls = self.lb, self.urls
        shown = pager.part(level.problems) if pager else level.problems
        return {
            "level": level, "levels": self.levels, "rows": [self.row(p) for p in shown], "shown": len(shown),
            "pager": pager, "api_url": urls("api/v1/index.json"), "reference": lb.reference,
            "overview_hosts": self.hosts, "bands": SPEEDUP_BANDS,
            "several_workloads": any(len({(b.host, b.workload) for b in lb.boards[p.slug]})
                                     > len({b.host for b in lb.boards[p.slug]}) for p in level.problems),
        }


# --- The level pages' problems × hosts overview, the home page's headline, and the search page -

# Colour bands of the overview, by the fastest implementation's speedup, for cells where some
# implementation beats the reference beyond noise (each cell also shows the number; others are muted).
SPEEDUP_BANDS = [  # (class, lowest speedup, what it means)
    ("b0", 0.0, "beyond noise, by under 1.05×"),
    ("b1", 1.05, "1.05× to 1.5×"),
    ("b2", 1.5, "1.5× to 2×"),
    ("b3", 2.0, "2× to 4×"),
    ("b4", 4.0, "4× or more"),
]


def speedup_band(value: float | None) -> str:
    if value is None:
        return ""
    return [cls for cls, low, _ in SPEEDUP_BANDS if value >= low][-1]


def overview_hosts(lb: Leaderboard) -> list:
    """The overview's columns (on every level page): every timing host, by title."""
    return sorted(lb.content.environments.values(), key=lambda e: (e.metadata.title.casefold(), e.metadata.name))


def overview_cells(lb: Leaderboard, problem: Problem, host_names: tuple[str, ...], urls: Urls) -> list[dict | None]:
    """One problem's overview cells, one per host: its best run vs the reference on the newest
    workload's first board in page order."""
    order = {w.digest: i for i, w in enumerate(lb.workloads[problem.slug])}
    chosen: dict[str, Board] = {}
    workloads: dict[str, set[str]] = {}
    for b in lb.boards[problem.slug]:  # oldest workload first: a newer one replaces an older one
        workloads.setdefault(b.host, set()).add(b.workload)
        held = chosen.get(b.host)
        if held is None or order[b.workload] > order[held.workload]:
            chosen[b.host] = b
    cells: list[dict | None] = []
    for name in host_names:
        b = chosen.get(name)
        if b is None:
            cells.append(None)
            continue
        best = best_entry(b)
        value = best.speedup.value if best is not None and best.speedup is not None else None  # (rounded once, by the page)
        # Coloured only where some run beats the reference beyond noise and is not held out; elsewhere
        # muted, so the eye finds the wins.
        implausible = bool(best and best.held_out)
        win = any(e.speedup is not None and e.speedup.above_1 and not e.held_out
                  for e in b.entries if e.rank is not None)
        cells.append({"url": urls.board(b), "best": best.implementation if best else None,
                      "tied": bool(best and best.tied), "tied_with": tied_with(b), "speedup": value,
                      "band": speedup_band(value) if win and not implausible else "", "win": win,
                      "implausible": implausible, "workloads": len(workloads[name])})
    return cells


def tied_with(board: Board) -> list[str]:
    """The other entries sharing the fastest's rank, in table order: a "fastest" named anywhere names them too."""
    return [e.implementation for e in board.entries[1:] if e.rank == 1]


def headline(lb: Leaderboard, urls: Urls) -> list[dict]:
    """The home page's first answer: per timing host, each implementation against the reference over
    the problems timed there, in `Summary.order`."""
    found = []
    for env in overview_hosts(lb):
        name = env.metadata.name
        summaries = lb.summaries.get(name, [])  # (in Summary.order)
        hw = env.spec.hardware
        summarised = {s.implementation_slug for s in summaries}
        # Timed here, but with no run compared with the reference: named, so that none goes missing unsaid.
        uncompared = [impl for impl in lb.implementations if name in impl.hosts and impl.slug not in summarised
                      and impl.label != lb.reference]
        found.append({"environment": env, "url": urls.host(name), "summaries": summaries, "uncompared": uncompared,
                      "gpu": " ".join(filter(None, [hw.product, hw.formFactor])), "compared": lb.compared_boards.get(name, 0)})
    return found


LATELY = 6  # dates × hosts of newest runs on the home page
CHANGES = 10  # regressions and improvements on the home page


def what_changed(lb: Leaderboard, urls: Urls) -> dict:
    """The home page's "what changed lately": the newest runs as (date, host) batches, and the latest
    runs that regressed or improved against their previous run (`Entry.trend`), newest first."""
    envs = lb.content.environments
    by_time: dict[tuple[str, str], int] = {}  # (observedAt as given, host) → runs: few distinct values
    problems: dict[tuple[str, str], set[str]] = {}
    changed: list[tuple[Entry, Board]] = []
    history = 0
    for p in lb.problems:
        runs_at, its_changes, its_history = _problem_lately(lb.boards[p.slug])
        history += its_history
        changed += its_changes
        for time_host, n in runs_at.items():
            by_time[time_host] = by_time.get(time_host, 0) + n
            problems.setdefault(time_host, set()).add(p.slug)
    batches: dict[tuple[str, str], list] = {}  # (UTC date, host) → [runs, problem slugs]
    for (when, host), n in by_time.items():
        batch = batches.setdefault((utc(when)[:10], host), [0, set()])
        batch[0] += n
        batch[1] |= problems[when, host]
    newest = sorted(batches.items(), key=lambda kv: (envs[kv[0][1]].metadata.title.casefold(), kv[0][1]))
    newest.sort(key=lambda kv: kv[0][0], reverse=True)  # newest date first; hosts by title within a date
    del newest[LATELY:]
    changed.sort(key=lambda eb: (utc(eb[0].run.facts.observed_at or "1970-01-01T00:00:00+00:00"), eb[0].run.name),
                 reverse=True)
    return {
        "batches": [{"date": date, "environment": envs[host], "url": urls.host(host), "runs": n,
                     "problems": len(slugs)} for (date, host), (n, slugs) in newest],
        "changes": [{"row": entry_row(e, urls, b.significant_figures), "board_url": urls.board(b), "board": b,
                     "environment": envs[b.host],
                     "figures": b.significant_figures + 1 if b.significant_figures else None}
                    for e, b in changed[:CHANGES]],
        "regressed": sum(1 for e, _ in changed if e.trend.verdict == "regressed"),
        "improved": sum(1 for e, _ in changed if e.trend.verdict == "improved"),
        "history": history,
    }


def _problem_lately(boards: list[Board]) -> tuple[dict[tuple[str, str], int], list[tuple[Entry, Board]], int]:
    """One problem's runs per (observedAt, host), its current entries that regressed or improved, and
    how many earlier runs its tables hold."""
    runs_at: dict[tuple[str, str], int] = {}
    changed: list[tuple[Entry, Board]] = []
    history = 0
    for b in boards:
        history += len(b.history)
        times: dict[str | None, int] = {}  # (a board's runs share a few times: one pass, then per time)
        for e in b.entries:
            when = e.run.facts.observed_at
            times[when] = times.get(when, 0) + 1
            if e.trend is not None and e.trend.verdict != "unchanged":
                changed.append((e, b))
        for e in b.history:
            when = e.run.facts.observed_at
            times[when] = times.get(when, 0) + 1
        for when, n in times.items():
            if when:
                runs_at[when, b.host] = runs_at.get((when, b.host), 0) + n
    return runs_at, changed, history


def best_entry(board: Board) -> Entry | None:
    return board.entries[0] if board.entries and board.entries[0].rank is not None else None
