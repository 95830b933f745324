"""The plan of a site (`Plan`): every output it will hold, claimed by one path, with its key, and what
makes it; nothing made yet. A problem's outputs (`ProblemOutputs`) are planned together, or taken as
a resident builder kept them or a command-line build stored them (state.records.StoredPlan): what a
plan may take from the last build is `Kept`, given once."""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from typing import NamedTuple

from markupsafe import Markup

from . import publish
from .api import api_documents, problem_document
from .config import Config, bundled
from .entry_rows import entry_row
from .errors import KindexError, display
from .keys import OutputKeys, ProblemKeys, list_key, problem_keys, run_key
from .leaderboard import Leaderboard
from .load import Content
from .numbers import format_ms
from .pages import site_pages
from .paging import Page
from .problem_pages import problem_page
from .render import markdown_html
from .search import index_output as search_index_output
from .state.records import StoredPlan
from .urls import Urls, board_csv_path, run_page_path, source_path
from .weights import source_budget


class Kept(NamedTuple):
    """What a plan may take from the last build (state.reuse.Reuse.for_plan)."""

    renderer: object  # build._Renderer, its templates compiled; its `rows`: a command-line build's stored rows
    settings: str  # the settings key, the base of every output's key
    held: dict  # problem slug → its outputs as this process last planned them
    stored: dict  # problem slug → its StoredPlan as the last command-line build stored it
    downloads: Downloads | None  # the source files' outputs as last planned (a resident builder's)
    keep: bool  # a later build in this process takes from this plan: its problems' tables and rows are kept


