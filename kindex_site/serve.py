"""`kindex-site serve`: a live preview that rebuilds on change and never serves a broken site (docs/serve.md).

`build()` itself (kept across rebuilds by watch.py) writes the site into `.kindex-serve/site`, byte for
byte what `kindex-site build` writes; the reload script and the error overlay are added to HTML
responses on the way out. Slow clients and requests not addressed to it: docs/security.md.
"""

from __future__ import annotations

import errno
import gc
import html
import io
import ipaddress
import json
import os
import re
import socket
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote

from .config import load_config
from .errors import display, plural
from .watch import Builder, run_until_stopped

SERVE_DIR = ".kindex-serve"  # beside kindex.toml; holds site/ and the incremental manifest
INTERNAL = "__kindex/"  # not a possible page name (those start with a letter or digit)
LONG_POLL_S = 25.0  # an events request waits this long for a change before answering anyway
WAIT_FOR_BUILD_S = 120.0  # a request for a missing file waits for a running build, at most this long
REQUEST_QUEUE = 1024  # connections not yet accepted (listen backlog; the kernel caps it at somaxconn)
MAX_HANDLERS = 512  # requests answered at once, a thread each (long polls included); more wait in the queue
HEAD_TIMEOUT_S = 10.0  # a connection's request line and headers must all arrive within this long
SEND_TIMEOUT_S = 30.0  # a client must take each SEND_CHUNK of an answer within this long
SEND_CHUNK = 256 * 1024
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")  # always answered to (with the port)

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


# --- HTTP ----------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # neither a slow reader nor a waiting long poll keeps the process alive
    request_queue_size = REQUEST_QUEUE

    def __init__(self, address: tuple[str, int], builder: Builder, root: Path | None = None):
        self.builder = builder
        self.root = root or Path.cwd()  # the project folder: the status's paths are relative to it
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.slots = threading.BoundedSemaphore(MAX_HANDLERS)
        self.closing = False
        super().__init__(address, _Handler)
        self.hosts = Hosts(address[0], self.server_address[1], self.server_address[0])

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # without HTTPServer's reverse DNS look-up
        self.server_name, self.server_port = str(self.server_address[0]), self.server_address[1]

    def process_request(self, request, client_address) -> None:
        while not self.slots.acquire(timeout=0.2):  # every handler busy: this one waits its turn
            if self.closing:
                self.shutdown_request(request)
                return
        try:
            super().process_request(request, client_address)  # its thread releases the slot
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def shutdown(self) -> None:
        self.closing = True
        super().shutdown()

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return  # a browser that navigated away mid-answer
        super().handle_error(request, client_address)


class _HeadReader(io.RawIOBase):
    """A connection's socket read against one deadline for the whole request head (against slow-loris)."""

    def __init__(self, sock: socket.socket, seconds: float):
        self.sock = sock
        self.deadline = time.monotonic() + seconds

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request head took too long")
        self.sock.settimeout(left)
        return self.sock.recv_into(buffer)


class _Handler(BaseHTTPRequestHandler):
    server_version = "kindex-site-serve"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # (the socket's own reader: replaced by one with a deadline)
        self.rfile = io.BufferedReader(_HeadReader(self.connection, HEAD_TIMEOUT_S))

    def parse_request(self) -> bool:
        if not super().parse_request():  # (the headers are read by now)
            return False
        self.connection.settimeout(SEND_TIMEOUT_S)
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1 or not self.server.hosts.allows(hosts[0]):
            body = (f"kindex-site serve answers only requests addressed to {self.server.hosts.shown()}; "
                    f"this one named another host, and is refused.\n").encode()
            self._send(403, body, TYPES[".txt"], self.command == "HEAD")
            return False
        return True

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
            body = json.dumps(public_status(builder, self.server.root), indent=1,
                              ensure_ascii=False).encode() + b"\n"
            return self._send(200, body, TYPES[".json"], head)
        self._send(404, b"not found\n", TYPES[".txt"], head)

    def _send(self, status: int, body: bytes, content_type: str, head: bool) -> None:
        if content_type.startswith("text/html"):
            body = inject(body, self.server.builder, self.server.root)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if not head:
            view = memoryview(body)
            for at in range(0, len(body), SEND_CHUNK):  # each within SEND_TIMEOUT_S
                self.wfile.write(view[at:at + SEND_CHUNK])


class Hosts:
    """The `Host` headers the server answers: localhost, 127.0.0.1, [::1] and the bound address, each
    with its port; bound to every address, also any IP address and this machine's name (a
    DNS-rebinding page names the attacker's own domain)."""

    def __init__(self, bind: str, port: int, bound: str = ""):
        self.port = port
        bind_name = _host_name(bind)
        self.every_address = bind_name in ("", "0.0.0.0", "[::]")
        self.names = dict.fromkeys(LOOPBACK_HOSTS)
        for name in (bind_name, _host_name(bound)):
            if name and not self.every_address:
                self.names[name] = None
        if self.every_address:
            machine = socket.gethostname().lower()
            if machine:
                self.names.update(dict.fromkeys((machine, machine + ".local")))

    def allows(self, header: str) -> bool:
        found = _HOST.fullmatch(header.strip())
        if not found:
            return False
        name, port = _host_name(found["name"]), int(found["port"] or 80)
        if name is None or port != self.port:
            return False
        return name in self.names or (self.every_address and _is_ip(name))

    def shown(self) -> str:
        port = "" if self.port == 80 else f":{self.port}"
        names = [name + port for name in self.names]
        if self.every_address:
            names.append("any IP address of this machine" + port)
        return ", ".join(names[:-1]) + " or " + names[-1]


