"""Highlighted source texts kept for the next highlighting of the same text (`Highlights`): in this
process's memory and in a folder beside the manifest (`Store`), both keyed by the text's sha256 and
its lexer (highlight.py makes them)."""

from __future__ import annotations

import os
from pathlib import Path

from markupsafe import Markup

from ..highlight import Highlighted

MEMORY_MAX_CHARS = 32 * 2**20  # HTML kept in a process's memory (bounded: a site of many kernels)


class Highlights:
    """A builder's highlights: in memory, the oldest let go beyond MEMORY_MAX_CHARS, and in the store
    on disk while one is open (`open`: a build that shows no new page needs none)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.entries: dict[tuple[str, str], Highlighted] = {}
        self.chars = 0
        self.store: Store | None = None

    def open(self, code_stamp: str | None, keep: set[str]) -> None:
        """Keep the texts of `keep` (digests) in the store too; with no `code_stamp`, in memory alone."""
        self.store = Store(self.folder, code_stamp, keep) if code_stamp is not None else None

    def find(self, keys) -> tuple[tuple[str, str], Highlighted] | None:
        """The first of `keys` held in memory, else the first in the store (then held in memory too)."""
        for key in keys:
            found = self.entries.get(key)
            if found is not None:
                return key, found
        for key in keys if self.store is not None else ():
            found = self.store.get(key)
            if found is not None:
                self.remember(key, found)
                return key, found
        return None

    def has(self, key: tuple[str, str]) -> bool:
        return key in self.entries or (self.store is not None and self.store.has(key))

    def put(self, key: tuple[str, str], value: Highlighted) -> None:
        if self.store is not None:
            self.store.put(key, value)
        self.remember(key, value)

    def remember(self, key: tuple[str, str], value: Highlighted) -> None:
        """Hold it in memory alone."""
        self.entries[key] = value
        self.chars += len(value.html)
        while self.chars > MEMORY_MAX_CHARS and len(self.entries) > 1:
            oldest = next(iter(self.entries))
            self.chars -= len(self.entries.pop(oldest).html)

    def keys_ending(self, suffix: str) -> set[tuple[str, str]]:
        """The keys whose lexer part ends with `suffix`, in memory or in the folder (written by any process)."""
        found = {key for key in self.entries if key[1].endswith(suffix)}
        try:
            found.update(tuple(name[:-len(".html")].split(".", 1)) for name in os.listdir(self.folder)
                         if name.endswith(suffix + ".html") and not name.startswith("."))
        except OSError:  # (no store yet)
            pass
        return found


class Store:
    """Highlights kept on disk for the next build, a file each (`<sha256>.<lexer>.html`: a line with the
    text's bytes, lines and the HTML's length, then the HTML). The folder's stamp says what made them
    (this program's code, Pygments' version): when it differs, the folder is emptied. Only a cache: an
    entry that cannot be read or written means one more highlight, never a failed build. Worker
    processes share it: each writes an entry whole, under a name of its own, then renames it into place."""

    def __init__(self, folder: Path, code_stamp: str, keep: set[str]):
        """Open `folder` (made if need be), dropping entries of texts not in `keep` (digests)."""
        import pygments  # (its version alone: the package's __init__)

        self.folder = folder
        stamp, mark = f"{code_stamp}\npygments {pygments.__version__}\n", folder / "stamp"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            same = mark.read_text(encoding="utf-8") == stamp
        except (OSError, ValueError):
            same = False
        try:
            for entry in os.scandir(folder):
                if entry.name != "stamp" and (not same or entry.name.split(".", 1)[0] not in keep):
                    os.unlink(entry.path)
            if not same:
                mark.write_text(stamp, encoding="utf-8")
        except OSError:
            pass

    def get(self, key: tuple[str, str]) -> Highlighted | None:
        try:
            with open(self.folder / f"{key[0]}.{key[1]}.html", encoding="utf-8", newline="") as f:
                head, html = f.readline(), f.read()
            size, lines, length = map(int, head.split())
        except (OSError, ValueError):
            return None
        return Highlighted(Markup(html), size, lines) if len(html) == length else None

    def has(self, key: tuple[str, str]) -> bool:
        return os.path.exists(self.folder / f"{key[0]}.{key[1]}.html")

    def put(self, key: tuple[str, str], value: Highlighted) -> None:
        path = self.folder / f"{key[0]}.{key[1]}.html"
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        try:
            with open(temporary, "w", encoding="utf-8", newline="") as f:
                f.write(f"{value.bytes} {value.lines} {len(value.html)}\n{value.html}")
            os.replace(temporary, path)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass
