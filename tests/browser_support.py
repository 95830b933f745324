"""What the browser tests share (tests/test_browser.py, tests/test_browser_axe.py, tests/test_columns.py):
Playwright driving Debian's Chromium against built sites served over HTTP.

Two sites, each built under a sub-path and served by the standard library's http.server on a free
loopback port, so every link, the script and the search index are fetched as a reader's browser
fetches them:

- the representative site (tests/test_frontend.py): small, every kind of page, for what the script
  does (sorting, filtering, search) and what works without it;
- the bundled site (this repository's content/: 4,863 runs of 253 problems on 5 hosts, names as long as
  "torch.compile (inductor, max-autotune-no-cudagraphs)").

Each is a module fixture, as are the browser and its tabs (`visit`: one for each set of options, kept
from test to test): a test file that uses them builds each site, starts the browser and opens each tab
once. Needs the `playwright` package (a test extra) and /usr/bin/chromium (Debian's `chromium`). Without
them the browser tests skip, unless KINDEX_REQUIRE_BROWSER=1 (set by `bash scripts/test`, which installs
both), where they fail instead. Playwright never downloads a browser here: it drives the system one.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import BUNDLED_BUILD, shared_build
from kindex_site.cli import main
from test_frontend import representative_content

ROOT = Path(__file__).parent.parent
CHROMIUM = Path(os.environ.get("KINDEX_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-quic"]
REQUIRED = os.environ.get("KINDEX_REQUIRE_BROWSER") == "1"
PAGES = {"home": "", "level": "levels/1/", "problem": "problems/level2-84-gemm-batchnorm-scaling-softmax/",
         "host": "hosts/gpu-a/", "about": "about/"}
# The bundled site: one page of each kind, with its longest names and most tables.
BUNDLED = {"home": "", "level": "levels/2/", "problem": "problems/level2-84-gemm-batchnorm-scaling-softmax/",
           "host": "hosts/kernelbench-h100-pcie-lambdalabs/",
           "implementation": "implementations/torch-compile-inductor-max-autotune-no-cudagraphs/",
           "run": "runs/kernelbench-leaderboard-gpt-o1-l2-84-gemm-batchnorm-scaling-softmax/",
           "about": "about/"}
# The bundled site's other page kinds: lists, index pages of folders, a protocol, search, the 404 page.
BUNDLED_MORE = {"search": "search/?q=softmax", "hosts": "hosts/", "implementations": "implementations/",
                "protocols": "protocols/", "protocol": "protocols/kernelbench-timing-v1/", "levels": "levels/",
                "problems": "problems/", "runs": "runs/", "not-found": "404.html",
                "host-level": "hosts/kernelbench-h100-pcie-lambdalabs/levels/1/page/2/",
                "host-levels": "hosts/kernelbench-h100-pcie-lambdalabs/levels/"}


def unavailable(reason: str):
    if REQUIRED:
        pytest.fail(f"{reason}; KINDEX_REQUIRE_BROWSER=1 makes this a failure (`bash scripts/test` installs it)")
    pytest.skip(f"{reason} (`bash scripts/test` installs it; or apt-get install chromium)")


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _serve(httpd: ThreadingHTTPServer) -> None:
    """Serve from a thread; shutdown() waits for its next poll (half a second by default, at each module's end)."""
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()


def _served(root: Path, build_args: list[str]):
    """Build into root/public/kindex (the build's arguments given) and serve root/public: the base URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root / "public")))
    base = f"http://127.0.0.1:{httpd.server_address[1]}/kindex/"
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert main(["build", "--out", str(root / "public" / "kindex"), "--base-url", base, *build_args]) == 0
    finally:
        os.chdir(cwd)
    _serve(httpd)
    return base, httpd


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Base URL of the representative site, built for and served under /kindex/ on a free loopback port."""
    root = tmp_path_factory.mktemp("served")
    for rel, data in representative_content().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    base, httpd = _served(root, [])  # no kindex.toml there: the defaults
    try:
        yield base
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def bundled(tmp_path_factory):
    """Base URL of the bundled site (this repository's content/ and kindex.toml), served under /kindex/:
    built once per session for every browser test (conftest.shared_build), each module serving it."""
    site = shared_build(tmp_path_factory, *BUNDLED_BUILD)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site.parent)))
    _serve(httpd)
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/kindex/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed (pip install -e '.[test]')")
    if not CHROMIUM.is_file():
        unavailable(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Visit:
    """A browser tab that records what a reader would notice going wrong: console errors, failed requests."""

    def __init__(self, browser, width: int = 1280, height: int = 900, color_scheme: str = "light", **options):
        self.context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=color_scheme,
                                           **options)
        self.page = self.context.new_page()
        self.viewport = {"width": width, "height": height}
        self.color_scheme = color_scheme
        self.problems: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", self._failed)
        self.page.on("response", lambda r: r.status >= 400 and self.problems.append(f"HTTP {r.status}: {r.url}"))

    def _failed(self, request) -> None:
        # Chromium fetches the favicon after the load event; going to the next page cancels it
        # (net::ERR_ABORTED). A cancelled request is the browser's doing, not a failure a reader
        # sees; a missing file still shows as an HTTP status of 400 or more.
        if request.failure != "net::ERR_ABORTED":
            self.problems.append(f"request failed: {request.url} {request.failure}")

    def reset(self) -> None:
        """The viewport and media its options say, whatever an earlier test set (the next goto loads in them)."""
        if self.page.viewport_size != self.viewport:
            self.page.set_viewport_size(self.viewport)
        self.page.emulate_media(media="null", color_scheme=self.color_scheme)

    def goto(self, url: str):
        self.page.goto(url, wait_until="load")
        return self.page

    def close(self):
        self.context.close()


@pytest.fixture(scope="module")
def tabs(browser):
    """A module's tabs, one for each set of options, kept from test to test: a new context costs a quarter
    of a second, and its first pages load and run their scripts cold (axe-core twice as slowly)."""
    kept: dict[tuple, Visit] = {}
    yield kept
    for v in kept.values():
        v.close()


@pytest.fixture
def visit(browser, tabs):
    """visit(width=…, height=…, color_scheme=…, **context options) → the module's tab with those options,
    reset to them (a test asking twice for the same options gets the same tab). The console errors and
    failed requests of the tabs a test used fail that test."""
    used: list[Visit] = []

    def open_(width: int = 1280, height: int = 900, color_scheme: str = "light", **options) -> Visit:
        key = (width, height, color_scheme, *sorted(options.items()))
        if key not in tabs:
            tabs[key] = Visit(browser, width, height, color_scheme, **options)
        v = tabs[key]
        if v not in used:
            v.reset()
            v.problems.clear()  # (a page of the last test reporting after it ended, as a closed tab would not)
            used.append(v)
        return v

    yield open_
    for v in used:
        v.page.evaluate("0")  # (a round trip: what the browser reported before it is in v.problems)
    problems = [p for v in used for p in v.problems]
    assert not problems, problems
