"""Write phase: the only code that writes the site.

`build()` reads top to bottom: load and check everything, plan every output (a page to render,
a JSON document, bytes), refuse two outputs claiming one path, then make and write them — all into
a fresh folder swapped in at the end, or, when few changed since the last build (cache.py), only
those, moved into place by a journal (publish_swap.py: the swap, the journal, what the next build
does after a killed one).
The site is committed when the new folder is swapped in or the journal is on disk; what is written
after it (the manifest and the other caches) is only cache: failing to write it is a warning. An
error, Ctrl-C or SIGTERM before the commit leaves the previous site exactly as it was and no
temporary folder behind; from the commit on, Ctrl-C and SIGTERM are held until the build ends (they
then stop it, the new site in place). A build killed outright leaves the old site or the new one,
or a journal the next build completes first.

Output is deterministic: the same content gives byte-identical files whatever PYTHONHASHSEED,
file order on disk, locale or time zone; nothing reads the clock (SOURCE_DATE_EPOCH aside).
"""

from __future__ import annotations

import gc
import heapq
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from functools import partial
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from markupsafe import Markup

from . import cache, publish, publish_swap
from .config import Config, bundled
from .errors import KindexError, display
from .leaderboard import Leaderboard, Rules, build_leaderboard
from .load import Content, file_records, forget_reread, load_content, restore_files
from .pages import (Page, Urls, api_documents, board_csv_path, entry_row, problem_document, problem_pages,
                    run_page_url, site_pages, source_path)
from .render import CompiledTemplates, format_ms, make_environment, markdown_html
from .search import index_output as search_index_output


@dataclass
class BuildResult:
    pages: int
    runs: int
    files: int
    seconds: float
    output: Path
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    changed: int = 0  # files written or removed
    timings: dict[str, float] = field(default_factory=dict)  # phase → seconds, for --timings


def check(config: Config, trusted: frozenset[str] = frozenset()) -> tuple[Content, Leaderboard]:
    """Read and check phases: everything a build needs, or KindexError with every problem."""
    content = load_content(config.folder("content_dir"), trusted, keep_documents=False)
    return content, build_leaderboard(content, Rules.of(config))


@dataclass
class Memo:
    """What a long-running caller (serve) keeps between builds, so that a rebuild redoes only what
    changed: unchanged files are not read again, unchanged problems not re-ranked or re-planned.
    Everything in it is derived from inputs it is keyed by; the output is the same without it."""

    files: dict = field(default_factory=dict)  # load_content's: each file's validated documents
    problems: dict = field(default_factory=dict)  # build_leaderboard's: each problem's boards
    outputs: dict = field(default_factory=dict)  # problem slug → _ProblemOutputs
    paths: frozenset = frozenset()  # the output paths of the last build, checked for clashes
    renderer: tuple | None = None  # (settings key, _Renderer): templates compiled once per look
    manifest: tuple | None = None  # (its file's stamp, the Manifest) as the last build wrote it
    written: tuple | None = None  # (problem slug → _ProblemOutputs, other paths) that manifest lists
    built: bool = False  # a build with this memo has succeeded


@dataclass
class _ProblemOutputs:
    """Everything that shows one problem's runs: its page, run pages, API document and CSVs."""

    made_from: tuple
    page_urls: list[str]
    outputs: dict[str, object]  # output path → its Page, a dict (JSON) or a function making bytes (or UNPLANNED)
    keys: dict[str, str]  # output path → key
    claims: dict[str, str]  # casefolded output path → what claims it
    problem_keys: cache.ProblemKeys
    # This problem's rows on other pages, rendered: (template, page) → (what else they depend on, HTML).
    fragments: dict[tuple, tuple] = field(default_factory=dict)
    plan: tuple | None = None  # as the last command-line build stored it (cache.read_plans), if taken from there

    def stored(self) -> tuple:
        """What cache.write_plans keeps of it: all but the outputs' makers."""
        if self.plan is not None:
            return self.plan
        pages = tuple(p for p, item in self.outputs.items() if isinstance(item, Page))
        files = tuple(p for p, item in self.outputs.items() if not isinstance(item, Page))
        pk = self.problem_keys
        return (self.made_from, pages, files, tuple(self.keys[p] for p in pages + files),
                (pk.problem, pk.board, pk.host, pk.implementation))


# The maker of an output a stored plan names: made for real (_problem_outputs) only if it must be written.
UNPLANNED = object()


