"""Test fixture in Lektor's manner: a tiny site in tmp_path, built through the real CLI, read back."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import os
import random
import shutil
import signal
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from kindex_site.cli import main

pytest.register_assert_rewrite("browser_support")  # (its fixtures' asserts say what failed, as a test's do)

FIXTURES = Path(__file__).parent / "fixtures"
SEED = json.loads((FIXTURES / "seed.json").read_text(encoding="utf-8"))
DELETE = object()


# --- the suite's settings (docs/testing.md) ---------------------------------------------------------
# A release run (`--release`, or KINDEX_RELEASE=1; scripts/release-test) runs the tests marked `release`
# in full: every crash point, every case, each property's whole budget. Any other run takes a sample of
# them, the same on every run: drawn from a random.Random seeded with SAMPLE_SEED and the sample's name.

SAMPLE_SEED = os.environ.get("KINDEX_SAMPLE_SEED") or "37"


def release() -> bool:
    return os.environ.get("KINDEX_RELEASE") == "1"


def sample(items, share: float, name: str, keep=()) -> list:
    """`items` whole in a release run; otherwise `share` of them (at least one), plus those in `keep`,
    drawn with the fixed seed and `name`, in their own order."""
    items = list(items)
    if release() or not items:
        return items
    rng = random.Random(f"{SAMPLE_SEED}:{name}")
    chosen = set(rng.sample(range(len(items)), max(1, round(share * len(items)))))
    return [item for i, item in enumerate(items) if i in chosen or item in keep]


def pytest_addoption(parser):
    parser.addoption("--release", action="store_true", default=False,
                     help="run the tests marked release in full (the same as KINDEX_RELEASE=1)")


def pytest_configure(config):
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:  # (a background job of a script: the tests send Ctrl-C)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if config.getoption("--release"):
        os.environ["KINDEX_RELEASE"] = "1"  # (seen by worker processes and the commands tests start)
    _in_memory_basetemp(config)
    if not release():
        _compile_each_template_once()


def pytest_collection_modifyitems(session, config, items):
    """Of the parametrised cases of a test marked release(share=…), a fixed-seed sample; in an xdist
    worker, the longest files first."""
    if hasattr(config, "workerinput"):
        _longest_first(items)
    if release():
        return
    cases: dict[str, list] = {}
    for item in items:
        marker = item.get_closest_marker("release")
        if marker is not None and "share" in marker.kwargs and hasattr(item, "callspec"):
            cases.setdefault(item.nodeid.split("[", 1)[0], []).append(item)
    dropped = []
    for name, of_one in cases.items():
        kept = set(map(id, sample(of_one, of_one[0].get_closest_marker("release").kwargs["share"], name)))
        dropped += [item for item in of_one if id(item) not in kept]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        gone = set(map(id, dropped))
        items[:] = [item for item in items if id(item) not in gone]


# The test files that take longest, longest first (--durations=0 summed per file, on two cores). Under
# xdist (scripts/test: --dist loadfile --no-loadscope-reorder) each file goes whole to the next free
# worker, in the order collected. These are collected first, so that they run beside the many short
# files rather than after them, where the last one started would finish alone.
# test_browser_axe.py comes after test_resident_states.py so that two browser files seldom run at once.
LONGEST_FIRST = ("test_interrupt.py", "test_browser.py", "test_incremental.py", "test_serve.py", "test_host_pages.py",
                 "test_resident_states.py", "test_browser_axe.py", "test_html_valid.py", "test_charts_browser.py",
                 "test_highlight_bounds.py", "test_recompute.py", "test_columns.py", "test_browser_axe_lists.py",
                 "test_bad_input.py", "test_layouts.py", "test_properties.py", "test_publish.py")


def _longest_first(items) -> None:
    """The files of LONGEST_FIRST first, in its order; the others after them, as collected. Each file's
    tests keep their order. Every worker collects the same tests in the same order, as xdist needs."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def _in_memory_basetemp(config) -> None:
    """tmp_path and the tempfile module's folders in /dev/shm where there is one: the tests write and
    delete tens of thousands of small files, and each build syncs what it publishes. One folder per
    session (sessions run side by side), removed at its end unless a test failed (then the next
    session removes it). A --basetemp given is used as given; KINDEX_TEST_TMP=disk, or less than
    SHM_NEEDED free there, keeps the defaults."""
    shm = Path("/dev/shm")
    if (config.option.basetemp or hasattr(config, "workerinput") or os.environ.get("KINDEX_TEST_TMP") == "disk"
            or not (shm.is_dir() and os.access(shm, os.W_OK))):
        return
    room = os.statvfs(shm)
    if room.f_bavail * room.f_frsize < SHM_NEEDED:
        return
    for old in shm.glob("kindex-tests-*"):  # the kept folders of sessions that are over
        try:
            os.kill(int(old.name.split("-")[2]), 0)
        except (ValueError, IndexError):
            continue
        except ProcessLookupError:
            shutil.rmtree(old, ignore_errors=True)
        except PermissionError:
            pass
    folder = Path(tempfile.mkdtemp(prefix=f"kindex-tests-{os.getpid()}-", dir=shm))
    config.option.basetemp = str(folder / "tmp")  # (an xdist worker's is a folder in it)
    (folder / "tempfile").mkdir()
    os.environ["TMPDIR"] = tempfile.tempdir = str(folder / "tempfile")  # (and the worker processes')
    config.stash[_SHM_BASETEMP] = folder


