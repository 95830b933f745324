"""What pages weigh, without making them: `check`, and a build before it writes anything, weigh the
pages the content can make big, and the site, against max_page_bytes and max_site_bytes.

A source counts by the bound of its HTML (highlight.shown_sizes); the rest by what the bundled
templates give each part, measured (benchmarks/one_table.py) and rounded down, plus what a long label
or title holds: a site weighed over a cap is over it. The build measures every file it writes.
"""

from __future__ import annotations

from html import escape as html_escape
from typing import NamedTuple

from . import paging
from .leaderboard import Leaderboard
from .pages import boards_by_host, counted
from .safetext import CODE_POINT_HTML, escape, shown_hidden
from .urls import problem_url, run_page_url

RUN_PAGE_BYTES = 6_000  # a run page but its source and title (6.3 kB measured)
TITLE_TIMES = 3  # a run page says its title in <title>, its description and its heading (and its document)
# The most a title can add to its page (10,000 hidden characters): titles are weighed only on a page
# this close to the cap.
TITLE_MOST_BYTES = 10_000 * (TITLE_TIMES * len("[U+202E]") + len(CODE_POINT_HTML.format(0x202E)))
PAGE_BYTES = 2_000  # any page's frame: its head, navigation and footer (the 404 page: 2.0 kB)
TABLE_BYTES = 3_000  # a table on a problem page: its head, chart and notes
ROW_BYTES = 210  # a run in a table: its row and its point on the chart (219)
MATRIX_CELL_BYTES = 50  # a speedup in a problem's host × implementation table
SUMMARY_BYTES = (200, 480)  # per implementation on a host's page: its charts' share, and per group (level) (1,210 for two)
HEADLINE_BYTES = (140, 70)  # per implementation on the home page's card of each host, and per group (286 for two)
LISTED_BYTES = 100  # per implementation on the implementations page and on the search page (108 and 100)
BOARD_ROW_BYTES = 250  # per table on a host's page
LEVEL_CELL_BYTES = 60  # per problem and host on a level page
IMPLEMENTATION_PAGE_BYTES = 2_700  # (2.7 kB with one problem and no summary; 5.2 kB with both)
API_ROW_BYTES = {"objects": 450, "arrays": 200}  # per run in its problem's API document (454 as objects)
API_SUMMARY_BYTES = 590  # per implementation in a host's API document (598)
CSV_ROW_BYTES = 160  # per run in its table's CSV (164)
SHORT_TEXT = 16  # the bytes of the labels and titles the weights above were measured with


class Weight(NamedTuple):
    """A page weighed over max_page_bytes: what it is, its weight, and what a problem line says of it."""

    url: str
    bytes: int
    where: str  # the content file (and field) the line starts with
    what: str  # e.g. "the page of run x"
    why: str  # what makes it big, e.g. "with this source (content/x.py)"
    detail: str = ""  # said after the cap, e.g. "; its runs are in content/a.json (3), content/b.json (1)"


class SiteWeight(NamedTuple):
    """What `weigh_site` found: the pages over the cap, and the site's weight with its droppable parts."""

    pages: list[Weight]  # those over the limit, in page order
    total: int  # the whole site's, at least
    runs: int  # its run pages' share of it
    csvs: int  # its tables' CSVs'
    problem_json: int  # its problems' API documents'


def weigh_site(lb: Leaderboard, max_page_bytes: int, run_pages: bool = True, board_csvs: bool = True,
               api_entries: str = "objects") -> SiteWeight:
    """Every page the content can make big weighed without making it, those over `max_page_bytes`
    said; and the site's weight (its sources as plain text). One pass over runs, tables and summaries."""
    over: list[Weight] = []
    text = _TextBytes()
    runs_total = _weigh_run_pages(lb, max_page_bytes, text, over) if run_pages else 0
    total = runs_total + sum(s.sizes[0] for s in lb.content.sources.values())  # (and each file for download)
    problem_pages, rows = _weigh_problem_pages(lb, max_page_bytes, text, over)
    csvs, problem_json = rows * CSV_ROW_BYTES if board_csvs else 0, rows * API_ROW_BYTES.get(api_entries, 450)
    host_pages, headline = _weigh_host_pages(lb, max_page_bytes, text, over)
    total += problem_pages + csvs + problem_json + host_pages
    total += _weigh_listing_pages(lb, max_page_bytes, text, headline, over)
    total += IMPLEMENTATION_PAGE_BYTES * len(lb.implementations)
    return SiteWeight(over, total, runs_total, csvs, problem_json)


