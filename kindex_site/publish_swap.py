"""How a new site takes the old one's place in the output folder, whatever stops the build.

At any moment, kill -9 included, `site/` is the previous site or the new one, whole, or the next
command puts it right first (`recover`; docs/building.md). Everything is written into a sibling
`.site.new-<pid>-<token>/`, then committed: a full build swaps it in, an incremental one writes a
`.journal` and applies it, keeping the replaced files in `.backup/` so that it can be rolled forward
or back. Each change to a site or its caches is one of the "file operations" below, which the crash
tests wrap (tests/crashing.py). Only the standard library: `recover` runs before a no-op build's answer.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import stat
import sys
import threading
from contextlib import contextmanager, suppress
from pathlib import Path

from .errors import KindexError, display

# A dotfile, so that GitHub's upload-pages-artifact leaves it out of what it publishes.
MARKER = ".kindex-site"
MARKER_TEXT = "This folder is written by kindex-site build; it is replaced on each build.\n"
JOURNAL = ".journal"  # in an incremental build's folder, from its commit point on
BACKUP = ".backup"  # in that folder: the old site's files the journal replaces or deletes

# --- file operations: every change to a site or its caches is one of these ------------------------


def replace(src, dst) -> None:
    os.replace(src, dst)


def rename(src, dst) -> None:
    os.rename(src, dst)


def link(src, dst) -> None:
    os.link(src, dst, follow_symlinks=False)


def unlink(path) -> None:
    os.unlink(path)


def rmdir(path) -> None:
    os.rmdir(path)


def write_parts(path: Path, parts) -> None:
    """A new file made of `parts` (bytes, each made when it is written)."""
    with open(path, "wb") as f:
        for part in parts:
            f.write(part)


# --- signals ---------------------------------------------------------------------------------------


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopping a build. `committed`: it came once the new site was in place."""

    def __init__(self, signum: int = signal.SIGINT, committed: bool = False, out: Path | None = None):
        super().__init__(signum)
        self.signum, self.committed, self.out = signum, committed, out


_OWNER = os.getpid()  # the process that installed the handlers (a forked worker inherits them)


def _on_sigterm(signum, frame) -> None:
    if os.getpid() != _OWNER:  # a process forked by the build, not yet on its own handlers: stop as it would
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise Interrupted(signal.SIGTERM)


@contextmanager
def sigterm_as_interrupt():
    """SIGTERM (`docker stop`, a cancelled CI job) stops the body as Ctrl-C does (main thread only),
    unless this process was started with it ignored."""
    global _OWNER
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) == signal.SIG_IGN:
        yield
        return
    _OWNER = os.getpid()
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Hold:
    """Ctrl-C and SIGTERM recorded instead of acted on, from `start()` to `stop()` (main thread)."""

    def __init__(self):
        self.received: int | None = None
        self.previous: dict | None = None

    def __call__(self, signum, frame) -> None:
        if os.getpid() != _OWNER and signum == signal.SIGTERM:
            _on_sigterm(signum, frame)
        elif self.received is None:
            self.received = signum

    def start(self) -> None:
        if self.previous is not None or threading.current_thread() is not threading.main_thread():
            return
        self.previous = {}
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) != signal.SIG_IGN:
                self.previous[signum] = signal.signal(signum, self)

    def stop(self) -> None:
        if self.previous is None:
            return
        for signum, handler in self.previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        self.previous = None


# --- names beside the output folder ----------------------------------------------------------------


def _name(out: Path, kind: str) -> Path:
    return out.with_name(f".{out.name}.{kind}-{os.getpid()}-{os.urandom(4).hex()}")


def _pid_of(path: Path, out: Path, kind: str) -> str | None:
    prefix = f".{out.name}.{kind}-"
    return path.name[len(prefix):].split("-", 1)[0] if path.name.startswith(prefix) else None


def _ours(folder: Path) -> bool:
    return not folder.is_symlink() and ((folder / MARKER).is_file() or (folder / JOURNAL).is_file())


def _make_folder(out: Path) -> Path:
    """A new `.site.new-…` folder with its marker (made with the process's umask, as any folder)."""
    hold = _Hold()  # (a folder without its marker would never be known for ours)
    hold.start()
    try:
        while True:
            folder = _name(out, "new")
            try:
                os.mkdir(folder)
                break
            except FileExistsError:
                continue
        try:
            _write_new(folder / MARKER, MARKER_TEXT.encode())
            _later_than(folder / MARKER, out / MARKER)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
    finally:
        hold.stop()
    if hold.received is not None:
        shutil.rmtree(folder, ignore_errors=True)
        raise Interrupted(hold.received)
    return folder


