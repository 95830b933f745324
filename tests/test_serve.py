"""`kindex-site serve` as a user runs it: a real server in a subprocess on a free port, read over HTTP."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import SEED, bundle, cli, seed_problem_run
from kindex_site.config import bundled

SEED_RUN = SEED["run"]["metadata"]["name"]
RUN_PAGE = f"/kindex/runs/{SEED_RUN}/"
PROBLEM = "/kindex/problems/level2-84-gemm-batchnorm-scaling-softmax/"
OVERLAY = 'id="kindex-serve-errors"'
HANG_S = 120  # how long a wait lasts before it is a hang: only ever reached when something is wrong


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write(root: Path, rel: str, data) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")
    return path


def make_project(root: Path) -> Path:
    """A small site with its own templates and static files (so edits elsewhere in the checkout don't matter)."""
    write(root, "content/seed.json", SEED)
    write(root, "content/more.json", [seed_problem_run("gpu-b", "PyTorch eager", 2_000_000),
                                      seed_problem_run("gpu-b", "Triton kernel", 1_500_000)])
    write(root, "content/pages/about.md", "# About\n\nHow to read it.\n")
    shutil.copytree(bundled("templates"), root / "templates", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    shutil.copytree(bundled("static"), root / "static", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    write(root, "kindex.toml", 'title = "Served"\nbase_url = "https://owner.github.io/kindex/"\n')
    return root


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


class Served:
    """`python -m kindex_site serve` in `root`, on a free port; stop() ends it (and kill, whatever happens)."""

    def __init__(self, root: Path, *args: str, port: int | None = None, cwd: Path | None = None):
        self.root = root
        self.port = port or free_port()
        self.out_path, self.err_path = root / "serve.out", root / "serve.err"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kindex_site", "serve", "--port", str(self.port), *args],
                cwd=cwd or root, stdout=out, stderr=err, env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def request(self, path: str, method: str = "GET") -> tuple[int, dict, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HANG_S)
        try:
            conn.putrequest(method, path, skip_host=False, skip_accept_encoding=True)
            conn.endheaders()
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()

    def get(self, path: str) -> tuple[int, str]:
        status, _, body = self.request(path)
        return status, body.decode("utf-8")

    def status(self) -> dict:
        return json.loads(self.request("/__kindex/status")[2])

    def wait_until(self, what, timeout: float = HANG_S, message: str = ""):
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                pytest.fail(f"serve exited with {self.proc.returncode}:\n{self.output()}")
            try:
                value = what()
            except OSError:  # not listening yet
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                pytest.fail(f"still waiting for {message or what} after {timeout:.0f} s (a hang):\n{self.output()}")
            time.sleep(0.02)

    def ready(self) -> "Served":
        # (its announcement first: the status asked for all through the first build would slow that build)
        self.wait_until(lambda: "Serving " in self.out_path.read_text(errors="replace"), message="the announcement")
        self.wait_until(lambda: (s := self.status())["build"] >= 1 and s["watching"] and not s["building"],
                        message="the first build")
        return self

    def output(self) -> str:
        return self.out_path.read_text(errors="replace") + self.err_path.read_text(errors="replace")

    def stop(self, sig=signal.SIGINT) -> tuple[int, str, str]:
        return (stop_process(self.proc, sig), self.out_path.read_text(errors="replace"),
                self.err_path.read_text(errors="replace"))

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def serving():
    """Start servers with serving(root, *args); every one is stopped (or killed) after the test."""
    started: list[Served] = []

    def start(root: Path, *args: str, cwd: Path | None = None) -> Served:
        server = Served(root, *args, cwd=cwd)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
        server.kill()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """One server for the tests that only read: the small project under /kindex/."""
    root = make_project(tmp_path_factory.mktemp("served"))
    server = Served(root)
    try:
        yield server.ready()
    finally:
        server.stop()
        server.kill()


def stop_process(proc: subprocess.Popen, sig=signal.SIGINT) -> int:
    """Send `sig` (Ctrl-C by default) to a serve or watch process, and its exit status; killed (so -9) if it
    is still running after HANG_S."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=HANG_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def kindex_build(root: Path, *args: str) -> None:
    """A one-off `kindex-site build` in `root`, made in this process (the server is the process under test)."""
    code, _, err = cli("build", *args, cwd=root)
    assert code == 0, err


# --- what is served, and where --------------------------------------------------------------------


def test_pages_are_served_under_the_base_path_as_github_pages_would(site):
    status, html = site.get("/kindex/")
    assert status == 200 and "<title>Served</title>" in html
    status, html = site.get(RUN_PAGE)
    assert status == 200 and "4.94" in html
    status, html = site.get("/kindex/about/")
    assert status == 200 and "How to read it." in html
    status, headers, body = site.request("/kindex/static/style.css")
    assert status == 200 and headers["content-type"].startswith("text/css")
    assert body == (site.root / "static" / "style.css").read_bytes()
    status, headers, body = site.request("/kindex/api/v1/index.json")
    assert status == 200 and headers["content-type"].startswith("application/json")
    assert json.loads(body)["runs"] == 3
    status, headers, body = site.request("/kindex/sitemap.xml")  # an absolute base_url: its path is served
    assert status == 200 and headers["content-type"] == "application/xml"
    assert b"<loc>https://owner.github.io/kindex/about/</loc>" in body
    # A folder without its slash is redirected, as Pages does; the base itself too.
    for asked, location in [("/kindex", "/kindex/"), ("/kindex/hosts", "/kindex/hosts/"),
                            ("/kindex/about?x=1", "/kindex/about/?x=1")]:
        status, headers, _ = site.request(asked)
        assert (status, headers["location"]) == (301, location), asked
    # Anything missing, or outside the base path, is the site's own 404 page with status 404.
    not_found = (site.root / ".kindex-serve" / "site" / "404.html").read_text(encoding="utf-8")
    assert "noindex" in not_found
    for missing in ["/", "/index.html", "/hosts/", "/kindex/nope/", "/kindex/nope", "/kindex/hosts/index.htm",
                    "/kindex/about/index.html/", "/kindexx/"]:
        status, html = site.get(missing)
        assert status == 404, missing
        assert html.startswith(not_found.split("</body>")[0]), missing
    status, headers, body = site.request("/kindex/", method="HEAD")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 0


@pytest.mark.parametrize("path", [
    "/kindex/../kindex.toml", "/kindex/%2e%2e/kindex.toml", "/kindex/%2E%2E/content/seed.json",
    "/kindex/static/..%2f..%2fkindex.toml", "/kindex/static%2fstyle.css", "/kindex/..\\kindex.toml",
    "/kindex/static/%5c..%5c..%5ckindex.toml", "/kindex/static/style.css%00.html", "/kindex/%00",
    "/kindex//etc/passwd", "/kindex/.kindex-site", "/kindex/./index.html", "/kindex/%252e%252e/kindex.toml",
    "/kindex/%ff/", "/kindex/linked/secret.txt", "/kindex/secret-link.txt", "/kindex/static/../../kindex.toml",
    "http://127.0.0.1:{port}/kindex/../kindex.toml",
])
def test_nothing_outside_the_site_folder_is_ever_served(site, path):
    path = path.replace("{port}", str(site.port))
    served = site.root / ".kindex-serve" / "site"
    secret = site.root / "secret.txt"
    secret.write_text("secret")
    (served / "secret-link.txt").unlink(missing_ok=True)
    (served / "secret-link.txt").symlink_to(secret)
    if not (served / "linked").is_symlink():
        (served / "linked").symlink_to(site.root)
    try:
        status, headers, body = site.request(path)
        assert status == 404, (path, status)
        assert b"secret" not in body and b"base_url = " not in body
    finally:
        (served / "secret-link.txt").unlink()
        (served / "linked").unlink()


def test_reload_script_is_only_in_responses_and_the_folder_equals_a_build(site, tmp_path):
    status, headers, body = site.request(RUN_PAGE)
    page = body.decode()
    version = site.status()["version"]
    assert (f'<script src="/kindex/__kindex/reload.js" data-version="{version}" '
            f'data-events="/kindex/__kindex/events" defer></script>\n</body>') in page
    assert OVERLAY not in page
    status, headers, script = site.request("/kindex/__kindex/reload.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert b"location.reload()" in script
    assert b"__kindex" not in site.request("/kindex/api/v1/index.json")[2]  # only HTML is touched
    served = snapshot(site.root / ".kindex-serve" / "site")
    assert not [p for p, data in served.items() if b"__kindex" in data or b"kindex-serve" in data]
    kindex_build(site.root, "--out", "built")
    assert served == snapshot(site.root / "built")
    injected = page[page.index('<script src="/kindex/__kindex/'):page.index("</body>")]
    assert page.replace(injected, "").encode() == served[f"runs/{SEED_RUN}/index.html"]


def test_status_is_json_at_the_root_and_under_the_base(site):
    for path in ("/__kindex/status", "/kindex/__kindex/status"):
        status, headers, body = site.request(path)
        assert status == 200 and headers["content-type"].startswith("application/json")
        state = json.loads(body)
        assert state["ok"] is True and state["errors"] == [] and state["base"] == "/kindex/"
        assert state["build"] >= 1 and state["version"]
    assert site.request("/kindex/__kindex/nothing")[0] == 404


def strings(value) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [value] if isinstance(value, str) else []


def test_the_status_names_paths_relative_to_the_project_never_absolute(tmp_path, serving):
    """Started from another folder (so that the terminal names files by their absolute paths), the
    status and the overlay still name them relative to the project folder."""
    root = make_project(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write(root, "content/seed.json", bundle({"run.spec.status": 7}))
    server = serving(root, "--config", str(root / "kindex.toml"), "--base-url", "/", cwd=elsewhere)
    state = server.wait_until(lambda: (s := server.status())["build"] >= 1 and s["watching"] and s,
                              message="the first build")
    assert str(root / "content") in server.err_path.read_text()  # the terminal, as the build says it
    assert not state["ok"] and state["errors"][0]["file"] == "content/seed.json"
    assert state["errors"][0]["line"].startswith("content/seed.json: run.spec.status: ")
    assert state["site"] == ".kindex-serve/site"
    status, html = server.get("/")
    assert status == 503 and "<code style=\"color:#ffd2d2\">content/seed.json</code>" in html
    assert str(tmp_path) not in html
    write(root, "content/seed.json", SEED)
    state = server.wait_until(lambda: (s := server.status())["ok"] and s["build"] >= 2 and s, message="the fix")
    assert state["last"]["paths"] == ["content/seed.json"]
    for shown in (state, server.status()):
        text = json.dumps(shown)
        assert str(tmp_path) not in text and str(Path.home()) not in text
        assert [s for s in strings(shown) if s.startswith("/")] == [shown["base"]]


# --- under load, and only for this machine ---------------------------------------------------------


def test_200_connections_at_once_are_all_queued_and_answered(site):
    """A listen queue of 5 left a quarter of such a burst unanswered for a minute. With the server
    stopped (SIGSTOP), 200 connections are each accepted into its listen queue and each sends its
    request; once it runs again, every one gets its answer."""
    asked = {"/kindex/": 200, RUN_PAGE: 200, "/kindex/static/style.css": 200, "/kindex/api/v1/index.json": 200,
             "/__kindex/status": 200, "/kindex/nope/": 404}
    paths = [list(asked)[i % len(asked)] for i in range(200)]
    opened: list[socket.socket] = []
    site.proc.send_signal(signal.SIGSTOP)
    try:
        for path in paths:  # (a connection the queue has no room for waits for its SYN to be answered: a hang)
            try:
                opened.append(socket.create_connection(("127.0.0.1", site.port), timeout=HANG_S))
            except TimeoutError:
                pytest.fail(f"the listen queue of a stopped server held only {len(opened)} connections")
            opened[-1].sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{site.port}\r\n"
                               f"Connection: close\r\n\r\n".encode())
    finally:
        site.proc.send_signal(signal.SIGCONT)

    def answer(conn: socket.socket) -> int:
        with conn:
            received = b""
            while chunk := conn.recv(65536):
                received += chunk
            return int(received.split(b" ", 2)[1])

    with ThreadPoolExecutor(16) as pool:
        assert list(pool.map(answer, opened)) == [asked[path] for path in paths]


def ask_as(server: Served, path: str, hosts: list[str]) -> tuple[int, bytes]:
    """GET `path` with these Host headers (none, one or several)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=HANG_S)
    try:
        conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        for host in hosts:
            conn.putheader("Host", host)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_requests_naming_another_host_are_refused(site):
    """A page of evil.example whose name is re-pointed at 127.0.0.1 (DNS rebinding) reads nothing."""
    port = site.port
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", f"LocalHost:{port}"):
        status, body = ask_as(site, "/__kindex/status", [host])
        assert status == 200 and json.loads(body)["ok"], host
    assert ask_as(site, "/kindex/", [f"localhost:{port}"])[0] == 200
    for hosts in (["evil.example"], [f"evil.example:{port}"], [f"localhost.evil.example:{port}"],
                  [f"127.0.0.1.nip.io:{port}"], [f"127.0.0.1:{port + 1}"], [f"192.168.1.2:{port}"],
                  ["localhost"], [f"localhost:{port}@evil.example"], [], [f"localhost:{port}", "evil.example"]):
        for path in ("/__kindex/status", "/kindex/", RUN_PAGE, "/kindex/__kindex/events?since=x", "/kindex/nope/"):
            status, body = ask_as(site, path, hosts)
            assert status == 403, (hosts, path)
            assert body == (f"kindex-site serve answers only requests addressed to localhost:{port}, "
                            f"127.0.0.1:{port} or [::1]:{port}; this one named another host, and is "
                            f"refused.\n").encode(), (hosts, path)


def test_bound_to_every_address_it_answers_to_ip_addresses_and_this_machines_name():
    from kindex_site.serve import Hosts

    machine = socket.gethostname().lower()
    every = Hosts("0.0.0.0", 8000, "0.0.0.0")
    for host in ("192.168.1.20:8000", "[fe80::1]:8000", "localhost:8000", "127.0.0.1:8000", f"{machine}:8000",
                 f"{machine}.local:8000"):
        assert every.allows(host), host
    for host in ("evil.example:8000", "192.168.1.20:8001", "192.168.1.20", "192.168.1.20.nip.io:8000",
                 f"{machine}.evil.example:8000", "[::1:8000"):
        assert not every.allows(host), host
    assert Hosts("::", 8000, "::").allows("[2001:db8::5]:8000")
    one = Hosts("192.168.1.20", 8000, "192.168.1.20")
    assert one.allows("192.168.1.20:8000") and one.allows("[::1]:8000") and not one.allows("192.168.1.21:8000")
    assert Hosts("::1", 8000, "::1").allows("[0:0::1]:8000")
    port_80 = Hosts("127.0.0.1", 80, "127.0.0.1")
    assert port_80.allows("localhost") and port_80.allows("127.0.0.1:80") and not port_80.allows("localhost:8000")


def test_slow_clients_are_cut_off_and_never_hold_every_handler(monkeypatch):
    """In-process, with 4 handlers and 0.3 s for a request head: a client that trickles its headers is
    cut off all the same, and a burst of them, still open, does not keep a normal request from its answer."""
    from types import SimpleNamespace

    from kindex_site import serve

    monkeypatch.setattr(serve, "MAX_HANDLERS", 4)
    monkeypatch.setattr(serve, "HEAD_TIMEOUT_S", 0.3)
    server = serve._Server(("127.0.0.1", 0), SimpleNamespace(base_path="/"))
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    head = f"GET /__kindex/reload.js HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()
    slow: list[socket.socket] = []
    try:
        trickling = socket.create_connection(("127.0.0.1", port), timeout=0.1)
        slow.append(trickling)
        trickling.sendall(head)
        sent, closed = 0, False
        while not closed:  # a header line every 0.1 s, never the end of the head: the server must end it
            assert sent < HANG_S * 10, f"a client trickling its head for {HANG_S} s was never cut off"
            try:
                trickling.sendall(b"X-Slow: 1\r\n")
                sent += 1
                closed = trickling.recv(100) == b""
            except TimeoutError:
                pass
            except ConnectionError:
                closed = True

        for _ in range(12):  # three times as many as there are handlers, each holding its connection open
            slow.append(socket.create_connection(("127.0.0.1", port)))
            slow[-1].sendall(head)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_S)
        conn.request("GET", "/__kindex/reload.js")
        response = conn.getresponse()
        assert response.status == 200 and b"location.reload()" in response.read()
        conn.close()
        assert [cut_off(s) for s in slow[1:]] == [True] * 12  # by the server: the client never closed them
    finally:
        for s in slow:
            s.close()
        server.shutdown()
        server.server_close()


def cut_off(conn: socket.socket) -> bool:
    """Whether the server closes this connection (within HANG_S) without a byte of answer."""
    conn.settimeout(HANG_S)
    try:
        return conn.recv(100) == b""
    except ConnectionResetError:
        return True


# --- rebuilding -----------------------------------------------------------------------------------


def wait_for_page(server: Served, path: str, wanted, what: str) -> str:
    """The page once it shows what is wanted. How soon is measured by benchmarks, not judged here."""
    def page_if_wanted() -> str | None:
        page = server.get(path)[1]
        return page if wanted(page) else None

    return server.wait_until(page_if_wanted, message=what)


def test_a_change_is_served_at_once_and_a_broken_file_keeps_the_last_good_site(tmp_path, serving):
    root = make_project(tmp_path)
    server = serving(root).ready()
    status, html = server.get(RUN_PAGE)
    assert status == 200 and "4.94" in html
    version = server.status()["version"]

    write(root, "content/seed.json", bundle(mean=5_120_000))
    html = wait_for_page(server, RUN_PAGE, lambda page: "5.12" in page, "the new mean")
    assert OVERLAY not in html
    # An open page's long poll answers with the new version, and the page reloads itself.
    events = json.loads(server.request(f"/kindex/__kindex/events?since={version}")[2])
    assert events["version"] != version and events["ok"]

    # Break it: a bad field in one file, a hostile duplicate key in another.
    write(root, "content/seed.json", bundle({"run.spec.timing.samples": 0}, mean=6_000_000))
    write(root, "content/evil.json", '{"run": 1, "run": 2, "<img src=x onerror=alert(1)>": 3, '
                                     '"<img src=x onerror=alert(1)>": 4}')
    state = server.wait_until(lambda: (s := server.status())["build"] and not s["ok"] and len(s["errors"]) == 2
                              and s, message="the problems")
    lines = sorted(e["line"] for e in state["errors"])
    assert lines == ["content/evil.json: duplicate key 'run'",
                     "content/seed.json: run.spec.timing.samples: Input should be greater than or equal to 1"]
    assert {(e["file"], e["message"]) for e in state["errors"]} >= {
        ("content/seed.json", "run.spec.timing.samples: Input should be greater than or equal to 1")}
    status, html = server.get(RUN_PAGE)
    assert status == 200 and "5.12" in html and "6.00" not in html  # the last good site
    overlay = html[html.index(OVERLAY):]
    assert "<code" in overlay and "content/seed.json</code>: run.spec.timing.samples: Input should be greater than " \
                                  "or equal to 1" in overlay
    assert "content/evil.json</code>: duplicate key &#x27;run&#x27;" in overlay
    assert server.get("/kindex/nope/")[0] == 404 and OVERLAY in server.get("/kindex/nope/")[1]
    err = server.err_path.read_text()
    assert "content/seed.json: run.spec.timing.samples: Input should be greater than or equal to 1" in err
    assert "still serving the last good site" in err

    write(root, "content/evil.json", '{"run": 1, "<img src=x onerror=alert(1)>": 3, "<img src=x onerror=alert(1)>": 4}')
    html = wait_for_page(server, RUN_PAGE, lambda page: "&lt;img src=x onerror=alert(1)&gt;" in page,
                         "the escaped key")
    assert "<img src=x" not in html

    # Fix everything: the overlay goes, the new value is there.
    (root / "content" / "evil.json").unlink()
    write(root, "content/seed.json", bundle(mean=6_000_000))
    html = wait_for_page(server, RUN_PAGE, lambda page: "6.00" in page and OVERLAY not in page,
                         "the fixed site")
    assert server.status()["ok"] is True
    # After all these incremental rebuilds the folder is exactly what a build of the same content gives.
    kindex_build(root, "--out", "built")
    assert snapshot(root / ".kindex-serve" / "site") == snapshot(root / "built")
    assert not (root / "site").exists()  # the publishable output is never touched

    code, out, err = server.stop()
    assert code in (0, 130) and "Traceback" not in err and "Stopped." in out
    assert "Fixed; rebuilt in" in out


def test_a_template_error_shows_over_the_last_good_site(tmp_path, serving):
    root = make_project(tmp_path)
    server = serving(root).ready()
    page = root / "templates" / "run.html"
    good = page.read_text()
    page.write_text(good.replace("{% block main %}", "{% block main %}{% if %}", 1))
    state = server.wait_until(lambda: not (s := server.status())["ok"] and s, message="the error")
    [error] = state["errors"]
    assert error["file"].endswith("run.html") and "template syntax error" in error["message"]
    status, html = server.get(RUN_PAGE)
    assert status == 200 and "4.94" in html and OVERLAY in html and "template syntax error" in html
    page.write_text(good)
    wait_for_page(server, RUN_PAGE, lambda html: OVERLAY not in html, "the fixed template")
    # The config file is watched too.
    write(root, "kindex.toml", 'title = "Renamed"\nbase_url = "https://owner.github.io/kindex/"\n')
    wait_for_page(server, "/kindex/", lambda html: "<title>Renamed</title>" in html, "the new title")
    kindex_build(root, "--out", "built")
    assert snapshot(root / ".kindex-serve" / "site") == snapshot(root / "built")


def test_content_broken_from_the_start_is_shown_until_fixed(tmp_path, serving):
    root = make_project(tmp_path)
    write(root, "content/seed.json", bundle({"run.spec.status": 7}))
    server = serving(root, "--base-url", "/")
    # (an edit is heard once the watcher is watching, as `serve` announces it: waiting on the build alone races it)
    state = server.wait_until(lambda: (s := server.status())["build"] >= 1 and s["watching"] and s,
                              message="the first build, watched")
    assert not state["ok"] and state["errors"][0]["where"] == "content/seed.json"
    status, html = server.get("/")
    assert status == 503 and OVERLAY in html and "run.spec.status" in html
    write(root, "content/seed.json", SEED)
    html = wait_for_page(server, f"/runs/{SEED_RUN}/", lambda page: "4.94" in page, "the first good site")
    assert OVERLAY not in html and '<script src="/__kindex/reload.js"' in html


# --- the command itself ---------------------------------------------------------------------------


def test_a_port_in_use_is_one_clear_line(tmp_path):
    make_project(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "kindex_site", "serve", "--port", str(port)], cwd=tmp_path,
                              capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"port {port}" in done.stderr and "--port" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / ".kindex-serve" / "site").exists()