_SHM_BASETEMP = pytest.StashKey[Path]()
SHM_NEEDED = 2 * 2**30  # bytes free in /dev/shm to use it: room for a whole session's files


def pytest_sessionfinish(session, exitstatus):
    folder = session.config.stash.get(_SHM_BASETEMP, None)
    if folder is not None and exitstatus == 0:
        shutil.rmtree(folder, ignore_errors=True)


def _compile_each_template_once() -> None:
    """Each build of a new project compiles every template (its compiled ones are kept per project in
    .kindex-cache/): most of a small test site's build. The tests make thousands, so a template's code
    is compiled once per test process for a given source, name, file and environment (all that Jinja's
    compiler reads of it: its syntax, settings, sandbox, finalize, filters and tests, the functions
    themselves); builds still load, cache and render as ever. A release run compiles each time."""
    import jinja2

    compile_source, compiled = jinja2.Environment.compile, {}

    def compile(env, source, name=None, filename=None, raw=False, defer_init=False):
        key = None
        if isinstance(source, str):
            key = (type(env), source, name, filename, raw, defer_init, env.code_generator_class, env.optimized,
                   env.block_start_string, env.block_end_string, env.variable_start_string,
                   env.variable_end_string, env.comment_start_string, env.comment_end_string,
                   env.line_statement_prefix, env.line_comment_prefix, env.trim_blocks, env.lstrip_blocks,
                   env.newline_sequence, env.keep_trailing_newline, env.autoescape, env.is_async, env.finalize,
                   getattr(env, "sandboxed", False), getattr(env, "intercepted_binops", None),
                   getattr(env, "intercepted_unops", None), repr(sorted(env.policies.items())),
                   tuple(sorted((k, type(v)) for k, v in env.extensions.items())),
                   tuple(sorted(env.filters.items())), tuple(sorted(env.tests.items())))
            try:
                code = compiled.get(key)
            except TypeError:  # (something unhashable: compiled each time)
                code = key = None
            if code is not None:
                return code
        code = compile_source(env, source, name, filename, raw, defer_init)
        if key is not None:
            compiled[key] = code
        return code

    jinja2.Environment.compile = jinja2.utils.internalcode(compile)