class Plan:
    """Every output of the site: path → what makes it (bytes, a Page to render, a run page's Board, a
    dict to write as JSON, a function making bytes, or UNPLANNED) and path → key. Two outputs may never
    claim one path, case-insensitively (for macOS and Windows disks): Pelican's rule."""

    def __init__(self, config: Config, lb: Leaderboard, urls: Urls, base: str, kept: Kept):
        self.config, self.lb, self.urls, self.renderer, self.base = config, lb, urls, kept.renderer, base
        self.keep = kept.keep
        self.outputs: dict[str, bytes | Page | dict | Callable[[], bytes]] = {}
        # Casefolded path → what claims it; None: a problem's output, told from its path (`claimant`).
        self.claimed_by: dict[str, str | None] = {}
        self.others: list[str] = []  # paths claimed one by one, not with a problem's outputs
        self.groups: dict[str, ProblemOutputs] = {}  # problem slug → its outputs
        self.listing: list[Page] = []  # the pages that are not a problem's own
        self.page_urls: list[str] = []  # the pages' that are no problem's own (page_count, all_page_urls)
        self.sitemap: list[str] = []  # every page's URL, sorted (made only for a sitemap)
        self.keys: dict[str, str] = {}  # path → key
        self.notes: list[str] = []
        self.files = 0  # how many outputs were planned (once written: `written`)
        self.downloads: Downloads | None = kept.downloads  # the source files' outputs

    def claim(self, path: str, data: bytes | Page | dict | Callable[[], bytes], what: str | None) -> None:
        key = path.casefold()
        if key in self.claimed_by:
            raise KindexError(f"{path}: claimed by both {self.claimant(key)} and {what or problem_claim(path)}")
        self.claimed_by[key] = what
        self.outputs[path] = data
        self.others.append(path)

    def claim_all(self, outputs: dict, claims: dict[str, str | None], whats: dict[str, str] | None = None) -> None:
        """Outputs claimed at once (a problem's: tens of thousands of paths on a big site): `claims`
        says what claims each casefolded path (None: a problem's output), `whats` each path."""
        if len(claims) != len(outputs) or not self.claimed_by.keys().isdisjoint(claims):
            for path, data in outputs.items():  # one of them clashes: say which
                self.claim(path, data, whats[path] if whats else None)
        self.claimed_by.update(claims)
        self.outputs.update(outputs)

    def claim_problem(self, group: ProblemOutputs) -> None:
        self.claim_all(group.outputs, group.claims)
        if not self.keep:
            group.claims = {}  # (the plan's table holds them)

    def claimant(self, folded: str) -> str:
        """What claims a casefolded path (for an error: a problem's output is looked for by its path)."""
        what = self.claimed_by[folded]
        if what is None:
            what = problem_claim(next(p for p in self.outputs if p.casefold() == folded))
        return what

    def written(self) -> None:
        """The site is written: what made its files goes before the manifest is made; their count stays."""
        self.files = len(self.outputs)
        self.outputs = {}

    def page_count(self) -> int:
        return len(self.page_urls) + sum(group.pages for group in self.groups.values())

    def all_page_urls(self) -> list[str]:
        """Every page's URL (for the sitemap), sorted."""
        return sorted(self.page_urls + [path.removesuffix("index.html") for group in self.groups.values()
                                        for path in group.page_paths()])

    def take_problems(self, held: dict[str, ProblemOutputs], stored: dict) -> None:
        """Each problem's outputs: those `held` (this process's last plan) or `stored` (the last command-line
        build's plans) when made from the same inputs, else planned anew."""
        for problem in self.lb.problems:
            made_from = (self.lb.problem_keys[problem.slug], self.base, self.urls.base_path, self.config.run_pages)
            group = held.get(problem.slug)
            if group is None or group.made_from != made_from:
                plan = stored.get(problem.slug)
                plan = StoredPlan._make(plan) if plan is not None else None
                if plan is not None and plan.made_from == made_from:
                    group = planned(problem.slug, plan)
                else:
                    group = self._problem(problem, made_from)
            self.groups[problem.slug] = group

    def make(self, paths: list[str] | None = None) -> None:
        """Make for real the outputs of problems taken from stored plans (UNPLANNED) that are to be
        written: those among `paths`, or all. (A file of an unchanged problem to write: the site is not
        the one its plan was stored with.)"""
        if paths is None:
            slugs = [slug for slug, g in self.groups.items() if g.plan is not None]
        else:
            unplanned = {p for p in paths if self.outputs[p] is UNPLANNED}
            if not unplanned:
                return
            slugs = [slug for slug, g in self.groups.items() if g.plan is not None and not unplanned.isdisjoint(g.outputs)]
        of_slug = {p.slug: p for p in self.lb.problems}
        for slug in slugs:
            group = self.groups[slug] = self._problem(of_slug[slug], self.groups[slug].made_from)
            self.outputs.update(group.outputs)
        self.let_go(slugs)

    def let_go(self, slugs=None) -> None:
        """Once keyed, unless kept, problems (those of `slugs`, or all) keep their paths as a tuple and
        their keys in the plan's: their own tables are for a later build in this process."""
        if not self.keep:
            for slug in self.groups if slugs is None else slugs:
                group = self.groups[slug]
                group.outputs, group.keys = tuple(group.outputs), {}

    def _problem(self, problem, made_from: tuple) -> ProblemOutputs:
        config = self.config
        return problem_outputs(self.lb, problem, self.urls, config.run_pages, self.base, made_from,
                                config.board_csvs, config.api_entries, source_budget(config.max_page_bytes))

    def row(self, template: str, problem, variant: tuple, make_context: Callable[[], dict]) -> str:
        """A problem's row on a page listing problems (paging.ProblemRow), for page (variant[0]) and
        columns (variant[1:]): as this process last rendered it, kept with the problem's outputs (they
        go when those are planned again); as the last command-line builds stored it from the same
        inputs (the renderer's `rows`); or rendered now."""
        group = self.groups[problem.slug]
        held = group.fragments.get((template, variant[0]))
        if held is None or held[0] != variant[1:]:
            stored, key = self.renderer.rows, (problem.slug, template, variant[0], group.made_from, variant[1:])
            html = stored.get(key) if stored is not None else None
            if html is not None:
                held = (variant[1:], Markup(html))
            else:
                held = (variant[1:], self.renderer.fragment(template, make_context()))
                if stored is not None:
                    stored.add(key, held[1])
            if self.keep:
                group.fragments[template, variant[0]] = held
        return held[1]