def test_a_second_server_is_refused_and_ctrl_c_or_sigterm_stops_one_at_once(tmp_path, serving):
    """Two servers would build into one .kindex-serve/ at once: the second says so and stops. Ctrl-C
    stops the first without a traceback; then another may start, and SIGTERM stops it too."""
    make_project(tmp_path)
    first = serving(tmp_path).ready()
    done = subprocess.run([sys.executable, "-m", "kindex_site", "serve", "--port", str(free_port())], cwd=tmp_path,
                          capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"another kindex-site serve (pid {first.proc.pid}) is serving this project" in done.stderr
    assert first.get("/kindex/")[0] == 200  # the first goes on
    code, out, err = first.stop(signal.SIGINT)  # (killed, so -9, had it not stopped)
    assert code in (0, 130)
    assert "Traceback" not in err and out.rstrip().endswith("Stopped.")
    assert f"Serving http://127.0.0.1:{first.port}/kindex/" in out
    assert (tmp_path / ".kindex-serve" / ".gitignore").read_text().strip().endswith("*")
    second = serving(tmp_path).ready()  # once it has stopped, another may start
    assert second.get("/kindex/")[0] == 200
    code, out, err = second.stop(signal.SIGTERM)
    assert code in (0, 130) and "Traceback" not in err and "Up to date:" in out  # nothing changed meanwhile


def test_changes_during_a_rebuild_fold_into_the_next(project, monkeypatch):
    """In-process: while one rebuild runs, three files are added; exactly one more rebuild takes them all."""
    from kindex_site import build as build_module
    from kindex_site.config import load_config
    from kindex_site.serve import SERVE_DIR
    from kindex_site.watch import Builder

    project.write("content/seed.json", SEED)
    out = (project.root / SERVE_DIR / "site").absolute()
    builder = Builder(None, {"output_dir": str(out)}, load_config(None, {}), out)
    real_build, runs = build_module.build, []

    def build_meanwhile_changed(config, reuse=None):
        if not runs:
            for i in range(3):  # saved while this rebuild runs
                path = project.write(f"content/new-{i}.json", seed_problem_run(f"gpu-{i}", "PyTorch eager", 10**6))
                builder.request([str(path)])
        result = real_build(config, reuse)
        runs.append(result.runs)
        return result

    monkeypatch.setattr(build_module, "build", build_meanwhile_changed)
    builder.request([str(project.root / "content" / "seed.json")])
    assert builder.next_rebuild(timeout=HANG_S)
    assert builder.status()["pending"] and runs == [4]  # this one happened to see them already
    assert builder.next_rebuild(timeout=HANG_S)
    assert runs == [4, 4] and builder.status()["last"]["changed"] == 0
    assert [p.rsplit("/", 1)[1] for p in builder.status()["last"]["paths"]] == [f"new-{i}.json" for i in range(3)]
    assert not builder.next_rebuild(timeout=0)  # nothing more to do
    assert builder.status()["build"] == 2 and builder.status()["ok"]
    assert (project.root / ".kindex-serve" / "site" / "index.html").is_file()
    assert not (project.root / "site").exists()


# --- in a browser ---------------------------------------------------------------------------------


def test_an_open_page_reloads_by_itself_and_shows_then_drops_the_overlay(tmp_path, serving):
    """Playwright driving Debian's Chromium, as tests/test_browser.py does (skipped without them)."""
    chromium = Path(os.environ.get("KINDEX_CHROMIUM", "/usr/bin/chromium"))
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if sync_playwright is None or not chromium.is_file():
        if os.environ.get("KINDEX_REQUIRE_BROWSER") == "1":
            pytest.fail("playwright or Chromium missing; KINDEX_REQUIRE_BROWSER=1 makes this a failure")
        pytest.skip("playwright or Chromium missing (`bash scripts/test` installs them)")
    root = make_project(tmp_path)
    server = serving(root)  # (its first build goes on while the browser starts)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            server.ready()
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"http://127.0.0.1:{server.port}{RUN_PAGE}", wait_until="load")
            assert "4.94" in page.inner_text("main")
            page.evaluate("window.kindexNotReloaded = true")

            write(root, "content/seed.json", bundle(mean=5_120_000))
            page.wait_for_function("!window.kindexNotReloaded && document.body.innerText.includes('5.12')",
                                   timeout=HANG_S * 1000)

            write(root, "content/seed.json", bundle({"run.spec.timing.samples": 0}, mean=6_000_000))
            overlay = page.locator("#kindex-serve-errors")
            overlay.wait_for(state="visible", timeout=HANG_S * 1000)
            assert "content/seed.json: run.spec.timing.samples: Input should be greater than or equal to 1" \
                in overlay.inner_text()
            assert "5.12" in page.inner_text("main")  # the last good page beneath
            overlay.locator("button").click()
            overlay.wait_for(state="hidden", timeout=HANG_S * 1000)

            write(root, "content/seed.json", bundle(mean=6_000_000))
            page.wait_for_function("document.body.innerText.includes('6.00') && "
                                   "!document.getElementById('kindex-serve-errors')", timeout=HANG_S * 1000)
            assert errors == []
        finally:
            browser.close()