def _planned(slug: str, plan: tuple) -> _ProblemOutputs:
    """A problem's outputs as a command-line build stored them: the same `made_from` gives the same
    paths, keys and claims (they are made from nothing else), so an unchanged problem is not planned
    again. (Their makers are not stored: see UNPLANNED.)"""
    made_from, pages, files, keys, pk = plan
    claims = _claims(slug, pages, files)
    return _ProblemOutputs(made_from, [p.removesuffix("index.html") for p in pages],
                           dict.fromkeys(pages + files, UNPLANNED), dict(zip(pages + files, keys)), claims,
                           cache.ProblemKeys(*pk), plan=plan)


def _problem_outputs(lb: Leaderboard, problem, urls: Urls, run_pages: bool, base: str, made_from: tuple,
                     board_csvs: bool = True, api_entries: str = "objects") -> _ProblemOutputs:
    boards = lb.boards[problem.slug]
    pk = cache.problem_keys(base, problem.slug, boards)
    pages = problem_pages(lb, problem, urls, run_pages, board_csvs)
    paths = [page.output_path for page in pages]  # (made once: the dicts below share each path's string)
    keys = {paths[0]: pk.problem}
    shown_on = {run_page_url(e.run.name): (b.anchor, e.run) for b in boards for e in b.runs} if run_pages else {}
    for page, path in zip(pages[1:], paths[1:]):  # run pages
        keys[path] = cache.run_key(pk, *shown_on[page.url])
    api_path = f"api/v1/problems/{problem.slug}.json"
    # Made when written, like the problem page's context: nothing holds every table's rows at once.
    files: dict[str, object] = {api_path: partial(_json_of, partial(problem_document, lb, problem, urls, api_entries))}
    keys[api_path] = pk.problem
    for board in boards if board_csvs else ():  # (the problem page links them: board_csv_path)
        path = board_csv_path(board)
        files[path] = partial(_board_csv, board, urls)
        keys[path] = pk.board[board.anchor]
    outputs: dict[str, object] = dict(zip(paths, pages)) | files
    page_urls = [page.url for page in pages]
    return _ProblemOutputs(made_from, page_urls, outputs, keys, _claims(problem.slug, paths, files), pk)


def _claims(slug: str, page_paths: list[str], files) -> dict[str, str]:
    """Casefolded output path → what claims it, for a problem's pages (by output path) and other files."""
    claims = {_casefolded(path): f"page /{path.removesuffix('index.html')}" for path in page_paths}
    claims.update((path.casefold(), f"API document /{path}" if path.endswith(".json") else
                   f"CSV of a table of {slug}") for path in files)
    return claims


def _casefolded(path: str) -> str:
    folded = path.casefold()
    return path if folded == path else folded  # (the path's own string when equal: one fewer per page)


_last_build_objects: list = []  # what the last one-off build made (see the end of _build)


def build(config: Config, memo: Memo | None = None) -> BuildResult:
    """Build the site; `memo` lets a long-running caller (serve) redo only what changed."""
    # A build makes millions of small objects that live until it ends and form no cycles worth
    # finding: the cycle collector would rescan them again and again (3x the load time at 100k runs).
    _last_build_objects.clear()
    collecting = gc.isenabled()
    gc.disable()
    progress = _Progress(time.perf_counter(), sys.stderr is not None and sys.stderr.isatty())
    try:
        return _build(config, memo, progress)
    finally:
        progress.done()
        forget_reread()  # (a long-running builder would hold the last file read for run pages till its next build)
        if collecting:
            gc.enable()


def _build(config: Config, memo: Memo | None, progress: _Progress) -> BuildResult:
    started = time.perf_counter()
    timings: dict[str, float] = {}
    lap = _Lap(timings)
    out = config.folder("output_dir")
    refuse_unsafe_output(out, config)
    recovered = publish_swap.recover(out)  # what a killed build left, put right before anything reads the site
    try:
        updated = publish.source_date(os.environ)
    except ValueError as e:
        raise KindexError(str(e)) from None

    templates_dir, static = config.folder("templates_dir"), config.folder("static_dir")
    settings = cache.settings_key(config, cache.look_folders(config), os.environ)
    stamp = cache.manifest_stamp(out)
    if memo is not None and memo.manifest is not None and memo.manifest[0] == stamp and stamp is not None:
        previous = memo.manifest[1]  # the one this process wrote, untouched since: no need to read it
    else:
        previous = cache.read_manifest(out)
    inputs = cache.snapshot(config.folder("content_dir"))  # before reading: an edit meanwhile shows next time
    lap("start")
    kept = memo is not None  # a caller keeps the memo for the next build
    memo = memo if memo is not None else Memo()
    content_dir = config.folder("content_dir")
    # A command-line build, or a resident builder's first: the runs the last build validated,
    # where their files are unchanged.
    first = not memo.built
    if first:
        memo.files = restore_files(cache.read_runs(out), content_dir)
    # Run pages show whole documents; otherwise a run keeps its facts and its document is read again if asked.
    progress.phase("reading content")
    content = load_content(content_dir, frozenset(previous.trusted) if previous else frozenset(),
                           memo.files, keep_documents=config.run_pages, progress=progress.at)
    validated = None  # the runs to store for the next build's start, if they changed (at the end)
    if first and (content.read or memo.files.keys() != content.digests.keys()):  # (a file read anew, or one gone)
        validated = {shown: r._replace(index=None) for shown, r in memo.files.items()}
    if not kept:
        memo.files = {}  # a one-off build needs them no longer
    lap("read and validate content")
    progress.phase("grouping and ranking")
    lb = build_leaderboard(content, Rules.of(config), memo=memo.problems)
    lap("group and rank")
    progress.phase("planning pages")
    warnings = list(content.warnings) + lb.warnings
    notes: list[str] = []
    urls = Urls(config.base_path)
    if not config.run_pages:
        urls = Urls(config.base_path, _TableLinks(urls, lb.board_of_run))
    absolute = config.absolute_url

    # Templates are compiled once per look (the settings key covers every template's bytes): a
    # long-running caller keeps the environment; the globals are this build's.
    if memo.renderer is None or memo.renderer[0] != settings:
        env = make_environment(templates_dir, {})
        # Compiled once, not by every build: compiling the templates is a quarter of a one-run rebuild.
        try:
            env.bytecode_cache = CompiledTemplates(cache.templates_path(out), cache.code_stamp())
        except OSError:
            pass  # (no folder to be had for it: compiled in memory, as before there was a cache)
        # A project's own templates folder need not hold every template: missing ones (say a 404.html
        # added after the project was set up) come from the bundled defaults.
        env.loader = jinja2.ChoiceLoader([env.loader, jinja2.FileSystemLoader(bundled("templates"))])
        memo.renderer = (settings, _Renderer(env))
    renderer = memo.renderer[1]
    renderer.env.globals.update({
        "site": {"title": config.title, "description": config.description, "absolute_url": absolute,
                 "schema_url": urls(publish.SCHEMA_PATH)},
        "urls": urls,
        "nav_pages": [(p.slug, p.title) for p in content.pages],
    })
    # Everything the site will hold, as path → bytes, a Page to render, or a dict to write as JSON.
    # Nothing is rendered yet: claims are checked first, then files are made and written one by one
    # (in worker processes for big sites), so memory does not grow with the site.
    outputs: dict[str, bytes | Page | dict | Callable[[], bytes]] = {}
    claimed_by: dict[str, str] = {}
    others: list[str] = []  # paths claimed one by one, not with a problem's outputs

    def claim(path: str, data: bytes | Page | dict | Callable[[], bytes], what: str) -> None:
        # Pelican's rule: two outputs may never claim one path (case-insensitively, for macOS/Windows disks).
        key = path.casefold()
        if key in claimed_by:
            raise KindexError(f"{path}: claimed by both {claimed_by[key]} and {what}")
        claimed_by[key] = what
        outputs[path] = data
        others.append(path)

    base = cache.base_key(settings, content)
    groups: dict[str, _ProblemOutputs] = {}
    # A command-line build takes the paths and keys of unchanged problems from the last one's plans.
    plans = {} if kept else cache.read_plans(out)
    for problem in lb.problems:
        made_from = (lb.problem_keys[problem.slug], base, urls.base_path, config.run_pages)
        held = memo.outputs.get(problem.slug)
        if held is None or held.made_from != made_from:
            plan = plans.get(problem.slug)
            if plan is not None and plan[0] == made_from:
                held = _planned(problem.slug, plan)
            else:
                held = _problem_outputs(lb, problem, urls, config.run_pages, base, made_from,
                                        config.board_csvs, config.api_entries)
        groups[problem.slug] = held
    memo.outputs = groups

    def plan_for_real(slugs) -> None:
        """Make the outputs of problems taken from stored plans, for writing them."""
        of_slug = {p.slug: p for p in lb.problems}
        for slug in slugs:
            group = groups[slug] = _problem_outputs(lb, of_slug[slug], urls, config.run_pages, base,
                                                    groups[slug].made_from, config.board_csvs, config.api_entries)
            outputs.update(group.outputs)
    def problem_row(template: str, problem, variant: tuple, make_context: Callable[[], dict]) -> str:
        # Kept with the problem's outputs (they go when those are made again), one per template and
        # page (variant[0]); a row made for other columns (variant[1:]) is replaced.
        fragments = groups[problem.slug].fragments
        held = fragments.get((template, variant[0]))
        if held is None or held[0] != variant[1:]:
            held = (variant[1:], renderer.fragment(template, make_context()))
            if kept:  # (a one-off build would only hold every row of every page until it ends)
                fragments[template, variant[0]] = held
        return held[1]

    listing_pages = site_pages(lb, urls, markdown_html, problem_row)
    page_urls = [page.url for page in listing_pages if page.template != "redirect.html"]  # (a redirect is no page to index)
    for page in listing_pages:
        claim(page.output_path, page, f"page /{page.url}")
    for group in groups.values():  # a problem's outputs at once (tens of thousands of paths on a big site)
        if len(group.claims) != len(group.outputs) or not claimed_by.keys().isdisjoint(group.claims):
            for path, data in group.outputs.items():  # one of them clashes: say which
                claim(path, data, group.claims[path.casefold()])
        claimed_by.update(group.claims)
        outputs.update(group.outputs)
        page_urls += group.page_urls
    # GitHub Pages serves /404.html for any missing path, at any depth: its links are all absolute paths.
    claim("404.html", Page("404.html", "404.html", "Page not found", {}), "the 404 page")
    for path, make_doc in api_documents(lb, urls).items():
        claim(path, partial(_json_of, make_doc), f"API document /{path}")
    claim(publish.SCHEMA_PATH, publish.json_schema_bytes, "the content format's JSON Schema")  # (made if changed)
    claim(*search_index_output(lb, urls))  # the nav search box's index (kindex_site/search.py)
    if absolute:
        page_urls.sort()
        claim("sitemap.xml", partial(publish.sitemap_xml, absolute, page_urls), "the sitemap")
        def feed() -> bytes:  # made only when its key changed
            return publish.atom_feed(base_url=absolute, title=config.title, description=config.description,
                                     items=_feed_items(lb, urls), updated=updated)

        claim("feed.xml", feed, "the Atom feed")
    else:
        notes.append(f"base_url {config.base_url!r} is a path, not an absolute URL: sitemap.xml, feed.xml and "
                     "canonical links need one and were left out (e.g. --base-url https://owner.github.io/repo/)")
    claim("robots.txt", publish.robots_txt(absolute or "", bool(absolute)), "robots.txt")
    # The project's static files, then any bundled one it lacks (the bundled templates link them),
    # as missing templates come from the bundled ones.
    for folder in dict.fromkeys([static, bundled("static")]):
        if not folder.is_dir():
            continue
        for file in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
            rel = file.relative_to(folder).as_posix()
            if any(part.startswith(".") for part in rel.split("/")):
                continue  # dotfiles are not published (GitHub's upload-pages-artifact drops them too)
            if "static/" + rel not in outputs:
                claim("static/" + rel, file.read_bytes(), f"static file {display(file)}")
    for source in content.sources.values():  # the raw source files runs refer to, for download
        claim(source_path(source.rel), partial(_source_bytes, source), f"source file {display(source.path)}")

    paths = frozenset(outputs)
    # The same paths as the last build's were checked then (by this process, or the one that wrote the manifest).
    if paths != memo.paths and (previous is None or previous.outputs.keys() != paths):
        _refuse_file_folder_clashes(outputs, claimed_by)
        memo.paths = paths

    # Each output's key covers what it shows; outputs whose key the last build wrote are unchanged.
    lap("plan pages and files")
    keys = cache.OutputKeys(lb, base, {slug: g.problem_keys for slug, g in groups.items()},
                            {p.slug: p.markdown for p in content.pages})
    output_keys: dict[str, str] = {}
    for group in groups.values():
        output_keys.update(group.keys)
    for source in content.sources.values():  # (its bytes are all it shows)
        output_keys[source_path(source.rel)] = cache.list_key(base, [source.digest])
    for path in others:
        if path not in output_keys:
            item = outputs[path]
            output_keys[path] = keys.of_page(item) if isinstance(item, Page) else keys.of_file(path)
    if absolute:
        output_keys["sitemap.xml"] = cache.list_key(base, page_urls)  # it lists pages: their URLs are its key
    changed = stale = None
    if cache.describes(previous, out):
        was = previous.outputs
        if memo.manifest is not None and previous is memo.manifest[1] and memo.written is not None:
            # The manifest is the one this process wrote with the last build: a problem whose
            # outputs are the very ones it wrote then has nothing to compare.
            last_groups, last_others = memo.written
            redone = [g for slug, g in groups.items() if last_groups.get(slug) is not g]
            candidates = [p for g in redone for p in g.keys] + others
            gone = [p for slug, g in last_groups.items() if groups.get(slug) is not g for p in g.keys]
            changed = sorted({p for p in candidates if p not in was or was[p][0] != output_keys[p]})
            stale = sorted({p for p in gone + last_others if p in was and p not in outputs})
        else:
            changed = sorted(p for p, key in output_keys.items() if p not in was or was[p][0] != key)
            stale = sorted(p for p in was if p not in outputs)
    lap("compare with the last build")
    incremental = changed is not None and len(changed) + len(stale) <= INCREMENTAL_MAX_SHARE * len(outputs)
    if kept and (first or not incremental):
        # Rows made in worker processes would be lost to the memo: make them here. A resident
        # builder's first build makes them all, and compiles every template, even with nothing to
        # write: its first rebuild after an edit is then as quick as the next.
        for page in listing_pages:
            if callable(page.context):
                page.values()
        if first:
            renderer.load_all()
    with publish_swap.Publication(out) as publication:
        if incremental:
            # (A file of an unchanged problem to write: the site is not the one its plan was stored with.)
            unplanned = {p for p in changed if outputs[p] is UNPLANNED}
            if unplanned:
                plan_for_real([slug for slug, g in groups.items()
                               if g.plan is not None and not unplanned.isdisjoint(g.keys)])
            written = {}
            if changed or stale:
                staging = publication.folder(len(changed) + len(stale))
                written = _write_outputs(staging, {p: outputs[p] for p in changed}, renderer, progress)
                publication.apply(changed, stale)  # the commit point
            # The last manifest's list, brought up to date in place (it is about to be replaced whole).
            outputs_made = previous.outputs
            for p in stale:
                del outputs_made[p]
            for p, size in written.items():
                outputs_made[p] = [output_keys[p], size]
        else:
            plan_for_real([slug for slug, g in groups.items() if g.plan is not None])
            sizes = _write_outputs(publication.folder(len(outputs)), outputs, renderer, progress)
            publication.swap_in()  # the commit point
            outputs_made = {p: [output_keys[p], sizes[p]] for p in outputs}
            changed = sorted(outputs)
        lap("render and write")
        # The site is in place. What follows describes it to the next build; Ctrl-C and SIGTERM wait
        # for it (a fraction of the build), and a cache that cannot be written is a warning.
        sizes = {p: made[1] for p, made in outputs_made.items()}
        warnings += publish.size_warnings(sizes, display(out))
        warnings += publish.size_advice(sizes, config.api_entries)
        summary = {"pages": len(page_urls), "runs": len(content.runs), "files": len(outputs)}
        manifest = cache.Manifest(
            settings=settings, inputs=inputs, outputs=outputs_made,
            trusted=sorted(d for shown, d in content.digests.items() if shown.endswith(".json")),
            summary=summary, warnings=warnings, notes=notes, marker=cache.site_identity(out))
        try:
            memo.manifest = None
            memo.manifest = (cache.write_manifest(out, manifest), manifest)
            if validated is not None:
                cache.write_runs(out, file_records(validated, content.digests))
            if not kept and (plans.keys() != groups.keys() or any(g.plan is None for g in groups.values())):
                cache.write_plans(out, {slug: g.stored() for slug, g in groups.items()})
        except OSError as e:
            warnings = warnings + [_cache_not_saved(e)]  # (not the manifest's: a later no-op build need not say it)
        memo.written = (dict(groups), list(others))
        memo.built = True
        if not kept:
            # A one-off build is followed by the process's end (cli.run skips the interpreter's
            # teardown): freeing a big site's millions of objects one by one would cost a tenth of a
            # one-run rebuild. They are dropped when the next build in this process starts.
            _last_build_objects[:] = [content, lb, outputs, groups, output_keys, claimed_by, page_urls, plans]
    return BuildResult(
        pages=len(page_urls), runs=len(content.runs), files=len(outputs),
        seconds=time.perf_counter() - started, output=out, warnings=warnings, notes=recovered + notes,
        changed=len(changed) + (len(stale) if stale else 0), timings=lap.done("save the manifest"),
    )


