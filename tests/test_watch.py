"""`kindex-site build --watch` as a user runs it: a subprocess that rebuilds site/ on every change."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SEED, bundle, cli
from test_serve import HANG_S, kindex_build, make_project, snapshot, stop_process, write

SEED_RUN = SEED["run"]["metadata"]["name"]


class Watching:
    """`python -m kindex_site build --watch` in `root`; stop() ends it (and kill, whatever happens)."""

    def __init__(self, root: Path, *args: str):
        self.out_path, self.err_path = root / "watch.out", root / "watch.err"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "kindex_site", "build", "--watch", *args], cwd=root,
                                         stdout=out, stderr=err, env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def out(self) -> str:
        return self.out_path.read_text(errors="replace")

    def err(self) -> str:
        return self.err_path.read_text(errors="replace")

    def wait_for(self, text: str, where: str = "out", times: int = 1, timeout: float = HANG_S) -> None:
        deadline = time.monotonic() + timeout
        while getattr(self, where)().count(text) < times:
            if self.proc.poll() is not None:
                pytest.fail(f"build --watch exited with {self.proc.returncode}:\n{self.out()}{self.err()}")
            if time.monotonic() > deadline:
                pytest.fail(f"still waiting for {text!r} after {timeout:.0f} s (a hang):\n{self.out()}{self.err()}")
            time.sleep(0.02)

    def stop(self, sig=signal.SIGINT) -> int:
        return stop_process(self.proc, sig)


@pytest.fixture
def watching():
    started: list[Watching] = []

    def start(root: Path, *args: str) -> Watching:
        started.append(Watching(root, *args))
        return started[-1]

    yield start
    for w in started:
        w.stop()
        if w.proc.poll() is None:
            w.proc.kill()


def mean_shown(root: Path) -> str:
    """The seed run's mean latency as its page in site/ shows it."""
    page = (root / "site" / "runs" / SEED_RUN / "index.html").read_text(encoding="utf-8")
    return page.split("<dt>Mean latency</dt><dd>", 1)[1].split("<", 1)[0]


def test_build_watch_rebuilds_the_site_on_every_change_and_keeps_the_last_good_one(tmp_path, watching):
    root = make_project(tmp_path)
    kindex_build(root)  # a site already built: the watcher finds it up to date and starts from it
    w = watching(root)
    w.wait_for("Watching content/, templates/, static/, kindex.toml; Ctrl-C stops")
    assert w.out().startswith("Up to date: ") and "→ site/" in w.out()
    assert mean_shown(root) == "4.94 ms"

    write(root, "content/seed.json", bundle(mean=5_120_000))
    w.wait_for("Rebuilt in ")  # (one save can come as two events, so each wait below counts from here)
    assert "file changed" in w.out() or "files changed" in w.out()
    assert "(content/seed.json)" in w.out()
    assert mean_shown(root) == "5.12 ms"

    # Bad input: the file and the field are named, and site/ stays as it was, byte for byte.
    before = snapshot(root / "site")
    write(root, "content/seed.json", bundle({"run.spec.timing.samples": 0}, mean=6_000_000))
    w.wait_for("the last good site stays in place; watching for changes", where="err")
    assert "content/seed.json: run.spec.timing.samples: Input should be greater than or equal to 1" in w.err()
    assert "Traceback" not in w.err()
    assert snapshot(root / "site") == before

    write(root, "content/seed.json", bundle(mean=6_000_000))
    w.wait_for("Fixed; rebuilt in ")
    assert mean_shown(root) == "6.00 ms"
    # A template edit is a change too.
    base = root / "templates" / "base.html"
    rebuilt = w.out().count("Rebuilt in ")
    base.write_text(base.read_text(encoding="utf-8").replace("built with kindex-site", "built by the watcher"),
                    encoding="utf-8")
    w.wait_for("Rebuilt in ", times=rebuilt + 1)
    home = root / "site" / "index.html"
    deadline = time.monotonic() + HANG_S  # (a save split in two events: the second rebuild has it)
    while "built by the watcher" not in home.read_text(encoding="utf-8"):
        assert time.monotonic() < deadline, f"the template's edit not in site/ after {HANG_S} s (a hang)"
        time.sleep(0.05)

    # After these incremental rebuilds site/ is exactly what a build of the same inputs gives.
    kindex_build(root, "--out", "built")
    assert snapshot(root / "site") == snapshot(root / "built")

    assert w.stop(signal.SIGINT) == 0
    assert w.out().rstrip().endswith("Stopped.") and "Traceback" not in w.err()
    # Nothing was left that a command-line build would redo: it finds site/ up to date.
    code, out, err = cli("build", cwd=root)
    assert code == 0 and out.startswith("Up to date: "), out + err


def test_build_watch_from_nothing_then_a_second_watcher_is_refused_and_sigterm_stops(tmp_path, watching):
    root = make_project(tmp_path)
    w = watching(root, "--out", "public")
    w.wait_for("Watching ")
    assert w.out().startswith("Built in ") and "→ public/" in w.out()
    assert (root / "public" / "runs" / SEED_RUN / "index.html").is_file()

    second = subprocess.run([sys.executable, "-m", "kindex_site", "build", "--watch", "--out", "public"], cwd=root,
                            capture_output=True, text=True, timeout=HANG_S)
    assert second.returncode == 1 and "Traceback" not in second.stderr
    assert f"another kindex-site build --watch (pid {w.proc.pid}) is building into public/" in second.stderr

    # A one-off build into the folder the watcher owns would race it: refused, the site untouched.
    before = snapshot(root / "public")
    code, _, err = cli("build", "--out", "public", "--clean", cwd=root)  # (in this process: another than the watcher's)
    assert code == 1 and "Traceback" not in err
    assert f"public/: a kindex-site build --watch (pid {w.proc.pid}) is building into it" in err
    assert snapshot(root / "public") == before
    # Another folder is another matter.
    kindex_build(root, "--out", "elsewhere")

    assert w.stop(signal.SIGTERM) == 0 and "Traceback" not in w.err()
    assert w.out().rstrip().endswith("Stopped.")
    # Once it has stopped, one-off builds go ahead.
    kindex_build(root, "--out", "public")


def test_build_watch_refuses_an_unsafe_output_folder_at_once(tmp_path):
    root = make_project(tmp_path)
    done = subprocess.run([sys.executable, "-m", "kindex_site", "build", "--watch", "--out", "content/site"],
                          cwd=root, capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "content/site: refusing to write the site there: it is inside the content folder" in done.stderr
    assert not (root / "content" / ".kindex-cache").exists() and not (root / "content" / "site").exists()
