"""The content folder's files as a load lists them (`content_files`: one stat each, sorted, what is not
read said), and the racily-clean rule every reuse of a file by its stat follows (`racy`)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from stat import S_ISREG

from . import cache
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
        self.stat = stat  # cache.stat_key of its stat when listed (its target's, for a symlink)
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
    """Every file under root, sorted, from `stats` (cache.snapshot, taken here when not given), skipping
    dotfiles; symlinks leaving root are not followed. Nothing else is left out without a word: a folder
    that cannot be listed, a name that is not UTF-8 and anything but a file, folder or symlink are problems.
    """
    at, shown_root = roots(root)
    stats = cache.snapshot(root) if stats is None else stats
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
    """Whether a folder the snapshot marked (cache.LOOK, LINKED, UNKNOWN) is read; if not, a line says why."""
    if _unnamable(path.name, path, True, problems):
        return False
    if key == cache.LINKED:
        warnings.append(f"{display(path)}: symlinked folder not followed")
        return False
    if key == cache.UNKNOWN:
        try:
            os.scandir(path).close()
        except OSError as e:
            problems.append(f"{_named(path)}/: cannot read this folder: {e.strerror or e}")
            return False
    return True


def _special_file(path: Path, key: tuple, real_root: Path, warnings: list[str], problems: list[str]):
    """A file the snapshot marked (a symlink, a name in other characters, cache.UNKNOWN): its stat key
    (() if none: reading it says why), or None for what is not read (a problem or a warning says so)."""
    if _unnamable(path.name, path, False, problems):
        return None
    if path.is_symlink():
        target = path.resolve()
        if not target.is_relative_to(real_root) or not target.is_file():
            warnings.append(f"{display(path)}: symlink to a file outside the content folder not followed")
            return None
        try:
            return cache.stat_key(path.stat())
        except OSError:
            return ()
    if key != cache.UNKNOWN:
        return key[1:]  # (a plain file named in other characters than printable ASCII)
    try:
        st = path.lstat()
    except OSError:
        return ()  # (gone since it was listed, or unreadable: reading it says so)
    if not S_ISREG(st.st_mode):
        problems.append(f"{display(path)}: not a regular file (a pipe, socket or device); "
                        "the content folder holds files and folders")
        return None
    return cache.stat_key(st)


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
    """display(path), with bytes that are not UTF-8 shown as \\xNN (content/caf\\xe9.json), and
    what would not show as written escaped (errors.printable)."""
    return printable(display(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))