def _cache_not_saved(e: OSError) -> str:
    return (f"cannot write the build's cache ({publish_swap.why_not_written(e)}): the site was built all "
            "the same; the next build will make it all again")


class _TableLinks(Mapping):
    """Run name → the URL of the table that shows it (without run pages), made when asked: a
    million URLs kept would weigh 100 MB."""

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
    # The feed's own order (newest first, ties by URL) picks them here, one run at a time: every
    # run's item made and sorted would be a million dicts on a big corpus.
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


def _refuse_file_folder_clashes(outputs: dict[str, bytes], claimed_by: dict[str, str]) -> None:
    """A path can be a file or a folder, not both (a page named feed.xml would need feed.xml/index.html)."""
    folders: dict[str, str] = {}
    for path in outputs:
        parts = path.casefold().split("/")
        for i in range(1, len(parts)):
            folders.setdefault("/".join(parts[:i]), path)
    clashes = [f"{path}: claimed as a file by {claimed_by[path.casefold()]} and as a folder by "
               f"{claimed_by[folders[path.casefold()].casefold()]}"
               for path in sorted(outputs) if path.casefold() in folders]
    if clashes:
        raise KindexError(clashes)


def _board_csv(board, urls: Urls) -> bytes:
    return publish.board_csv([entry_row(e, urls, board.significant_figures) for e in board.runs])


