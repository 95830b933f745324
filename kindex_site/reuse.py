"""What a later build reuses, behind one object: `Reuse`.

A build asks it, phase by phase, what it may take from the last build (`for_load`, `for_ranking`,
`renderer`, `problem_outputs`), then which outputs are outdated (`outdated`), and at its end to
commit what the site now is (`written`, `commit`). The phases never see how it keeps things:

- on disk, beside the output folder (cache.py's files in `.kindex-cache/`): the manifest, the runs
  the last command-line build validated, each problem's ranking and planned outputs, the rows of
  listing pages, the source files checked, compiled templates, highlighted source texts, and the
  lock of the resident builder;
- in memory, for a resident builder (`build --watch`, `serve`: `resident=True`, one object kept
  across rebuilds): each file's runs and the last clean load, each problem's boards, planned
  outputs and rows, the source files' downloads, the compiled templates, the last manifest.

The rule that makes all of it safe: everything kept is keyed by exactly the inputs it was made
from, so a build that reuses is byte-identical to a clean one (tests/test_incremental.py).

Around a build, `held_by`, `hold`, `recover`, `forget` and `unchanged` use the standard library
only: a no-op command-line build answers before the heavy imports.
"""

from __future__ import annotations

from pathlib import Path

from . import cache

RUNS_ASIDE_MIN = 2_000  # runs: fewer are stored in less time than forking takes
RUNS_ASIDE_MAX = 250_000  # runs: more are stored by the build's own process (its memory is not copied)

# The runs cache is written again when more than this share of the runs were read anew (for_load).
RUNS_CACHE_STALE_SHARE = 1 / 40

# Beyond this share of outputs changed, a whole new folder swapped in is as quick and simpler.
INCREMENTAL_MAX_SHARE = 0.3

_last_build_objects: list = []  # what the last one-off build made (see `commit`)


class Reuse:
    """One output folder's reuse: what its last build left (on disk) and, for a resident builder,
    what its last build made (in memory)."""

    def __init__(self, out: Path, resident: bool = True):
        self.out = out
        # A one-off build keeps nothing only a later build in the same process would use.
        self.resident = resident
        self._state = cache.BuildState(out)
        self._built = False  # a build with this object has succeeded
        self._files: dict = {}  # content file → its validated runs (load.py's memo)
        self._restored: dict = {}  # the files restored from the runs cache, this build
        self._validated: dict | None = None  # the runs to store for the next command-line build, if they changed
        self._runs_aside = None  # workers.Aside: a one-off build's runs cache, written while it ranks and plans
        self._sources = None  # load.SourceChecks: the source files checked
        self._definitions = None  # load.Definitions: the protocols and environments the kept runs share
        self._last_load = None  # load.LoadState: the last clean load, to patch
        self._problems: dict = {}  # problem slug → its boards (leaderboard.py's memo)
        self._stored_rankings: dict = {}  # as the last command-line build stored them
        self._outputs: dict = {}  # problem slug → its planned outputs (build._ProblemOutputs)
        self._stored_plans: dict = {}
        self._downloads = None  # the source files' outputs (build._Downloads)
        self._renderer: tuple | None = None  # (settings key, build._Renderer): compiled once per look
        self._rows = None  # cache.StoredRows: a command-line build's rows of listing pages
        self._site_sizes: tuple = (None, None)  # (the manifest last committed, the sizes of the site it lists)

    # --- around a build (standard library only) --------------------------------------------------

    def held_by(self) -> str | None:
        """Who holds the folder (a resident builder: " (pid N)" or ""), or None when no one does."""
        return self._state.held_by()

    def hold(self) -> str | None:
        """Take the folder for this process while it runs; when another holds it, who (as `held_by`)."""
        return self._state.hold()

    def recover(self) -> list[str]:
        """Put right what a build killed in the folder left; what was done, as notes."""
        return self._state.recover()

    def forget(self) -> None:
        """Drop everything kept: the next build makes every file anew."""
        self._state.forget()

    def unchanged(self, config, environ):
        """The last build's manifest when no input changed since and its site is in the folder, else None."""
        return self._state.unchanged(config, environ)

    def changed(self, paths: list[str] | None) -> None:
        """The paths a watcher saw change (None: anything may have): the next build stats only those."""
        self._state.changed(paths)

    def save(self) -> list[str]:
        """Write what a resident builder's `commit` kept in memory (warnings if it cannot be written)."""
        return self._state.save()

    # --- 1. read ---------------------------------------------------------------------------------

    def open(self, config, environ) -> list[str]:
        """Start a build: what a killed build left is put right (notes returned), then this build's
        settings, inputs and the last manifest are taken."""
        recovered = self._state.recover()
        self._state.open(config, environ)
        return recovered

    @property
    def trusted(self) -> frozenset[str]:
        """The digests of the .json files the last build read cleanly."""
        return self._state.trusted

    @property
    def settings(self) -> str:
        """This build's settings key (kindex.toml, templates, static files, the package's code)."""
        return self._state.settings

    def for_load(self, content_dir: Path):
        """What load_content may take from the last build: unchanged files' runs (kept, or from the
        runs cache), the source files checked, the content's snapshot, the last clean load."""
        from .load import Definitions, Kept, LoadState, SourceChecks, restore_files, runs_format

        first = not self._built
        if first or self._definitions.crowded:
            self._definitions = Definitions()  # (shared by the files kept and those read again)
            self._last_load = LoadState()
        if first:
            self._files = restore_files(self._state.stored_runs(runs_format()), content_dir, self._definitions)
            self._sources = SourceChecks(cache.read_sources(self.out))
            self._restored = dict(self._files)
        return Kept(self._files, self._state.inputs, self._sources, self._definitions,
                    self._last_load if self.resident else None)

    def loaded(self, content) -> None:
        """The load succeeded: which runs to store for the next command-line build (when enough were
        read anew); what a one-off build no longer needs goes."""
        files, validated = self._files, None
        if not self._built and (content.read or files.keys() != content.digests.keys()):
            # Rewriting the runs cache costs about 2 µs for each run it holds; reading a run again, 60–90
            # µs (parsed, its bytes compared with the cache's). Below RUNS_CACHE_STALE_SHARE of the runs
            # read anew (or from files gone), the next build reads those few files again instead.
            restored = self._restored
            stale = sum(len(r.runs) for shown, r in files.items()
                        if restored.get(shown) is not r or shown not in content.digests)
            if stale > RUNS_CACHE_STALE_SHARE * len(content.runs):
                validated = {shown: r._replace(index=None) for shown, r in files.items()}
        self._restored = {}
        self._validated = validated
        if not self.resident:
            self._files = {}
        else:
            for shown in files.keys() - content.digests.keys():  # (files gone since: not kept for ever)
                del files[shown]
        if validated is not None and not self.resident and RUNS_ASIDE_MIN <= len(content.runs) <= RUNS_ASIDE_MAX:
            # Written by a process on the other core, which idles while this one ranks and plans; put
            # in place at `commit`, where the build would write it. Not for a resident builder (it may
            # run threads), nor where the copy-on-write pages of a process touching every run would
            # weigh too much (RUNS_ASIDE_MAX).
            from .load import file_records, runs_format
            from .workers import Aside

            entries = file_records(validated, content.digests, self._definitions)
            self._runs_aside = Aside.start(lambda go: cache.write_runs(self.out, runs_format(), entries, put=go))

    # --- 2. rank ---------------------------------------------------------------------------------

    def for_ranking(self):
        """What build_leaderboard may take: each problem's boards as the last build in this process
        ranked them (resident), and each problem's ranking as the last command-line build stored it."""
        from .leaderboard import Kept, rankings_format

        self._stored_rankings = self._state.stored_rankings(rankings_format()) if not self._built else {}
        # A one-off build keeps no problem's maps by run: at a million runs they weigh over 100 MB, and
        # the render workers would inherit them.
        return Kept(self._problems if self.resident else None, self._stored_rankings)

    # --- 3. plan ---------------------------------------------------------------------------------

    def renderer(self, make):
        """The templates, compiled once per look (the settings key covers every template's bytes):
        `make(folder of compiled templates)` when the look is new. A one-off build's are compiled
        aside, by a worker, while it plans, when none are stored yet."""
        settings = self._state.settings
        if self._renderer is None or self._renderer[0] != settings:
            self._renderer = (settings, make(self._state.templates))
            if not self.resident and not any(self._state.templates.glob("*.cache")):
                self._renderer[1].compile_aside()
        renderer = self._renderer[1]
        # A resident builder keeps the rows of listing pages in memory (build._Plan.row); a command-line
        # build takes those of unchanged problems from the last builds' and stores those it renders.
        self._rows = renderer.rows = None if self.resident else cache.StoredRows(self.out)
        return renderer

    def problem_outputs(self) -> tuple[dict, dict]:
        """Each problem's planned outputs as this process last planned them, and as the last
        command-line build stored them (build._planned reads those)."""
        from .build import plans_format

        self._stored_plans = {} if self.resident else self._state.stored_plans(plans_format())
        return self._outputs, self._stored_plans

    @property
    def downloads(self):
        """The source files' outputs, as the last build in this process planned them."""
        return self._downloads

    def planned(self, plan) -> None:
        """The plan is made: its problems' outputs (and a resident builder's downloads) are kept."""
        self._outputs = plan.groups
        self._downloads = plan.downloads if self.resident else None
        if self._rows is not None:
            self._rows.keep({slug: g.made_from for slug, g in plan.groups.items()})

    def check_paths(self, paths, check) -> None:
        """Call `check` (the clash check) unless `paths` are the last build's, checked then."""
        self._state.check_paths(paths, check)

    # --- 4. compare ------------------------------------------------------------------------------

    def outdated(self, plan):
        """The outputs to write and delete (cache.Changes), or None: all of them, into a new folder."""
        changes = self._state.outdated(plan.keys, plan.groups, plan.others)
        if changes is not None and len(changes.changed) + len(changes.stale) > INCREMENTAL_MAX_SHARE * len(plan.outputs):
            return None  # a whole new folder, swapped in, is then as quick and simpler
        return changes

    def before_write(self, plan, content, changes) -> None:
        """Pages showing a source file take its highlighted HTML from a store beside the manifest that
        keeps only the texts this content holds. A resident builder's first build makes every row,
        lexer and template it will need, even with nothing to write: its first rebuild after an edit
        is then as quick as the next; rows made in worker processes would be lost to it."""
        from . import highlight

        if not content.sources or (changes is not None and not changes.changed):
            highlight.keep_in(None)
        else:
            keep = {source.digest for source in content.sources.values()}
            highlight.keep_in(highlight.Store(self.highlights, cache.code_stamp(), keep))
        if not self.resident:
            return
        first = not self._built
        if first and content.sources:  # (compiling a lexer's rules is a tenth of a second)
            highlight.prepare({(file.rel, getattr(run.facts, f"{kind}_source")[1])
                               for run in content.runs for kind, file in run.files.items()})
        if first or changes is None:
            for page in plan.listing:
                if callable(page.context):
                    page.values()
        if first:
            plan.renderer.load_all()

    @property
    def highlights(self) -> Path:
        """The folder of highlighted source texts (highlight.Store)."""
        return cache.highlights_path(self.out)

    # --- 6. record -------------------------------------------------------------------------------

    def written(self, plan, sizes, changes):
        """The site is in place: every output's key and size, for the manifest; returns the sizes of
        the site's files (publish.SiteSizes). The plan's keys and the sizes are let go."""
        from .publish import SiteSizes
        from .workers import release_free_memory

        state = self._state
        from .build import plans_format

        plans = plan.plans_to_store()
        self._plans = None if plans is None else (plans_format(), plans)
        if self._rows is not None:
            self._rows.tidy({slug: g.made_from for slug, g in plan.groups.items()})
        # A resident builder's last sizes, for the manifest it wrote, are brought up to date with the
        # files this build rewrote or removed, instead of passing over every file.
        kept = self._site_sizes if changes is not None and state.last is not None and \
            self._site_sizes[0] is state.last else None
        if kept is not None:
            last = state.last.outputs
            removed = [(p, last[p][1]) for p in (*changes.stale, *sizes) if p in last]
            sizes_now = kept[1].changed(removed, sizes.items())
        self._manifest_outputs = state.outputs_after(plan.keys, sizes, changes)
        # Their entries now hold them: a big site's manifest is made without a second and third table of paths.
        sizes.clear()
        plan.keys = {}
        release_free_memory()  # (what the writing and the plan's makers held, before the caches are written)
        if kept is None:
            sizes_now = SiteSizes.of((path, made[1]) for path, made in self._manifest_outputs.items())
        self._sizes_now = sizes_now
        return sizes_now

    def commit(self, plan, content, lb, warnings: list[str]) -> list[str]:
        """Describe the site now in the folder to the next build: the manifest (with the build's
        `warnings`, said again by a no-op build), and the runs, plans and rankings a command-line
        build starts from when they changed. Returns warnings about caches that could not be written
        (the site is committed already: they are only caches)."""
        state = self._state
        runs = None
        if self._validated is not None:
            aside, self._runs_aside = self._runs_aside, None
            if aside is None or not aside.put():  # (no process wrote them aside, or it failed)
                from .load import file_records, runs_format

                runs = (runs_format(), file_records(self._validated, content.digests, self._definitions))
        problems = state.commit(
            self._manifest_outputs,
            trusted=sorted(d for shown, d in content.digests.items() if shown.endswith(".json")),
            summary={"pages": plan.page_count(), "runs": len(content.runs), "files": plan.files},
            warnings=warnings, notes=plan.notes, written_from=(plan.groups, plan.others),
            runs=runs, plans=self._plans, rankings=None if self.resident else self._rankings(lb),
            defer=self.resident)
        self._site_sizes = (state.written(), self._sizes_now) if self.resident else (None, None)
        self._manifest_outputs = self._sizes_now = self._plans = self._validated = None
        if self._sources.changed:  # (only a cache: if it cannot be written, the next build reads them all)
            try:
                cache.write_sources(self.out, self._sources.records())
                self._sources.changed = False
            except OSError:
                pass
        self._built = True
        if not self.resident:
            # A one-off build is followed by the process's end (cli.run skips the interpreter's
            # teardown): freeing a big site's millions of objects one by one would cost a tenth of a
            # one-run rebuild. They are dropped when the next build in this process starts.
            _last_build_objects[:] = [content, lb, plan, self]
        return problems

    def _rankings(self, lb):
        """Each problem's ranking for the next command-line build, unless the last stored these same
        ones: those made again from the stored ones as they were, the others encoded one by one while
        written."""
        from .leaderboard import ranking_bytes, rankings_format

        stored = self._stored_rankings
        if lb.restored.keys() == lb.boards.keys() == stored.keys():
            return None
        return rankings_format(), ((slug, lb.problem_keys[slug], lb.restored.get(slug) or ranking_bytes(boards, lb.workloads[slug]))
                                   for slug, boards in lb.boards.items())

    def ended(self) -> None:
        """After a build, whether it succeeded or not: work started aside is waited for or dropped,
        and the files read again are kept (resident) or let go."""
        from .load import keep_reread_files

        if self._renderer is not None:
            self._renderer[1].compiled()  # (a build that failed early never asked for them)
        if self._runs_aside is not None:
            self._runs_aside.drop()  # (a build that failed stores no runs)
            self._runs_aside = None
        keep_reread_files(self.resident)

    @staticmethod
    def starting() -> None:
        """Before a build: what the last one-off build in this process kept goes."""
        _last_build_objects.clear()