def _weigh_run_pages(lb: Leaderboard, max_page_bytes: int, text: _TextBytes, over: list[Weight]) -> int:
    """The run pages' weight; each over the limit said, by its source or its title."""
    budget = max_page_bytes // SOURCE_SHARE
    runs_total = 0
    for run in lb.content.runs:
        page = RUN_PAGE_BYTES
        source = run.files.get("implementation") if run.files else None
        if source is not None:
            shown = _shown_bound(source, run.facts.implementation_source, budget)
            page += shown
            runs_total += source.sizes[1] - shown  # (the site counts it as plain text)
        if page + TITLE_MOST_BYTES > max_page_bytes:
            page += text.extra_title(run.facts.title_parts)
            if page > max_page_bytes:
                by_source = source is not None and 2 * shown > page
                over.append(Weight(run_page_url(run.name), page, f"{run.source}: run." + (
                    "spec.implementationSource" if by_source else "metadata.title"), f"the page of run {run.name}",
                    f"with this source ({source.shown})" if by_source else "with this title"))
        runs_total += page
    return runs_total


def _weigh_problem_pages(lb: Leaderboard, max_page_bytes: int, text: _TextBytes,
                         over: list[Weight]) -> tuple[int, int]:
    """The problem pages' weight (their workload sources' plain text included) and their tables' rows."""
    budget = max_page_bytes // SOURCE_SHARE
    total = rows = 0
    for problem in lb.problems:
        boards = lb.boards[problem.slug]
        page = PAGE_BYTES + sum(TABLE_BYTES + ROW_BYTES * (len(b.entries) + len(b.history))
                                + sum(text.extra(e.implementation) for e in b.entries)
                                + sum(text.extra(e.implementation) for e in b.history) for b in boards)
        rows += sum(len(b.entries) + len(b.history) for b in boards)
        with_reference = sum(1 for b in boards if b.reference is not None)
        page += MATRIX_CELL_BYTES * with_reference * len({e.implementation_slug for b in boards for e in b.entries})
        biggest = None  # (its workload sources: one per workload, the first run's that has one)
        for workload in lb.workloads[problem.slug]:
            run = next((e.run for b in boards if b.workload == workload.digest for e in b.runs
                        if "workload" in e.run.files), None)
            if run is not None:
                shown = _shown_bound(run.files["workload"], run.facts.workload_source, budget)
                page += shown
                total += run.files["workload"].sizes[1] - shown  # (the site counts it as plain text)
                if biggest is None or shown > biggest[0]:
                    biggest = (shown, run)
        total += page
        if page > max_page_bytes:
            if biggest is not None and biggest[0] * 2 > page:
                run = biggest[1]
                over.append(Weight(problem_url(problem.slug), page, f"{run.source}: run.spec.workloadSource",
                                   f"the page of problem {problem.slug}",
                                   f"with this source ({run.files['workload'].shown})"))
            else:
                runs = [e.run for b in boards for e in b.runs]
                over.append(Weight(problem_url(problem.slug), page, files_of(runs, 1),
                                   f"the page of problem {problem.slug}",
                                   f"with {counted(len(runs), 'run')} in {counted(len(boards), 'table')}",
                                   f"; its runs are in {files_of(runs)}"))
    return total, rows


def _weigh_host_pages(lb: Leaderboard, max_page_bytes: int, text: _TextBytes, over: list[Weight]) -> tuple[int, int]:
    """The host pages' weight with their API summaries, and what their summaries add to the home page."""
    total = headline = 0
    boards_of_host = boards_by_host(lb)
    for host, summaries in lb.summaries.items():
        groups = sum(len(s.tallies) for s in summaries)
        boards_here = boards_of_host.get(host, [])
        page = (PAGE_BYTES + SUMMARY_BYTES[0] * len(summaries) + SUMMARY_BYTES[1] * groups
                + BOARD_ROW_BYTES * min(len(boards_here), paging.TABLES_PER_HOST_PAGE)
                + sum(text.extra(s.implementation) * (len(s.tallies) + 2) for s in summaries))  # (rows and charts)
        headline += HEADLINE_BYTES[0] * len(summaries) + HEADLINE_BYTES[1] * groups
        total += page + API_SUMMARY_BYTES * len(summaries)
        if page > max_page_bytes:
            runs = [e.run for b in boards_here for e in b.entries]
            over.append(Weight(f"hosts/{host}/", page, files_of(runs, 1), f"the page of host {host}",
                               f"with {counted(len(summaries), 'implementation')} summarized",
                               f"; its runs are in {files_of(runs)}"))
    return total, headline