def _source_bytes(source) -> bytes:
    return source.text().encode("utf-8")


def _json_of(make_doc: Callable[[], dict]) -> bytes:
    return _json_bytes(make_doc())


def _json_bytes(doc: dict) -> bytes:
    # Compact: the C encoder only runs without indent, and API readers parse rather than read it.
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


class _Renderer:
    """Turns an output's producer into bytes; templates are compiled once per process."""

    def __init__(self, env: jinja2.Environment):
        self.env = env
        self.templates: dict[str, jinja2.Template] = {}

    def load_all(self) -> None:
        """Compile every page template now (one that fails to compile is left to fail where used)."""
        for name in self.env.list_templates(filter_func=lambda n: n.endswith(".html")):
            if name not in self.templates:
                try:
                    self.templates[name] = self.env.get_template(name)
                except Exception:  # (an unused broken template must not fail the build: it is only warm-up)
                    pass

    def fragment(self, name: str, context: dict) -> Markup:
        """A part of a page, rendered on its own (and kept by the caller while its inputs stay)."""
        try:
            template = self.templates.get(name)
            if template is None:
                template = self.templates[name] = self.env.get_template(name)
            return Markup(template.render(**context))
        except jinja2.TemplateError as e:
            raise KindexError(_template_problem(e, name)) from None

    def __call__(self, item: bytes | Page | dict | Callable[[], bytes]) -> bytes:
        if isinstance(item, bytes):
            return item
        if callable(item):
            return item()
        if isinstance(item, dict):
            return _json_bytes(item)
        try:
            template = self.templates.get(item.template)
            if template is None:
                template = self.templates[item.template] = self.env.get_template(item.template)
            return template.render(page=item, **item.values()).encode("utf-8")
        except jinja2.TemplateError as e:
            raise KindexError(_template_problem(e, item.template)) from None


