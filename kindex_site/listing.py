"""The content folder's files as a load lists them (`content_files`: one stat each, sorted, what is not
read said), its snapshot by stat (`snapshot`: standard library only, for the no-op check), and the
racily-clean rule every reuse of a file by its stat follows (`racy`)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from stat import S_ISREG

from .errors import display, printable

# File times tick with the kernel's coarse clock: a file written within this long before it was read may be
# written again, same size, same time, so it is compared by its bytes (git's "racily clean" rule).
RACY_NS = 100_000_000
_NOT_UTF8 = re.compile("[\ud800-\udfff]")  # what os.scandir puts for bytes of a name that are not UTF-8


def racy(stat: tuple, read_at: int) -> bool:
    """Whether a file of this stat (size, mtime, …) was written in the tick it was read at (time.time_ns())."""
    return stat[1] >= read_at - RACY_NS


class Listed:
    """A file found under the content folder; its Path is made when asked for (an unchanged file needs none)."""

    __slots__ = ("at", "rel", "shown", "stat", "_path")

    def __init__(self, at: str, rel: str, shown: str, stat: tuple[int, int, int] | None):
        self.at = at  # its path as listed (os.DirEntry.path)
        self.rel = rel  # its path under the content folder, with '/' between folders
        self.shown = shown  # display(path), made from strings
        self.stat = stat  # stat_key of its stat when listed (its target's, for a symlink)
        self._path: Path | None = None

    @property
    def path(self) -> Path:
        if self._path is None:
            self._path = Path(self.at)
        return self._path


def roots(root: Path) -> tuple[str, str]:
    """The content folder as its listed files' paths start (os.DirEntry.path) and as they are shown."""
    shown_root = display(root)
    shown_root = "" if shown_root == "." else shown_root + ("" if shown_root.endswith("/") else "/")
    return os.path.join(root, ""), shown_root


def content_files(root: Path, warnings: list[str], problems: list[str],
                  stats: Mapping[str, tuple[int, ...]] | None) -> list[Listed]:
    """Every file under root, sorted, from `stats` (`snapshot`), skipping dotfiles and symlinks leaving
    root; nothing else is left out without a problem line."""
    at, shown_root = roots(root)
    stats = snapshot(root) if stats is None else stats
    if all(key[0] >= 0 for key in stats.values()):
        return [Listed(at + rel, rel, shown_root + rel, key) for rel, key in sorted(stats.items())]
    found: list[Listed] = []
    skipped = None  # a folder whose files are not read
    for rel, key in sorted(stats.items()):
        if skipped is not None and rel.startswith(skipped):
            continue
        if key[0] >= 0:
            found.append(Listed(at + rel, rel, shown_root + rel, key))
        elif rel.endswith("/"):
            if not _listable(Path(at + rel) if rel != "./" else root, key, warnings, problems):
                skipped = rel
        else:
            stat = _special_file(Path(at + rel), key, root.resolve(), warnings, problems)
            if stat is not None:
                found.append(Listed(at + rel, rel, shown_root + rel, stat or None))
    return found


def _listable(path: Path, key: tuple, warnings: list[str], problems: list[str]) -> bool:
    """Whether a folder the snapshot marked (LOOK, LINKED, UNKNOWN) is read; if not, a line says why."""
    if _unnamable(path.name, path, True, problems):
        return False
    if key == LINKED:
        warnings.append(f"{display(path)}: symlinked folder not followed")
        return False
    if key == UNKNOWN:
        try:
            os.scandir(path).close()
        except OSError as e:
            problems.append(f"{_named(path)}/: cannot read this folder: {e.strerror or e}")
            return False
    return True


def _special_file(path: Path, key: tuple, real_root: Path, warnings: list[str], problems: list[str]):
    """A file the snapshot marked: its stat key (() if none), or None for what is not read (a line says why)."""
    if _unnamable(path.name, path, False, problems):
        return None
    if path.is_symlink():
        target = path.resolve()
        if not target.is_relative_to(real_root) or not target.is_file():
            warnings.append(f"{display(path)}: symlink to a file outside the content folder not followed")
            return None
        try:
            return stat_key(path.stat())
        except OSError:
            return ()
    if key != UNKNOWN:
        return key[1:]  # (a plain file named in other characters than printable ASCII)
    try:
        st = path.lstat()
    except OSError:
        return ()  # (gone since it was listed, or unreadable: reading it says so)
    if not S_ISREG(st.st_mode):
        problems.append(f"{display(path)}: not a regular file (a pipe, socket or device); "
                        "the content folder holds files and folders")
        return None
    return stat_key(st)


def _unnamable(name: str, path: Path, is_dir: bool, problems: list[str]) -> bool:
    """A name the site could not show as it is (a problem says so)."""
    if _NOT_UTF8.search(name):
        problems.append(f"{_named(path)}{'/' if is_dir else ''}: its name is not UTF-8 "
                        "(the bytes that are not are shown as \\xNN); rename it")
        return True
    if printable(name) != name:
        problems.append(f"{_named(path)}{'/' if is_dir else ''}: its name holds a control or "
                        "bidirectional character (shown escaped); rename it")
        return True
    return False


def _named(path: Path) -> str:
    """display(path), bytes that are not UTF-8 shown as \\xNN (errors.printable)."""
    return printable(display(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))


# --- the content folder listed with each file's stat (the no-op check's and the load's) ----------


def snapshot(content: Path) -> dict[str, tuple[int, ...]]:
    """Every entry under `content` the loader might read, by its path there (a folder's ends with
    '/'): a plain file by its `stat_key`; anything else by a tuple starting with -1, for
    `content_files` to look at."""
    found: dict[str, tuple[int, ...]] = {}
    _walk([(os.fspath(content), "")], found)
    return found


def snapshot_again(content: Path, last: dict[str, tuple[int, ...]], paths: list[str]) -> dict | None:
    """`last` brought up to date for the `paths` the watcher reports; None when that cannot be told."""
    if len(paths) > AGAIN_MAX_PATHS:
        return None
    root = os.path.abspath(content)
    found = dict(last)
    for path in paths:
        rel = _under(os.path.abspath(path), root)
        if rel is None:
            continue  # (templates, static files, the settings)
        if rel == os.curdir:
            return None
        parts = rel.split(os.sep)
        if any(part.startswith(".") for part in parts):
            continue
        if not all(part.isascii() and part.isprintable() for part in parts[:-1]):
            return None  # (its folders' names are the loader's to judge)
        if any(os.path.islink(os.path.join(root, *parts[:i])) for i in range(1, len(parts))):
            continue  # in a symlinked folder, not followed
        rel = "/".join(parts)
        if found.pop(rel, None) is None:  # (not a file before: a folder, or new; what was under it goes)
            for key in [key for key in found if key.startswith(rel + "/")]:
                del found[key]
        path = os.path.join(root, rel)
        if os.path.lexists(path):
            folders: list[tuple[str, str]] = []
            _enter(_Named(path, parts[-1]), rel, found, folders)
            _walk(folders, found)
    return found


AGAIN_MAX_PATHS = 200  # more changed paths than this: a whole snapshot is as quick


def _under(path: str, root: str) -> str | None:
    """`path` relative to the folder `root` (through a symlinked content folder or not), or None."""
    for folder in (root, os.path.realpath(root)):
        rel = os.path.relpath(path, folder)
        if rel != os.pardir and not rel.startswith(os.pardir + os.sep):
            return rel
    return None


class _Named:
    """What `_enter` asks of an os.DirEntry, for a path the watcher named."""

    def __init__(self, path: str, name: str):
        self.path, self.name = path, name

    def is_dir(self) -> bool:
        return os.path.isdir(self.path)  # (through a symlink, as os.DirEntry.is_dir)

    def is_symlink(self) -> bool:
        return os.path.islink(self.path)

    def stat(self) -> os.stat_result:
        return os.stat(self.path)


def _walk(folders: list[tuple[str, str]], found: dict[str, tuple[int, ...]]) -> None:
    """Put what is under each (folder, its path under content/ with '/') in `found` (see snapshot)."""
    while folders:  # (a loop, not recursion: a folder may be nested deeper than Python recurses)
        here, prefix = folders.pop()
        try:
            with os.scandir(here) as listing:
                entries = list(listing)
        except OSError:
            found[prefix or "./"] = UNKNOWN
            continue
        for entry in entries:
            name = entry.name
            if name[0] != ".":
                _enter(entry, prefix + name, found, folders)


def _enter(entry, rel: str, found: dict[str, tuple[int, ...]], folders: list[tuple[str, str]]) -> None:
    """Put one entry in `found` (see snapshot); a folder to list goes on `folders`."""
    name = entry.name
    try:
        if entry.is_dir():  # (the type from the listing: no system call but for a symlink)
            if entry.is_symlink():
                found[rel + "/"] = LINKED
            else:
                folders.append((entry.path, rel + "/"))
                if not (name.isascii() and name.isprintable()):
                    found[rel + "/"] = LOOK
            return
        st = entry.stat()  # (a symlink's target's)
        plain = not entry.is_symlink() and name.isascii() and name.isprintable()
    except OSError:
        found[rel] = UNKNOWN
        return
    if not S_ISREG(st.st_mode):
        found[rel] = UNKNOWN
    elif plain:
        # The change time too: a file put back with its old size and time still has a new ctime.
        found[rel] = stat_key(st)
    else:
        found[rel] = (-1, *stat_key(st))


UNKNOWN = (-1,)  # snapshot's entry for what it could not list or stat, or is not a regular file
LOOK = (-1, 0)  # snapshot's entry for a folder named in other characters than printable ASCII
LINKED = (-1, 1)  # snapshot's entry for a symlinked folder (not followed)


def stat_key(st: os.stat_result) -> tuple[int, int, int]:
    """What tells a file's version apart: size, modification and change time (see snapshot)."""
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns
