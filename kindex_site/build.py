"""Write phase: the only code that writes the site. `_build` reads top to bottom as the build's steps
(DEVELOPERS.md draws them: read, rank, plan in planning.py, compare, write, record); what a later build
reuses is behind `state.reuse.Reuse`, which each step asks once (DEVELOPERS.md, "Reuse: one door").
The commit point, and what an error, Ctrl-C, SIGTERM or a kill leaves: publish_swap.py; what is
written after it is only cache.

Output is deterministic: the same content gives byte-identical files whatever PYTHONHASHSEED,
file order on disk, locale or time zone; nothing reads the clock (SOURCE_DATE_EPOCH aside).
"""

from __future__ import annotations

import gc
import os
import sys
import time
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from pathlib import Path

import jinja2
from markupsafe import Markup

from . import publish, publish_swap
from .config import Config, bundled
from .errors import KindexError, display
from .keys import base_key
from .leaderboard import Board, Leaderboard, Rules, build_leaderboard
from .load import Content, load_content
from .paging import Page
from .planning import (Plan, TableLinks, claim_documents, claim_files, claim_pages, json_bytes, key_outputs,
                       refuse_file_folder_clashes)
from .problem_pages import run_of_page, run_page
from .render import MAX_ITEMS, make_environment
from .state.records import StoredRows
from .state.reuse import Reuse
from .urls import Urls
from .weights import files_of, heaviest_files, source_budget, weigh_site
from .workers import Aside, Workers, cores, release_free_memory


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
    built: bool = True  # False: no input had changed, and nothing was done (`unchanged`)

    @classmethod
    def unchanged(cls, manifest, out: Path) -> BuildResult:
        """What the last build said, when nothing changed since (`manifest`: Reuse.unchanged's)."""
        summary = manifest.summary
        return cls(pages=summary["pages"], runs=summary["runs"], files=summary.get("files", 0), seconds=0.0,
                   output=out, warnings=list(manifest.warnings), notes=list(manifest.notes), built=False)


def check(config: Config) -> tuple[Content, Leaderboard]:
    """Read and check phases: everything a build needs, or KindexError with every problem."""
    content = load_content(config.folder("content_dir"), keep_documents=False)
    lb = build_leaderboard(content, Rules.of(config))
    _within_bounds(config, content, lb)
    return content, lb


def build(config: Config, reuse: Reuse | None = None) -> BuildResult:
    """Build the site; `reuse` (kept by a resident builder, watch.Builder) lets a rebuild redo only
    what changed."""
    reuse = reuse if reuse is not None else Reuse(config.folder("output_dir"), resident=False)
    progress = _Progress(time.perf_counter(), sys.stderr is not None and sys.stderr.isatty())
    with _collector_off():
        try:
            return _build(config, reuse, progress)
        finally:
            progress.done()


def _build(config: Config, reuse: Reuse, progress: _Progress) -> BuildResult:
    started, lap = time.perf_counter(), _Lap({})
    out = config.folder("output_dir")
    refuse_unsafe_output(out, config)
    with reuse.opened(config, os.environ) as recovered:  # (what a killed build left is put right before anything reads the site)
        updated = _source_date()
        lap("start")
        content = _read(config, reuse, progress)
        lap("read and validate content")
        lb = _rank(config, content, reuse, progress)
        _within_bounds(config, content, lb)
        lap("group and rank")
        plan = _plan(config, content, lb, reuse, updated, progress)
        lap("plan pages and files")
        changes = reuse.outdated(plan, content)
        lap("compare with the last build")
        if changes is None and len(plan.outputs) >= PARALLEL_MIN_OUTPUTS:
            _highlight_ahead(content, config, progress)
        with publish_swap.Publication(out) as publication:
            sizes = _write(plan, changes, publication, progress)
            plan.written()
            lap("render and write")
            # The site is in place: Ctrl-C and SIGTERM wait while it is described to the next build.
            warnings = reuse.commit(plan, content, lb, sizes, changes, partial(_warnings, config, out, content, lb))
    return BuildResult(
        pages=plan.page_count(), runs=len(content.runs), files=plan.files,
        seconds=time.perf_counter() - started, output=out, warnings=warnings, notes=recovered + plan.notes,
        changed=plan.files if changes is None else len(changes.changed) + len(changes.stale),
        timings=lap.done("save the manifest"),
    )


@contextmanager
def _collector_off():
    """A build makes millions of small objects that live until it ends and form no cycles worth
    finding: the cycle collector would only rescan them again and again."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _source_date() -> str | None:
    try:
        return publish.source_date(os.environ)
    except ValueError as e:
        raise KindexError(str(e)) from None


# --- 1. read, 2. rank ------------------------------------------------------------------------------


def _read(config: Config, reuse: Reuse, progress: _Progress) -> Content:
    """Every content file's runs, validated (a file unchanged since the last build keeps its runs).
    Run pages show whole documents; otherwise a run keeps its facts and its document is read again if asked."""
    progress.phase("reading content")
    content_dir = config.folder("content_dir")
    return load_content(content_dir, keep_documents=config.run_pages, progress=progress.at,
                        reuse=reuse.for_load(content_dir))


def _rank(config: Config, content: Content, reuse: Reuse, progress: _Progress) -> Leaderboard:
    """Boards (problem × workload × host × protocol), ranked (unchanged problems' as they were)."""
    progress.phase("grouping and ranking")
    return build_leaderboard(content, Rules.of(config), reuse=reuse.for_ranking(content))


def _within_bounds(config: Config, content: Content, lb: Leaderboard) -> None:
    """KindexError when the content would make more than kindex.toml's caps allow (docs/security.md,
    "Bounds"): a table of more than max_runs_per_table runs, a page over max_page_bytes, a site over
    max_site_bytes. Pages are weighed without being made (weights.weigh_site): `check` says what a
    build would, before anything is written; the build measures each file as it writes it too."""
    problems = bounds_problems(config, lb)
    if problems:
        raise KindexError(problems[:MAX_BOUNDS_SAID] + ([f"… and {len(problems) - MAX_BOUNDS_SAID:,} more"]
                                                        if len(problems) > MAX_BOUNDS_SAID else []),
                          count=len(problems), warnings=content.warnings + lb.warnings)


MAX_BOUNDS_SAID = 50  # lines: a million runs over a cap are not a million lines


def bounds_problems(config: Config, lb: Leaderboard) -> list[str]:
    """A line for each table, page and site over its cap, each naming the content file that makes it."""
    problems = []
    most = config.max_runs_per_table
    for problem in lb.problems:
        for b in lb.boards[problem.slug]:
            if len(b.entries) + len(b.history) > most:
                runs = [e.run for e in b.runs]
                problems.append(f"{files_of(runs, 1)}: the table of problem {problem.slug} on host {b.host} "
                                f"(protocol {b.protocol}, workload {b.workload[:19]}) holds {len(runs):,} runs, its "
                                f"history included, over max_runs_per_table ({most:,}) in kindex.toml; its runs are "
                                f"in {files_of(runs)}")
    weight = weigh_site(lb, config.max_page_bytes, config.run_pages, config.board_csvs, config.api_entries)
    for w in weight.pages:
        size, cap = _over(w.bytes, config.max_page_bytes)
        problems.append(f"{w.where}: {w.what} would be {size} {w.why}, over max_page_bytes ({cap}) in "
                        f"kindex.toml{w.detail}")
    if weight.total > config.max_site_bytes:
        total, cap = _over(weight.total, config.max_site_bytes)
        heaviest = heaviest_files(lb, config.run_pages, config.board_csvs, config.api_entries)
        advice = publish.size_advice(publish.SiteSizes(weight.total, [], weight.runs, weight.csvs, weight.problem_json),
                                     config.api_entries, config.max_site_bytes)
        problems.append(f"{heaviest[0][0] if heaviest else display(config.folder('content_dir'))}: the site would "
                        f"be at least {total}, over max_site_bytes ({cap}) in kindex.toml; the content files "
                        "whose runs weigh most: "
                        + ", ".join(f"{file} ({_bytes(n)})" for file, n in heaviest) + "".join(f"; {a}" for a in advice))
    return problems


def _bytes(n: int, figures: int = 3) -> str:
    """A size as a reader compares it with a cap: three figures, decimal units."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= scale:
            return f"{n / scale:.{figures}g} {unit}"
    return f"{n:,} bytes"


def _over(size: int, cap: int) -> tuple[str, str]:
    """A size over a cap and the cap, with the figures that tell them apart (16.78 MB over 16.77 MB)."""
    figures = 3
    while figures < 9 and _bytes(size, figures) == _bytes(cap, figures):
        figures += 1
    return _bytes(size, figures), _bytes(cap, figures)


# --- 3. plan ---------------------------------------------------------------------------------------


def _plan(config: Config, content: Content, lb: Leaderboard, reuse: Reuse, updated: str | None,
          progress: _Progress) -> Plan:
    """Everything the site will hold, each output with its key. Nothing is rendered yet: claims are
    checked first, then files are made and written one by one (in worker processes for big sites),
    so memory does not grow with the site."""
    progress.phase("planning pages")
    urls = Urls(config.base_path)
    if not config.run_pages:
        urls = Urls(config.base_path, TableLinks(urls, lb.board_of_run))
    kept = reuse.for_plan(partial(_Renderer.of, config.folder("templates_dir")))
    renderer = kept.renderer
    renderer.set_globals({
        "site": {"title": config.title, "description": config.description, "absolute_url": config.absolute_url,
                 "schema_url": urls(publish.SCHEMA_PATH)},
        "urls": urls,
        "nav_pages": [(p.slug, p.title) for p in content.pages],
    })
    # (Run pages are planned by path and board: see problem_outputs.)
    renderer.run_page = partial(run_page, lb, urls, source_budget=source_budget(config.max_page_bytes))
    renderer.max_page_bytes = config.max_page_bytes
    renderer.env.max_items = max(MAX_ITEMS, config.max_page_bytes)  # (what one template expression may make)
    plan = Plan(config, lb, urls, base_key(kept.settings, content), kept)
    plan.take_problems(kept.held, kept.stored)  # (unchanged problems' paths and keys, as last planned)
    claim_pages(plan)
    claim_documents(plan, config, updated)
    claim_files(plan, config, content)
    reuse.planned(plan, partial(refuse_file_folder_clashes, plan.outputs, plan.claimed_by, plan.claimant))
    key_outputs(plan, content)
    plan.let_go()
    plan.claimed_by = {}  # (every claim is made: a big site's casefolded paths need not wait for the writing)
    return plan


# --- 5. write, 6. record ---------------------------------------------------------------------------


def _highlight_ahead(content: Content, config: Config, progress: _Progress) -> None:
    """Before the pages are made in parallel, each source file they show is highlighted once,
    shared out among the worker processes (highlight.ahead)."""
    if not content.sources:
        return
    from . import highlight

    shown = ((file.text, file.digest, file.rel, language) for file, language in _shown_sources(content, config))
    highlight.ahead(shown, _workers(), progress)


def _shown_sources(content: Content, config: Config) -> Iterator:
    """Each source file a page shows, with the language it is shown in: its run's, or plain text when
    highlighted it might take too much of its page (problem_pages.shown_source). Files shown twice, twice."""
    from .highlight import shown_as

    kinds = ("implementation", "workload") if config.run_pages else ("workload",)  # (run pages show the first)
    budget = source_budget(config.max_page_bytes)
    return ((file, shown_as(file.rel, getattr(run.facts, f"{kind}_source")[1], file.sizes, budget)[0])
            for run in content.runs for kind, file in run.files.items() if kind in kinds)


def _highlight_warnings(kept, content: Content, config: Config) -> list[str]:
    """The source files pages show as plain text because highlighting them took too long
    (highlight.warnings): said by every build that shows them."""
    if not content.sources:
        return []
    from . import highlight

    return highlight.warnings(((file.shown, file.digest, file.rel, language)
                               for file, language in _shown_sources(content, config)),
                              kept)


def _write(plan: Plan, changes, publication: publish_swap.Publication,
           progress: _Progress) -> dict[str, int] | _SizesInOrder:
    """Make and write the outputs to write, and put them in place (the commit point): every one, into
    a new folder swapped in whole, or (`changes`) only the changed ones, moved in by a journal, and
    the stale ones deleted. Returns the size of each file written. A site that would be over
    max_site_bytes is a KindexError before the commit: the site in the folder stays as it was."""
    max_site = plan.config.max_site_bytes
    try:
        if changes is None:
            plan.make()
            sizes = _write_outputs(publication.folder(len(plan.outputs)), plan.outputs, plan.renderer, progress,
                                   max_site)
            publication.swap_in()  # the commit point
            return sizes
        plan.make(changes.changed)
        if not (changes.changed or changes.stale):
            return {}
        staging = publication.folder(len(changes.changed) + len(changes.stale))
        sizes = _write_outputs(staging, {p: plan.outputs[p] for p in changes.changed}, plan.renderer, progress,
                               max_site - changes.kept_bytes())
        publication.apply(changes.changed, changes.stale)  # the commit point
        return sizes
    except _SiteTooBig as e:
        raise KindexError(_site_too_big(plan, e, 0 if changes is None else changes.kept_bytes())) from None


def _site_too_big(plan: Plan, e: _SiteTooBig, kept: int) -> str:
    """The problem of a site over max_site_bytes (`kept`: the bytes of the files a rebuild keeps as
    they were), naming the content files whose run pages weigh most and, for a whole site, each
    setting that would make it smaller."""
    config, weights = plan.config, {}
    by_run = plan.lb.board_of_run
    written = [(path, size) for path, size in e.sizes if size]
    for path, size in written:
        if path.startswith("runs/") and path.endswith("/index.html") and path[5:-11] in by_run:
            file = run_of_page(by_run[path[5:-11]], path).run.source.file
            weights[file] = weights.get(file, 0) + size
    heaviest = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    total, cap = _over(e.written + kept, config.max_site_bytes)
    said = (f"{heaviest[0][0] if heaviest else display(config.folder('content_dir'))}: the site would be "
            f"{'' if e.whole else 'more than '}{total}, over max_site_bytes ({cap}) in kindex.toml")
    if heaviest:
        said += "; the content files whose run pages weigh most: " + ", ".join(f"{f} ({_bytes(n)})" for f, n in heaviest)
    advice = publish.size_advice(publish.SiteSizes.of(written), config.api_entries, config.max_site_bytes) \
        if not kept else []
    return said + "".join(f"; {a}" for a in advice)


def _warnings(config: Config, out: Path, content: Content, lb: Leaderboard, sizes, highlights) -> list[str]:
    """The build's warnings: the content's, the boards', source files shown as plain text (found
    among the build's `highlights`), and the site's size (`sizes`: publish.SiteSizes)."""
    warnings = list(content.warnings) + lb.warnings + _highlight_warnings(highlights, content, config)
    warnings += publish.size_warnings(sizes, display(out), config.max_site_bytes)
    return warnings + publish.size_advice(sizes, config.api_entries, config.max_site_bytes)


class _Renderer:
    """Turns an output's producer into bytes; templates are compiled once per process."""

    def __init__(self, env: jinja2.Environment):
        self.env = env
        self.templates: dict[str, jinja2.Template] = {}
        self.run_page: Callable[[Board, str], Page] | None = None  # (board, path) → the run page (this build's)
        self.rows: StoredRows | None = None  # (a command-line build's) rows of listing pages, kept on disk
        self.flat_globals: dict[str, dict] = {}  # template name → its globals as one dict (_render)
        self.compiling: Aside | None = None  # the worker compiling them aside, if any
        self.max_page_bytes: int | None = None  # (this build's) no page may be bigger

    @classmethod
    def of(cls, templates_dir: Path, compiled: jinja2.BytecodeCache | None) -> _Renderer:
        """The project's templates, compiled into `compiled` (and read from it while they are the same)."""
        env = make_environment(templates_dir, {})
        env.bytecode_cache = compiled
        # (a project's templates folder need not hold every template: the bundled ones fill the gaps)
        env.loader = jinja2.ChoiceLoader([env.loader, jinja2.FileSystemLoader(bundled("templates"))])
        return cls(env)

    def compile_aside(self) -> None:
        """Have a worker compile every template into the folder of compiled ones (`of`'s bytecode
        cache) while this process plans; `load_all` then reads them."""
        if self.env.bytecode_cache is not None:
            self.compiling = Aside.start(lambda go: self.load_all())

    def compiled(self) -> None:
        """Wait for the worker compiling aside, if any (what it did not store, load_all compiles)."""
        if self.compiling is not None:
            self.compiling, compiling = None, self.compiling
            compiling.drop()

    def load_all(self) -> None:
        """Compile every page template now (one that fails to compile is left to fail where used)."""
        self.compiled()
        for name in self.env.list_templates(filter_func=lambda n: n.endswith(".html")):
            if name not in self.templates:
                with suppress(Exception):  # (an unused broken template must not fail the build: it is only warm-up)
                    self.templates[name] = self.env.get_template(name)

    def fragment(self, name: str, context: dict) -> Markup:
        """A part of a page, rendered on its own (and kept by the caller while its inputs stay)."""
        return Markup(self._render(name, context))

    def set_globals(self, values: dict) -> None:
        """This build's globals (the site's settings, its URLs), for every template."""
        self.env.globals.update(values)
        self.flat_globals.clear()

    def _render(self, name: str, values: dict) -> str:
        """The template rendered with `values`, its globals made one dict once per build that each
        page's shared context starts from (not a ChainMap walked per page). Its text is taken
        RENDER_PARTS pieces at a time and stops past max_page_bytes (_TooBig): a page, whatever its
        template does, never holds more memory than that. Any error of the template (a sandbox
        refusal, a resource exhausted) is a KindexError naming it."""
        try:
            template = self.templates.get(name)
            if template is None:
                template = self.templates[name] = self.env.get_template(name)
            flat = self.flat_globals.get(name)
            if flat is None:
                flat = self.flat_globals[name] = dict(template.globals)
            stream = template.root_render_func(template.new_context({**flat, **values}, shared=True))
            parts = list(islice(stream, RENDER_PARTS))
            if len(parts) < RENDER_PARTS:
                return "".join(parts)
            limit, size = self.max_page_bytes or sys.maxsize, sum(map(len, parts))
            while size <= limit:
                more = list(islice(stream, RENDER_PARTS))
                parts += more
                size += sum(map(len, more))
                if len(more) < RENDER_PARTS:
                    if size <= limit:
                        return "".join(parts)
                    break
            raise _TooBig(size)
        except (KindexError, _TooBig):
            raise
        except Exception as e:  # (the error of a template, whatever its kind)
            raise KindexError(_template_problem(e, name)) from None

    def __call__(self, item: bytes | Page | Board | dict | Callable[[], bytes], path: str = "") -> bytes:
        if isinstance(item, bytes):
            return item
        if isinstance(item, Board):  # a run page, at `path`
            item = self.run_page(item, path)
        if callable(item):
            return item()
        if isinstance(item, dict):
            return json_bytes(item)
        try:
            data = self._render(item.template, {"page": item, **item.values()}).encode("utf-8")
        except _TooBig:
            raise KindexError(self._too_big(item, path, None)) from None
        if self.max_page_bytes is not None and len(data) > self.max_page_bytes:
            raise KindexError(self._too_big(item, path, len(data)))
        return data

    def _too_big(self, page: Page, path: str, size: int | None) -> str:
        """The problem of a page over max_page_bytes (`size`: None when its making was stopped past
        it): its run's file for a run page, else its template."""
        cap = f"max_page_bytes ({_bytes(self.max_page_bytes)}) in kindex.toml"
        said = (f"would be more than {cap}" if size is None else
                "is {}, over max_page_bytes ({}) in kindex.toml".format(*_over(size, self.max_page_bytes)))
        if page.template == "run.html" and path.startswith("runs/"):
            run = run_of_page(self.run_page.args[0].board_of_run[path[5:-11]], path).run
            source = run.files.get("implementation")
            return (f"{run.source}: the page of run {run.name} {said}"
                    + (f" with its source ({source.shown})" if source is not None else "")
                    + f"; made by templates/{page.template}")
        return f"templates/{page.template}: the page /{page.url} {said}"


class _TooBig(Exception):
    """A page rendered past max_page_bytes: stopped there, `size` characters in."""

    def __init__(self, size: int):
        super().__init__(size)
        self.size = size


RENDER_PARTS = 256  # pieces of a page's text taken at once, then its length checked

PARALLEL_MIN_OUTPUTS = 400  # below this, starting worker processes costs more than it saves
CHUNK = 256  # outputs per task handed to a worker


def _workers() -> int:
    return max(1, min(cores(), 8))


def _write_outputs(staging: Path, outputs: dict, render: _Renderer, progress: _Progress,
                   room: int | None = None) -> dict[str, int] | _SizesInOrder:
    """Make and write every output into staging; return each file's size. Past `room` bytes written,
    stop (_SiteTooBig: the site would be over max_site_bytes).

    Big sites are written by forked worker processes (they inherit the planned outputs, so nothing
    is pickled but chunk numbers and sizes); each file's bytes are the same whoever writes it.
    """
    paths = _making_order(outputs)
    chunks = [paths[i:i + CHUNK] for i in range(0, len(paths), CHUNK)]
    progress.phase("writing", len(paths))
    workers = _workers()
    room = sys.maxsize if room is None else room
    if len(paths) < PARALLEL_MIN_OUTPUTS or workers < 2 or not hasattr(os, "fork"):
        sizes: dict[str, int] = {}
        written = 0
        for chunk in chunks:
            chunk_sizes = _write_chunk_in(staging, outputs, render, chunk)
            sizes.update(zip(chunk, chunk_sizes))
            written += sum(chunk_sizes)
            if written > room:
                raise _SiteTooBig(sizes.items(), written, len(sizes) == len(paths))
            progress.advance(len(chunk))
        return sizes
    # Compiled here, once, rather than by every worker.
    render.load_all()
    release_free_memory()  # (before the workers inherit the pages)
    # Sizes come back in the order of the paths, into an array: no second copy of the paths, no table.
    in_order = array("q", bytes(8 * len(paths)))

    writers = Workers(min(workers, len(chunks)), lambda i: _write_chunk_in(staging, outputs, render, chunks[i]),
                      what="writing the site: a process writing it")
    written = done = 0
    for _, i, chunk_sizes in writers.results(len(chunks)):
        in_order[i * CHUNK:i * CHUNK + len(chunk_sizes)] = array("q", chunk_sizes)
        written += sum(chunk_sizes)
        done += len(chunk_sizes)
        if written > room:  # (the writers are stopped: a site this big is not written whole to be refused)
            raise _SiteTooBig(_SizesInOrder(paths, in_order).items(), written, done == len(paths))
        progress.advance(len(chunk_sizes))
    return _SizesInOrder(paths, in_order)


class _SiteTooBig(Exception):
    """The files written would make the site bigger than max_site_bytes: their sizes (those not
    written yet are 0), how many bytes, and whether every file was written."""

    def __init__(self, sizes, written: int, whole: bool):
        super().__init__(written)
        self.sizes, self.written, self.whole = sizes, written, whole


class _SizesInOrder:
    """The size of each file written, as `paths` and an array of sizes in their order: what the
    manifest is made from (`items`), without a table by path."""

    def __init__(self, paths: list[str], sizes: array):
        self.paths, self.sizes = paths, sizes

    def items(self):
        return zip(self.paths, self.sizes)

    def __iter__(self):  # (the paths, as a table by path gives its keys: a resident builder folds them in)
        return iter(self.paths)

    def clear(self) -> None:
        self.paths, self.sizes = [], array("q")


def _making_order(outputs: dict) -> list[str]:
    """Paths sorted, except that pages reading one content file again (`Page.reads`) come one after
    another, so that each file is parsed once, not once per page, whatever their names' order."""
    paths, reading = [], {}
    for path in sorted(outputs):
        item = outputs[path]
        reads = run_of_page(item, path).run.document_file if isinstance(item, Board) else getattr(item, "reads", None)
        if reads is None:
            paths.append(path)
        else:
            reading.setdefault(reads, []).append(path)
    for group in reading.values():
        paths += group
    return paths


def _write_chunk_in(staging: Path, outputs: dict, render: _Renderer, paths: list[str]) -> list[int]:
    """Make and write `paths`; their sizes, in their order."""
    sizes = []
    folder = f"{staging}{os.sep}"  # (joined as strings: a Path per file costs more than its write)
    _make_folders(folder, paths)
    for path in paths:
        data = render(outputs[path], path)
        _write_file(folder + path, data)
        sizes.append(len(data))
    if render.rows is not None:
        render.rows.flush()  # (this process's rows, for the next command-line build)
    return sizes


def _make_folders(root: str, paths: list[str]) -> None:
    """The folders a chunk's files go in, made by whoever writes the chunk (so workers make them in
    parallel); another worker may be making the same ones at the same time."""
    made = set()
    for path in paths:
        folder = path.rpartition("/")[0]
        if folder and folder not in made:
            made.add(folder)
            try:
                os.mkdir(root + folder)
            except FileExistsError:
                pass
            except FileNotFoundError:  # (its parent is not made yet)
                os.makedirs(root + folder, exist_ok=True)


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


def _template_problem(e: Exception, template: str) -> str:
    """`templates/NAME: what (line N)` for a template's error: the template and line it was raised in
    (a macro's, an included one's: then the page's template too), else the page's template."""
    if isinstance(e, jinja2.TemplateSyntaxError):
        return f"{e.filename or template}:{e.lineno}: template syntax error: {e.message}"
    where, line, tb = template, None, e.__traceback__
    while tb is not None:  # (Jinja marks its compiled code's globals with the template it is)
        made = tb.tb_frame.f_globals.get("__jinja_template__")
        if made is not None:
            where, line = made.name, made.get_corresponding_lineno(tb.tb_lineno)
        tb = tb.tb_next
    what = (str(e) or "out of memory") if isinstance(e, MemoryError) else str(e)
    at = "" if line is None else f" (line {line}{'' if where == template else f', rendering {template}'})"
    return f"templates/{where}: {type(e).__name__}" + (f": {what}" if what else "") + at


MARKER = publish_swap.MARKER  # in every output folder this tool makes, so that it never wipes anything else


def refuse_unsafe_output(out: Path, config: Config) -> None:
    resolved = out.resolve()
    content = config.folder("content_dir").resolve()
    root = config.root.resolve()
    try:
        home = Path.home().resolve()
    except (RuntimeError, KeyError):  # no home folder known
        home = None
    within = [*_own_folders(config, "static_dir"), *_own_folders(config, "templates_dir")]
    reason = next((why for refused, why in (  # (in this order: the first that holds is said)
        (lambda: resolved == Path(resolved.anchor), "is the file system root"),
        (lambda: resolved == home, "is your home folder"),
        (lambda: resolved == root, "is the project folder"),
        (lambda: resolved.is_relative_to(content), "is inside the content folder"),  # the content folder itself too
        (lambda: content.is_relative_to(resolved), "contains the content folder"),
        (lambda: root.is_relative_to(resolved), "contains the project folder"),
        # (a build would copy the last one into itself)
        (lambda: any(resolved.is_relative_to(f) for f in within[:2]), "is the static folder, or inside it"),
        (lambda: any(resolved.is_relative_to(f) for f in within[2:]), "is the templates folder, or inside it"),
        (lambda: ".git" in resolved.parts, "is inside a .git folder"),  # (a site written there breaks the repository)
        (lambda: (resolved / ".git").exists(), "holds a .git folder"),
        (lambda: resolved.exists() and not resolved.is_dir(), "is a file"),
        (lambda: resolved.is_dir() and any(resolved.iterdir()) and not (resolved / MARKER).is_file(),
         "is a non-empty folder kindex-site did not create")) if refused()), None)
    if reason:
        raise KindexError(f"{display(out)}: refusing to write the site there: it {reason}")


def _own_folders(config: Config, name: str) -> list[Path]:
    """The folder a setting names, as used (the bundled default when the project has none) and as
    configured (where the project's own would be, made or not: a site written there would become it)."""
    configured = Path(getattr(config, name))
    return [config.folder(name).resolve(), (configured if configured.is_absolute() else config.root / configured).resolve()]


def _write_file(path: str | Path, data: bytes) -> None:
    # (os.open and os.write: for a small file, a file object's layers cost as much as the writing)
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


_O_BINARY = getattr(os, "O_BINARY", 0)  # (Windows: no newline translation)