# Beyond this share of outputs changed, a whole new folder swapped in is as quick and simpler.
INCREMENTAL_MAX_SHARE = 0.3


PARALLEL_MIN_OUTPUTS = 400  # below this, starting worker processes costs more than it saves
CHUNK = 256  # outputs per task handed to a worker


def _workers() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


def _write_outputs(staging: Path, outputs: dict, render: _Renderer, progress: _Progress) -> dict[str, int]:
    """Make and write every output into staging; return each file's size.

    Big sites are written by forked worker processes (they inherit the planned outputs, so nothing
    is pickled but chunk numbers and sizes); each file's bytes are the same whoever writes it.
    """
    paths = _making_order(outputs)
    for folder in sorted({p.rpartition("/")[0] for p in paths if "/" in p}):
        (staging / folder).mkdir(parents=True, exist_ok=True)
    chunks = [paths[i:i + CHUNK] for i in range(0, len(paths), CHUNK)]
    progress.phase("writing", len(paths))
    workers = _workers()
    if len(paths) < PARALLEL_MIN_OUTPUTS or workers < 2 or not hasattr(os, "fork"):
        sizes: dict[str, int] = {}
        for chunk in chunks:
            sizes.update(_write_chunk_in(staging, outputs, render, chunk))
            progress.advance(len(chunk))
        return sizes
    # Compiled here, once, rather than by every worker (each would spend the same tenth of a second).
    render.load_all()
    return _Writers(min(workers, len(chunks))).write(lambda i: _write_chunk_in(staging, outputs, render, chunks[i]),
                                                      len(chunks), progress)


class _Writers:
    """Forked processes that write chunks of the site, each handed the next chunk's number when it
    has sent back the last one's sizes. Each has its own two pipes and shares nothing else (unlike
    multiprocessing's Pool, whose workers share a locked queue: one killed while holding the lock, by
    a SIGTERM sent to the whole process group, say, leaves the pool unable to stop). An interrupt or
    error here kills them all at once; one of them dying ends the build."""

    def __init__(self, count: int):
        self.count = count
        self.procs: list[tuple[int, int, int]] = []  # (pid, its chunk numbers' pipe, its results' pipe)
        self.ended: set[int] = set()  # the pids of those already waited for

    def write(self, write_chunk: Callable[[int], dict], chunks: int, progress: _Progress) -> dict[str, int]:
        import pickle
        import selectors

        sizes: dict[str, int] = {}
        selector = selectors.DefaultSelector()
        try:
            for _ in range(self.count):
                self._start(write_chunk)
            handed, done = 0, 0
            for pid, tasks, results in self.procs:
                selector.register(results, selectors.EVENT_READ, (pid, tasks))
                handed = self._hand(tasks, handed, chunks)
            while done < chunks:
                for key, _ in selector.select(timeout=0.25):  # (a signal another thread took is acted on meanwhile)
                    pid, tasks = key.data
                    result = pickle.loads(self._receive(key.fd, pid))
                    if isinstance(result, BaseException):
                        raise result
                    sizes.update(result)
                    progress.advance(len(result))
                    done += 1
                    if handed == chunks:
                        selector.unregister(key.fd)  # (told to end: its pipe's end is no news)
                    handed = self._hand(tasks, handed, chunks)
        except BaseException:
            for pid, _, _ in self.procs:
                if pid not in self.ended:
                    os.kill(pid, signal.SIGKILL)
            raise
        finally:
            selector.close()
            for pid, tasks, results in self.procs:
                os.close(tasks)
                os.close(results)
                if pid not in self.ended:
                    os.waitpid(pid, 0)
            self.procs = []
        return sizes

    def _start(self, write_chunk: Callable[[int], dict]) -> None:
        tasks_r, tasks_w = os.pipe()
        results_r, results_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: it never returns from here
            code = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                for _, tasks, results in self.procs:  # (the others' pipes: their ends must close when they end)
                    os.close(tasks)
                    os.close(results)
                os.close(tasks_w)
                os.close(results_r)
                _serve_chunks(tasks_r, results_w, write_chunk)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(tasks_r)
        os.close(results_w)
        self.procs.append((pid, tasks_w, results_r))

    @staticmethod
    def _hand(tasks: int, handed: int, chunks: int) -> int:
        """Send a worker the next chunk's number (-1: no more); return how many were handed."""
        os.write(tasks, (handed if handed < chunks else -1).to_bytes(8, "little", signed=True))
        return handed + 1 if handed < chunks else handed

    def _receive(self, results: int, pid: int) -> bytes:
        try:
            size = int.from_bytes(_read_exactly(results, 8), "little")
            return _read_exactly(results, size)
        except EOFError:
            pass
        _, status = os.waitpid(pid, 0)
        self.ended.add(pid)
        signum = -os.waitstatus_to_exitcode(status)
        if signum in (signal.SIGINT, signal.SIGTERM):
            raise publish_swap.Interrupted(signum)  # (sent to the whole process group: ours is coming)
        how = f"was killed by {signal.Signals(signum).name}" if signum > 0 else f"ended with status {-signum}"
        raise KindexError(f"writing the site: a process writing it {how}"
                          + (" (out of memory?)" if signum == signal.SIGKILL else ""))


def _serve_chunks(tasks: int, results: int, write_chunk: Callable[[int], dict]) -> None:
    """A worker's loop: a chunk's number in, its sizes (or the exception it raised) out."""
    import pickle

    while True:
        index = int.from_bytes(_read_exactly(tasks, 8), "little", signed=True)
        if index < 0:
            return
        try:
            result = write_chunk(index)
        except Exception as e:  # (KindexError for a template's error; OSError for a full disk)
            result = e
        try:
            data = pickle.dumps(result)
        except Exception:
            data = pickle.dumps(RuntimeError(repr(result)))
        data = len(data).to_bytes(8, "little") + data
        while data:
            data = data[os.write(results, data):]


def _read_exactly(fd: int, size: int) -> bytes:
    parts, left = [], size
    while left:
        part = os.read(fd, left)
        if not part:
            raise EOFError
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _making_order(outputs: dict) -> list[str]:
    """Paths sorted, except that pages reading one content file again (`Page.reads`) come one after
    another, so that each file is parsed once, not once per page, whatever their names' order."""
    paths, reading = [], {}
    for path in sorted(outputs):
        reads = getattr(outputs[path], "reads", None)
        if reads is None:
            paths.append(path)
        else:
            reading.setdefault(reads, []).append(path)
    for group in reading.values():
        paths += group
    return paths


def _write_chunk_in(staging: Path, outputs: dict, render: _Renderer, paths: list[str]) -> dict[str, int]:
    sizes = {}
    folder = f"{staging}{os.sep}"  # (joined as strings: a Path per file costs more than its write)
    for path in paths:
        data = render(outputs[path])
        _write_file(folder + path, data)
        sizes[path] = len(data)
    return sizes


class _Lap:
    """Seconds spent in each phase of a build, for `kindex-site build --timings`."""

    def __init__(self, timings: dict[str, float]):
        self.timings, self.last = timings, time.perf_counter()

    def __call__(self, phase: str) -> None:
        now = time.perf_counter()
        self.timings[phase] = self.timings.get(phase, 0.0) + now - self.last
        self.last = now

    def done(self, phase: str) -> dict[str, float]:
        self(phase)
        return self.timings


class _Progress:
    """What a build is doing, on one line of a terminal once it has run PROGRESS_AFTER seconds
    (reading and writing say how far they are); silent when stderr is not a terminal."""

    def __init__(self, started: float, enabled: bool):
        self.started, self.enabled = started, enabled
        self.shown, self.last_shown = False, 0.0
        self.label, self.total, self.count = "", 0, 0

    def phase(self, label: str, total: int = 0) -> None:
        self.label, self.total, self.count = label, total, 0
        self._show(force=True)

    def at(self, count: int, total: int) -> None:
        self.count, self.total = count, total
        self._show(force=count >= total)

    def advance(self, n: int) -> None:
        self.at(self.count + n, self.total)

    def _show(self, force: bool) -> None:
        now = time.perf_counter()
        if not self.enabled or now - self.started < PROGRESS_AFTER or (not force and now - self.last_shown < 0.1):
            return
        self.shown, self.last_shown = True, now
        files = "file" if self.total == 1 else "files"
        text = f"{self.label}: {self.count:,} of {self.total:,} {files}" if self.total else f"{self.label}…"
        sys.stderr.write("\r\033[K" + text)
        sys.stderr.flush()

    def done(self) -> None:
        """Clear the line (what the build says next starts on a clean one)."""
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.shown = False


PROGRESS_AFTER = 1.0  # seconds: a quicker build says nothing until it is done


def _template_problem(e: jinja2.TemplateError, template: str) -> str:
    if isinstance(e, jinja2.TemplateSyntaxError):
        return f"{e.filename or template}:{e.lineno}: template syntax error: {e.message}"
    return f"templates/{template}: {type(e).__name__}: {e}"


MARKER = publish_swap.MARKER  # in every output folder this tool makes, so that it never wipes anything else


def refuse_unsafe_output(out: Path, config: Config) -> None:
    resolved = out.resolve()
    content = config.folder("content_dir").resolve()
    root = config.root.resolve()
    try:
        home = Path.home().resolve()
    except (RuntimeError, KeyError):  # no home folder known
        home = None
    reason = None
    if resolved == Path(resolved.anchor):
        reason = "is the file system root"
    elif resolved == home:
        reason = "is your home folder"
    elif resolved == root:
        reason = "is the project folder"
    elif resolved.is_relative_to(content):  # the content folder itself too
        reason = "is inside the content folder"
    elif content.is_relative_to(resolved):
        reason = "contains the content folder"
    elif root.is_relative_to(resolved):
        reason = "contains the project folder"
    elif resolved.is_relative_to(config.folder("static_dir").resolve()):
        reason = "is inside the static folder"  # each build would copy the last one into itself
    elif (resolved / ".git").exists():
        reason = "holds a .git folder"
    elif resolved.exists() and not resolved.is_dir():
        reason = "is a file"
    elif resolved.is_dir() and any(resolved.iterdir()) and not (resolved / MARKER).is_file():
        reason = "is a non-empty folder kindex-site did not create"
    if reason:
        raise KindexError(f"{display(out)}: refusing to write the site there: it {reason}")


def _write_file(path: str | Path, data: bytes) -> None:
    # os.open and os.write rather than Path.write_bytes: a site is tens of thousands of small files,
    # and the file object's layers cost as much as the writing.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _O_BINARY, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
    except OSError as e:
        if e.filename is None:  # (os.write's errors, a full disk's, name no file)
            raise OSError(e.errno, e.strerror, os.fspath(path)) from None
        raise
    if publish_swap.COUNTING:
        publish_swap.file_op()  # (the crash tests' hook)


_O_BINARY = getattr(os, "O_BINARY", 0)  # (Windows: no newline translation)
