"""`kindex-site serve`: a live preview that rebuilds on change and never serves a broken site.

The site is built by `build()` itself, with a memo of validated files kept across rebuilds, into a
private folder (`.kindex-serve/site` beside kindex.toml), never into the publishable output. That
folder is byte for byte what `kindex-site build` writes: the reload script and the error overlay are
added to HTML responses on the way out, and exist nowhere on disk.

Three kinds of thread:

- the main thread builds (one rebuild at a time; changes that arrive meanwhile fold into the next),
  so that Ctrl-C during a build is handled exactly as in `kindex-site build`;
- a daemon thread watches content/, templates/, static/ (watchfiles) and the config file;
- `ThreadingHTTPServer` answers requests in daemon threads, under the base path as GitHub Pages
  would: `x/` → `x/index.html`, `x` → 301 to `x/` for a folder, anything missing → `404.html`
  with status 404; anything leaving the folder (`..`, encoded slashes, backslashes, NUL, dotfiles,
  symlinks) → 404.

Pages poll `<base>__kindex/events` (a long poll, standard library only) and reload when the site
or its list of problems changes. `<base>__kindex/status` (and `/__kindex/status`) is the state as JSON.
"""

from __future__ import annotations

import errno
import gc
import html
import json
import os
import re
import secrets
import signal
import socket
import socketserver
import sys
import threading
import time
import traceback
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote

from .config import CONFIG_FILE, Config, load_config
from .errors import KindexError, display, plural, summarize

SERVE_DIR = ".kindex-serve"  # beside kindex.toml; holds site/ and the incremental manifest
INTERNAL = "__kindex/"  # not a possible page name (those start with a letter or digit)
MARKER = ".kindex-site"  # what build() writes into every folder it made (build.MARKER)

STEP_MS = 10  # a burst of file events ends after this long without another (an editor's save)
DEBOUNCE_MS = 1600  # ... or after this long at most
POLL_MS = 300  # how often the watcher looks at the config file and at which folders exist
LONG_POLL_S = 25.0  # an events request waits this long for a change before answering anyway
WAIT_FOR_BUILD_S = 120.0  # a request for a missing file waits for a running build, at most this long

TYPES = {
    ".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8", ".json": "application/json; charset=utf-8",
    ".svg": "image/svg+xml", ".xml": "application/xml", ".csv": "text/csv; charset=utf-8",
    ".txt": "text/plain; charset=utf-8", ".md": "text/plain; charset=utf-8", ".png": "image/png",
    ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
    ".ico": "image/x-icon", ".woff2": "font/woff2", ".woff": "font/woff", ".pdf": "application/pdf",
}

RELOAD_JS = """\
// kindex-site serve: reload this page when the site is rebuilt or its problems change.
(function () {
  "use strict";
  var script = document.currentScript;
  var version = script.getAttribute("data-version");
  var events = script.getAttribute("data-events");
  var overlay = document.getElementById("kindex-serve-errors");
  var hide = overlay && overlay.querySelector("button");
  if (hide) hide.addEventListener("click", function () { overlay.hidden = true; });
  var delay = 0;
  function poll() {
    fetch(events + "?since=" + encodeURIComponent(version), {cache: "no-store"})
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (state) {
        delay = 0;
        if (state.version !== version) location.reload();
        else poll();
      })
      .catch(function () {  // the server is restarting or gone: try again, less and less often
        delay = Math.min(delay ? delay * 2 : 500, 5000);
        setTimeout(poll, delay);
      });
  }
  poll();
})();
"""

OVERLAY_STYLE = (
    "position:fixed;z-index:2147483647;top:0;left:0;right:0;max-height:70vh;overflow:auto;margin:0;"
    "padding:1rem 1.25rem;background:#3b0a0a;color:#fff;font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,"
    "Consolas,monospace;box-shadow:0 4px 24px rgba(0,0,0,.5);text-align:left"
)


