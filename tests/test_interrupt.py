"""A build stopped at any moment: by Ctrl-C, SIGTERM or kill -9, between any two file operations.

`site/` must always be the old site or the new one, whole, or be made one of them by the next command
(which says so); nothing temporary may stay; a failure after the commit point is reported as what it
is. Killed builds are real processes: forked from the test for the systematic series (each one dies
by os._exit(137), as kill -9 would, after its N-th write, rename, link or deletion: tests/crashing.py),
or started with `python -c` for real signals.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import crashing
from conftest import bundle, cli, release, sample, seed_problem_run
from test_serve import HANG_S
from kindex_site import build as build_module
from kindex_site import publish_swap
from kindex_site.state import files as cache
from kindex_site.state import reuse
from kindex_site.cli import main

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform != "linux",
                                reason="kills forked and started processes; Linux's renameat2")


@pytest.fixture
def scratch(tmp_path):
    """A folder for the many small projects a crash series makes: in memory where there is /dev/shm
    (deleting thousands of small files is most of the time a series takes on a disk)."""
    import tempfile

    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="kindex-interrupt-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def always_incremental(monkeypatch):
    """However much changed, patch the site (even when the changes and deletions outnumber the files)."""
    monkeypatch.setattr(reuse, "INCREMENTAL_MAX_SHARE", 100.0)


def tree(folder: Path) -> dict[str, bytes | None] | None:
    """Every file (its bytes) and folder (None) under `folder`, dotfiles included; None if it is missing."""
    if not folder.is_dir():
        return None
    return {p.relative_to(folder).as_posix() + ("/" if p.is_dir() else ""): (None if p.is_dir() else p.read_bytes())
            for p in sorted(folder.rglob("*"))}


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(".site."))


def left_once_swept(root: Path) -> list[str]:
    """The leftovers once the folders this process's builds handed to background removers are gone."""
    for remover in publish_swap._removers:
        remover.wait(timeout=HANG_S)
    return leftovers(root)


def write(root: Path, rel: str, data) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")


def runs(*names_and_means) -> list[dict]:
    docs = []
    for name, host, impl, mean in names_and_means:
        doc = seed_problem_run(host, impl, mean)
        doc["run"]["metadata"]["name"] = name
        docs.append(doc)
    return docs


def old_content(root: Path) -> None:
    """Three runs on two problems and two hosts, and the site's look (its own templates and static
    files: edits of the bundled ones while the tests run change nothing here)."""
    from kindex_site.config import bundled

    for folder in ("templates", "static"):
        if not (root / folder).exists():
            shutil.copytree(bundled(folder), root / folder, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    write(root, "content/a.json", runs(("run-a", "h1", "PyTorch eager", 2_000_000), ("run-b", "h1", "Fast", 1_000_000)))
    write(root, "content/b.json", runs(("run-c", "h2", "PyTorch eager", 3_000_000)))
    other = bundle(name="other", title="Other problem · Mine · lab", changes={"run.spec.sourceNative": {"source": "x"}})
    write(root, "content/c.json", other)


def new_content(root: Path) -> None:
    """Adds, changes and deletes files of the site (a run renamed, a host gone, a problem gone, a host
    new): as an incremental build, more changes and deletions than there are files."""
    write(root, "content/a.json", runs(("run-a", "h1", "PyTorch eager", 2_100_000), ("run-b2", "h1", "Fast", 900_000)))
    (root / "content/b.json").unlink()
    (root / "content/c.json").unlink()
    write(root, "content/d.json", runs(("run-d", "h3", "Fast", 1_200_000)))


def killed_build(root: Path, n: int, *argv: str, patch=None) -> int:
    """`kindex-site build` in a forked process that dies after its n-th file operation (exit 137), or
    its exit status if it finished first. `patch(counter)` is called there first (crashing.Counter)."""
    pid = os.fork()
    if pid == 0:  # the child: no return from here
        code = 99
        try:
            os.chdir(root)
            sys.stdout = sys.stderr = open(root / "killed.log", "w")
            counter = crashing.install(n)
            if patch is not None:
                patch(counter)
            code = main(["build", *argv])
            sys.stdout.flush()
            (root / "operations").write_text(str(counter.done))  # (how many it made, when it finished)
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def crash_series(folder: Path, monkeypatch, *, incremental: bool, patch=None, swap_only: bool = False,
                 share: float = 1.0, name: str = "") -> dict:
    """Kill one build of new content over the old site after each of its file operations in turn,
    until it completes (`swap_only`: from just before a full build's swap). After each: the site is
    the old or the new one, or the next command (a build of broken content, so that nothing but
    recovery happens) makes it one of them and says so; then a build makes the new site and leaves
    nothing behind, and the next is a no-op. Outside a release run, `share` of the operations (the
    first and the last always among them) are the points killed at, drawn with the fixed seed."""
    base, work, reference = folder / "base", folder / "work", folder / "reference"
    for root in (base, reference):
        old_content(root)
        write(root, "kindex.toml", 'title = "Old"\n')
    monkeypatch.chdir(base)
    assert cli("build")[0] == 0
    old = tree(base / "site")
    new_content(base)
    if not incremental:
        write(base, "kindex.toml", 'title = "New"\n')  # every page changes: a full build
    new_content(reference)
    shutil.copy(base / "kindex.toml", reference / "kindex.toml")
    monkeypatch.chdir(reference)
    assert cli("build")[0] == 0
    new = tree(reference / "site")
    assert old != new
    seen = {"old": 0, "new": 0, "recovered": 0}
    first = sum(data is not None for data in new.values()) - 1 if swap_only else 1  # (the files, then the swap)
    points = range(first, 1000)
    if share < 1 and not release():  # (a build killed at no point tells how many operations it makes)
        shutil.copytree(base, work, symlinks=True, copy_function=os.link)
        assert killed_build(work, 10**9, patch=patch) == 0, (work / "killed.log").read_text()
        last = int((work / "operations").read_text())
        points = [*sample(range(first, last + 1), share, name, keep=(first, last)), last + 1]
    for n in points:
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(base, work, symlinks=True, copy_function=os.link)  # (no build writes a file in place)
        monkeypatch.chdir(work)
        code = killed_build(work, n, patch=patch)
        if code == 0:
            assert tree(work / "site") == new
            break
        assert code == 137, (n, (work / "killed.log").read_text())
        after_crash = tree(work / "site")
        if after_crash == old:
            seen["old"] += 1
        elif after_crash == new:
            seen["new"] += 1
        if after_crash not in (old, new) or any(work.glob(".site.new-*/.journal")):
            # The next command puts the site right first, whatever comes after (here: broken content).
            write(work, "content/zz.json", "{")
            code, _, err = cli("build")
            assert code == 1 and "zz.json" in err, (n, err)
            recovered = tree(work / "site")
            assert recovered in (old, new), (n, err)
            if recovered != after_crash:  # (a mix or no site; or the old site and its journal: past the commit)
                seen["recovered"] += 1
                assert re.search(r"^note: site/: a build was stopped while it (updated|swapped)", err, re.M), (n, err)
            (work / "content/zz.json").unlink()
        code, out, err = cli("build")
        assert code == 0 and out.startswith(("Built", "Up to date")), (n, err)
        assert tree(work / "site") == new, n
        assert cli("build")[1].startswith("Up to date"), n
        assert left_once_swept(work) == [], n
    else:
        pytest.fail("the build never completed")
    seen["operations"] = n - 1
    return seen


@pytest.mark.release
def test_a_full_build_killed_after_any_file_operation_leaves_the_old_site_or_the_new(scratch, monkeypatch):
    seen = crash_series(scratch, monkeypatch, incremental=False, share=0.15, name="full build")
    # One atomic exchange: never a moment without one whole site.
    assert seen["old"] and seen["new"] and seen["recovered"] == 0, seen
    assert seen["operations"] > 30, seen  # (every page written is a point it was killed at)


def test_a_full_build_swapping_with_two_renames_is_completed_or_undone_by_the_next(scratch, monkeypatch):
    """Where the system has no atomic exchange: killed between the two renames, no site/ is left;
    the next command puts the old one back (and says so)."""
    def two_renames(_):
        publish_swap._exchange = lambda a, b: False

    seen = crash_series(scratch, monkeypatch, incremental=False, patch=two_renames, swap_only=True)
    assert seen["old"] and seen["new"] and seen["recovered"] == 1, seen


@pytest.mark.release
def test_an_incremental_build_killed_after_any_file_operation_is_completed_by_the_next(
        scratch, monkeypatch, always_incremental):
    seen = crash_series(scratch, monkeypatch, incremental=True, share=0.15, name="incremental build")
    # Killed among its moves, the site is a mix until the next command rolls the journal forward.
    assert seen["old"] and seen["new"] and seen["recovered"] >= 5, seen


def test_the_crash_hook_kills_a_real_build_started_from_the_command_line(tmp_path):
    old_content(tmp_path)
    started = lambda n: subprocess.run(  # noqa: E731
        [sys.executable, "-c", CRASHING, "build"], cwd=tmp_path, capture_output=True, text=True,
        env={**os.environ, "CRASH_AFTER": str(n), "TESTS": TESTS})
    done = started(5)
    assert done.returncode == 137 and done.stdout == "" and not (tmp_path / "site").exists()
    assert len(leftovers(tmp_path)) == 1  # the killed build's folder, swept by the next
    code, _, err = cli("build", cwd=tmp_path)  # (in this process: the killed one is the command line's)
    assert code == 0 and left_once_swept(tmp_path) == [], err


def test_a_journal_that_cannot_be_rolled_forward_is_rolled_back(scratch, monkeypatch, always_incremental):
    base, work = scratch / "base", scratch / "work"
    old_content(base)
    monkeypatch.chdir(base)
    assert cli("build")[0] == 0
    old = tree(base / "site")
    new_content(base)

    def stopped_at_the_journal(counter):  # (how many operations the build made up to its journal)
        write_journal = publish_swap._write_journal

        def written(*args, **kwargs):
            write_journal(*args, **kwargs)
            (work / "journal_at").write_text(str(counter.done))
            os._exit(137)

        publish_swap._write_journal = written

    shutil.copytree(base, work, symlinks=True, copy_function=os.link)
    assert killed_build(work, 10**9, patch=stopped_at_the_journal) == 137, (work / "killed.log").read_text()
    journal_at = int((work / "journal_at").read_text())  # (killed before it, a build leaves no journal)
    for n in range(journal_at, 200):  # a point among the moves: the journal written, some moves made
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(base, work, symlinks=True, copy_function=os.link)
        assert killed_build(work, n) == 137
        staging = [p for p in work.glob(".site.new-*") if (p / ".journal").exists()]
        if staging and tree(work / "site") != old:
            break
    else:
        pytest.fail("no point among the moves")
    real_replace = os.replace

    def replace(src, dst):  # a folder of the site made read-only meanwhile: moving new files in fails
        if Path(src).is_relative_to(staging[0]) and ".backup" not in Path(src).parts:
            raise PermissionError(13, "Permission denied", str(dst))
        return real_replace(src, dst)

    monkeypatch.chdir(work)
    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", replace)
        notes = publish_swap.recover(work / "site")
    assert tree(work / "site") == old
    assert len(notes) == 1 and "could not be completed" in notes[0] and "Permission denied" in notes[0]
    assert notes[0].endswith("the previous site was put back")
    assert leftovers(work) == []


def test_a_journal_still_being_applied_is_left_to_its_build(tmp_path, monkeypatch):
    """Two builds at once: the second sees the first's journal locked and leaves the site alone."""
    import fcntl

    old_content(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli("build")[0] == 0
    folder = tmp_path / f".site.new-{os.getpid() + 1}-abcd"
    folder.mkdir()
    (folder / ".journal").write_text(json.dumps({"deleted": ["index.html"], "changed": [".kindex-site"], "end": True}))
    with open(folder / ".journal") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # (as the build applying it holds it)
        code, _, err = cli("build")
        assert code == 1 and "another kindex-site build is updating it right now" in err
    assert (tmp_path / "site/index.html").exists()  # untouched while its build lived


# --- real signals ----------------------------------------------------------------------------------

TESTS = str(Path(__file__).parent)

# `kindex-site …` killed after its CRASH_AFTER-th file operation (tests/crashing.py; 0: never).
CRASHING = r"""
import os, sys
sys.path.insert(0, os.environ["TESTS"])
import crashing
crashing.install(int(os.environ["CRASH_AFTER"]))
from kindex_site.cli import run
run()
"""

# `kindex-site …` that pauses at one file operation: the N-th (tests/crashing.py's crash, made a
# pause), or with PAUSE_IN=moves the N-th from an incremental build's journal on (N = 0: just
# before its first move). It writes PAUSED, then waits for GO (or a signal that stops it). Each handler
# it sets for Ctrl-C or SIGTERM writes SIGNALLED once it has run in this process (not in a forked writer).
PAUSING = r"""
import os, signal, sys, time
sys.path.insert(0, os.environ["TESTS"])
import crashing
from kindex_site import build, publish_swap
from kindex_site.state import reuse
from kindex_site.cli import run
counter = crashing.install(int(os.environ["CRASH_AFTER"]))
MAIN, set_handler = os.getpid(), signal.signal
def told(handler):
    def handled(signum, frame):
        try:
            return handler(signum, frame)
        finally:
            if os.getpid() == MAIN:
                open(os.environ["SIGNALLED"], "w").close()
    return handled if callable(handler) else handler
signal.signal = lambda signum, handler: set_handler(signum, told(handler) if signum in (2, 15) else handler)
def pause():
    open(os.environ["PAUSED"], "w").close()
    waited = time.monotonic()
    while not os.path.exists(os.environ["GO"]):
        if time.monotonic() - waited > float(os.environ["HANG_S"]):
            sys.exit("paused, and never told to go on (a hang in the test)")
        time.sleep(0.01)
counter.crash = pause
if os.environ.get("PAUSE_IN") == "moves":
    reuse.INCREMENTAL_MAX_SHARE = 100.0
    counter.after = 0  # (from the journal on)
    forward = publish_swap._forward
    def _forward(*args):
        after = int(os.environ["PAUSE_AFTER"])
        if after:
            counter.after = counter.done + after
        else:
            pause()
        return forward(*args)
    publish_swap._forward = _forward
if os.environ.get("WORKERS"):
    build.PARALLEL_MIN_OUTPUTS = 1
    build._workers = lambda: int(os.environ["WORKERS"])
run()
"""


class Paused:
    """The command in `root`, paused at one file operation (see PAUSING); finish() goes on, after a signal."""

    def __init__(self, root: Path, *argv: str, at: int = 0, in_moves: bool = False, workers: int = 0):
        self.root = root
        self.paused, self.go, self.signalled = root / "paused.flag", root / "go.flag", root / "signalled.flag"
        self.out_path, self.err_path = root / "paused.out", root / "paused.err"
        for flag in (self.paused, self.go, self.signalled):
            flag.unlink(missing_ok=True)
        env = {**os.environ, "PAUSED": str(self.paused), "GO": str(self.go), "SIGNALLED": str(self.signalled),
               "HANG_S": str(HANG_S), "PAUSE_IN": "moves" if in_moves else "",
               "PAUSE_AFTER": str(at), "CRASH_AFTER": str(10**9 if in_moves else at), "TESTS": TESTS,
               "WORKERS": str(workers or ""), "PYTHONUNBUFFERED": "1"}
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-c", PAUSING, *argv], cwd=root, env=env,
                                         stdout=out, stderr=err, start_new_session=True)

    def out(self) -> str:
        return self.out_path.read_text(errors="replace")

    def err(self) -> str:
        return self.err_path.read_text(errors="replace")

    def wait_paused(self) -> None:
        self.wait_for(self.paused, "paused")

    def wait_for(self, flag: Path, what: str) -> None:
        """Until `flag` is written; a process that ended first fails the test, unless it was signalled."""
        deadline = time.monotonic() + HANG_S
        while not flag.exists():
            if self.proc.poll() is not None and what == "signalled":
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"never {what}: {self.proc.poll()} {self.out()} {self.err()}")
            time.sleep(0.01)

    def finish(self, sig: int | None = None, group: bool = False) -> tuple[int, str, str]:
        """Send `sig` (to the whole process group with `group`); once its handler has run, let it go on."""
        if sig is not None:
            os.killpg(self.proc.pid, sig) if group else self.proc.send_signal(sig)
            if sig != signal.SIGKILL:
                self.wait_for(self.signalled, "signalled")
        self.go.touch()
        try:
            self.proc.wait(timeout=HANG_S)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode, self.out(), self.err()


