"""Read phase: files under content/ → a validated `Content`, every problem collected before failing:
bundles (reading.py), `pages/*.md`, the publisher's documents (documents.py) and sources (sources.py)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .aboutrules import RULES_BEGIN, with_current_rules
from .documents import DOCUMENT_KINDS, DocumentFile, check_documents, document_folder, is_document, read_documents
from .errors import KindexError, display
from .jsonread import Source
from .listing import Listed, content_files
from .models import (NAME_PATTERN, BenchmarkProtocol, ExecutionEnvironment, RunReview, WorkloadCost,
                     is_windows_device)
from .reading import Reader
from .runs import FileIndex, Run
from .sources import SourceChecks, SourceText, attach_files, check_named

if TYPE_CHECKING:
    from .bundles import Definitions
    from .state.loadstate import LoadState


@dataclass(frozen=True)
class MarkdownPage:
    slug: str
    title: str
    markdown: str
    source: str


@dataclass
class Content:
    runs: list[Run] = field(default_factory=list)
    protocols: dict[str, BenchmarkProtocol] = field(default_factory=dict)
    environments: dict[str, ExecutionEnvironment] = field(default_factory=dict)
    pages: list[MarkdownPage] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files: int = 0
    read: int = 0  # files read and validated this time (the others were remembered unchanged)
    digests: dict[str, str] = field(default_factory=dict)  # shown path → sha256 of the file's bytes
    sources: dict[str, SourceText] = field(default_factory=dict)  # path under content → a source file runs refer to
    costs: dict[str, WorkloadCost] = field(default_factory=dict)  # workloadDigest → its cost (a workload runs have)
    reviews: dict[str, list[RunReview]] = field(default_factory=dict)  # run name → its reviews, oldest first


# Section names the site uses itself; a Markdown page may not take one.
RESERVED_PAGE_SLUGS = {"api", "hosts", "implementations", "problems", "protocols", "runs", "static", "search", "page", "levels",
                       "sources", "schema", "404.html", "robots.txt", "sitemap.xml", "feed.xml"}


class Kept(NamedTuple):
    """What a load may take from the last (reuse.Reuse.for_load)."""

    files: dict  # each file's validated runs by its stat (reading.Remembered): an unchanged file is not read again
    stats: Mapping[str, tuple[int, ...]] | None = None  # the content folder's snapshot just taken (listing.snapshot)
    sources: SourceChecks | None = None  # the source files runs refer to as found before
    definitions: Definitions | None = None  # the protocols and environments the kept runs share (and a file read again)
    last: LoadState | None = None  # a resident builder's last clean load: patched with the files changed alone
    trusted: frozenset[str] = frozenset()  # digests of .json files read cleanly: no duplicate-key hook needed


def load_content(content_dir: Path, keep_documents: bool = True, progress: Callable[[int, int], None] | None = None,
                 reuse: Kept | None = None) -> Content:
    """Read and validate everything under content_dir; raise KindexError listing every problem.
    `keep_documents=False` (or content over KEEP_DOCUMENTS_MAX_BYTES) keeps only each run's `Facts`.
    `progress(done, total)`: each bundle file read."""
    memo, stats, sources, definitions, last, trusted = reuse if reuse is not None else Kept(None)
    if not content_dir.is_dir():
        raise KindexError(f"{display(content_dir)}: content folder not found")
    last = last if memo is not None and sources is not None else None  # (a patch takes both from the last load)
    if last is not None and stats:
        patched = last.patched(content_dir, stats, Reader(trusted, memo, keep_documents, definitions), progress,
                               sources)
        if patched is not None:
            return patched
    content = Content()
    problems: list[str] = []
    listed = content_files(content_dir, content.warnings, problems, stats)
    documents_bytes = sum(f.stat[0] for f in listed if f.stat is not None and is_bundle(f.rel))
    reader = Reader(trusted, memo, keeps_documents(keep_documents, documents_bytes), definitions)
    read = reader.read_all([f for f in listed if is_bundle(f.rel)], progress)
    content.read = reader.fresh
    checks = _CrossFile(content)
    pages: list[Listed] = []
    others: dict[str, Listed] = {}  # files that are neither bundles nor pages: runs may refer to them
    notes = 0  # "stopped reading" lines: said, but not problems themselves
    named: list[tuple[str, str, str, str]] = []  # the source files refused bundles name
    documents: dict[str, DocumentFile] = {}
    for f in listed:  # (in path order: the problems and warnings are said in it)
        if _read_reserved(f, content, pages, documents, problems):
            continue
        if f.rel not in read:
            others[f.rel] = f
        else:
            result = read[f.rel]
            content.files += 1
            if result.digest is not None:
                content.digests[f.shown] = result.digest
            content.warnings += result.warnings  # (kept with the file's runs: a rebuild says what a clean build says)
            checks.add(result.runs, result.index, result.problems)
            problems += result.problems
            notes += result.stopped
            named += result.named
    finish_load(content, others, problems, notes, sources, named=named, documents=documents)
    if last is not None:
        last.keep(content_dir, stats, keep_documents, reader.keep_documents, documents_bytes, read, pages, others,
                  checks, content, memo, sources, documents)
    return content


def _read_reserved(f: Listed, content: Content, pages: list[Listed], documents: dict[str, DocumentFile],
                   problems: list[str]) -> bool:
    """A page (into content.pages) or a costs/ or reviews/ file (into `documents`), read; False for any other file."""
    if is_page(f.rel):
        pages.append(f)
        page = read_page(f.path, f.shown, problems)
        if page:
            content.pages.append(page)
    elif is_document(f.rel):
        documents[f.rel] = found = read_documents(f)
        problems += found.problems
    else:
        return False
    return True


def finish_load(content: Content, others: dict[str, Listed], problems: list[str], notes: int,
                sources: SourceChecks | None, attach: bool = True, named: list[tuple[str, str, str, str]] = (),
                documents: Mapping[str, DocumentFile] | None = None) -> None:
    """A load's last steps, once its runs are in: their source files, the publisher's documents, the
    files nothing reads; then its problems raised with its warnings."""
    if attach:
        attach_files(content, others, problems, sources)
    if named:
        check_named(named, others, content.sources, problems)
    if documents:
        notes += check_documents(content, documents, problems)
    referred = {ref[3] for ref in named}
    content.warnings += [_ignored(rel, f.shown) for rel, f in others.items()
                         if rel not in content.sources and rel not in referred]
    if problems:
        raise KindexError(problems, count=len(problems) - notes, warnings=content.warnings)
    content.pages.sort(key=lambda p: p.slug)


def _ignored(rel: str, shown: str) -> str:
    folder = document_folder(rel)
    if folder is None:
        return f"{shown}: ignored (only *.json, *.jsonl, pages/*.md and the source files runs refer to are read)"
    return (f"{shown}: ignored ({folder}/ holds {DOCUMENT_KINDS[folder].__name__} documents: only {folder}/*.json "
            f"and {folder}/*.jsonl are read in it, and the source files runs refer to)")


def is_bundle(rel: str) -> bool:
    return rel.endswith((".json", ".jsonl")) and document_folder(rel) is None


def is_page(rel: str) -> bool:
    return rel.startswith("pages/") and rel.count("/") == 1 and rel.endswith(".md")


# Validated documents weigh twice their JSON: beyond this much, runs keep their facts alone (docs/performance.md).
KEEP_DOCUMENTS_MAX_BYTES = 512 * 2**20


def keeps_documents(wanted: bool, documents_bytes: int) -> bool:
    """Whether runs keep their validated documents: when asked to, for content of so much JSON at most."""
    return wanted and documents_bytes <= KEEP_DOCUMENTS_MAX_BYTES


class _CrossFile:
    """The checks across files: run names unique, each protocol and environment defined one way."""

    def __init__(self, content: Content):
        self.content = content
        self.first_seen: dict[tuple[str, str], tuple[object, Source]] = {}  # (kind, name) → (model, source)
        self.run_names: dict[str, Source] = {}

    def add(self, runs: list[Run], index: FileIndex, problems: list[str]) -> None:
        """A file at once when its runs agree among themselves (the usual case), else run by run."""
        if index.clean and not index.names.keys() & self.run_names.keys() and not any(
                self._differing(kind, name, doc, source) for (kind, name), (doc, source) in index.definitions.items()):
            self.run_names.update(index.names)
            self.content.runs += runs
        else:
            for run in runs:
                self._add(run, problems)

    def _differing(self, kind: str, name: str, doc, source: Source) -> tuple | None:
        """Register a protocol or environment: the earlier definition it differs from, if any."""
        seen = self.first_seen.get((kind, name))
        if seen is None:
            self.first_seen[(kind, name)] = (doc, source)
            (self.content.protocols if kind == "BenchmarkProtocol" else self.content.environments)[name] = doc
        elif seen[0] is not doc and not _same(seen[0], doc, self.first_seen):
            return seen
        return None

    def _add(self, run: Run, problems: list[str]) -> None:
        ok = True
        source = run.source
        for slot, kind, doc in (("protocol", "BenchmarkProtocol", run.definitions[0]),
                                ("environment", "ExecutionEnvironment", run.definitions[1])):
            name = doc.metadata.name
            seen = self._differing(kind, name, doc, source)
            if seen is not None:
                problems.append(f"{source}: {slot}: {kind} {name!r} differs from its definition in {seen[1]}")
                ok = False
        seen = self.run_names.setdefault(run.name, source)
        if seen is not source:
            problems.append(f"{source}: run.metadata.name: {run.name!r} is also the name of the run in {seen}")
            ok = False
        wanted = run.definitions[0].spec.measurement.primaryStatistic
        statistic = run.facts.statistic
        if statistic is not None and statistic != wanted:
            problems.append(f"{source}: run.spec.timing.primaryStatistic: {statistic!r} differs from "
                            f"the protocol's {wanted!r}")
            ok = False
        if ok:
            self.content.runs.append(run)


def _same(a, b, first_seen: dict) -> bool:
    """a == b for two definitions, remembered: each file shares one model among its bundles."""
    pair = ("same", id(a), id(b))
    known = first_seen.get(pair)
    if known is None:
        known = first_seen[pair] = (a == b, b)  # b is held so that its id is not reused meanwhile
    return known[0]


_PAGE_SLUG = re.compile(NAME_PATTERN)
# Bounds the time a Markdown page takes to render (docs/performance.md).
MAX_PAGE_BYTES = 256 * 2**10


def _read_at_most(path: Path, limit: int, shown: str, what: str, problems: list[str]) -> bytes | None:
    """The file's bytes, or None with a problem: unreadable, or more than `limit` (not read beyond it)."""
    try:
        with path.open("rb") as f:
            data = f.read(limit + 1)
            size = os.fstat(f.fileno()).st_size
    except OSError as e:
        problems.append(f"{shown}: cannot read: {e.strerror or e}")
        return None
    if len(data) > limit:
        problems.append(f"{shown}: {_size(max(size, len(data)))} is more than {what} may hold ({_size(limit)})")
        return None
    return data


def _size(n: int) -> str:
    if n >= 2**20:
        return f"{n / 2**20:.1f} MiB"
    return f"{n // 2**10} KiB" if n % 2**10 == 0 else f"{n:,} bytes"


def read_page(path: Path, shown: str, problems: list[str]) -> MarkdownPage | None:
    """A Markdown page under pages/, or None with its problems (a name the site cannot serve, too big, not UTF-8)."""
    slug = path.stem
    if not _PAGE_SLUG.match(slug) or ".." in slug:
        problems.append(f"{shown}: page name must be lowercase letters, digits, '.', '-' or '_'")
        return None
    if is_windows_device(slug):
        problems.append(f"{shown}: page name {slug!r} is a reserved device name on Windows")
        return None
    if slug in RESERVED_PAGE_SLUGS:
        problems.append(f"{shown}: page name {slug!r} is reserved for the site's own /{slug}/ section")
        return None
    data = _read_at_most(path, MAX_PAGE_BYTES, shown, "a Markdown page", problems)
    if data is None:
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        problems.append(f"{shown}: cannot read as UTF-8 text: {e}")
        return None
    if RULES_BEGIN in text:  # (a page `kindex-site new` wrote: the installed version's rules, never a stale copy)
        text = with_current_rules(text)
    title = slug.replace("-", " ").capitalize()
    for line in text.splitlines():
        if line.startswith("# "):
            title = line[2:].strip() or title
            break
    return MarkdownPage(slug=slug, title=title, markdown=text, source=shown)