class Builder:
    """The state shared by the three kinds of thread, guarded by one condition variable."""

    def __init__(self, config_path: Path | None, overrides: dict, config: Config):
        self.config_path = config_path
        self.overrides = {k: v for k, v in overrides.items() if v is not None}
        self.out = (config.root / SERVE_DIR / "site").absolute()
        self.overrides["output_dir"] = str(self.out)
        self.config = config  # the last config that loaded: it says which folders to watch
        from .build import Memo

        self.memo = Memo()  # what rebuilds reuse: validated files, ranked problems, planned pages
        self.cond = threading.Condition()
        self.instance = secrets.token_hex(4)  # a restarted server's pages reload too
        self.generation = 0  # bumped whenever what a page shows may have changed
        self.builds = 0  # rebuilds finished, successful or not
        self.errors: list[str] = []
        self.building = True  # the first build is about to start
        self.pending: list[str] = []  # paths changed since the current or last rebuild began
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
        with self.cond:
            self.pending += paths
            self.requested = True
            self.cond.notify_all()

    def status(self) -> dict:
        with self.cond:
            return {
                "version": self.version, "build": self.builds, "building": self.building, "pending": self.requested,
                "watching": self.watching, "ok": not self.errors, "errors": [_problem(line) for line in self.errors],
                "base": self.base_path, "site": str(self.out), "last": self.last,
            }

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
        config = self.config
        folders: list[str] = []
        for name in ("content_dir", "templates_dir", "static_dir"):
            folder = Path(getattr(config, name))  # the project's own (not the bundled defaults)
            folder = (folder if folder.is_absolute() else config.root / folder).absolute()
            if folder.is_dir() and str(folder) not in folders:
                folders.append(str(folder))
        return tuple(folders), self.config_path or Path(CONFIG_FILE)

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
        self.rebuild(paths)
        return True

    def rebuild(self, paths: list[str], first: bool = False) -> None:
        from . import cache
        from .build import build

        started, clock = time.time(), time.perf_counter()
        with self.cond:
            self.building = True
        result = config = None
        try:
            try:
                config = load_config(self.config_path, self.overrides)
                self.config = config
                # A saved file goes straight to the build (which compares anyway); otherwise (the first
                # build, an editor's scratch file come and gone) ask the manifest first: nothing to do?
                saved = any(os.path.isfile(p) for p in paths)
                if not self.errors and not saved and cache.up_to_date(config, os.environ) is not None:
                    result = "unchanged"
                else:
                    result = build(config, memo=self.memo)
                    if first:
                        # What the first build made lives as long as the server (most of it in the
                        # memo): out of the cycle collector's sight, whose full passes over it would
                        # otherwise stall a later rebuild or request by most of a second on a big site.
                        gc.freeze()
            except KindexError as e:
                self._failed(e.problems, summarize(e), started, clock, paths)
            except Exception as e:  # a bug in kindex-site: say so, keep serving what there is
                traceback.print_exc()
                line = f"kindex-site: internal error: {type(e).__name__}: {e}"
                self._failed([line], "an internal error", started, clock, paths)
            else:
                self._built(result, config, started, clock, paths, first)
        finally:
            with self.cond:
                self.building = False
                self.cond.notify_all()

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
        keep = ("still serving the last good site" if self.has_site()
                else "nothing to serve until they are fixed")
        print(f"error: {summary}; {keep}", file=sys.stderr, flush=True)

    def _built(self, result, config: Config, started: float, clock: float, paths: list[str], first: bool) -> None:
        from . import cache

        seconds = time.perf_counter() - clock
        if result == "unchanged":
            manifest = cache.read_manifest(self.out)
            warnings, notes = (manifest.warnings, manifest.notes) if manifest else ([], [])
            changed, timings = 0, {}
            summary = manifest.summary if manifest else {"pages": 0, "runs": 0}
        else:
            warnings, notes, changed, timings = result.warnings, result.notes, result.changed, result.timings
            summary = {"pages": result.pages, "runs": result.runs}
        with self.cond:
            fixed = bool(self.errors)
            if changed or fixed or self.base_path != config.base_path:
                self.generation += 1
            self.errors = []
            self.base_path = config.base_path
            self.builds += 1
            self.last = {"result": "unchanged" if result == "unchanged" else "built", "started": started,
                         "finished": time.time(), "seconds": seconds, "changed": changed, "timings": timings,
                         "paths": paths[:20]}
            self.cond.notify_all()
        if warnings != self.shown_warnings:
            for w in warnings:
                print(f"warning: {w}", file=sys.stderr)
            self.shown_warnings = list(warnings)
        if first:
            for note in notes:
                print(f"note: {note}", file=sys.stderr)
            done = "Up to date:" if result == "unchanged" else f"Built in {seconds:.1f} s:"
            print(f"{done} {plural(summary['pages'], 'page')} from {plural(summary['runs'], 'run')} "
                  f"→ {display(self.out)}/", flush=True)
            return
        if result != "unchanged":  # (nothing is said about an editor's scratch file come and gone)
            again = "Fixed; rebuilt" if fixed else "Rebuilt"
            print(f"{again} in {seconds:.2f} s: {plural(changed, 'file')} changed{_changed_paths(paths)}",
                  flush=True)
            self._forget_deleted()

    def _forget_deleted(self) -> None:
        for shown in [k for k in self.memo.files if not os.path.exists(k)]:
            del self.memo.files[shown]

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


def _problem(line: str) -> dict:
    """A problem line `where: what` as {file, where, message, line}, for the status document."""
    where, sep, message = line.partition(": ")
    if not sep:
        where, message = "", line
    return {"file": _WHERE.match(where)["file"], "where": where, "message": message, "line": line}


# --- watching ------------------------------------------------------------------------------------


class _Filter:
    """watchfiles' default filter (editor backups, swap files, .git …), and no dotfiles: the build skips them."""

    def __init__(self, folders: tuple[str, ...]):
        import watchfiles

        self.default = watchfiles.DefaultFilter()
        self.folders = [Path(f) for f in folders]

    def __call__(self, change, path: str) -> bool:
        if not self.default(change, path):
            return False
        p = Path(path)
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
                iterator = watchfiles.watch(*folders, watch_filter=_Filter(folders), step=STEP_MS,
                                            debounce=DEBOUNCE_MS, stop_event=stop, rust_timeout=POLL_MS,
                                            yield_on_timeout=True, raise_interrupt=False)
            for changes in iterator:
                with builder.cond:
                    builder.watching = True
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


# --- HTTP ----------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # neither a slow reader nor a waiting long poll keeps the process alive

    def __init__(self, address: tuple[str, int], builder: Builder):
        self.builder = builder
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # without HTTPServer's reverse DNS look-up
        self.server_name, self.server_port = str(self.server_address[0]), self.server_address[1]

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return  # a browser that navigated away mid-answer
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server_version = "kindex-site-serve"
    server: _Server

    def log_message(self, format: str, *args) -> None:
        pass  # the terminal is for builds and problems

    def do_GET(self) -> None:
        self._answer(head=False)

    def do_HEAD(self) -> None:
        self._answer(head=True)

    def _answer(self, head: bool) -> None:
        builder = self.server.builder
        raw, _, query = self.path.partition("?")
        raw = raw.partition("#")[0]
        base = builder.base_path
        for prefix in (base + INTERNAL, "/" + INTERNAL):
            if raw.startswith(prefix):
                return self._internal(raw[len(prefix):], query, head)
        if not builder.has_site():
            builder.wait_for_build(WAIT_FOR_BUILD_S)  # the first build, or a folder being swapped in
            if not builder.has_site():
                return self._no_site(head)
        if base != "/" and raw == base[:-1]:
            return self._redirect(base + ("?" + query if query else ""), head)
        kind, found = ("missing", None)
        if raw.startswith(base):
            kind, found = resolve(builder.out, raw[len(base):])
            if kind == "missing" and (builder.building or builder.requested):
                builder.wait_for_build(WAIT_FOR_BUILD_S)  # it may be on its way in
                kind, found = resolve(builder.out, raw[len(base):])
        if kind == "redirect":
            return self._redirect(raw + "/" + ("?" + query if query else ""), head)
        if kind == "file":
            try:
                body = Path(found).read_bytes()
            except OSError:
                pass
            else:
                return self._send(200, body, _type(found), head)
        self._not_found(head)

    def _not_found(self, head: bool) -> None:
        page = self.server.builder.out / "404.html"
        try:
            body = page.read_bytes() if not page.is_symlink() else None
        except OSError:
            body = None
        if body is None:
            body = _plain_page("Not found", "<p>There is no page here.</p>")
        self._send(404, body, TYPES[".html"], head)

    def _no_site(self, head: bool) -> None:
        body = _plain_page("The site could not be built",
                           "<p>kindex-site serve has no site to show yet: fix the problems listed above, "
                           "and this page reloads by itself.</p>")
        self._send(503, body, TYPES[".html"], head)

    def _redirect(self, location: str, head: bool) -> None:
        self.send_response(301)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()

    def _internal(self, rest: str, query: str, head: bool) -> None:
        builder = self.server.builder
        if rest == "reload.js":
            return self._send(200, RELOAD_JS.encode(), TYPES[".js"], head)
        if rest in ("status", "events"):
            if rest == "events":
                since = parse_qs(query).get("since", [""])[0]
                builder.wait_for_change(since, LONG_POLL_S)
            body = json.dumps(builder.status(), indent=1, ensure_ascii=False).encode() + b"\n"
            return self._send(200, body, TYPES[".json"], head)
        self._send(404, b"not found\n", TYPES[".txt"], head)

    def _send(self, status: int, body: bytes, content_type: str, head: bool) -> None:
        if content_type.startswith("text/html"):
            body = inject(body, self.server.builder)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if not head:
            self.wfile.write(body)


