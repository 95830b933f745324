"""The rows of pages listing problems, kept on disk for the next command-line build (`StoredRows`)."""

from __future__ import annotations

import marshal
import os
import shutil
import sys
from pathlib import Path

from .files import framed, frames, path

ROWS_FORMAT = b"kindex-site rows 3 " + sys.version.split()[0].encode() + b"\n"
ROWS_FILES_MAX = 8  # more files than this are written into one
ROWS_PENDING_MAX = 2**20  # characters of rows a process holds before it appends them to its file
ROWS_PER_BATCH = 4096  # rows per batch of a file written whole


class StoredRows:
    """The rows of pages listing problems (home, hosts, implementations) as command-line builds
    rendered them, each under what it was made from: its problem's outputs' `made_from` (the
    problem's key, the settings), its template, its page and its columns. A row whose problem
    changed is rendered again; the others are taken as they are. Each process that renders rows (a
    build, each of its writing workers) adds a file of its own to the folder (`flush`); the build
    writes the rows still in use into one file when the folder holds many, or more that are not.
    A file cut short (a killed process) is read up to its last whole row."""

    def __init__(self, out: Path):
        self.folder = path(out, "rows")
        self.rows: dict[tuple, memoryview] = {}  # (slug, template, page, made_from, columns) → HTML
        self.new: list[tuple[tuple, str]] = []  # rows rendered here and not yet flushed
        self.pending = 0  # their characters
        self.read = self._read_all(self.rows)  # the files read
        self.out_of_use = 0  # rows read that no problem's outputs are made from now (`keep`)
        self.token = os.urandom(4).hex()  # (a later process given the same pid writes another file)

    def keep(self, made_from: dict[str, tuple]) -> None:
        """Keep only the rows of problems' outputs as they are made now (slug → made_from): the
        others are never asked for again (and the files only they used are let go)."""
        rows = {key: html for key, html in self.rows.items() if made_from.get(key[0]) == key[3]}
        self.out_of_use, self.rows = len(self.rows) - len(rows), rows

    def get(self, key: tuple) -> str | None:
        html = self.rows.get(key)
        return None if html is None else str(html, "utf-8")

    def add(self, key: tuple, html: str) -> None:
        self.new.append((key, html))
        self.pending += len(html)
        if self.pending > ROWS_PENDING_MAX:  # (a chunk of a big site's listing pages: thousands of rows)
            self.flush()

    def flush(self) -> None:
        """Append the rows rendered here to this process's file."""
        if not self.new:
            return
        rows, self.new, self.pending = self.new, [], 0
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with (self.folder / f"{os.getpid()}-{self.token}.rows").open("ab") as f:
                if f.tell() == 0:
                    f.write(ROWS_FORMAT)
                _write_rows(f, [(key, html.encode("utf-8")) for key, html in rows])
        except OSError:
            pass  # (a cache: the next build renders them again)

    def tidy(self, made_from: dict[str, tuple]) -> None:
        """After a build (`keep` told of its problems): write the rows still in use into one file
        when the folder holds more than ROWS_FILES_MAX files, or more rows out of use than in use.
        Those read before the build, then those its processes added, a file at a time."""
        self.flush()
        files = _by_age(self.folder)
        if len(files) <= ROWS_FILES_MAX and self.out_of_use <= len(self.rows):
            return
        temp = self.folder / "rows.tmp"
        try:
            with temp.open("wb") as f:
                f.write(ROWS_FORMAT)
                _write_in_use(f, self.rows, made_from)
                for path in files:
                    if path not in self.read:  # (added by this build: read here, one at a time)
                        rows: dict[tuple, memoryview] = {}
                        _read_rows(path, rows)
                        _write_in_use(f, rows, made_from)
            for path in files:
                path.unlink()
            os.replace(temp, self.folder / "all.rows")
        except OSError:
            shutil.rmtree(self.folder, ignore_errors=True)  # (a cache: the next build renders them again)

    def _read_all(self, rows: dict) -> set[Path]:
        """Read every file of rows into `rows`, oldest first (a later row for the same key wins);
        the files read."""
        paths = _by_age(self.folder)
        for path in paths:
            _read_rows(path, rows)
        return set(paths)


def _by_age(folder: Path) -> list[Path]:
    try:
        return sorted(folder.glob("*.rows"), key=lambda p: p.stat().st_mtime_ns)
    except OSError:
        return []


def _read_rows(file: Path, rows: dict) -> None:
    """The rows of one file (StoredRows), into `rows`; up to the first batch that is not whole.
    A batch is two frames: its rows' keys and sizes (marshal'd), then their HTML."""
    parts = frames(file, ROWS_FORMAT)
    try:
        for head, html in zip(parts, parts):
            at = 0
            for key, size in zip(*marshal.loads(head)):
                rows[key] = html[at:at + size]
                at += size
    except (ValueError, EOFError, TypeError):
        pass


def _write_in_use(f, rows: dict[tuple, memoryview], made_from: dict[str, tuple]) -> None:
    """The rows of problems' outputs as they are made now, in batches."""
    kept = [(key, html) for key, html in rows.items() if made_from.get(key[0]) == key[3]]
    for at in range(0, len(kept), ROWS_PER_BATCH):
        _write_rows(f, kept[at:at + ROWS_PER_BATCH])


def _write_rows(f, rows: list[tuple[tuple, bytes | memoryview]]) -> None:
    """One batch of rows (_read_rows reads them)."""
    head = marshal.dumps(([key for key, _ in rows], [len(body) for _, body in rows]))
    f.writelines(framed((head, b"".join(body for _, body in rows))))