_HOST = re.compile(r"(?P<name>\[[0-9A-Fa-f:.]+\]|[^\s:\[\]/@]+)(?::(?P<port>[0-9]{1,5}))?")


def _host_name(text: str) -> str | None:
    """A host as compared: lowercase, an IP address in its short form, an IPv6 one in brackets;
    None when it is not a host."""
    text = text.strip().lower()
    bracketed = text.startswith("[") and text.endswith("]")
    if bracketed or ":" in text:
        try:
            return f"[{ipaddress.IPv6Address(text[1:-1] if bracketed else text).compressed}]"
        except ValueError:
            return None
    try:
        return str(ipaddress.IPv4Address(text))
    except ValueError:
        return text


def _is_ip(name: str) -> bool:
    if name.startswith("["):
        return True  # (_host_name made it: a valid IPv6 address)
    try:
        ipaddress.IPv4Address(name)
    except ValueError:
        return False
    return True


def public_status(builder: Builder, root: Path) -> dict:
    """The builder's state as `/__kindex/status` and the overlay show it, never an absolute path."""
    status = builder.status()
    roots = tuple(dict.fromkeys((str(root), os.path.realpath(root))))
    status["site"] = _unrooted(status["site"], roots)
    if status["last"].get("paths"):
        status["last"] = {**status["last"], "paths": [_unrooted(p, roots) for p in status["last"]["paths"]]}
    status["errors"] = [{key: _unrooted(value, roots) if isinstance(value, str) else value
                         for key, value in error.items()} for error in status["errors"]]
    return status


_PATH_START = r"(?:^|(?<=[\s'\"(\[=]))"  # where a path may begin in a line
_ABSOLUTE = re.compile(_PATH_START + r"/[^\s'\"()\[\]:,;]*")


def _unrooted(text: str, roots: tuple[str, ...]) -> str:
    """`text` with each absolute path in it relative to the project folder (`roots`), one in the home
    folder as `~/…`; a word like a URL path whose first folder does not exist stays as it is."""
    for root in roots:  # (first, so that a project folder with spaces in its name goes too)
        text = re.sub(_PATH_START + re.escape(root.rstrip("/") + "/"), "", text)
        text = re.sub(_PATH_START + re.escape(root) + r"(?=$|[\s'\"()\[\]:,;])", ".", text)

    def relative(found: re.Match) -> str:
        path = found[0]
        first = path.split("/")[1]
        if not first or not os.path.lexists("/" + first):
            return path
        normal = os.path.normpath(path)
        for root in roots:
            if normal == root:
                return "."
        home = os.path.expanduser("~")
        if home not in ("", "/") and (normal + "/").startswith(home.rstrip("/") + "/"):
            return "~" + normal[len(home.rstrip("/")):]
        return os.path.relpath(normal, roots[0])

    return _ABSOLUTE.sub(relative, text)


def _type(path: str) -> str:
    return TYPES.get(os.path.splitext(path)[1].lower(), "application/octet-stream")


def _plain_page(title: str, body: str) -> bytes:
    return (f"<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>{html.escape(title)}"
            f"</title></head>\n<body>\n<h1>{html.escape(title)}</h1>\n{body}\n</body>\n</html>\n").encode()


_UNSAFE = re.compile(r"[\x00-\x1f\x7f\\]|%(?:2f|5c|00)", re.IGNORECASE)


def resolve(root: Path, rest: str) -> tuple[str, str | None]:
    """Where a URL path below the base leads in the site folder, as GitHub Pages would have it:
    ("file", path), ("redirect", None) for a folder without its slash, or ("missing", None). Nothing
    outside the folder is ever found (no `..`, encoded slash, control character, dotfile or symlink)."""
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


def inject(body: bytes, builder: Builder, root: Path) -> bytes:
    """The page with the error overlay (when there are problems) and the reload script before </body>."""
    status = public_status(builder, root)
    errors, version, base = status["errors"], status["version"], status["base"]
    snippet = ""
    if errors:
        items = "".join(
            f"<li><code style=\"color:#ffd2d2\">{html.escape(p['where'])}</code>"
            f"{': ' if p['where'] else ''}{html.escape(p['message'])}</li>\n"
            for p in errors)
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
    out = (config.root / SERVE_DIR / "site").absolute()
    builder = Builder(config_path, {**overrides, "output_dir": str(out)}, config, out)
    _private_folder(out.parent)
    held = builder.open()
    if held is not None:
        print(f"error: another kindex-site serve{held} is serving this project from "
              f"{display(out.parent)}/; stop it first (Ctrl-C where it runs)", file=sys.stderr)
        return 1
    try:
        server = _Server((bind, port), builder, config.root.absolute())
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
    if server.hosts.every_address:
        print(f"note: listening on every address: answering requests addressed to {server.hosts.shown()}; "
              f"other host names are refused", file=sys.stderr)

    http_thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                   name="kindex-serve-http", daemon=True)

    def stop_serving() -> None:
        if http_thread.is_alive():
            server.shutdown()
        server.server_close()

    http_thread.start()
    print(f"Building {display(builder.out)}/ …", flush=True)
    run_until_stopped(builder, lambda watched: print(f"Serving {url} — watching {watched}; Ctrl-C stops", flush=True),
                      stop_serving)
    return 0


def _private_folder(folder: Path) -> None:
    """.kindex-serve/, ignored by git whatever the project's own .gitignore says."""
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# kindex-site serve's private build; never published\n*\n", encoding="utf-8")