def _type(path: str) -> str:
    return TYPES.get(os.path.splitext(path)[1].lower(), "application/octet-stream")


def _plain_page(title: str, body: str) -> bytes:
    return (f"<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>{html.escape(title)}"
            f"</title></head>\n<body>\n<h1>{html.escape(title)}</h1>\n{body}\n</body>\n</html>\n").encode()


_UNSAFE = re.compile(r"[\x00-\x1f\x7f\\]|%(?:2f|5c|00)", re.IGNORECASE)


def resolve(root: Path, rest: str) -> tuple[str, str | None]:
    """Where a URL path below the base leads in the site folder, as GitHub Pages would have it:
    ("file", path), ("redirect", None) when a folder was asked for without its slash, or
    ("missing", None). Nothing outside the folder is ever found: no `..` or `.`, no encoded slash
    or backslash, no NUL or control character, no dotfile, no symlink anywhere on the way.
    """
    if _UNSAFE.search(rest):
        return "missing", None
    try:
        decoded = unquote(rest, errors="strict")
    except UnicodeDecodeError:
        return "missing", None
    if _UNSAFE.search(decoded):
        return "missing", None
    trailing = decoded == "" or decoded.endswith("/")
    parts = decoded.split("/")[:-1] if trailing else decoded.split("/")
    if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        return "missing", None
    top = os.path.realpath(root)
    target = os.path.join(top, *parts)
    if os.path.realpath(target) != target:
        return "missing", None  # a symlink somewhere on the way (the build never writes one)
    if os.path.isdir(target):
        if not trailing:
            return "redirect", None
        target = os.path.join(target, "index.html")
    elif trailing:
        return "missing", None
    elif not os.path.isfile(target) and os.path.isfile(target + ".html"):
        target += ".html"  # Pages serves /about from about.html
    if os.path.isfile(target) and not os.path.islink(target):
        return "file", target
    return "missing", None


def inject(body: bytes, builder: Builder) -> bytes:
    """The page with the error overlay (when there are problems) and the reload script before </body>."""
    with builder.cond:
        errors, version, base = list(builder.errors), builder.version, builder.base_path
    snippet = ""
    if errors:
        items = "".join(
            f"<li><code style=\"color:#ffd2d2\">{html.escape(p['where'])}</code>"
            f"{': ' if p['where'] else ''}{html.escape(p['message'])}</li>\n"
            for p in map(_problem, errors))
        snippet += (
            f"<div id=\"kindex-serve-errors\" role=\"alert\" style=\"{OVERLAY_STYLE}\">\n"
            f"<p style=\"margin:0 0 .5rem;font-weight:bold\">kindex-site serve: the site could not be rebuilt "
            f"({plural(len(errors), 'problem')}); this is the last good build. "
            f"<button type=\"button\" style=\"float:right\" aria-label=\"Hide these problems\">×</button></p>\n"
            f"<ul style=\"margin:0;padding-left:1.25rem\">\n{items}</ul>\n</div>\n")
    snippet += (f"<script src=\"{html.escape(base + INTERNAL)}reload.js\" data-version=\"{html.escape(version)}\" "
                f"data-events=\"{html.escape(base + INTERNAL)}events\" defer></script>\n")
    at = body.lower().rfind(b"</body>")
    data = snippet.encode("utf-8")
    return body[:at] + data + body[at:] if at >= 0 else body + data


# --- the command ---------------------------------------------------------------------------------


def serve(config_path: Path | None, overrides: dict, bind: str = "127.0.0.1", port: int = 8000) -> int:
    """Build, serve and rebuild until Ctrl-C. Returns the exit status."""
    gc.enable()  # (cli.run turns the cycle collector off for one-shot commands; this one runs on)
    config = load_config(config_path, overrides)
    builder = Builder(config_path, overrides, config)
    _private_folder(builder.out.parent)
    lock = _hold(builder.out.parent)
    if isinstance(lock, str):
        print(f"error: another kindex-site serve{lock} is serving this project from "
              f"{display(builder.out.parent)}/; stop it first (Ctrl-C where it runs)", file=sys.stderr)
        return 1
    try:
        server = _Server((bind, port), builder)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            print(f"error: port {port} is already in use on {bind}; choose another with --port, "
                  f"e.g. --port {port + 1 if port < 65535 else 8000}", file=sys.stderr)
        else:
            print(f"error: cannot listen on {bind} port {port}: {e.strerror or e}", file=sys.stderr)
        return 1
    host, actual_port = server.server_address[:2]
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{actual_port}{builder.base_path}"

    stop = threading.Event()
    previous_term = signal.signal(signal.SIGTERM, partial(_as_interrupt, os.getpid()))
    http_thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                   name="kindex-serve-http", daemon=True)
    watcher = threading.Thread(target=watch, args=(builder, stop), name="kindex-serve-watch", daemon=True)
    try:
        http_thread.start()
        watcher.start()
        print(f"Building {display(builder.out)}/ …", flush=True)
        builder.rebuild([], first=True)
        folders, config_file = builder.watched()
        watched = ", ".join([display(Path(f)) + "/" for f in folders] + [display(config_file)])
        print(f"Serving {url} — watching {watched}; Ctrl-C stops", flush=True)
        builder.run_forever()
    except KeyboardInterrupt:
        pass
    finally:
        previous_int = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: no traceback
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            stop.set()
            builder.stop()
            if http_thread.is_alive():
                server.shutdown()
            server.server_close()
            watcher.join(timeout=2.0)
        finally:
            signal.signal(signal.SIGTERM, previous_term)
            signal.signal(signal.SIGINT, previous_int)
    print("Stopped.", flush=True)
    return 0


def _as_interrupt(server_pid: int, signum, frame) -> None:
    """SIGTERM stops the server as Ctrl-C does, and is held as Ctrl-C is while a build swaps files in."""
    if os.getpid() != server_pid:  # a build's forked worker, told to stop by its pool: stop as it would
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    holding = signal.getsignal(signal.SIGINT)
    if callable(holding) and holding is not signal.default_int_handler:
        holding(signal.SIGINT, frame)  # build's _sigint_held: it acts on it once the swap is done
    else:
        raise KeyboardInterrupt  # also when Ctrl-C was ignored from the start (a background job)


def _hold(folder: Path):
    """Hold .kindex-serve/ for this process (two servers would build into one folder at once): the
    open lock file, kept until the process ends; or, when another holds it, " (pid N)" or ""."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: no lock
        return None
    handle = open(folder / "lock", "a+", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        return f" (pid {holder})" if holder.isdigit() else ""
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def _private_folder(folder: Path) -> None:
    """.kindex-serve/, ignored by git whatever the project's own .gitignore says."""
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# kindex-site serve's private build; never published\n*\n", encoding="utf-8")
