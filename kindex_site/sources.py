"""The source files runs refer to (`implementationSource`, `workloadSource`): found from the bundle's
folder, checked once per file and not read again while unchanged (`SourceChecks`)."""

from __future__ import annotations

import hashlib
import os
import posixpath
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .errors import KindexError, printable
from .jsonread import Source
from .listing import Listed, racy
from .models import MAX_SOURCE_BYTES, check_relative_path
from .runs import NO_FILES, Run

if TYPE_CHECKING:
    from .load import Content


@dataclass(frozen=True)
class SourceText:
    """A source file runs refer to (models.SourceFile), checked when read; its text is read again for pages."""

    rel: str  # its path under the content folder: also where the site serves it, under sources/
    at: str  # its path as listed, read by (no Path is made for it)
    digest: str  # sha256 of its bytes
    shown: str  # display(path), made from strings
    sizes: tuple[int, int, int] = (0, 0, 0)  # its bytes, and bounds of its HTML, plain and highlighted (highlight.ShownSizes)

    def data(self) -> bytes:
        """Its bytes, as they were checked."""
        try:
            data, _ = _source_bytes(self.at)
        except OSError as e:
            raise KindexError(f"{self.shown}: cannot read it ({e.strerror}): it changed while the site was "
                              "being built; build again") from None
        if hashlib.sha256(data).hexdigest() != self.digest:
            raise KindexError(f"{self.shown}: changed while the site was being built; build again")
        return data

    def text(self) -> str:
        return self.data().decode("utf-8")


SOURCE_FIELDS = (("implementation", "implementation_source", "implementationSource"),
                 ("workload", "workload_source", "workloadSource"))


def attach_files(content: Content, others: dict[str, Listed], problems: list[str],
                 known: SourceChecks | None, runs: list[Run] | None = None) -> None:
    """Each run's source files (run.files), checked once per file (docs/content-format.md);
    Content.sources lists them in path order. `runs`: only these (LoadState.patched)."""
    checked: dict[str, SourceText | str] = {}  # path under content → the file, or what is wrong with it
    known = known if known is not None else SourceChecks()
    for run in content.runs if runs is None else runs:
        f = run.facts
        if f.implementation_source is None and f.workload_source is None:
            if run.files:
                run.files = NO_FILES
            continue
        folder = posixpath.dirname(run.source.rel) or "."
        files: dict[str, SourceText] = {}
        for kind, fact, field_name in SOURCE_FIELDS:
            ref = getattr(f, fact)
            if ref is None:
                continue
            rel = beside(folder, ref[0])
            found = checked.get(rel)
            if found is None:
                found = checked[rel] = known.check(rel, others.get(rel))
            if isinstance(found, str):
                problems.append(f"{run.source}: run.spec.{field_name}.path: {printable(repr(ref[0]))}: {found}")
            else:
                files[kind] = content.sources[rel] = found
        run.files = files
    if runs is None:
        content.sources = dict(sorted(content.sources.items()))  # (the order of paths, not of the runs met first)
        known.keep_only(content.sources.keys())


def beside(folder: str, path: str) -> str:
    """A source file's path under the content folder, from its bundle's folder and the path the run gives."""
    if "/" not in path and path not in (".", ".."):  # (the usual: a file beside the bundle)
        return path if folder == "." else f"{folder}/{path}"
    return posixpath.normpath(posixpath.join(folder, path))


def referred(runs: list[Run]) -> dict[str, int]:
    """Source file → how many of the runs' references name it."""
    counts: dict[str, int] = {}
    for run in runs:
        for source in run.files.values():
            counts[source.rel] = counts.get(source.rel, 0) + 1
    return counts


def named_sources(raw: dict, source: Source, rel: str) -> list[tuple[str, str, str, str]]:
    """(where, field, path as written, path under the content folder) of each source file a refused
    bundle names well enough to be found, to be checked as a valid run's are (check_named)."""
    run = raw.get("run")
    spec = run.get("spec") if type(run) is dict else None
    if type(spec) is not dict:
        return []
    found = []
    for _, _, field_name in SOURCE_FIELDS:
        ref = spec.get(field_name)
        path = ref.get("path") if type(ref) is dict else None
        if type(path) is not str or not 0 < len(path) <= 500:
            continue
        try:
            check_relative_path(path)
        except ValueError:
            continue  # (its own problem says so)
        found.append((str(source), field_name, path, beside(posixpath.dirname(rel) or ".", path)))
    return found


def check_named(named: list[tuple[str, str, str, str]], others: dict[str, Listed], found: dict[str, SourceText],
                problems: list[str]) -> None:
    """The source files refused bundles name, checked as a valid run's are (a load with such a bundle fails)."""
    checks, checked = SourceChecks(), {}
    for where, field_name, path, rel in named:
        if rel in found:
            continue
        problem = checked.get(rel)
        if problem is None:
            problem = checked[rel] = checks.check(rel, others.get(rel))
        if isinstance(problem, str):
            problems.append(f"{where}: run.spec.{field_name}.path: {printable(repr(path))}: {problem}")


class _KnownSource(NamedTuple):
    stat: tuple[int, int, int]  # size, mtime, ctime when read
    read_at: int  # time.time_ns() just before it was read
    source: SourceText


class SourceChecks:
    """The source files runs refer to as a build found them, by path: one whose stat is unchanged
    (and not racy) is not read again."""

    def __init__(self, records=()):
        self.known: dict[str, _KnownSource] = {}
        self.changed = False  # (since it was made: a file read, or one no longer referred to)
        self.fresh: set[str] = set()  # files read since `racy` was last asked
        try:
            for rel, digest, stat, read_at, sizes in records:  # (where it is listed is told by the listing)
                self.known[rel] = _KnownSource(tuple(stat), read_at, SourceText(rel, "", digest, "", tuple(sizes)))
        except (TypeError, ValueError):  # (not what this version stores: every file is read)
            self.known = {}

    def records(self) -> list[tuple]:
        return [(rel, k.source.digest, k.stat, k.read_at, k.source.sizes) for rel, k in self.known.items()]

    def check(self, rel: str, listed: Listed | None) -> SourceText | str:
        """The file, or what is wrong with it."""
        if listed is None:
            return "no such source file under the content folder (bundles and pages are not source files)"
        earlier = self.known.get(rel)
        if earlier is not None and earlier.stat == listed.stat and not racy(earlier.stat, earlier.read_at):
            source = earlier.source
            if source.at != listed.at or source.shown != listed.shown:  # (restored, or the folder is named anew)
                source = SourceText(rel, listed.at, source.digest, listed.shown, source.sizes)
                self.known[rel] = earlier._replace(source=source)
            return source
        read_at = time.time_ns()
        found = _source_text(rel, listed)
        if isinstance(found, SourceText) and listed.stat:
            self.known[rel] = _KnownSource(listed.stat, read_at, found)
            self.changed = True
            self.fresh.add(rel)
        return found

    def racy(self) -> set[str]:
        """The files read since last asked that were written in the tick they were read (listing.racy)."""
        found = {rel for rel in self.fresh if (k := self.known.get(rel)) is not None and racy(k.stat, k.read_at)}
        self.fresh = set()
        return found

    def keep_only(self, rels) -> None:
        for rel in self.known.keys() - rels:
            del self.known[rel]
            self.changed = True


def _source_text(rel: str, listed: Listed) -> SourceText | str:
    try:
        data, size = _source_bytes(listed.at)
    except OSError as e:
        return f"cannot read: {e.strerror}"
    if len(data) > MAX_SOURCE_BYTES:
        return f"{size / 2**20:.1f} MiB; a source file may hold {MAX_SOURCE_BYTES // 2**20} MiB at most"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 text (byte {e.start})"
    from .highlight import shown_sizes  # (the bounds alone: no Pygments)

    return SourceText(rel, listed.at, hashlib.sha256(data).hexdigest(), listed.shown, tuple(shown_sizes(text)))


def _source_bytes(at: str) -> tuple[bytes, int]:
    """A file's bytes, MAX_SOURCE_BYTES + 1 of them at most, and its size: read by its size, on if it has grown."""
    fd = os.open(at, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        data = os.read(fd, min(size, MAX_SOURCE_BYTES) + 1)
        while size < len(data) <= MAX_SOURCE_BYTES:
            more = os.read(fd, MAX_SOURCE_BYTES + 1 - len(data))
            if not more:
                break
            data += more
    finally:
        os.close(fd)
    return data, max(size, len(data))