def _later_than(marker: Path, previous: Path) -> None:
    """Give a new marker a modification time later than the site's marker, whatever the clock says
    (cache.site_identity tells sites apart by it; unlike an inode, it survives cp -a)."""
    try:
        before = os.stat(previous).st_mtime_ns
    except OSError:
        return
    now = os.stat(marker).st_mtime_ns
    if now <= before:
        os.utime(marker, ns=(now, before + 1))


def _write_new(path: Path, data: bytes, sync: bool = False) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _sync_folder(folder: Path) -> None:
    """Force a folder's entries to disk (where the system allows: not on Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- the swap --------------------------------------------------------------------------------------


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders' names in one atomic step (renameat2 RENAME_EXCHANGE); False where there is none."""
    if sys.platform != "linux":
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


# --- the incremental journal -----------------------------------------------------------------------


def _backups(folder: Path, deleted: list[str], changed: list[str]) -> tuple[list[Path], list[Path]]:
    """Where the old site's files that a journal deletes and replaces are kept: `.backup/<n>`, n their
    place in the journal."""
    backup = folder / BACKUP
    return ([backup / str(i) for i in range(len(deleted))],
            [backup / str(i) for i in range(len(deleted), len(deleted) + len(changed))])


def _forward(out: Path, folder: Path, deleted: list[str], changed: list[str]) -> int:
    """Apply a journal from wherever it was left: deletions, then replacements; how many steps it took."""
    kept_deleted, kept_changed = _backups(folder, deleted, changed)
    (folder / BACKUP).mkdir(exist_ok=True)
    steps = 0
    for path, kept in zip(deleted, kept_deleted):
        gone = out / path
        if os.path.lexists(gone):
            replace(gone, kept)
            steps += 1
        _remove_empty_folders(out, gone.parent)  # (also when a killed build had moved the file)
    there: set[Path] = set()  # folders known to exist
    for path, kept in zip(changed, kept_changed):
        new, target = folder / path, out / path
        if not os.path.lexists(new):
            continue  # moved in already
        if os.path.lexists(target) and not os.path.lexists(kept):
            try:
                link(target, kept)  # the old file stays in place until replaced
            except OSError:
                replace(target, kept)  # (a file system without hard links)
        if target.parent not in there:
            target.parent.mkdir(parents=True, exist_ok=True)
            there.add(target.parent)
        replace(new, target)
        steps += 1
    return steps


def _back(out: Path, folder: Path, deleted: list[str], changed: list[str]) -> None:
    """Undo a journal from wherever it was left."""
    kept_deleted, kept_changed = _backups(folder, deleted, changed)
    for path, kept in reversed(list(zip(changed, kept_changed))):
        new, target = folder / path, out / path
        if not os.path.lexists(new) and os.path.lexists(target):  # moved in: take it out again
            new.parent.mkdir(parents=True, exist_ok=True)
            replace(target, new)
        if os.path.lexists(kept):
            if os.path.lexists(target):  # never replaced: the backup is a second link to it
                unlink(kept)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                replace(kept, target)
        _remove_empty_folders(out, target.parent)
    for path, kept in reversed(list(zip(deleted, kept_deleted))):
        target = out / path
        if os.path.lexists(kept):
            target.parent.mkdir(parents=True, exist_ok=True)
            replace(kept, target)


def _remove_empty_folders(out: Path, folder: Path) -> None:
    while folder != out and folder.is_relative_to(out):
        try:
            rmdir(folder)
        except FileNotFoundError:
            pass
        except OSError:  # not empty (or not ours to remove): the folders above are not empty either
            return
        folder = folder.parent


def _read_journal(folder: Path) -> tuple[list[str], list[str]] | None:
    """The journal's (deleted, changed), or None when missing or incomplete (then it was never acted on)."""
    with suppress(OSError, ValueError, KeyError, TypeError):
        doc = json.loads((folder / JOURNAL).read_bytes())
        deleted, changed = doc["deleted"], doc["changed"]
        if doc.get("end") is True and isinstance(deleted, list) and isinstance(changed, list):
            paths = [str(p) for p in deleted + changed]
            if not any(p.startswith("/") or ".." in p.split("/") or "\\" in p for p in paths):  # (only the site's)
                return paths[:len(deleted)], paths[len(deleted):]
    return None


def _write_journal(folder: Path, deleted: list[str], changed: list[str]) -> int:
    """Write the journal whole and force it to disk; its open descriptor, locked (see _journal_lock)."""
    data = json.dumps({"deleted": deleted, "changed": changed, "end": True}).encode()
    fd = os.open(folder / JOURNAL, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        _lock(fd)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        raise
    _sync_folder(folder)
    _sync_folder(folder.parent)
    return fd


def _lock(fd: int) -> bool:
    """Lock an open journal, without waiting; False when another process holds it."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: no locks (the journal's folder names its writer's pid)
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _journal_lock(folder: Path, out: Path) -> int | None:
    """A journal left beside `out`, opened and locked: its writer is gone. None while its writer is
    at work, or when it cannot be opened."""
    try:
        fd = os.open(folder / JOURNAL, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    if not _lock(fd) or ("fcntl" not in sys.modules and _alive(_pid_of(folder, out, "new") or "")):
        os.close(fd)
        return None
    return fd


# --- what a killed build left ---------------------------------------------------------------------


def recover(out: Path) -> list[str]:
    """Put right what a build killed during its commit left in `out`; what was done, as notes."""
    out = out.resolve()
    try:
        return _recover(out)
    except OSError as e:
        raise KindexError(f"{display(out)}: cannot write: {why_not_written(e, out)}; a build was stopped while "
                          "it put its new site in place, and that could not be put right") from None


def _recover(out: Path) -> list[str]:
    notes: list[str] = []
    try:
        siblings = [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]
    except OSError:
        return notes
    for folder in sorted(siblings):
        if _pid_of(folder, out, "new") is None or folder.is_symlink() or not (folder / JOURNAL).is_file():
            continue
        lock = _journal_lock(folder, out)
        if lock is None:
            if (folder / JOURNAL).is_file():
                raise KindexError(f"{display(out)}: another kindex-site build is updating it right now; "
                                  "run this again once it has finished")
            continue
        try:
            journal = _read_journal(folder)
            if journal is None and _alive(_pid_of(folder, out, "new") or ""):
                continue  # (being written this instant: its writer has yet to lock it)
            if journal is not None:
                try:
                    steps = _forward(out, folder, *journal)
                    if steps:
                        notes.append(f"{display(out)}/: a build was stopped while it updated the site: "
                                     f"its update ({_files(len(journal[1]) - 1, len(journal[0]))}) was completed")
                except OSError as forward_failed:
                    try:
                        _back(out, folder, *journal)
                    except OSError as e:
                        raise KindexError(f"{display(out)}: a build was stopped while it updated the site, "
                                          f"which can be neither completed ({_why(forward_failed)}) nor undone "
                                          f"({_why(e)}); `kindex-site build --clean` makes it anew") from None
                    notes.append(f"{display(out)}/: a build was stopped while it updated the site, and its update "
                                 f"could not be completed ({_why(forward_failed)}): the previous site was put back")
        finally:
            os.close(lock)
        _remove(_to_trash(folder, out))
    if not os.path.lexists(out):
        for folder in sorted(siblings):
            pid = _pid_of(folder, out, "old")
            if pid is not None and folder.is_dir() and _ours(folder) and not _alive(pid):
                rename(folder, out)
                notes.append(f"{display(out)}/: a build was stopped while it swapped its new site in: "
                             "the previous site was put back")
                break
    if siblings:  # what else killed builds left goes, without keeping this command waiting
        sweep(out, siblings, background=True)
    return notes


def _files(changed: int, deleted: int) -> str:
    parts = [f"{changed} {'file' if changed == 1 else 'files'} written"]
    if deleted:
        parts.append(f"{deleted} deleted")
    return ", ".join(parts)


def _why(e: OSError) -> str:
    where = f"{display(Path(e.filename))}: " if e.filename else ""
    return f"{where}{e.strerror or e}"


def sweep(out: Path, siblings: list[Path] | None = None, background: bool = False) -> None:
    """Remove what builds no longer running left beside `out` (after `recover`); with `background`,
    in a detached process."""
    for path in sorted(out.parent.iterdir() if siblings is None else siblings):
        for kind in ("new", "old", "trash"):
            pid = _pid_of(path, out, kind)
            if pid is not None:
                break
        else:
            continue
        if kind == "old" and not out.exists():
            continue  # (recover puts it back; it is not ours to take while its build may still do so)
        if kind == "new" and (path / JOURNAL).is_file():
            continue  # (recover's: applied or undone first)
        if os.path.isdir(path) and _ours(path) and not _alive(pid):
            _remove(_to_trash(path, out), BACKGROUND_REMOVE_MIN if background else 0)


def _alive(pid_text: str) -> bool:
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    if pid == os.getpid():
        return False  # an earlier build of this process; builds in one process do not overlap
    if os.name == "nt":
        return True  # os.kill would terminate it there; leave the folder alone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


# --- removing a folder -----------------------------------------------------------------------------


# From this many files on, a detached process removes an old site (as costly as writing it) while the
# user goes on; it first renames the folder after its own pid, so that sweeps leave it alone.
BACKGROUND_REMOVE_MIN = 5000
_REMOVE_SCRIPT = ("import sys; sys.path.insert(0, sys.argv[3]); "
                  "from kindex_site.publish_swap import remove_renamed; remove_renamed(sys.argv[1], sys.argv[2])")
_removers: list = []  # (subprocess.Popen) kept so that a long-running caller (serve) reaps them


def _to_trash(folder: Path, out: Path) -> Path | None:
    """Rename a folder of ours `.site.trash-<pid>-…`; None when it is gone."""
    trash = _name(out, "trash")
    try:
        rename(folder, trash)
    except OSError:  # (gone already; or not to be renamed now: a later sweep tries again)
        return None
    return trash


def _remove(trash: Path | None, files: int = 0) -> None:
    """Delete a folder `_to_trash` renamed: here when small, else in a detached process (not on
    Windows, where a console's Ctrl-C would reach it, nor in a frozen app)."""
    if trash is None:
        return
    if files >= BACKGROUND_REMOVE_MIN and os.name == "posix" and sys.executable and not getattr(sys, "frozen", False):
        import subprocess

        _removers[:] = [p for p in _removers if p.poll() is None]
        prefix = trash.name[:trash.name.index(".trash-") + len(".trash-")]
        with suppress(OSError):  # no process to be had: remove it here
            _removers.append(subprocess.Popen(
                [sys.executable, "-I", "-c", _REMOVE_SCRIPT, str(trash), prefix,
                 str(Path(__file__).resolve().parents[1])],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True))  # (Ctrl-C: not its)
            return
    remove_tree(trash)


def remove_renamed(old: str, prefix: str) -> None:
    """A detached remover's work (`_remove`): the folder renamed after this process, then removed."""
    folder, name = os.path.split(old)
    root = os.path.join(folder, f"{prefix}{os.getpid()}-{name[len(prefix):].split('-', 1)[1]}")
    try:
        os.rename(old, root)
    except OSError:
        return  # a sweep took it first
    remove_tree(Path(root))


def remove_tree(folder: Path) -> None:
    """Delete a folder of ours whatever its permissions, marker and journal last."""
    def writable(function, path, exc_info) -> None:
        with suppress(OSError):  # removed meanwhile, or not ours to remove after all
            parent = os.path.dirname(path)
            os.chmod(parent, stat.S_IMODE(os.lstat(parent).st_mode) | stat.S_IRWXU)
            if function in (os.rmdir, os.unlink, os.remove):
                function(path)
            elif function is os.open or function is os.scandir:  # (a folder that cannot be read)
                os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) | stat.S_IRWXU)
                shutil.rmtree(path, ignore_errors=True)

    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in sorted(entries, key=lambda e: e.name in (MARKER, JOURNAL)):
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, onerror=writable)
            else:
                os.unlink(entry.path)
        except OSError:
            writable(os.unlink, entry.path, None)
    try:
        os.rmdir(folder)
    except OSError:
        shutil.rmtree(folder, onerror=writable)


# --- one build's publication -----------------------------------------------------------------------


class Publication:
    """One build's way into the output folder: `folder()`, then `swap_in()` or `apply()`, the commit
    point. As a context manager it removes what is left of the folder and, from the commit point,
    holds Ctrl-C and SIGTERM until its end (then raises `Interrupted`). An OSError becomes a
    KindexError `site: cannot write: …`, the site as it was."""

    def __init__(self, out: Path):
        self.out = out.resolve()
        self.staging: Path | None = None
        self.trash: Path | None = None  # the swapped-out site, deleted at the end
        self.files = 0  # the new site's files (from BACKGROUND_REMOVE_MIN on, the old one goes in the background)
        self.committed = False
        self.journal: int | None = None  # the journal, open and locked while this build applies it
        self.hold = _Hold()

    def __enter__(self) -> "Publication":
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            sweep(self.out)
        except OSError as e:
            raise self._cannot_write(e) from None
        return self

    def folder(self, files: int) -> Path:
        """The folder to write into (`files`: about how many it will hold)."""
        self.files = files
        try:
            self.staging = _make_folder(self.out)
        except OSError as e:
            raise self._cannot_write(e) from None
        return self.staging

    def swap_in(self) -> None:
        """Put the written folder in the output folder's place: the commit point of a full build."""
        staging, out = self.staging, self.out
        self.hold.start()
        aside = None
        try:
            if not os.path.lexists(out):
                replace(staging, out)
            elif _exchange(staging, out):
                aside = staging  # (the old site, by the name the new one had)
            else:
                aside = _name(out, "old")
                replace(out, aside)  # (a build killed here leaves no site/: recover puts this one back)
                try:
                    replace(staging, out)
                except OSError:
                    os.replace(aside, out)
                    raise
        except OSError as e:
            self.hold.stop()
            raise self._cannot_write(e) from None
        self.staging, self.committed = None, True
        if aside is not None:
            self.trash = _to_trash(aside, out)

    def apply(self, changed: list[str], deleted: list[str]) -> None:
        """Move the written files into the site and delete `deleted`: a journal first, forced to disk
        (the commit point), then its steps, undone if one fails."""
        folder, out = self.staging, self.out
        changed = [p for p in changed if p != MARKER] + [MARKER]  # the marker last (see the module's doc)
        self.hold.start()
        try:
            self.journal = _write_journal(folder, deleted, changed)
        except OSError as e:
            self.hold.stop()
            raise self._cannot_write(e) from None
        try:
            _forward(out, folder, deleted, changed)
        except OSError as e:
            error = self._cannot_write(e)
            try:
                _back(out, folder, deleted, changed)
            except OSError:
                self._close_journal()
                self.staging = None  # the journal stays, for the next command's recover
            self.hold.stop()
            raise error from None
        self.committed = True

    def _cannot_write(self, e: OSError) -> KindexError:
        return KindexError(f"{display(self.out)}: cannot write: {why_not_written(e, self.out, self.staging)}")

    def _close_journal(self) -> None:
        if self.journal is not None:
            os.close(self.journal)
            self.journal = None

    def _remove_staging(self) -> None:
        folder, self.staging = self.staging, None
        self._close_journal()
        if folder is not None:
            _remove(_to_trash(folder, self.out), self.files)

    def __exit__(self, kind, value, traceback) -> None:
        error = None
        if not self.committed and isinstance(value, OSError) and _is_within(value.filename, self.out.parent):
            error = self._cannot_write(value)
        self.hold.start()  # (what is being removed goes whole; a second Ctrl-C waits for it)
        try:
            self._remove_staging()
            trash, self.trash = self.trash, None
            _remove(trash, self.files)
        finally:
            self.hold.stop()
        if error is not None:
            raise error from None
        if self.hold.received is not None and kind is None:
            raise Interrupted(self.hold.received, committed=self.committed, out=self.out)


def _is_within(filename, folder: Path) -> bool:
    if not filename:
        return False
    try:
        return Path(os.fsdecode(filename)).resolve().is_relative_to(folder)
    except (OSError, ValueError):
        return False


def why_not_written(e: OSError, out: Path | None = None, staging: Path | None = None) -> str:
    """`<path>: <reason>`, a path in the folder being written named as its place in the site."""
    if not e.filename:
        return e.strerror or str(e)
    path = Path(os.fsdecode(e.filename))
    if out is not None and staging is not None and path.is_relative_to(staging):
        path = out / path.relative_to(staging)
    elif out is not None and path.parent == out.parent and path.name.startswith(f".{out.name}."):
        return (f"{display(out.parent)}/: {e.strerror or e} (a new site is written beside "
                f"{display(out)}/, then put in its place)")
    if isinstance(e, (FileExistsError, NotADirectoryError)):
        for above in [path, *path.parents]:
            if os.path.lexists(above) and not above.is_dir():
                return f"{display(above)} is a file, not a folder"
    return f"{display(path)}: {e.strerror or e}"