def bundle(changes: dict | None = None, **shortcuts) -> dict:
    """A copy of the seed bundle with dotted paths set (or DELETEd), e.g. {"run.spec.timing.samples": 0}.

    Shortcuts: name=, title= (run metadata), host= (environment name, title follows), status=, mean=.
    """
    doc = copy.deepcopy(SEED)
    explicit, changes = changes or {}, {}
    if "name" in shortcuts:
        changes["run.metadata.name"] = shortcuts.pop("name")
    if "title" in shortcuts:
        changes["run.metadata.title"] = shortcuts.pop("title")
    if "host" in shortcuts:
        host = shortcuts.pop("host")
        changes["environment.metadata.name"] = host
        changes["environment.metadata.title"] = f"Host {host}"
    if "status" in shortcuts:
        changes["run.spec.status"] = shortcuts.pop("status")
    if "mean" in shortcuts:
        mean = shortcuts.pop("mean")
        changes["run.spec.timing.latencyNs"] = {
            "mean": mean, "minimum": mean, "maximum": mean, "confidence95": [mean, mean]}
    assert not shortcuts, shortcuts
    changes.update(explicit)  # explicit paths win over shortcuts
    for path, value in changes.items():
        *parents, last = path.split(".")
        node = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if value is DELETE:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    # A problem is its workload: a bundle naming another problem than the seed's times another
    # workload, unless the test says which.
    if "run.spec.workloadDigest" not in changes and isinstance(doc.get("run"), dict):
        problem = _problem_named(doc)
        if problem is not None and problem != _problem_named(SEED):
            doc["run"]["spec"]["workloadDigest"] = "sha256:" + hashlib.sha256(problem.encode()).hexdigest()
    return doc


def _problem_named(doc: dict) -> str | None:
    try:
        spec, title = doc["run"]["spec"], doc["run"]["metadata"]["title"]
        native = spec.get("sourceNative") or {}
        if native.get("source") == "kernelbench":
            return "kernelbench:" + "/".join(str(native.get("externalId", "")).split("/")[-2:])
        return "title:" + str(title).split(" · ")[0].strip()
    except (KeyError, TypeError, AttributeError):
        return None


def seed_problem_run(host: str, implementation: str, mean: int, **more) -> dict:
    """A run of the seed's problem on `host`, as `implementation`, with a given mean latency."""
    slug = implementation.lower().replace(" ", "-").replace(".", "-")
    return bundle(
        name=f"run-{host}-{slug}",
        title=f"Gemm BatchNorm Scaling Softmax · {implementation} · Somewhere",
        host=host,
        mean=mean,
        **more,
    )


