"""The resident rebuild loop shared by `kindex-site serve` and `kindex-site build --watch`.

`Builder` holds the output folder's `reuse.Reuse` (its lock, the answer to "anything changed?",
and what rebuilds reuse: validated files, ranked problems, planned pages, compiled templates):
each rebuild asks it `unchanged()`, else calls `build()`, and reports
from what those return, so a one-run change re-makes only what shows it. `watch` is a daemon
thread that asks it for a rebuild whenever content/, templates/, static/ or the config change.
The main thread builds (one rebuild at a time; changes that arrive meanwhile fold into the next),
so that Ctrl-C during a build is handled exactly as in `kindex-site build`.
"""

from __future__ import annotations

import gc
import os
import re
import secrets
import signal
import sys
import threading
import time
import traceback
from pathlib import Path

from . import build as site_build  # (site_build.build looked up at each call: a test may stand in for it)
from .state.reuse import Reuse
from .config import CONFIG_FILE, Config, load_config
from .errors import KindexError, display, plural, summarize, warning_lines
from .publish_swap import MARKER, sigterm_as_interrupt

STEP_MS = 10  # a burst of file events ends after this long without another (an editor's save)
DEBOUNCE_MS = 1600  # ... or after this long at most
POLL_MS = 300  # how often the watcher looks at the config file and at which folders exist


