"""Highlighted source texts kept for the next highlighting of the same text (`Highlights`), keyed by the
text's sha256 and its lexer (highlight.py makes them)."""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

from markupsafe import Markup

from ..highlight import Highlighted

MEMORY_MAX_CHARS = 32 * 2**20  # HTML kept in a process's memory (bounded: a site of many kernels)


class Highlights:
    """A builder's highlights: in memory, the oldest let go beyond MEMORY_MAX_CHARS, and, while the store
    is open (`open`), on disk for the next build, a file each (`<sha256>.<lexer>.html`: a line with the
    text's bytes, lines and the HTML's length, then the HTML). The folder's stamp says what made them
    (this program's code, Pygments' version): when it differs, the folder is emptied. Only a cache: an
    entry that cannot be read or written means one more highlight, never a failed build. Worker
    processes share the folder: each writes an entry whole, under a name of its own, then renames it."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.entries: dict[tuple[str, str], Highlighted] = {}
        self.chars = 0
        self.stored = False  # the store on disk is open

    def open(self, code_stamp: str | None, keep: set[str]) -> None:
        """Open the store (made if need be), dropping entries of texts not in `keep` (digests); with no
        `code_stamp`, keep highlights in memory alone (a build that writes no page shows none)."""
        self.stored = code_stamp is not None
        if not self.stored:
            return
        import pygments  # (its version alone: the package's __init__)

        stamp, mark = f"{code_stamp}\npygments {pygments.__version__}\n", self.folder / "stamp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            same = mark.read_text(encoding="utf-8") == stamp
        except (OSError, ValueError):
            same = False
        with suppress(OSError):
            for entry in os.scandir(self.folder):
                if entry.name != "stamp" and (not same or entry.name.split(".", 1)[0] not in keep):
                    os.unlink(entry.path)
            if not same:
                mark.write_text(stamp, encoding="utf-8")

    def find(self, keys) -> tuple[tuple[str, str], Highlighted] | None:
        """The first of `keys` held in memory, else the first in the store (then held in memory too)."""
        for key in keys:
            found = self.entries.get(key)
            if found is not None:
                return key, found
        for key in keys if self.stored else ():
            found = self._read(key)
            if found is not None:
                self.remember(key, found)
                return key, found
        return None

    def has(self, key: tuple[str, str]) -> bool:
        return key in self.entries or (self.stored and os.path.exists(self._path(key)))

    def put(self, key: tuple[str, str], value: Highlighted) -> None:
        if self.stored:
            path = self._path(key)
            temporary = path.with_name(f".{path.name}.{os.getpid()}")
            try:
                with open(temporary, "w", encoding="utf-8", newline="") as f:
                    f.write(f"{value.bytes} {value.lines} {len(value.html)}\n{value.html}")
                os.replace(temporary, path)
            except OSError:
                with suppress(OSError):
                    os.unlink(temporary)
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
        with suppress(OSError):  # (no store yet)
            found.update(tuple(name[:-len(".html")].split(".", 1)) for name in os.listdir(self.folder)
                         if name.endswith(suffix + ".html") and not name.startswith("."))
        return found

    def _path(self, key: tuple[str, str]) -> Path:
        return self.folder / f"{key[0]}.{key[1]}.html"

    def _read(self, key: tuple[str, str]) -> Highlighted | None:
        try:
            with open(self._path(key), encoding="utf-8", newline="") as f:
                head, html = f.readline(), f.read()
            size, lines, length = map(int, head.split())
        except (OSError, ValueError):
            return None
        return Highlighted(Markup(html), size, lines) if len(html) == length else None