def claim_pages(plan: Plan) -> None:
    """The pages listing problems, hosts and implementations; each problem's outputs; the 404 page."""
    plan.listing = site_pages(plan.lb, plan.urls, markdown_html, plan.row)
    # (A redirect is no page to index.)
    plan.page_urls = [page.url for page in plan.listing if page.template != "redirect.html"]
    for page in plan.listing:
        plan.claim(page.output_path, page, f"page /{page.url}")
    for group in plan.groups.values():
        plan.claim_problem(group)
    # GitHub Pages serves /404.html for any missing path, at any depth: its links are all absolute paths.
    plan.claim("404.html", Page("404.html", "404.html", "Page not found", {}), "the 404 page")


def claim_documents(plan: Plan, config: Config, updated: str | None) -> None:
    """The JSON API, the content format's schema, the search index, the sitemap and feed, robots.txt."""
    lb, urls, absolute = plan.lb, plan.urls, config.absolute_url
    for path, make_doc in api_documents(lb, urls).items():
        plan.claim(path, partial(_json_of, make_doc), f"API document /{path}")
    plan.claim(publish.SCHEMA_PATH, publish.json_schema_bytes, "the content format's JSON Schema")  # (made if changed)
    plan.claim(*search_index_output(lb, urls))  # the nav search box's index (kindex_site/search.py)
    if absolute:
        plan.sitemap = plan.all_page_urls()
        plan.claim("sitemap.xml", partial(publish.sitemap_xml, absolute, plan.sitemap), "the sitemap")
        plan.claim("feed.xml", partial(_feed, config, lb, urls, updated), "the Atom feed")  # (made if changed)
    # (else none of them: the command says so where it matters, cli._base_url_note)
    plan.claim("robots.txt", publish.robots_txt(absolute or "", bool(absolute)), "robots.txt")


def claim_files(plan: Plan, config: Config, content: Content) -> None:
    """The project's static files, then any bundled one it lacks (the bundled templates link them,
    as missing templates come from the bundled ones); the source files runs refer to, for download."""
    for folder in dict.fromkeys([config.folder("static_dir"), bundled("static")]):
        if not folder.is_dir():
            continue
        for file in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
            rel = file.relative_to(folder).as_posix()
            if any(part.startswith(".") for part in rel.split("/")):
                continue  # dotfiles are not published (GitHub's upload-pages-artifact drops them too)
            if "static/" + rel not in plan.outputs:
                plan.claim("static/" + rel, file.read_bytes(), f"static file {display(file)}")
    plan.downloads = Downloads.of(content, plan.downloads)
    plan.claim_all(plan.downloads.outputs, plan.downloads.claims, plan.downloads.whats)
    plan.others += plan.downloads.outputs


@dataclass
class Downloads:
    """The source files runs refer to, each an output of its own (`sources/…`, its bytes for download):
    made again only when the source files change (a resident builder keeps them: a site of one folder
    per submission has as many as runs)."""

    files: tuple  # the SourceTexts they are made from
    outputs: dict[str, Callable[[], bytes]]  # path → what makes its bytes
    whats: dict[str, str]  # path → what claims it (for a clash's error)
    claims: dict[str, str]  # casefolded path → what claims it
    base: str = ""  # the key base `keys` are for
    keys: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, content: Content, kept: Downloads | None) -> Downloads:
        files = tuple(content.sources.values())
        if kept is not None and kept.files == files:
            return kept
        outputs, whats = {}, {}
        for source in files:
            path = source_path(source.rel)
            outputs[path] = partial(_source_bytes, source)
            whats[path] = f"source file {source.shown}"
        return cls(files, outputs, whats, {path.casefold(): what for path, what in whats.items()})

    def keyed(self, base: str) -> dict[str, str]:
        """Each one's key: its bytes are all it shows."""
        if self.base != base:
            self.keys = {source_path(s.rel): list_key(base, [s.digest]) for s in self.files}
            self.base = base
        return self.keys


def key_outputs(plan: Plan, content: Content) -> None:
    """Each output's key: it covers what the output shows (keys.py), so an output whose key the last
    build wrote is unchanged."""
    base = plan.base
    by_output = OutputKeys(plan.lb, base, {slug: g.problem_keys for slug, g in plan.groups.items()},
                            {p.slug: p.markdown for p in content.pages})
    output_keys: dict[str, str] = {}
    for group in plan.groups.values():
        output_keys.update(group.keys)
    output_keys.update(plan.downloads.keyed(base))
    for path in plan.others:
        if path not in output_keys:
            item = plan.outputs[path]
            output_keys[path] = by_output.of_page(item) if isinstance(item, Page) else by_output.of_file(path)
    if plan.config.absolute_url:
        output_keys["sitemap.xml"] = list_key(base, plan.sitemap)  # it lists pages: their URLs are its key
    plan.keys = output_keys


# --- a problem's outputs ---------------------------------------------------------------------------


@dataclass
class ProblemOutputs:
    """Everything that shows one problem's runs: its page, run pages, API document and CSVs."""

    made_from: tuple
    pages: int  # how many of `outputs` are pages: the first ones (its page, then its runs')
    # Output path → its Page, a run page's Board (its Page is made when written: problem_pages.run_page), a
    # dict (JSON) or a function making bytes (or UNPLANNED).
    outputs: dict[str, object]  # (a one-off build's, once planned: its paths, a tuple: Plan.let_go)
    keys: dict[str, str | bytes]  # output path → key (a one-off build's, once planned: none)
    claims: dict[str, None]  # casefolded output paths (what claims each is told from its path: problem_claim)
    problem_keys: ProblemKeys
    # This problem's rows on other pages, rendered: (template, page) → (what else they depend on, HTML).
    fragments: dict[tuple, tuple] = field(default_factory=dict)
    plan: StoredPlan | None = None  # as the last command-line build stored it, if taken from there

    def page_paths(self) -> islice:
        return islice(self.outputs, self.pages)

    def stored(self, keys: dict[str, str | bytes]) -> tuple:
        """What the plans cache keeps of it (StoredPlan): all but the outputs' makers (`keys`: the plan's)."""
        if self.plan is not None:
            return tuple(self.plan)
        paths = tuple(self.outputs)
        pk = self.problem_keys
        return tuple(StoredPlan(self.made_from, paths[:self.pages], paths[self.pages:], tuple(keys[p] for p in paths),
                                (pk.problem, pk.board, pk.host, pk.implementation)))


# The maker of an output a stored plan names: made for real (problem_outputs) only if it must be written.
UNPLANNED = object()


def planned(slug: str, plan: StoredPlan) -> ProblemOutputs:
    """A problem's outputs as a command-line build stored them: the same `made_from` gives the same
    paths, keys and claims (they are made from nothing else), so an unchanged problem is not planned
    again. (Their makers are not stored: see UNPLANNED.)"""
    paths = plan.pages + plan.files
    return ProblemOutputs(plan.made_from, len(plan.pages), dict.fromkeys(paths, UNPLANNED),
                           dict(zip(paths, plan.keys)), _claims(paths), ProblemKeys(*plan.problem_keys), plan=plan)


def problem_outputs(lb: Leaderboard, problem, urls: Urls, run_pages: bool, base: str, made_from: tuple,
                     board_csvs: bool = True, api_entries: str = "objects",
                     budget: int | None = None) -> ProblemOutputs:
    boards = lb.boards[problem.slug]
    pk = problem_keys(base, problem.slug, boards)
    page = problem_page(lb, problem, urls, board_csvs, budget)
    outputs: dict[str, object] = {page.output_path: page}
    keys: dict[str, str | bytes] = {page.output_path: pk.problem}
    # A run page is planned as its path and its board: its Page is made when written (problem_pages.run_page).
    runs = sorted(((e.run.name, b, e.run) for b in boards for e in b.runs), key=_first) if run_pages else ()
    for name, board, run in runs:
        path = run_page_path(name)
        outputs[path] = board
        keys[path] = run_key(pk, board.anchor, run)
    api_path = f"api/v1/problems/{problem.slug}.json"
    # Made when written, like the problem page's context: nothing holds every table's rows at once.
    outputs[api_path] = partial(_json_of, partial(problem_document, lb, problem, urls, api_entries))
    keys[api_path] = pk.problem
    for board in boards if board_csvs else ():  # (the problem page links them: board_csv_path)
        path = board_csv_path(board)
        outputs[path] = partial(_board_csv, board, urls)
        keys[path] = pk.board[board.anchor]
    return ProblemOutputs(made_from, 1 + len(runs), outputs, keys, _claims(outputs), pk)


def _first(items: tuple):
    return items[0]


def _claims(paths) -> dict[str, None]:
    """A problem's output paths, casefolded (what claims each is told from its path when it clashes)."""
    return dict.fromkeys(map(_casefolded, paths))


def problem_claim(path: str) -> str:
    """What claims a problem's output path, for an error naming it."""
    if path.endswith(".json"):
        return f"API document /{path}"
    if path.endswith(".csv"):
        return f"CSV of a table of {path.split('/')[1]}"
    return f"page /{path.removesuffix('index.html')}"


def _casefolded(path: str) -> str:
    folded = path.casefold()
    return path if folded == path else folded  # (the path's own string when equal: one fewer per page)


# --- what outputs are made of ----------------------------------------------------------------------


def _feed(config: Config, lb: Leaderboard, urls: Urls, updated: str | None) -> bytes:
    return publish.atom_feed(base_url=config.absolute_url, title=config.title, description=config.description,
                             items=_feed_items(lb, urls), updated=updated)


class TableLinks(Mapping):
    """Run name → the URL of the table that shows it (without run pages), made when asked, not kept."""

    def __init__(self, urls: Urls, board_of_run: dict):
        self.urls, self.board_of_run = urls, board_of_run

    def __getitem__(self, name: str) -> str:
        return self.urls.board(self.board_of_run[name])

    def __iter__(self):
        return iter(self.board_of_run)

    def __len__(self) -> int:
        return len(self.board_of_run)


def _feed_items(lb: Leaderboard, urls: Urls) -> list[dict]:
    """The feed's items: its FEED_ENTRIES newest runs."""
    # (picked in the feed's own order, newest first and ties by URL, without an item per run)
    def order(run) -> tuple:
        return (-publish.utc_instant(run.facts.observed_at).timestamp(), urls.run(run.name).removeprefix(urls.base_path))

    newest = heapq.nsmallest(publish.FEED_ENTRIES, (r for r in lb.content.runs if r.facts.observed_at), key=order)
    wanted = {r.name for r in newest}
    shown = {e.run.name: (b, e) for boards in lb.boards.values() for b in boards for e in b.runs if e.run.name in wanted}
    items = []
    for run in newest:  # in the feed's order: equal times and URLs (one table's runs) stay in content order
        board, entry = shown[run.name]
        facts = run.facts
        host = lb.content.environments[run.environment].metadata.title
        result = (f"rank {entry.rank} of {sum(e.rank is not None for e in board.entries)} ranked, "
                  if entry.rank is not None else "not ranked, ")
        result += f"mean {format_ms(facts.mean)} ms" if facts.timed else "no timing"
        items.append({
            "url": urls.run(run.name).removeprefix(urls.base_path),
            "title": facts.title,
            "summary": f"{board.problem.title}: {entry.implementation} on {host}, "
                       f"{facts.status}, {result} (within its own table only).",
            "observed_at": facts.observed_at,
        })
    return items


def refuse_file_folder_clashes(outputs: dict[str, bytes], files: Mapping[str, object],
                                claimant: Callable[[str], str]) -> None:
    """A path can be a file or a folder, not both (a page named feed.xml would need feed.xml/index.html).
    `files`: every output's casefolded path. Each path's folders are looked up among them, not
    gathered: at a million run pages a table of every folder would weigh 200 MB at once."""
    folders: dict[str, str] = {}  # a casefolded file's path → the first output inside it as in a folder
    for path in outputs:
        parts = path.casefold().split("/")
        for i in range(1, len(parts)):
            folder = "/".join(parts[:i])
            if folder in files:
                folders.setdefault(folder, path)
    if not folders:
        return
    clashes = [f"{path}: claimed as a file by {claimant(path.casefold())} and as a folder by "
               f"{claimant(folders[path.casefold()].casefold())}"
               for path in sorted(outputs) if path.casefold() in folders]
    if clashes:
        raise KindexError(clashes)


def _board_csv(board, urls: Urls) -> bytes:
    return publish.board_csv([entry_row(e, urls, board.significant_figures) for e in board.runs])


def _source_bytes(source) -> bytes:
    return source.data()


def _json_of(make_doc: Callable[[], dict]) -> bytes:
    return json_bytes(make_doc())


def json_bytes(doc: dict) -> bytes:
    # Compact: the C encoder only runs without indent, and API readers parse rather than read it.
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
