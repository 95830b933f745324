"""The files beside an output folder (`.kindex-cache/<output name>.*`, `path`) that `reuse.Reuse` keeps,
read and written here alone. The manifest holds the inputs the last build saw and each output's key
(keys.py) and size: an output whose key is unchanged is not made again, one no longer made is deleted."""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from itertools import chain, islice
from pathlib import Path

from .. import __version__, publish_swap
from ..config import bundled
from ..publish_swap import MARKER

# The manifest is marshal'd, not JSON: it holds a key per output (a hundred thousand at a large
# site) and is read and written on every rebuild; marshal does that ten times faster. It is a
# cache: another format or Python version only means a full build.
FORMAT = b"kindex-site manifest 5 " + sys.version.split()[0].encode() + b"\n"
PACKAGE_DIR = Path(__file__).resolve().parents[1]  # kindex_site/


def path(out: Path, kind: str) -> Path:
    """The cache file (or folder) of this kind beside the output folder: "manifest", "runs", "sources",
    "plans", "rankings", "rows", "templates", "highlights" (folders), "watch-lock" (reuse.Reuse.hold)."""
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
    """What a build must do to the site in the folder: make and write `changed`, delete `stale`; the
    others stay as the last build wrote them (`last`: its manifest's outputs)."""

    __slots__ = ("changed", "stale", "last")

    def __init__(self, changed: list[str], stale: list[str], last: dict[str, tuple]):
        self.changed, self.stale, self.last = changed, stale, last

    def kept_bytes(self) -> int:
        """The bytes of the site's files kept as they are."""
        last = self.last
        return sum(made[1] for made in last.values()) - sum(last[p][1] for p in (*self.changed, *self.stale) if p in last)


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
        with suppress(OSError):
            path(out, kind).unlink()
    for kind in ("templates", "highlights", "rows") if runs else ():
        shutil.rmtree(path(out, kind), ignore_errors=True)


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


# --- planned outputs, for the next command-line build (planning.ProblemOutputs.stored, planned) ---


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
    parts = frames(path(out, "rankings"), header)
    with suppress(ValueError, EOFError, TypeError):
        for head, body in zip(parts, parts):
            slug, key = marshal.loads(head)
            rankings[slug] = (key, body)
    return rankings


def write_rankings(out: Path, header: bytes, rankings: Iterable[tuple[str, str, bytes]]) -> None:
    """Store (slug, problem key, ranking's bytes) one problem at a time, under `header`."""
    _write_whole(path(out, "rankings"), header,
                 (frame for slug, key, body in rankings for frame in (marshal.dumps((slug, key)), body)))


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


def frames(file: Path, header: bytes) -> Iterator[memoryview]:
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
        for frame in frames(file, header):
            yield marshal.loads(frame)
    except (ValueError, EOFError, TypeError):
        if whole:
            raise


def framed(blobs: Iterable[bytes]) -> Iterator[bytes]:
    for blob in blobs:
        yield len(blob).to_bytes(8, "little")
        yield blob


def _write_whole(file: Path, header: bytes, blobs: Iterable[bytes], put: Callable[[], bool] = lambda: True) -> None:
    """Write a cache file whole or not at all (a reader never sees half of it); in frames, not
    joined (a big site's manifest is a hundred megabytes), each made when it is written; in place
    once `put()` says so."""
    file.parent.mkdir(parents=True, exist_ok=True)
    temp = file.with_name(file.name + ".tmp")
    publish_swap.write_parts(temp, chain((header,), framed(blobs)))
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
