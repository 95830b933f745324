"""The files beside an output folder (`.kindex-cache/<output name>.*`, `path`) that reuse.Reuse
keeps, and how they are read and written (no phase of a build uses this module; Reuse does).

The manifest holds the inputs the last build saw (content files by size and times, settings and
templates by hash) and, per output file, its key (keys.py: a hash of exactly what it shows) and
size: an output whose key is unchanged is not made again, one no longer made is deleted.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice
from pathlib import Path
from stat import S_ISREG

from . import __version__, publish_swap
from .config import bundled
from .publish_swap import MARKER

# The manifest is marshal'd, not JSON: it holds a key per output (a hundred thousand at a large
# site) and is read and written on every rebuild; marshal does that ten times faster. It is a
# cache: another format or Python version only means a full build.
FORMAT = b"kindex-site manifest 5 " + sys.version.split()[0].encode() + b"\n"
PACKAGE_DIR = Path(__file__).resolve().parent


def path(out: Path, kind: str) -> Path:
    """The cache file (or folder) of this kind beside the output folder: "manifest", "runs",
    "sources", "plans", "rankings", "rows" (a folder of files, one per process that rendered rows),
    "templates" (render.CompiledTemplates), "highlights" (highlight.Store), "watch-lock" (held by
    the resident builder that builds into `out`: reuse.Reuse.hold)."""
    out = out.resolve()
    return out.parent / ".kindex-cache" / f"{out.name}.{kind}"


class Manifest:
    """What the last build saw and made. A plain class, not a dataclass: this module is imported by a
    no-op build, and `dataclasses` (with `inspect`) is a tenth of that build's imports."""

    def __init__(self, settings: str, inputs: dict[str, tuple[int, ...]], trusted: list[str], summary: dict,
                 warnings: list[str], notes: list[str], marker: list | None, outputs: dict[str, tuple] | None = None):
        self.settings = settings
        self.inputs = inputs  # content file → stat_key (snapshot)
        self.outputs = {} if outputs is None else outputs  # output path → (key, size); read after the rest
        self.trusted = trusted  # sha256 of .json files that loaded cleanly
        self.summary = summary  # pages, runs, files of the last build
        self.warnings, self.notes = warnings, notes
        # The site folder's marker file as it was when this was written (site_identity): the manifest
        # describes that site only. Each build that changes the site puts a new marker in (publish_swap),
        # so a manifest that could not be rewritten after a change, or a build killed before rewriting
        # it, is never taken for the site's.
        self.marker = marker


class Changes:
    """What a build must do to the site in the folder: make and write `changed`, delete `stale`."""

    __slots__ = ("changed", "stale")

    def __init__(self, changed: list[str], stale: list[str]):
        self.changed, self.stale = changed, stale


def read_manifest(out: Path) -> Manifest | None:
    return read_manifest_head(out)[1]()


def read_manifest_head(out: Path) -> tuple[Manifest | None, Callable[[], Manifest | None]]:
    """The manifest but its outputs (left empty), and a function that reads them into it and returns
    it whole. None for a manifest missing, unreadable, damaged or from another version: a full build it is."""
    parts = _values(path(out, "manifest"), FORMAT, whole=True)
    try:
        head = Manifest(**next(parts))
    except (ValueError, EOFError, TypeError, StopIteration):
        return None, lambda: None

    def whole() -> Manifest | None:
        try:
            for part in parts:
                head.outputs.update(part)
        except (ValueError, EOFError, TypeError):
            return None
        return head

    return head, whole


def site_identity(out: Path) -> list | None:
    """The site's marker file, told apart from any other marker of this site by its modification
    time (see Manifest.marker and publish_swap._later_than); None without one."""
    try:
        return [os.stat(out / MARKER).st_mtime_ns]
    except OSError:
        return None


def describes(manifest: Manifest | None, out: Path) -> bool:
    """Whether `manifest` was written for the site now in `out`."""
    return manifest is not None and manifest.marker is not None and manifest.marker == site_identity(out)


def write_manifest(out: Path, manifest: Manifest) -> tuple | None:
    """Write it; return its stamp (see manifest_stamp). Its outputs go in parts (_dict_parts)."""
    fields = dict(manifest.__dict__)
    outputs = fields.pop("outputs")
    _write_whole(path(out, "manifest"), FORMAT, chain((marshal.dumps(fields),), _dict_parts(outputs)))
    return manifest_stamp(out)


def manifest_stamp(out: Path) -> tuple | None:
    """Identifies the manifest file as written (a new file each time), or None when there is none."""
    try:
        st = path(out, "manifest").stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def forget(out: Path, runs: bool = False) -> None:
    """Drop the manifest (and with `runs`, every other cache: a --clean build starts from nothing)."""
    for kind in ("manifest", "runs", "plans", "sources", "rankings") if runs else ("manifest",):
        try:
            path(out, kind).unlink()
        except OSError:
            pass
    for kind in ("templates", "highlights", "rows") if runs else ():
        shutil.rmtree(path(out, kind), ignore_errors=True)


def take(lock: Path):
    """Hold `lock` for this process: the open lock file, kept until the process ends; or, when
    another holds it, " (pid N)" or ""; None where the system has no such locks."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: no lock
        return None
    handle = open(lock, "a+", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        return f" (pid {holder})" if holder.isdigit() else ""
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    # A build's forked workers would hold it too (a worker outliving a killed parent would keep
    # the folder locked): theirs is closed; the lock stays with this process's own.
    os.register_at_fork(after_in_child=handle.close)
    return handle


def holder(lock: Path) -> str | None:
    """Who holds `lock` (" (pid N)", or "" if it says not), or None when no one does."""
    try:
        import fcntl

        handle = open(lock, "r", encoding="utf-8")
    except (ImportError, OSError):  # no locks here, or no lock file: no resident builder
        return None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            text = handle.read().strip()
            return f" (pid {text})" if text.isdigit() else ""
        fcntl.flock(handle, fcntl.LOCK_UN)
        return None


# --- validated runs, for the next command-line build (reading.file_records / restore_files) -----------


def record_format(kind: str, records: tuple, modules: tuple[str, ...] = ()) -> bytes:
    """A cache file's first line: its kind, the frames' layout, this Python, the name, version and
    fields of each record type it stores (NamedTuples with a VERSION, defined beside the code that
    reads them back, or dataclasses stored field by field), and a digest of the `modules` whose
    rules made their values. Anything else is another format: not read."""
    h = hashlib.sha256()
    for record in records:
        fields = getattr(record, "_fields", None) or tuple(record.__dataclass_fields__)
        h.update(f"{record.__name__} {getattr(record, 'VERSION', 1)} {','.join(fields)}\n".encode())
    for name in modules:
        h.update((PACKAGE_DIR / name).read_bytes())
    return f"kindex-site {kind} {FRAMES} {sys.version.split()[0]} {h.hexdigest()[:16]}\n".encode()


def read_runs(out: Path, header: bytes):
    """What write_runs stored under `header`, entry by entry; nothing when it is missing or of another
    format, and no more than its intact entries when it was cut short or damaged."""
    return _values(path(out, "runs"), header)


def write_runs(out: Path, header: bytes, entries, put: Callable[[], bool] = lambda: True) -> None:
    """Store file_records' entries one by one under `header` (a million runs never become one
    object), in place once `put()` says so (if it says no, they are not stored)."""
    _write_whole(path(out, "runs"), header, map(marshal.dumps, entries), put)


# --- source files checked, for the next command-line build (sources.SourceChecks) -------------------


SOURCES_FORMAT = b"kindex-site sources 2 " + sys.version.split()[0].encode() + b"\n"


def read_sources(out: Path) -> list:
    """What write_sources stored; nothing when missing, damaged or of another format."""
    value = next(_values(path(out, "sources"), SOURCES_FORMAT), [])
    return value if isinstance(value, list) else []


def write_sources(out: Path, records: list) -> None:
    _write_whole(path(out, "sources"), SOURCES_FORMAT, (marshal.dumps(records),))


# --- planned outputs, for the next command-line build (build._ProblemOutputs.stored / _planned) --


def read_plans(out: Path, header: bytes) -> dict:
    """Problem slug → what the last command-line build planned for it, stored under `header` (keyed
    inside by what it was made from: settings and code included); those of its intact parts."""
    plans: dict = {}
    for part in _values(path(out, "plans"), header):
        if type(part) is dict:
            plans.update(part)
    return plans


# --- each problem's ranking, for the next command-line build (leaderboard.ranking_bytes) -----------


def read_rankings(out: Path, header: bytes) -> dict[str, tuple[str, bytes]]:
    """Problem slug → (its problem key, its ranking's bytes) as write_rankings stored them under
    `header`; nothing when missing or of another format, and no more than its intact entries when cut short."""
    rankings: dict[str, tuple[str, bytes]] = {}
    # Each entry is two frames: (slug, key) marshal'd, then the ranking's bytes, which are only
    # read (leaderboard.restored_ranking) for a problem whose key is still the same.
    frames = _frames(path(out, "rankings"), header)
    try:
        for head, body in zip(frames, frames):
            slug, key = marshal.loads(head)
            rankings[slug] = (key, body)
    except (ValueError, EOFError, TypeError):
        pass
    return rankings


def write_rankings(out: Path, header: bytes, rankings: Iterable[tuple[str, str, bytes]]) -> None:
    """Store (slug, problem key, ranking's bytes) one problem at a time, under `header`."""
    _write_whole(path(out, "rankings"), header,
                 (frame for slug, key, body in rankings for frame in (marshal.dumps((slug, key)), body)))


# --- the rows of pages listing problems, for the next command-line build (build._Plan.row) -------


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
    frames = _frames(file, ROWS_FORMAT)
    try:
        for head, html in zip(frames, frames):
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
    f.writelines(_framed((head, b"".join(body for _, body in rows))))


def write_plans(out: Path, header: bytes, plans: dict) -> None:
    _write_whole(path(out, "plans"), header, _dict_parts(plans, PLANS_PART))


DICT_PART = 1 << 16  # items per marshal'd part of a big dict (the manifest's: an output each)
PLANS_PART = 1 << 8  # problems per part of the plans (each names its outputs: a hundred at a time)


def _dict_parts(mapping: dict, per_part: int = 0) -> Iterator[bytes]:
    """A dict marshal'd in parts of `per_part` (else DICT_PART) items: at a million outputs,
    marshal'd whole it would be a hundred megabytes at once, and marshal's table of the objects it
    has met as much again, at the end of a build that holds everything."""
    items = iter(mapping.items())
    while part := dict(islice(items, per_part or DICT_PART)):
        yield marshal.dumps(part)


FRAMES = 2  # the version of the layout below, in record_format's headers
# Every cache file is its header line, then frames: each its length (8 bytes) and as many bytes,
# a marshal'd value or bytes read as they are. A reader takes a frame as a slice of the file's
# bytes (marshal.loads on a slice is many times quicker than load() from a file, which reads piece
# by piece) and stops at one cut short: a killed writer's file is read up to its last whole frame.


def _frames(file: Path, header: bytes) -> Iterator[memoryview]:
    """The frames of `file` (nothing when it is missing or starts with another header); EOFError
    at one cut short."""
    try:
        data = file.read_bytes()
    except OSError:
        return
    if not data.startswith(header):
        return
    view, at = memoryview(data), len(header)
    while at < len(data):
        end = at + 8 + int.from_bytes(view[at:at + 8], "little")
        if end > len(data):
            raise EOFError(f"{file}: cut short")
        yield view[at + 8:end]
        at = end


def _values(file: Path, header: bytes, whole: bool = False) -> Iterator:
    """The values marshal'd in `file`'s frames: up to the first damaged or cut short, or (`whole`)
    raising ValueError, EOFError or TypeError there."""
    try:
        for frame in _frames(file, header):
            yield marshal.loads(frame)
    except (ValueError, EOFError, TypeError):
        if whole:
            raise


def _framed(blobs: Iterable[bytes]) -> Iterator[bytes]:
    for blob in blobs:
        yield len(blob).to_bytes(8, "little")
        yield blob


def _write_whole(file: Path, header: bytes, blobs: Iterable[bytes], put: Callable[[], bool] = lambda: True) -> None:
    """Write a cache file whole or not at all (a reader never sees half of it); in frames, not
    joined (a big site's manifest is a hundred megabytes), each made when it is written; in place
    once `put()` says so."""
    file.parent.mkdir(parents=True, exist_ok=True)
    temp = file.with_name(file.name + ".tmp")
    publish_swap.write_parts(temp, chain((header,), _framed(blobs)))
    if not put():
        temp.unlink()
        return
    publish_swap.replace(temp, file)


def _hash_tree(h, root: Path) -> None:
    if not root.is_dir():
        h.update(f"missing {root}\n".encode())
        return
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(f"{path.relative_to(root).as_posix()}\n".encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())


def settings_key(config, folders: list[Path], environ: dict) -> str:
    """Everything besides content that shapes the output: settings, templates, static files, this
    program's own code (an upgrade rebuilds everything) and SOURCE_DATE_EPOCH."""
    h = hashlib.sha256()
    h.update(json.dumps(config.model_dump(mode="json"), sort_keys=True).encode())
    h.update(f"\n{environ.get('SOURCE_DATE_EPOCH', '')}\n".encode())
    for folder in folders:
        _hash_tree(h, folder)
    h.update(code_stamp().encode())
    return h.hexdigest()


def code_stamp() -> str:
    """This program's version and the size and time of each of its files: an upgrade, or an edit of
    kindex-site itself, makes it another program whose earlier outputs are not to be trusted."""
    h = hashlib.sha256(f"{__version__}\n".encode())
    for path in sorted([*PACKAGE_DIR.rglob("*.py"), PACKAGE_DIR / "gpus.toml"]):  # gpus.toml: the GPU figures are data the code judges by
        st = path.stat()
        h.update(f"{path.relative_to(PACKAGE_DIR)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def look_folders(config) -> list[Path]:
    """The folders that shape the site's look: the project's templates and static files, and the
    bundled ones that fill what they lack."""
    return [config.folder("templates_dir"), bundled("templates"), config.folder("static_dir"), bundled("static")]


def snapshot(content: Path) -> dict[str, tuple[int, ...]]:
    """Every entry under `content` the loader might read (dotfiles aside), by its path there (a
    folder's ends with '/'): a plain file (a regular file, not a symlink, named in printable ASCII)
    by its `stat_key`; anything else by a tuple starting with -1, which makes the loader look at it
    itself (listing.content_files): a symlinked file (with its target's key), a symlinked folder (not
    followed), a name in other characters (with the key); `UNKNOWN` for what could not be listed or
    stat'ed or is not a regular file, which no manifest holds: the build goes on to load, which
    names it."""
    found: dict[str, tuple[int, ...]] = {}
    _walk([(os.fspath(content), "")], found)
    return found


def snapshot_again(content: Path, last: dict[str, tuple[int, ...]], paths: list[str]) -> dict | None:
    """`last`, the snapshot of `content`, brought up to date for `paths`, those changed since as the
    watcher reports them (others are outside content/, or dotfiles); None when that cannot be
    told so (a whole snapshot it is then)."""
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
    """`path` relative to the folder `root`, or None when outside it. A symlinked content folder's
    files may be named through the link or its target."""
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
        # The change time too: a file put back with its old size and time (cp -p, mv over it,
        # touch -r) still has a new ctime, which no one can set.
        found[rel] = stat_key(st)
    else:
        found[rel] = (-1, *stat_key(st))


UNKNOWN = (-1,)  # snapshot's entry for what it could not list or stat, or is not a regular file
LOOK = (-1, 0)  # snapshot's entry for a folder named in other characters than printable ASCII
LINKED = (-1, 1)  # snapshot's entry for a symlinked folder (not followed)


def stat_key(st: os.stat_result) -> tuple[int, int, int]:
    """What tells a file's version apart: size, modification and change time (see snapshot)."""
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns
