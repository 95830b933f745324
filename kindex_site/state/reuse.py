"""`Reuse`, one per output folder: what a later build takes from the last. The builder's side, around a
build (standard library only, for a no-op build): `hold` or `held_by`, `recover`, `unchanged`,
`changed`, `save`. A build's side, a few questions in its order: `opened` (its span), `for_load`,
`for_ranking`, `for_plan`, `planned`, `outdated`, `commit`. Everything kept is keyed by exactly the
inputs it was made from, so a build that reuses is byte-identical to a clean one
(tests/test_incremental.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from . import files
from ..errors import KindexError, display
from ..listing import snapshot, snapshot_again
from ..publish_swap import recover, why_not_written

RUNS_ASIDE_MIN = 2_000  # runs: fewer are stored in less time than forking takes
RUNS_ASIDE_MAX = 250_000  # runs: more are stored by the build's own process (its memory is not copied)

# The runs cache is written again when more than this share of the runs were read anew (loaded).
RUNS_CACHE_STALE_SHARE = 1 / 40

# Beyond this share of outputs changed, a whole new folder swapped in is as quick and simpler.
INCREMENTAL_MAX_SHARE = 0.3

_UNSAVED = object()  # the stamp of a manifest committed but not written yet (commit with `resident`)


class Reuse:
    def __init__(self, out: Path, resident: bool = True):
        self.out = out
        self.resident = resident  # (a one-off build keeps nothing only a later build in this process would use)
        self._settings = ""  # this build's settings key (opened)
        self._inputs: dict[str, tuple[int, ...]] = {}  # this build's content files, as found before reading them
        self._last: files.Manifest | None = None  # the last build's manifest: it describes the site only if `describes`
        self._mine: tuple | None = None  # (its file's stamp, the Manifest) as this object last wrote it
        self._written_from: tuple | None = None  # (groups, other paths) of the plan that manifest lists
        self._paths: frozenset = frozenset()  # the output paths last checked for clashes (a resident builder's)
        self._lock = None  # the open lock file, while this process holds it
        self._found: tuple | None = None  # what `unchanged` found changed, for the build that follows
        self._inputs_of: str | None = None  # the content folder `_inputs` are of
        self._since: list[str] | None = None  # paths changed since the last build (`changed`); None: not known
        self._watched = False  # a watcher tells of every change (`changed`)
        self._built = False  # a build with this object has succeeded
        self._files: dict = {}  # content file → its validated runs (load.py's memo)
        self._restored: dict = {}  # the files restored from the runs cache, this build
        self._validated: dict | None = None  # the runs to store for the next command-line build, if they changed
        self._runs_aside = None  # workers.Aside: a one-off build's runs cache, written while it ranks and plans
        self._sources = None  # sources.SourceChecks: the source files checked
        self._definitions = None  # bundles.Definitions: the protocols and environments the kept runs share
        self._last_load = None  # loadstate.LoadState: the last clean load, to patch
        self._problems: dict = {}  # problem slug → its boards (leaderboard.py's memo)
        self._stored_rankings: dict = {}  # as the last command-line build stored them
        self._outputs: dict = {}  # problem slug → its planned outputs (planning.ProblemOutputs)
        self._stored_plans: dict = {}  # as the last command-line build stored them
        self._downloads = None  # the source files' outputs (planning.Downloads, a resident builder's)
        self._renderer: tuple | None = None  # (settings key, build._Renderer): compiled once per look
        self._rows = None  # records.StoredRows: a command-line build's rows of listing pages
        self._site_sizes: tuple = (None, None)  # (the manifest last committed, the sizes of the site it lists)
        self._highlights = None  # highlights.Highlights: source texts highlighted (a resident builder's, kept)
        self._reread = None  # runs' files read again for run pages (a resident builder's, kept)
        self._made: tuple = ()  # what a one-off build made, freed with this object (cli: at the process's end)

    # --- the builder's side, around a build --------------------------------------------------------

    def held_by(self) -> str | None:
        """Who holds the folder's lock (" (pid N)", or "" if it says not), or None when no one does."""
        try:
            import fcntl

            handle = open(files.path(self.out, "watch-lock"), encoding="utf-8")
        except (ImportError, OSError):  # no locks here, or no lock file: no resident builder
            return None
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                return _pid_said(handle)
            fcntl.flock(handle, fcntl.LOCK_UN)
        return None

    def hold(self) -> str | None:
        """Take the folder's lock for this process, for as long as it runs (two resident builders
        would build into one folder at once); when another holds it, who (as `held_by` says)."""
        try:
            import fcntl
        except ImportError:  # not a POSIX system: no lock
            return None
        path = files.path(self.out, "watch-lock")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(path, "a+", encoding="utf-8")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                with handle:
                    handle.seek(0)
                    return _pid_said(handle)
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")
            handle.flush()
        except OSError as e:
            raise KindexError(f"{display(path)}: cannot lock it: {e.strerror or e}") from None
        # A forked worker outliving a killed parent would keep the folder locked: only this process holds it.
        os.register_at_fork(after_in_child=handle.close)
        self._lock = handle
        return None

    def recover(self, clean: bool = False) -> list[str]:
        """Put right what a build killed in the folder left (publish_swap.recover), as notes; with
        `clean`, drop everything the last build left beside the folder: the next makes every file anew."""
        notes = recover(self.out)
        if clean:
            files.forget(self.out, runs=True)
            self._mine = self._written_from = None
        return notes

    def unchanged(self, config, environ) -> files.Manifest | None:
        """The last build's manifest when no input changed and its site is still in the folder (what
        was found, the build that follows at once takes)."""
        self._found = None
        mine = self._mine_now()
        # (its outputs, half of it, are read only when a build follows: up to date needs the rest)
        manifest, whole = (mine, lambda: mine) if mine is not None else files.read_manifest_head(self.out)
        if not files.describes(manifest, self.out):
            return None
        inputs = snapshot(config.folder("content_dir"))
        settings = files.settings_key(config, files.look_folders(config), environ)
        if inputs != manifest.inputs or settings != manifest.settings:
            self._found = (config, environ, settings, inputs, whole)
            return None
        return manifest

    def changed(self, paths: list[str] | None) -> None:
        """Paths changed (as a resident builder's watcher saw them; None: anything may have): the next
        build stats only those, when it knows of every change since the last."""
        self._watched = True
        if paths is None:
            self._since = None
        elif self._since is not None:
            self._since += paths

    def save(self) -> list[str]:
        """Write the manifest a resident builder's `commit` left in memory, if any; a warning if it
        cannot be (it stays in memory, for this object's next build and `save`)."""
        if self._mine is None or self._mine[0] is not _UNSAVED:
            return []
        manifest = self._mine[1]
        try:
            self._mine = (files.write_manifest(self.out, manifest), manifest)
        except OSError as e:
            return [f"cannot write the build's cache ({why_not_written(e)}): the site was built all the same; "
                    "a build after this one stops will make it all again"]
        return []

    # --- a build's side: 1. its span, 2. read, 3. rank -------------------------------------------

    @contextmanager
    def opened(self, config, environ) -> Iterator[list[str]]:
        """A build, from its start (what a killed build left is put right: notes, yielded) to its end,
        whether it succeeded or not: then work started aside is waited for or dropped, and the phases'
        modules hold nothing of it (what a resident builder keeps, this object does)."""
        from .. import highlight
        from ..runs import read_again_into

        try:
            yield self._open(config, environ)
        finally:
            if self._renderer is not None:
                self._renderer[1].compiled()  # (a build that failed early never asked for them)
            if self._runs_aside is not None:
                self._runs_aside.drop()  # (a build that failed stores no runs)
                self._runs_aside = None
            highlight.use(None)
            read_again_into(None)

    def _open(self, config, environ) -> list[str]:
        """This build's settings key, the last build's manifest, and the content files as they are
        before the build reads them (an edit meanwhile shows next time)."""
        from ..runs import read_again_into

        recovered = recover(self.out)
        # Run pages read documents again from their files: a resident builder keeps the last ones read.
        self._reread = read_again_into(self._reread if self.resident else None, self.resident)
        found, self._found = self._found, None
        since, self._since = self._since, ([] if self._watched else None)
        content = config.folder("content_dir")
        inputs_of, self._inputs_of = self._inputs_of, os.path.abspath(content)
        if found is not None and found[0] is config and found[1] is environ:  # (unchanged's, just found)
            self._settings, self._inputs = found[2], found[3]
            self._last = found[4]()
            return recovered
        self._settings = files.settings_key(config, files.look_folders(config), environ)
        mine = self._mine_now()
        self._last = mine if mine is not None else files.read_manifest(self.out)
        again = None
        if since is not None and inputs_of == self._inputs_of:
            again = snapshot_again(content, self._inputs, since)
        self._inputs = again if again is not None else snapshot(content)
        return recovered

    def for_load(self, content_dir: Path):
        """What load_content may take from the last build (load.Kept): unchanged files' runs (kept, or
        from the runs cache), the source files checked, the content's snapshot, the last clean load,
        the .json files read cleanly."""
        from ..bundles import Definitions
        from ..load import Kept
        from .loadstate import LoadState
        from .records import restore_files, runs_format
        from ..sources import SourceChecks

        first = not self._built
        if first or self._definitions.crowded:
            self._definitions = Definitions()  # (shared by the files kept and those read again)
            self._last_load = LoadState()
        if first:
            self._files = restore_files(files.read_runs(self.out, runs_format()), content_dir, self._definitions)
            self._sources = SourceChecks(files.read_sources(self.out))
            self._restored = dict(self._files)
        return Kept(self._files, self._inputs, self._sources, self._definitions,
                    self._last_load if self.resident else None,
                    frozenset(self._last.trusted) if self._last is not None else frozenset())

    def for_ranking(self, content):
        """What build_leaderboard may take (leaderboard.Kept), once `content` is loaded: each problem's
        boards as the last build in this process ranked them, and each problem's ranking as the last
        command-line build stored them."""
        from ..leaderboard import Kept, rankings_format

        self._loaded(content)
        self._stored_rankings = files.read_rankings(self.out, rankings_format()) if not self._built else {}
        # A one-off build keeps no problem's maps by run: the render workers would inherit them.
        return Kept(self._problems if self.resident else None, self._stored_rankings)

    def _loaded(self, content) -> None:
        """The runs to store for the next command-line build, if enough were read anew."""
        memo, validated = self._files, None
        if not self._built and (content.read or memo.keys() != content.digests.keys()):
            # Below RUNS_CACHE_STALE_SHARE of the runs read anew (or from files gone), reading those few
            # files again costs the next build less than rewriting the whole cache costs this one.
            restored = self._restored
            stale = sum(len(r.runs) for shown, r in memo.items()
                        if restored.get(shown) is not r or shown not in content.digests)
            if stale > RUNS_CACHE_STALE_SHARE * len(content.runs):
                validated = {shown: r._replace(index=None) for shown, r in memo.items()}
        self._restored, self._validated = {}, validated
        if not self.resident:
            self._files = {}
        else:
            for shown in memo.keys() - content.digests.keys():  # (files gone since: not kept for ever)
                del memo[shown]
        if validated is not None and not self.resident and RUNS_ASIDE_MIN <= len(content.runs) <= RUNS_ASIDE_MAX:
            # Written by a worker on another core while this process ranks and plans, put in place at
            # `commit`. Not for a resident builder (it may run threads), nor past RUNS_ASIDE_MAX (the
            # copy-on-write pages of a process touching every run would weigh too much).
            from .records import file_records, runs_format
            from ..workers import Aside

            entries = file_records(validated, content.digests, self._definitions)
            self._runs_aside = Aside.start(lambda go: files.write_runs(self.out, runs_format(), entries, put=go))

    # --- 4. plan, 5. compare ---------------------------------------------------------------------

    def for_plan(self, make):
        """What the plan may take (planning.Kept): the templates, compiled once per look (the settings
        key covers every template's bytes; `make(records.CompiledTemplates)` when the look is new,
        compiled aside when none are stored), with the rows of listing pages a command-line build
        stored; the settings key; each problem's outputs as this process last planned them and as the
        last command-line build stored them; a resident builder's downloads."""
        from ..planning import Kept
        from .records import CompiledTemplates, StoredRows, plans_format

        if self._renderer is None or self._renderer[0] != self._settings:
            try:
                compiled = CompiledTemplates(files.path(self.out, "templates"), files.code_stamp())
            except OSError:
                compiled = None  # (no folder to be had for it: compiled in memory)
            self._renderer = (self._settings, make(compiled))
            if not self.resident and not any(files.path(self.out, "templates").glob("*.cache")):
                self._renderer[1].compile_aside()
        renderer = self._renderer[1]
        # A resident builder keeps the rows with its problems' outputs instead.
        self._rows = renderer.rows = None if self.resident else StoredRows(self.out)
        self._stored_plans = {} if self.resident else files.read_plans(self.out, plans_format())
        return Kept(renderer, self._settings, self._outputs, self._stored_plans, self._downloads, self.resident)

    def planned(self, plan, check) -> None:
        """Every output is claimed: `check` (the clash check) is called unless its paths are the last
        build's, checked then (by this process, or the one that wrote the manifest); its problems'
        outputs (and a resident builder's downloads) are kept."""
        paths = plan.outputs.keys()
        if paths != self._paths and (self._last is None or self._last.outputs.keys() != paths):
            check()
            if self.resident:  # (a one-off build's would keep the plan's makers until its end)
                self._paths = paths
        self._outputs = plan.groups
        self._downloads = plan.downloads if self.resident else None
        if self._rows is not None:
            self._rows.keep({slug: g.made_from for slug, g in plan.groups.items()})

    def outdated(self, plan, content) -> files.Changes | None:
        """The outputs whose key is not the one the last build wrote, and those no longer made; None
        (all, into a new folder) when no manifest describes the site in the folder or more than
        INCREMENTAL_MAX_SHARE changed. A problem's outputs that are the very object last committed
        were written from the keys they hold. The writing's highlighted texts are made ready."""
        changes = self._changes(plan) if files.describes(self._last, self.out) else None
        if changes is not None and len(changes.changed) + len(changes.stale) > INCREMENTAL_MAX_SHARE * len(plan.outputs):
            changes = None
        self._before_write(plan, content, changes)
        return changes

    def _changes(self, plan) -> files.Changes:
        keys, was = plan.keys, self._last.outputs
        if self._written_from is not None and self._mine is not None and self._last is self._mine[1]:
            last_groups, last_others = self._written_from
            redone = [g for slug, g in plan.groups.items() if last_groups.get(slug) is not g]
            candidates = [p for g in redone for p in g.keys] + plan.others
            gone = [p for slug, g in last_groups.items() if plan.groups.get(slug) is not g for p in g.keys]
            return files.Changes(sorted({p for p in candidates if p not in was or was[p][0] != keys[p]}),
                                 sorted({p for p in gone + last_others if p in was and p not in keys}), was)
        return files.Changes(sorted(p for p, key in keys.items() if p not in was or was[p][0] != key),
                             sorted(p for p in was if p not in keys), was)

    def _before_write(self, plan, content, changes) -> None:
        """Pages showing a source file take its highlighted HTML from a store beside the manifest that
        keeps only the texts this content holds. A resident builder's first build makes every row,
        lexer and template it will need, even with nothing to write: its first rebuild after an edit
        is then as quick as the next; rows made in worker processes would be lost to it."""
        from .. import highlight
        from .highlights import Highlights

        if self._highlights is None or not self.resident:
            self._highlights = Highlights(files.path(self.out, "highlights"))
        if not content.sources or (changes is not None and not changes.changed):
            self._highlights.open(None, set())
        else:
            self._highlights.open(files.code_stamp(), {source.digest for source in content.sources.values()})
        highlight.use(self._highlights)
        if not self.resident:
            return
        first = not self._built
        if first and content.sources:
            highlight.prepare({(file.rel, getattr(run.facts, f"{kind}_source")[1])
                               for run in content.runs for kind, file in run.files.items()})
        if first or changes is None:
            for page in plan.listing:
                if callable(page.context):
                    page.values()
        if first:
            plan.renderer.load_all()

    # --- 6. record -------------------------------------------------------------------------------

    def commit(self, plan, content, lb, sizes, changes, warned) -> list[str]:
        """The site is in place (`sizes`: each file written's): describe it to the next build. The
        manifest lists every output's key and size and the build's warnings (said again by a no-op
        build: `warned(the site's publish.SiteSizes, highlights)` makes them); the runs, plans and
        rankings a command-line build starts from are stored when they changed. These are only
        caches: one that cannot be written is a warning, returned after the build's.

        A resident builder (which holds the folder's lock: no other process builds into it
        meanwhile) keeps the manifest in memory for its next build and writes it by `save`, once the
        rebuild has been reported. Until then the file is an older build's, whose marker is not the
        site's: a process killed before `save` leaves a full build, not a wrong one, to the next."""
        outputs, sizes_now, plans = self._written(plan, sizes, changes)
        warnings = warned(sizes_now, self._highlights)
        manifest = files.Manifest(
            settings=self._settings, inputs=self._inputs, outputs=outputs,
            trusted=sorted(d for shown, d in content.digests.items() if shown.endswith(".json")),
            summary={"pages": plan.page_count(), "runs": len(content.runs), "files": plan.files},
            warnings=warnings, notes=plan.notes, marker=files.site_identity(self.out))
        self._written_from = (dict(plan.groups), list(plan.others))
        problems = self._write_caches(manifest, content, lb, plans)
        self._site_sizes = (self._mine[1] if self._mine is not None else None, sizes_now) if self.resident \
            else (None, None)
        self._validated, self._stored_plans = None, {}
        if self._sources.changed:  # (only a cache: if it cannot be written, the next build reads them all)
            with suppress(OSError):
                files.write_sources(self.out, self._sources.records())
                self._sources.changed = False
        self._built = True
        if not self.resident:
            # Freed with this object at the process's end (cli.run skips the interpreter's teardown),
            # not one by one now.
            self._made = (content, lb, plan)
        return warnings + problems

    def _written(self, plan, sizes, changes) -> tuple:
        """Every output's key and size, for the manifest; the sizes of the site's files
        (publish.SiteSizes); the plans to store. The plan's keys and `sizes` are let go."""
        from .records import plans_format
        from ..publish import SiteSizes
        from ..workers import release_free_memory

        # What the next command-line build takes unchanged problems' outputs from, unless the last stored it.
        plans = None if self.resident or (self._stored_plans.keys() == plan.groups.keys()
                                           and all(g.plan is not None for g in plan.groups.values())) \
            else {slug: g.stored(plan.keys) for slug, g in plan.groups.items()}
        if self._rows is not None:
            self._rows.tidy({slug: g.made_from for slug, g in plan.groups.items()})
        # A resident builder's last sizes are brought up to date with the files rewritten or removed.
        kept = self._site_sizes if changes is not None and self._last is not None and \
            self._site_sizes[0] is self._last else None
        if kept is not None:
            last = self._last.outputs
            removed = [(p, last[p][1]) for p in (*changes.stale, *sizes) if p in last]
            sizes_now = kept[1].changed(removed, sizes.items())
        outputs = self._outputs_after(plan.keys, sizes, changes)
        # Their entries now hold them: the manifest is made without a second and third table of paths.
        sizes.clear()
        plan.keys = {}
        release_free_memory()  # (what the writing and the plan's makers held, before the caches are written)
        if kept is None:
            sizes_now = SiteSizes.of((path, made[1]) for path, made in outputs.items())
        return outputs, sizes_now, None if plans is None else (plans_format(), plans)

    def _outputs_after(self, keys: dict[str, str], sizes, changes: files.Changes | None) -> dict[str, tuple]:
        """Every output's key and size: the last manifest's list with `changes` applied (in place), or
        (a whole new site) in `keys` itself (a million-entry table less at the end of a big build)."""
        self._mine = None  # (the manifest it held is being changed)
        if changes is None:
            for p, size in sizes.items():  # (every output was written: each of `keys` has its size)
                keys[p] = (keys[p], size)
            return keys
        outputs = self._last.outputs
        for p in changes.stale:
            del outputs[p]
        for p, size in sizes.items():
            outputs[p] = (keys[p], size)
        return outputs

    def _write_caches(self, manifest: files.Manifest, content, lb, plans: tuple | None) -> list[str]:
        from .records import file_records, runs_format

        try:
            self._mine = None
            self._mine = (_UNSAVED, manifest) if self.resident else (files.write_manifest(self.out, manifest), manifest)
            aside, self._runs_aside = self._runs_aside, None
            if self._validated is not None and (aside is None or not aside.put()):  # (none aside, or it failed)
                files.write_runs(self.out, runs_format(), file_records(self._validated, content.digests, self._definitions))
            if plans is not None:
                files.write_plans(self.out, *plans)
            rankings = None if self.resident else self._rankings(lb)
            if rankings is not None:
                files.write_rankings(self.out, *rankings)
        except OSError as e:
            return [f"cannot write the build's cache ({why_not_written(e)}): the site was built all the same; "
                    "the next build will make it all again"]
        return []

    def _rankings(self, lb) -> tuple | None:
        """Each problem's ranking for the next command-line build, unless the last stored these same
        ones: those made again from the stored ones as they were, the others encoded one by one while
        written."""
        from ..leaderboard import ranking_bytes, rankings_format

        stored = self._stored_rankings
        if lb.restored.keys() == lb.boards.keys() == stored.keys():
            return None
        return rankings_format(), ((slug, lb.problem_keys[slug], lb.restored.get(slug) or ranking_bytes(boards, lb.workloads[slug]))
                                   for slug, boards in lb.boards.items())

    def _mine_now(self) -> files.Manifest | None:
        """The manifest this object wrote, if the file is still that one (no need to read it), or
        committed and has not written yet."""
        if self._mine is not None and self._mine[0] is _UNSAVED:
            return self._mine[1]
        stamp = files.manifest_stamp(self.out)
        if self._mine is not None and stamp is not None and self._mine[0] == stamp:
            return self._mine[1]
        return None


def _pid_said(lock) -> str:
    """Who holds a lock, as its file says: " (pid N)", or "" when it says not."""
    text = lock.read().strip()
    return f" (pid {text})" if text.isdigit() else ""