class Builder:
    """The state shared by the builder, the watcher and (in serve) the HTTP threads, guarded by one
    condition variable."""

    def __init__(self, config_path: Path | None, overrides: dict, config: Config, out: Path,
                 timings: bool = False, serving: bool = True):
        self.config_path = config_path
        self.overrides = {k: v for k, v in overrides.items() if v is not None}
        # Fixed for the builder's life (what it reuses and its lock are this folder's); the caller puts it in
        # the overrides too, as the settings spell it.
        self.out = out
        self.timings = timings  # print each rebuild's phases (build --watch --timings)
        self.serving = serving  # (what an error message says stays: a served site, or a folder)
        self.config = config  # the last config that loaded: it says which folders to watch
        # The folder's lock, what its last build left, and what rebuilds reuse: validated files,
        # ranked problems, planned pages, compiled templates.
        self.reuse = Reuse(out)
        self.cond = threading.Condition()
        self.instance = secrets.token_hex(4)  # a restarted server's pages reload too
        self.generation = 0  # bumped whenever what a page shows may have changed
        self.builds = 0  # rebuilds finished, successful or not
        self.errors: list[str] = []
        self.building = True  # the first build is about to start
        self.pending: list[str] = []  # paths changed since the current or last rebuild began
        self.rescan = False  # ... and things changed that the paths do not tell (folders came or went)
        self.requested = False
        self.watching = False
        self.stopping = False
        self.base_path = config.base_path  # of the site being served (the last good build)
        self.last: dict = {}
        self.shown_warnings: list[str] | None = None

    # --- used by the watcher and the HTTP threads -------------------------------------------

    @property
    def version(self) -> str:
        return f"{self.instance}-{self.generation}"

    def request(self, paths: list[str]) -> None:
        """A rebuild for the paths changed; for anything that may have changed when none are given."""
        with self.cond:
            self.pending += paths
            self.rescan = self.rescan or not paths
            self.requested = True
            self.cond.notify_all()

    def status(self) -> dict:
        with self.cond:
            return {
                "version": self.version, "build": self.builds, "building": self.building, "pending": self.requested,
                "watching": self.watching, "ok": not self.errors, "errors": [problem(line) for line in self.errors],
                "base": self.base_path, "site": str(self.out), "last": self.last,
            }

    def open(self, clean: bool = False) -> str | None:
        """Take the output folder for this builder (its lock), put right what a build killed there
        left (and say so), and with `clean` forget what the last build left beside it. When another
        process holds the folder, who (" (pid N)" or ""), and nothing done."""
        held = self.reuse.hold()
        if held is not None:
            return held
        for note in self.reuse.recover(clean):
            print(f"note: {note}", file=sys.stderr, flush=True)
        return None

    def has_site(self) -> bool:
        return (self.out / MARKER).is_file()

    def wait_for_build(self, timeout: float) -> None:
        """Until no rebuild is running or asked for (a file may be on its way into the site)."""
        with self.cond:
            self.cond.wait_for(lambda: not (self.building or self.requested) or self.stopping, timeout)

    def wait_for_change(self, since: str, timeout: float) -> None:
        with self.cond:
            self.cond.wait_for(lambda: self.version != since or self.stopping, timeout)

    def watched(self) -> tuple[tuple[str, ...], Path]:
        """The folders to watch that exist, and the config file (watched by polling its stat)."""
        folders: list[str] = []
        for name in ("content_dir", "templates_dir", "static_dir"):
            folder = self.project_folder(name)
            if folder.is_dir() and str(folder) not in folders:
                folders.append(str(folder))
        return tuple(folders), self.config_path or Path(CONFIG_FILE)

    def project_folder(self, name: str) -> Path:
        """The project's own folder the last config names (not the bundled defaults), absolute."""
        folder = Path(getattr(self.config, name))
        return (folder if folder.is_absolute() else self.config.root / folder).absolute()

    # --- the main thread ---------------------------------------------------------------------

    def run_forever(self) -> None:
        while True:
            self.next_rebuild()

    def next_rebuild(self, timeout: float | None = None) -> bool:
        """Wait for a change, then rebuild once for everything that changed since the last one began."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.cond:
            while not self.requested:
                if deadline is not None and time.monotonic() >= deadline:
                    return False
                self.cond.wait(0.5)  # with a timeout, so that Ctrl-C is seen at once
            self.requested = False
            paths, self.pending = self.pending, []
            rescan, self.rescan = self.rescan, False
        self.rebuild(paths, rescan=rescan)
        return True

    def rebuild(self, paths: list[str], first: bool = False, rescan: bool = False) -> None:
        """Rebuild for the `paths` changed (with `rescan`, or the `first` build: for anything)."""
        started, clock = time.time(), time.perf_counter()
        with self.cond:
            self.building = True
        # The watcher names every file changed: the build need stat only those again.
        self.reuse.changed(None if first or rescan else paths)
        try:
            try:
                config = load_config(self.config_path, self.overrides)
                self.config = config
                result = self._build(config, paths, first)
            except KindexError as e:
                self._failed(e.problems, summarize(e), started, clock, paths)
            except Exception as e:  # a bug in kindex-site: say so, keep serving what there is
                traceback.print_exc()
                line = f"kindex-site: internal error: {type(e).__name__}: {e}"
                self._failed([line], "an internal error", started, clock, paths)
            else:
                self._built(result, config, started, clock, paths, first)
                # The site is in place and said to be: now the manifest that describes it to the
                # next build (kept in memory meanwhile: Reuse.save).
                for w in self.reuse.save():
                    print(f"warning: {w}", file=sys.stderr)
        finally:
            with self.cond:
                self.building = False
                self.cond.notify_all()

    def _build(self, config: Config, paths: list[str], first: bool) -> site_build.BuildResult:
        # A saved file goes straight to the build (which compares anyway); otherwise (an editor's
        # scratch file come and gone) ask the state first: nothing to do? (The first build always
        # runs: what it keeps makes the next ones quick.)
        saved = any(os.path.isfile(p) for p in paths)
        if not first and not self.errors and not saved:
            last = self.reuse.unchanged(config, os.environ)
            if last is not None:
                return site_build.BuildResult.unchanged(last, self.out)
        result = site_build.build(config, self.reuse)
        if first:
            # What the first build made lives as long as the server (most of it kept for reuse): out of
            # the cycle collector's sight, whose full passes over it would otherwise stall a later
            # rebuild or request by most of a second on a big site.
            gc.freeze()
        return result

    def _failed(self, problems: list[str], summary: str, started: float, clock: float, paths: list[str]) -> None:
        seconds = time.perf_counter() - clock
        with self.cond:
            if problems != self.errors:
                self.generation += 1  # the overlay changes
            self.errors = list(problems)
            self.builds += 1
            self.last = {"result": "failed", "started": started, "finished": time.time(), "seconds": seconds,
                         "changed": 0, "timings": {}, "paths": paths[:20]}
            self.cond.notify_all()
        for line in problems:
            print(line, file=sys.stderr)
        if self.serving:
            keep = "still serving the last good site" if self.has_site() else "nothing to serve until they are fixed"
        else:
            keep = ("the last good site stays in place" if self.has_site() else "no site until they are fixed")
            keep += "; watching for changes"
        print(f"error: {summary}; {keep}", file=sys.stderr, flush=True)

    def _built(self, result: site_build.BuildResult, config: Config, started: float, clock: float, paths: list[str],
               first: bool) -> None:
        seconds = time.perf_counter() - clock
        warnings, notes, changed, timings = result.warnings, result.notes, result.changed, result.timings
        with self.cond:
            fixed = bool(self.errors)
            if changed or fixed or self.base_path != config.base_path:
                self.generation += 1
            self.errors = []
            self.base_path = config.base_path
            self.builds += 1
            self.last = {"result": "built" if result.built else "unchanged", "started": started,
                         "finished": time.time(), "seconds": seconds, "changed": changed, "timings": timings,
                         "paths": paths[:20]}
            self.cond.notify_all()
        if warnings != self.shown_warnings:
            for line in warning_lines(warnings):
                print(line, file=sys.stderr)
            self.shown_warnings = list(warnings)
        if self.timings:
            for phase, took in timings.items():
                print(f"{took:8.3f} s  {phase}", file=sys.stderr)
        if first:
            for note in notes:
                print(f"note: {note}", file=sys.stderr)
            done = "Up to date:" if not result.built or not changed else f"Built in {seconds:.1f} s:"
            print(f"{done} {plural(result.pages, 'page')} from {plural(result.runs, 'run')} "
                  f"→ {display(self.out)}/", flush=True)
            return
        if result.built:  # (nothing is said about an editor's scratch file come and gone)
            again = "Fixed; rebuilt" if fixed else "Rebuilt"
            print(f"{again} in {seconds:.2f} s: {plural(changed, 'file')} changed{_changed_paths(paths)}",
                  flush=True)

    def stop(self) -> None:
        with self.cond:
            self.stopping = True
            self.cond.notify_all()


def _changed_paths(paths: list[str]) -> str:
    unique = sorted({display(Path(p)) for p in paths})
    if not unique:
        return ""
    more = f" and {plural(len(unique) - 1, 'more file')}" if len(unique) > 1 else ""
    return f" ({unique[0]}{more})"


_WHERE = re.compile(r"^(?P<file>.*?)(?:\[\d+\]|:\d+)?$")


def problem(line: str) -> dict:
    """A problem line `where: what` as {file, where, message, line}, for the status document."""
    where, sep, message = line.partition(": ")
    if not sep:
        where, message = "", line
    return {"file": _WHERE.match(where)["file"], "where": where, "message": message, "line": line}


# --- watching ------------------------------------------------------------------------------------


class _Filter:
    """No dotfiles (the build skips them); outside the content folder, watchfiles' default filter
    too (editor backups, swap files, __pycache__ …). Whatever else the build reads is seen: a
    rebuild stats again only the content files named here (Reuse.changed)."""

    def __init__(self, folders: tuple[str, ...], content: Path):
        import watchfiles

        self.default = watchfiles.DefaultFilter()
        self.folders = [Path(f) for f in folders]
        self.content = content

    def __call__(self, change, path: str) -> bool:
        p = Path(path)
        if not p.is_relative_to(self.content) and not self.default(change, path):
            return False
        for folder in self.folders:
            if p.is_relative_to(folder):
                return not any(part.startswith(".") for part in p.relative_to(folder).parts)
        return True


def _stamp(path: Path):
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def watch(builder: Builder, stop: threading.Event) -> None:
    """Request a rebuild on every change; restart when the set of folders to watch changes."""
    import watchfiles

    folders, config_file = builder.watched()
    stamp = _stamp(config_file)
    while not stop.is_set():
        try:
            if not folders:  # nothing for watchfiles (no content folder yet): poll the config file
                stop.wait(POLL_MS / 1000)
                changes: set = set()
                iterator = iter([changes])
            else:
                seen = _Filter(folders, builder.project_folder("content_dir"))
                iterator = watchfiles.watch(*folders, watch_filter=seen, step=STEP_MS,
                                            debounce=DEBOUNCE_MS, stop_event=stop, rust_timeout=POLL_MS,
                                            yield_on_timeout=True, raise_interrupt=False)
            for changes in iterator:
                with builder.cond:
                    builder.watching = True
                    builder.cond.notify_all()
                paths = sorted(path for _, path in changes)
                now = _stamp(config_file)
                if now != stamp:
                    stamp = now
                    paths.append(str(config_file))
                if paths:
                    builder.request(paths)
                if stop.is_set():
                    return
                again, config_file = builder.watched()
                if again != folders:  # a folder appeared or went, or kindex.toml names others
                    folders = again
                    builder.request([])  # what was in the new folders is news to the site
                    break
        except Exception as e:  # a folder vanished under the watcher: look again shortly
            print(f"warning: watching for changes: {e}; trying again", file=sys.stderr, flush=True)
            stop.wait(1.0)
            folders, config_file = builder.watched()


def watch_build(config_path: Path | None, overrides: dict, clean: bool = False, timings: bool = False) -> int:
    """`kindex-site build --watch`: build into the output folder, then rebuild on every change until
    Ctrl-C. A rebuild keeps what the last one made in memory, so a one-run change takes a
    fraction of a command-line build. Returns the exit status."""
    gc.enable()  # (cli.run turns the cycle collector off for one-shot commands; this one runs on)
    config = load_config(config_path, overrides)
    out = config.folder("output_dir").absolute()
    site_build.refuse_unsafe_output(out, config)  # (before the lock beside it is made)
    # Pinned as the settings spell it (an edit of kindex.toml's output_dir takes a restart), so
    # the settings key is a command-line build's and the first build finds its site up to date.
    overrides = {**overrides, "output_dir": config.output_dir}
    builder = Builder(config_path, overrides, config, out, timings=timings, serving=False)
    held = builder.open(clean)
    if held is not None:
        print(f"error: another kindex-site build --watch{held} is building into {display(out)}/; "
              "stop it first (Ctrl-C where it runs)", file=sys.stderr)
        return 1
    run_until_stopped(builder, lambda watched: print(f"Watching {watched}; Ctrl-C stops", flush=True))
    return 0


def run_until_stopped(builder: Builder, announce, stopping=lambda: None) -> None:
    """Start the watcher, build once, `announce` what is watched, then rebuild on every change
    until Ctrl-C or SIGTERM (a build they stop is stopped as `kindex-site build` is: the site as it
    was, or the new one once committed); `stopping` runs as it stops (serve's HTTP server). Ends
    with "Stopped."."""
    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(builder, stop), name="kindex-watch", daemon=True)
    with sigterm_as_interrupt():
        try:
            watcher.start()
            builder.rebuild([], first=True)
            folders, config_file = builder.watched()
            with builder.cond:  # (an edit saved once it is announced must not be missed)
                builder.cond.wait_for(lambda: builder.watching or not folders, timeout=10)
            announce(", ".join([display(Path(f)) + "/" for f in folders] + [display(config_file)]))
            builder.run_forever()
        except KeyboardInterrupt:
            pass
        finally:
            previous_int = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: no traceback
            previous_term = signal.signal(signal.SIGTERM, signal.SIG_IGN)
            try:
                stop.set()
                builder.stop()
                stopping()
                watcher.join(timeout=2.0)
            finally:
                signal.signal(signal.SIGTERM, previous_term)
                signal.signal(signal.SIGINT, previous_int)
    print("Stopped.", flush=True)