class Project:
    def __init__(self, root: Path, capsys):
        self.root = root
        self.capsys = capsys
        (root / "content").mkdir()

    def write(self, rel: str, data) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")
        return path

    def run(self, *argv: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        code = main(list(argv))
        out, err = self.capsys.readouterr()
        return code, out, err

    def build(self, *argv: str) -> tuple[int, str, str]:
        return self.run("build", *argv)

    def built(self, *argv: str) -> "Project":
        code, out, err = self.build(*argv)
        assert code == 0, err
        return self

    def page(self, url: str) -> str:
        return (self.root / "site" / url.strip("/") / "index.html").read_text(encoding="utf-8")

    def api(self, path: str) -> dict:
        return json.loads((self.root / "site" / "api" / "v1" / path).read_text(encoding="utf-8"))

    def snapshot(self) -> dict[str, bytes]:
        site = self.root / "site"
        return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.fixture
def project(tmp_path, monkeypatch, capsys) -> Project:
    monkeypatch.chdir(tmp_path)
    return Project(tmp_path, capsys)


def cli(*argv: str, cwd: Path | None = None) -> tuple[int, str, str]:
    """`kindex-site *argv` in this process (in `cwd`, if given): its exit status, stdout and stderr,
    captured by hand (no capsys needed). For the commands beside the one under test: a command whose
    process is under test (signals, kills, serve, watch) runs as a process of its own."""
    out, err = io.StringIO(), io.StringIO()
    with (contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext()), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


REPOSITORY = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def bundled_site(tmp_path_factory) -> Path:
    """This repository's content/ and kindex.toml built into a site folder once per session, under the
    base URL /kindex/: the one build the browser tests serve (browser_support.bundled). Read it; never
    write there."""
    return shared_build(tmp_path_factory, *BUNDLED_BUILD)


# (the folder shared_build builds it in, where in that folder, and the build's arguments)
BUNDLED_BUILD = ("bundled-browser", "public/kindex", "--base-url", "/kindex/")


def shared_build(tmp_path_factory, name: str, out: str, *args: str) -> Path:
    """The bundled content built once per session into <name>/<out> (with `args`), by `kindex-site build`
    in a subprocess (the product's modules never enter this process): under xdist the first worker to
    ask builds it, the others wait on its lock and read the same folder."""
    import fcntl
    import subprocess
    import sys

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # (every worker's basetemp is a folder in the session's)
    site = shared / name / out
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / name / "built").is_file():
            shutil.rmtree(shared / name, ignore_errors=True)
            site.parent.mkdir(parents=True)
            done = subprocess.run(
                [sys.executable, "-c", "import sys; from kindex_site.cli import main; sys.exit(main(sys.argv[1:]))",
                 "build", "--config", str(REPOSITORY / "kindex.toml"), "--content", str(REPOSITORY / "content"),
                 "--out", str(site), *args], cwd=shared / name, capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"the bundled site did not build:\n{done.stdout}\n{done.stderr}"
            (shared / name / "built").touch()
    return site


class _Reader(HTMLParser):
    """Collects visible text and tables (caption + rows of cell texts) from a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tables: list[dict] = []
        self._stack: list[dict] = []
        self._cell: list[str] | None = None
        self._caption: list[str] | None = None
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "title"):
            self._skip += 1
        elif tag == "table":
            self._stack.append({"caption": "", "rows": [], "class": dict(attrs).get("class") or ""})
        elif tag == "caption":
            self._caption = []
        elif tag == "tr" and self._stack:
            self._end_cell()
            self._stack[-1]["rows"].append([])
        elif tag in ("td", "th") and self._stack:
            self._end_cell()
            self._cell = []

    def _end_cell(self):
        """A cell ends at its end tag, or where HTML implies one (the next cell or row, the table's end)."""
        if self._cell is not None:
            self._stack[-1]["rows"][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_endtag(self, tag):
        if tag in ("script", "style", "title"):
            self._skip -= 1
        elif tag in ("tr", "thead", "tbody", "table") and self._stack:
            self._end_cell()
            if tag == "table":
                self.tables.append(self._stack.pop())
        elif tag == "caption" and self._caption is not None:
            self._stack[-1]["caption"] = " ".join("".join(self._caption).split())
            self._caption = None
        elif tag in ("td", "th"):
            self._end_cell()

    def handle_data(self, data):
        if self._skip:
            return
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._caption is not None:
            self._caption.append(data)


def read_html(html: str) -> _Reader:
    reader = _Reader()
    reader.feed(html)
    return reader


def visible_text(html: str) -> str:
    return " ".join("".join(read_html(html).text).split())


def tables(html: str, css_class: str | None = None) -> list[dict]:
    """Each table (of a class, if given) as {"caption", "rows"}; rows[0] is the header row."""
    return [t for t in read_html(html).tables if css_class is None or css_class in t["class"].split()]


def latency_tables(html: str) -> list[dict]:
    return tables(html, "latency")


@pytest.fixture
def always_incremental(monkeypatch):
    """However much changed, take the incremental path (normally a big change swaps a new folder in)."""
    from kindex_site.state import reuse

    monkeypatch.setattr(reuse, "INCREMENTAL_MAX_SHARE", 1.0)