def two_sites(root: Path, change=new_content, built_new: bool = True) -> tuple[dict, dict | None]:
    """The old site built into root/site, the content changed by `change`, and what it builds into
    (unless not `built_new`; built in this process: the commands under test are the ones that follow,
    each a process of its own)."""
    old_content(root)
    with contextlib.chdir(root):
        assert cli("build")[0] == 0
        old = tree(root / "site")
        change(root)
        if not built_new:
            return old, None
        assert cli("build", "--out", "new", "--clean")[0] == 0
    new = tree(root / "new")
    shutil.rmtree(root / "new")
    for p in (root / ".kindex-cache").glob("new.*"):
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    return old, new


def test_sigterm_while_a_full_build_writes_is_ctrl_c(tmp_path):
    old, _ = two_sites(tmp_path, built_new=False)
    build = Paused(tmp_path, "build", "--clean", at=12)
    build.wait_paused()
    assert leftovers(tmp_path)  # mid-write: the new site's folder is there
    code, out, err = build.finish(signal.SIGTERM)
    assert code == 143 and err.strip().splitlines()[-1] == "interrupted; nothing was written", err
    assert "Traceback" not in err and out == ""
    assert tree(tmp_path / "site") == old and leftovers(tmp_path) == []


def test_sigterm_to_the_whole_process_group_while_workers_write(tmp_path):
    """What a cancelled CI job does: every process of the build gets SIGTERM, the forked writers too."""
    old, _ = two_sites(tmp_path, built_new=False)
    build = Paused(tmp_path, "build", "--clean", at=5, workers=2)
    build.wait_paused()
    code, out, err = build.finish(signal.SIGTERM, group=True)
    assert code == 143 and "interrupted; nothing was written" in err and "Traceback" not in err, err
    assert tree(tmp_path / "site") == old and leftovers(tmp_path) == []
    deadline = time.monotonic() + HANG_S
    while True:  # no writer outlives it
        try:
            os.killpg(build.proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, f"a writer process outlived the build by {HANG_S} s"
        time.sleep(0.05)


def test_sigterm_during_an_incremental_builds_moves_lets_them_finish(tmp_path):
    _, new = two_sites(tmp_path)
    build = Paused(tmp_path, "build", in_moves=True)
    build.wait_paused()
    code, out, err = build.finish(signal.SIGTERM)
    assert code == 143 and "interrupted once the new site was in place: site/ is the new site, whole" in err, err
    assert tree(tmp_path / "site") == new and leftovers(tmp_path) == []
    code, out, err = cli("build", cwd=tmp_path)  # (the next command, in this process)
    assert code == 0 and out.startswith("Up to date"), err


@pytest.mark.parametrize("where", ["writing", "moves"])
def test_sigkill_mid_build_then_the_next_build_puts_it_right(tmp_path, where):
    old, new = two_sites(tmp_path)
    build = Paused(tmp_path, "build", at=6 if where == "writing" else 3, in_moves=where == "moves")
    build.wait_paused()
    code, _, _ = build.finish(signal.SIGKILL)
    assert code == -signal.SIGKILL
    after_kill = tree(tmp_path / "site")
    assert after_kill == old if where == "writing" else after_kill not in (old, new)  # (a mix, for now)
    code, _, err = cli("build", cwd=tmp_path)  # (the next command, in this process)
    assert code == 0, err
    if where == "moves":
        assert re.search(r"^note: site/: a build was stopped while it updated the site: its update \(\d+ files "
                         r"written, \d+ deleted\) was completed$", err, re.M), err
    assert tree(tmp_path / "site") == new and left_once_swept(tmp_path) == []


def one_run_changed(root: Path) -> None:
    """One file changed in one step (a watcher sees one change)."""
    temp = root / "a.json.tmp"
    temp.write_text(json.dumps(runs(("run-a", "h1", "PyTorch eager", 2_500_000), ("run-b", "h1", "Fast", 1_000_000))))
    os.replace(temp, root / "content/a.json")


def test_build_watch_stopped_by_sigterm_during_a_rebuild(tmp_path):
    """The rebuild's moves finish (they are past its commit point), then it stops: `Stopped.`, 0."""
    _, new = two_sites(tmp_path, one_run_changed)
    old_content(tmp_path)  # back to what site/ shows
    watch = Paused(tmp_path, "build", "--watch", in_moves=True)
    deadline = time.monotonic() + HANG_S
    while "Watching " not in watch.out():
        assert time.monotonic() < deadline and watch.proc.poll() is None, watch.err()
        time.sleep(0.05)
    one_run_changed(tmp_path)
    watch.wait_paused()
    code, out, err = watch.finish(signal.SIGTERM)
    assert code == 0 and out.rstrip().endswith("Stopped.") and "Traceback" not in err, err
    assert tree(tmp_path / "site") == new and leftovers(tmp_path) == []


@pytest.mark.parametrize("command", ["build --watch", "serve"])
def test_a_killed_builds_site_is_put_right_before_anything_else(tmp_path, monkeypatch, command):
    from test_serve import free_port

    old_content(tmp_path)
    out = tmp_path / ("site" if command == "build --watch" else ".kindex-serve/site")
    monkeypatch.chdir(tmp_path)
    assert cli("build", "--out", str(out))[0] == 0
    old = tree(out)
    aside = out.parent / f".site.old-{2**22 + 12345}-0a1b"  # a two-rename swap killed halfway: no site
    os.rename(out, aside)
    argv = command.split() + (["--port", str(free_port())] if command == "serve" else [])
    runner = Paused(tmp_path, *argv)
    try:
        deadline = time.monotonic() + HANG_S
        while not re.search(r"^(Watching|Serving) ", runner.out(), re.M):
            assert time.monotonic() < deadline and runner.proc.poll() is None, runner.err()
            time.sleep(0.05)
        assert runner.err().startswith(f"note: {os.path.relpath(out, tmp_path)}/: a build was stopped while it "
                                       "swapped its new site in: the previous site was put back\n"), runner.err()
        assert tree(out) == old and not aside.exists()
    finally:
        code, _, err = runner.finish(signal.SIGTERM)
    assert code == 0 and "Traceback" not in err


# --- failures around the commit point --------------------------------------------------------------


def test_a_cache_that_cannot_be_written_after_the_swap_is_a_warning_and_never_a_stale_answer(project, monkeypatch):
    """The site is committed when swapped in; the manifest written after it is only a cache. Its
    failure is a warning and exit 0, and the manifest left from before never vouches for the new site."""
    old_content(project.root)
    project.built()
    old = tree(project.root / "site")
    write(project.root, "kindex.toml", 'title = "New"\n')

    def refused(path, *parts):
        raise PermissionError(13, "Permission denied", str(path))

    with monkeypatch.context() as patched:
        patched.setattr(cache, "_write_whole", refused)
        code, out, err = project.build()
    assert code == 0 and out.startswith("Built "), err
    assert re.search(r"^warning: cannot write the build's cache \(\.kindex-cache/site\.manifest\S*: Permission "
                     r"denied\): the site was built all the same", err, re.M), err
    assert "<title>New" in (project.root / "site/index.html").read_text()
    (project.root / "kindex.toml").unlink()  # back to the old settings: the old manifest's
    code, out, err = project.build()
    assert code == 0 and out.startswith("Built "), (out, err)  # not "Up to date" over the new site
    assert tree(project.root / "site") == old


def test_a_file_in_place_of_the_cache_folder_still_builds_the_site(project):
    old_content(project.root)
    write(project.root, ".kindex-cache", "not a folder")
    for _ in range(2):
        code, out, err = project.build()
        assert code == 0 and out.startswith("Built ") and "Traceback" not in err, err
        assert "warning: cannot write the build's cache (.kindex-cache is a file, not a folder)" in err, err
    assert (project.root / "site/index.html").is_file() and leftovers(project.root) == []


def test_an_unwritable_parent_folder_is_one_clear_line(project, monkeypatch):
    old_content(project.root)
    real_mkdir = os.mkdir

    def mkdir(path, *args, **kwargs):
        if Path(path).name.startswith(".site.new-"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", mkdir)
    code, out, err = project.build()
    assert code == 1 and "Traceback" not in err
    assert err.splitlines()[0] == ("site: cannot write: ./: Permission denied (a new site is written beside site/, "
                                   "then put in its place)"), err


def test_a_file_where_the_output_folder_should_be_is_one_clear_line(project):
    old_content(project.root)
    write(project.root, "public", "a file")
    code, out, err = project.build("--out", "public/site")
    assert code == 1 and "Traceback" not in err
    assert err.splitlines()[0] == "public/site: cannot write: public is a file, not a folder", err


def test_a_move_that_fails_undoes_the_incremental_build(project, monkeypatch, always_incremental):
    old_content(project.root)
    project.built()
    old = tree(project.root / "site")
    new_content(project.root)
    real_replace, moves = os.replace, []

    def replace(src, dst):
        if Path(dst).is_relative_to(project.root / "site") and ".backup" not in Path(src).parts:
            moves.append(dst)
            if len(moves) == 4:  # a folder of the site that is read-only
                raise PermissionError(13, "Permission denied", str(dst))
        return real_replace(src, dst)

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", replace)
        code, out, err = project.build()
    assert code == 1 and "Traceback" not in err
    assert re.match(r"site: cannot write: site/\S+: Permission denied", err), err
    assert tree(project.root / "site") == old and leftovers(project.root) == []
    code, out, err = project.build()
    assert code == 0, err


def test_a_read_only_old_site_is_removed_all_the_same(project, monkeypatch):
    """A site someone made read-only (its folders 0555) is replaced, and the old one deleted, not left
    behind undeletable. (Tests run as root, whom permissions do not stop: a user is simulated.)"""
    old_content(project.root)
    project.built()
    for folder in [project.root / "site", *(p for p in (project.root / "site").rglob("*") if p.is_dir())]:
        folder.chmod(0o555)

    def as_a_user(real):
        def call(path, *args, dir_fd=None, **kwargs):
            parent = os.stat(dir_fd) if dir_fd is not None else os.stat(os.path.dirname(os.path.abspath(path)))
            if not parent.st_mode & stat.S_IWUSR:
                raise PermissionError(13, "Permission denied", path)
            return real(path, *args, dir_fd=dir_fd, **kwargs)
        return call

    new_content(project.root)
    with monkeypatch.context() as patched:
        patched.setattr(os, "unlink", as_a_user(os.unlink))
        patched.setattr(os, "rmdir", as_a_user(os.rmdir))
        code, out, err = project.build("--clean")
    assert code == 0, err
    assert leftovers(project.root) == []
    assert not (project.root / "site/runs/run-c").exists()


def test_ctrl_c_exit_statuses_are_128_plus_the_signal(project, monkeypatch):
    old_content(project.root)
    handler = signal.getsignal(signal.SIGTERM)
    for signum, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        def load(*args, **kwargs):
            signal.raise_signal(signum)  # a real signal, while the build reads the content

        with monkeypatch.context() as patched:
            patched.setattr(build_module, "load_content", load)
            code, _, err = project.build()
        assert code == status and err.strip() == "interrupted; nothing was written"
        assert signal.getsignal(signal.SIGTERM) == handler  # (the command's own, while it runs)
        assert not (project.root / "site").exists() and leftovers(project.root) == []


def test_a_writer_process_killed_ends_the_build_with_one_line_not_a_hang(project, monkeypatch):
    """A forked writer killed by someone else (the OOM killer's SIGKILL): the build stops at once,
    says so, and leaves the old site and nothing else."""
    old_content(project.root)
    project.built()
    old = tree(project.root / "site")
    new_content(project.root)
    parent = os.getpid()

    def killed():  # in a writer only (its 2nd file): as the OOM killer would
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 1)
    monkeypatch.setattr(build_module, "_workers", lambda: 2)
    crashing.install(3, monkeypatch).crash = killed  # (the folder's marker is the 1st)
    started = time.monotonic()
    code, out, err = project.build("--clean")
    assert time.monotonic() - started < HANG_S, "the build waited on the killed writer (a hang)"
    assert code == 1 and "Traceback" not in err
    assert "writing the site: a process writing it was killed by SIGKILL (out of memory?)" in err, err
    assert tree(project.root / "site") == old and leftovers(project.root) == []