def _weigh_listing_pages(lb: Leaderboard, max_page_bytes: int, text: _TextBytes, headline: int,
                         over: list[Weight]) -> int:
    """The home, implementations, search and level pages' weight."""
    total = 0
    labels = sum(text.extra(i.label) for i in lb.implementations)
    listing = PAGE_BYTES + LISTED_BYTES * len(lb.implementations) + labels
    levels = PAGE_BYTES + LEVEL_CELL_BYTES * min(len(lb.problems), paging.PROBLEMS_PER_PAGE) * len(lb.content.environments)
    for url, page, what in (("", PAGE_BYTES + headline + labels, "the home page"),
                            ("implementations/", listing, "the implementations page"),
                            ("search/", listing, "the search page"),
                            ("levels/", levels, "a level's page")):
        total += page
        if page > max_page_bytes:
            runs = [e.run for i in lb.implementations for e in i.entries]
            over.append(Weight(url, page, files_of(runs, 1), what,
                               f"with {counted(len(lb.implementations), 'implementation')} and "
                               f"{counted(len(lb.content.environments), 'timing host')}",
                               f"; the runs are in {files_of(runs)}"))
    return total


SOURCE_SHARE = 2  # a source is highlighted when, so shown, it takes at most 1/SOURCE_SHARE of max_page_bytes


def source_budget(max_page_bytes: int) -> int:
    """The bytes a source may take on its page highlighted (else it is shown as plain text)."""
    return max_page_bytes // SOURCE_SHARE


def _shown_bound(source, ref: tuple[str, str | None], budget: int) -> int:
    from .highlight import shown_as  # (its bounds alone: no Pygments)

    return shown_as(source.rel, ref[1], source.sizes, budget)[1]


def files_of(runs, most: int = 3) -> str:
    """The content files holding the most of `runs`, most first (with how many, when more than one is named)."""
    counts: dict[str, int] = {}
    for run in runs:
        counts[run.source.file] = counts.get(run.source.file, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if most == 1:
        return ranked[0][0] if ranked else "content"
    named = ", ".join(f"{file} ({n:,})" for file, n in ranked[:most])
    return named + (f" and {len(ranked) - most:,} more files" if len(ranked) > most else "")


class _TextBytes:
    """What a label or title weighs on a page beyond SHORT_TEXT bytes, once per distinct text."""

    def __init__(self):
        self.known: dict[str, int] = {}
        self.titles: dict[tuple[str, ...], int] = {}  # (a run's title by its parts: shared by many runs)

    def extra(self, text: str) -> int:
        found = self.known.get(text)
        if found is None:
            shown = escape(text)
            found = self.known[text] = max(0, (len(shown) if shown.isascii() else len(shown.encode())) - SHORT_TEXT)
        return found

    def extra_title(self, parts: tuple[str, ...]) -> int:
        """A run page's title: TITLE_TIMES as text, and once in its document."""
        found = self.titles.get(parts)
        if found is None:
            title = " · ".join(parts)
            shown = html_escape(title)
            shown = shown if shown.isprintable() else shown_hidden(shown, CODE_POINT_HTML)
            found = self.titles[parts] = TITLE_TIMES * self.extra(title) + max(0, len(shown.encode()) - SHORT_TEXT)
        return found


def heaviest_files(lb: Leaderboard, run_pages: bool = True, board_csvs: bool = True, api_entries: str = "objects",
                   most: int = 3) -> list[tuple[str, int]]:
    """The content files whose runs weigh most on the site, heaviest first, as `weigh_site` weighs them."""
    row = ROW_BYTES + API_ROW_BYTES.get(api_entries, 450) + (CSV_ROW_BYTES if board_csvs else 0)
    weights: dict[str, int] = {}
    for run in lb.content.runs:
        weight = row + (RUN_PAGE_BYTES if run_pages else 0)
        for kind, source in run.files.items():
            if run_pages or kind == "workload":
                weight += source.sizes[1]
        weights[run.source.file] = weights.get(run.source.file, 0) + weight
    return sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:most]
