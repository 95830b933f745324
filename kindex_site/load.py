"""Read phase: files under content/ → a validated `Content`, every problem collected before failing.

A `.json` file holds one bundle or an array of bundles; a `.jsonl` file one bundle per line;
`pages/*.md` are Markdown pages; `costs/*.json(l)` and `reviews/*.json(l)` hold the publisher's
documents (WorkloadCost, RunReview), read as bundles are. Problems are reported as
`file[index]: location: message` (`file:line:` for .jsonl) so that a user can go straight to the
offending value.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import marshal
import operator
import os
import posixpath
import re
import sys
import time
from array import array
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from stat import S_ISREG
from types import MappingProxyType
from typing import NamedTuple

from pydantic import ValidationError

from . import cache, strictjson
from .errors import KindexError, display, printable
from .importers.naming import problem_naming
from .models import (MAX_FORMAT_WARNINGS_PER_FILE, MAX_SOURCE_BYTES, NAME_PATTERN, BenchmarkProtocol, BenchmarkRun,
                     Bundle, ExecutionEnvironment, FormatWarnings, RunReview, WorkloadCost, check_relative_path,
                     is_windows_device, nearest_name, unknown_in_document)
from .scaffold import RULES_BEGIN, with_current_rules
from .workers import Workers, can_fork, cores, release_free_memory

@dataclass(frozen=True, slots=True)
class Source:
    """Where a document came from: a file, and the array index or .jsonl line inside it."""

    file: str  # as the user would open it (errors.display): relative to the working folder where possible
    index: int | None = None
    line: int | None = None
    # Hash of the bytes this document came from (its .jsonl line, or its whole .json file): what
    # incremental builds compare to tell whether anything shown from it can have changed.
    digest: bytes = field(default=b"", compare=False)  # (raw bytes: a million hex strings would weigh 36 MB more)
    rel: str = field(default="", compare=False)  # its path under the content folder (one string per file)

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.file}:{self.line}"
        if self.index is not None:
            return f"{self.file}[{self.index}]"
        return self.file

    @property
    def on_site(self) -> str:
        """Where it came from as the site says it: relative to the content folder, wherever the
        build was started (`kernelbench/L4/x.json[3]`), so that two machines publish the same bytes."""
        return str(Source(self.rel, self.index, self.line))


class Facts:
    """What the site shows and ranks of a run: a few numbers and strings instead of its whole
    validated document (about 7 KB of models per run; a million runs must fit in 2 GiB).

    Latencies are the input's own integers (nanoseconds), None where the document has none.
    Strings that many runs repeat (statuses, digests, dates, GPUs) are interned: one copy each.
    """

    __slots__ = ("title_parts", "status", "samples", "mean", "minimum", "maximum", "ci_low", "ci_high", "statistic",
                 "observed_at", "std_ns", "hardware", "naming", "problem_text",
                 "workload_digest", "environment_digest", "implementation_digest", "former_problem_text",
                 "implementation_source", "workload_source")

    def __init__(self, doc: BenchmarkRun):
        spec = doc.spec
        # The title's " · " parts (problem · implementation · host, by convention), each shared by
        # many runs: one tuple of shared strings weighs a third of the title itself.
        parts = tuple(sys.intern(part) for part in doc.metadata.title.split(" · "))
        self.title_parts: tuple[str, ...] = parts  # (joined again, they are the title exactly)
        self.status: str = sys.intern(spec.status)
        timing = spec.timing
        lat = timing.latencyNs if timing is not None else None
        self.samples: int | None = timing.samples if timing is not None else None
        self.mean: int | None = lat.mean if lat is not None else None
        self.minimum: int | None = lat.minimum if lat is not None else None
        self.maximum: int | None = lat.maximum if lat is not None else None
        ci95 = lat.confidence95 if lat is not None else None
        self.ci_low, self.ci_high = ci95 if ci95 is not None else (None, None)
        self.statistic: str | None = timing.primaryStatistic if timing is not None else None
        self.observed_at: str | None = sys.intern(spec.observedAt) if spec.observedAt else spec.observedAt
        # The latency standard deviation the run reports in nanoseconds, if it does.
        self.std_ns: int | float | None = next(
            (m.value for m in spec.measurements if m.metric == "latency" and m.statistic == "std" and m.unit == "ns"),
            None)
        native = spec.sourceNative
        hardware = native.get("hardware")  # the GPU the source recorded, checked against the host's
        self.hardware: str | None = sys.intern(hardware) if isinstance(hardware, str) else None
        # The text its problem is told from (leaderboard.problem_of): for a source that names problems by ids
        # of its own (importers/naming.py: KernelBench's end in levelN/M_Name.py), that part of sourceNative;
        # for any other, the title's first part. Shared by its problem's runs.
        source = native.get("source")
        naming = problem_naming(source)
        self.naming: str | None = sys.intern(source) if naming is not None else None  # the source, if it has one
        if naming is not None:
            text, former = naming.problem_text(native), naming.former_text(native)
            self.problem_text = sys.intern(text) if text is not None else None
            # The name the source gave a problem since renamed (the importer maps it to the new one).
            self.former_problem_text = sys.intern(former) if former is not None else None
        else:
            self.problem_text = sys.intern(parts[0].strip())
            self.former_problem_text = None
        # The source files it refers to, as written: (path from its bundle's folder, language or None).
        self.implementation_source = _source_ref(spec.implementationSource)
        self.workload_source = _source_ref(spec.workloadSource)
        self.workload_digest: str = sys.intern(spec.workloadDigest)
        self.environment_digest: str = sys.intern(spec.environmentDigest)
        self.implementation_digest: str = sys.intern(spec.implementationDigest)

    @property
    def title(self) -> str:
        return " · ".join(self.title_parts)

    @property
    def timed(self) -> bool:
        return self.mean is not None  # (timing always has a mean)

    @property
    def ci95(self) -> tuple[int, int] | None:
        return None if self.ci_low is None else (self.ci_low, self.ci_high)

    def __getitem__(self, statistic: str) -> int | None:
        """facts["mean"]: the latency a board's statistic names (templates index by it)."""
        if statistic not in ("mean", "minimum", "maximum"):
            raise KeyError(statistic)
        return getattr(self, statistic)


def _source_ref(ref) -> tuple[str, str | None] | None:
    return None if ref is None else (sys.intern(ref.path), ref.language)


_NO_FILES: Mapping = MappingProxyType({})  # (most runs refer to no source file: one empty mapping for them all)


class Run:
    """One validated run, with the protocol and environment its bundle named and where it came from.

    `facts` is what the site shows and ranks; `doc`, the whole validated document, is held only
    when pages show it whole (run pages), else read again from its file when asked. Made once per
    document and kept while its file is unchanged (a long-running `serve` reuses it; a command-line
    build restores it from the last one's, see `file_records`), so what is derived from the
    document alone can be remembered on it (`grouping`).
    """

    __slots__ = ("_doc", "_origin", "facts", "protocol", "environment", "source", "name", "definitions", "grouping",
                 "files")

    def __init__(self, doc: BenchmarkRun, protocol: BenchmarkProtocol, environment: ExecutionEnvironment,
                 source: Source, keep_document: bool = True, origin: Path | _Listed | None = None):
        self._doc = doc if keep_document else None
        self.origin = origin
        self.facts = Facts(doc)
        self.protocol: str = protocol.metadata.name  # metadata.name of its BenchmarkProtocol
        self.environment: str = environment.metadata.name  # metadata.name of its ExecutionEnvironment
        self.definitions = (protocol, environment)  # as its bundle gave them
        self.source = source
        self.name: str = doc.metadata.name
        self.grouping = None  # leaderboard.py's: its problem and implementation, told from doc alone
        self.files: Mapping[str, SourceText] = _NO_FILES  # "implementation" / "workload" → the source file it refers to

    @property
    def doc(self) -> BenchmarkRun | None:
        """The whole validated document; read again from its file (each time: it is not kept, or
        a build rendering every run page would end up holding every document) when only its facts
        were kept. A run read by a reading process holds its document as compact JSON (a third of
        the validated model's memory: `shown`'s), validated again each time it is asked for."""
        doc = self._doc
        if type(doc) is bytes:
            return BenchmarkRun.model_validate(_PLAIN_DECODER.decode(doc.decode("utf-8")))
        if doc is None and self.origin is not None:
            return document_at(self.origin, self.source)
        return doc

    @property
    def shown(self) -> dict:
        """The whole document as its run page shows it: the fields it gives, as JSON values
        (`model_dump(mode="json", exclude_unset=True)`). A run read by a reading process holds
        exactly that as JSON (`_shown_json`), parsed here without validating it again."""
        doc = self._doc
        if type(doc) is bytes:
            return _PLAIN_DECODER.decode(doc.decode("utf-8"))
        return self.doc.model_dump(mode="json", exclude_unset=True)

    @property
    def document_file(self) -> Path | None:
        """The file `doc` reads, when the document is not held."""
        return self.origin if self._doc is None else None

    @property
    def origin(self) -> Path | None:
        """The file it came from (one Path shared by the file's runs), to read it again."""
        origin = self._origin
        return origin.path if type(origin) is _Listed else origin

    @origin.setter
    def origin(self, value: Path | _Listed | None) -> None:
        self._origin = value  # (a listed file: its Path is made if the document is read again)

    @property
    def key(self) -> str:
        """Changes whenever this run's document, where it is said to come from, or a file it refers to changes."""
        key = f"{self.source}|{self.source.digest.hex()}"  # (made when asked: a million of them kept weigh 170 MB)
        return key + "".join(f"|{f.rel}:{f.digest}" for f in self.files.values()) if self.files else key

    def __repr__(self) -> str:
        return f"Run({self.name!r} from {self.source})"


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
    """What a load may take from the last (reuse.Reuse.for_load): `files`, each file's validated
    runs by its stat (an unchanged file is not read again); `stats`, the content folder's snapshot
    just taken (cache.snapshot: a stat per file saved); `sources`, the source files runs refer to as
    found before (one unchanged since is not read again); `definitions`, the protocols and
    environments the kept runs share (a file read again that repeats one shares it, and the checks
    across files stay identity tests); `last`, a resident builder's last clean load (LoadState):
    then only the files whose stat changed are read and checked, the rest taken from it; `trusted`,
    the sha256 digests of the .json files the last build read without a problem, whose JSON the C
    parser alone parses (the duplicate-key check needs a slower hook; their documents are validated
    as always)."""

    files: dict
    stats: Mapping[str, tuple[int, ...]] | None = None
    sources: SourceChecks | None = None
    definitions: Definitions | None = None
    last: LoadState | None = None
    trusted: frozenset[str] = frozenset()


def load_content(content_dir: Path, keep_documents: bool = True, progress: Callable[[int, int], None] | None = None,
                 reuse: Kept | None = None) -> Content:
    """Read and validate everything under content_dir; raise KindexError listing every problem.

    `reuse` (Kept): what the last build left; an unchanged file is not read again, and the
    checks across files run on every file unless a resident builder's last clean load is patched.
    `keep_documents=False` keeps only each run's `Facts` (a build without run pages; so does content
    of over KEEP_DOCUMENTS_MAX_BYTES of JSON): a run's document is read again if asked for. Files are
    read here and by worker processes; the checks across files are made here, in path order, so the
    result is the same however they were read. `progress(done, total)` hears of each bundle file read.
    """
    memo, stats, sources, definitions, last, trusted = reuse if reuse is not None else Kept(None)
    if not content_dir.is_dir():
        raise KindexError(f"{display(content_dir)}: content folder not found")
    last = last if memo is not None and sources is not None else None  # (a patch takes both from the last load)
    if last is not None and stats:
        patched = last.patched(content_dir, stats, _Reader(trusted, memo, keep_documents, definitions), progress,
                               sources)
        if patched is not None:
            return patched
    content = Content()
    problems: list[str] = []
    listed = _content_files(content_dir, content.warnings, problems, stats)
    wanted = keep_documents
    documents_bytes = _documents_bytes(listed)
    if keep_documents and documents_bytes > KEEP_DOCUMENTS_MAX_BYTES:
        keep_documents = False
    reader = _Reader(trusted, memo, keep_documents, definitions)
    read = reader.read_all([f for f in listed if _is_bundle(f.rel)], progress)
    content.read = reader.fresh
    checks = _CrossFile(content)
    pages: list[_Listed] = []
    others: dict[str, _Listed] = {}  # files that are neither bundles nor pages: runs may refer to them
    notes = 0  # "stopped reading" lines: said, but not problems themselves
    named: list[tuple[str, str, str, str]] = []  # the source files refused bundles name
    documents: dict[str, _DocumentFile] = {}
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
    _finish(content, others, problems, notes, sources, named=named, documents=documents)
    if last is not None:
        last.keep(content_dir, stats, wanted, keep_documents, documents_bytes, read, pages, others, checks, content,
                  memo, sources, documents)
    return content


def _read_reserved(f: _Listed, content: Content, pages: list[_Listed], documents: dict[str, _DocumentFile],
                   problems: list[str]) -> bool:
    """A page (into content.pages) or a costs/ or reviews/ file (into `documents`), read; False for any other file."""
    if _is_page(f.rel):
        pages.append(f)
        page = _read_page(f.path, f.shown, problems)
        if page:
            content.pages.append(page)
    elif is_document(f.rel):
        documents[f.rel] = found = _read_documents(f)
        problems += found.problems
    else:
        return False
    return True


def _finish(content: Content, others: dict[str, _Listed], problems: list[str], notes: int,
            sources: SourceChecks | None, attach: bool = True, named: list[tuple[str, str, str, str]] = (),
            documents: Mapping[str, _DocumentFile] = _NO_FILES) -> None:
    """A load's last steps, once its runs are in: their source files (unless attached already), those
    refused bundles name (`named`), the publisher's documents against the runs, and the files nothing
    reads. A load with problems raises them with its warnings: one pass says everything."""
    if attach:
        _attach_files(content, others, problems, sources)
    if named:
        _check_named(named, others, content.sources, problems)
    if documents:
        notes += _check_documents(content, documents, problems)
    referred = {ref[3] for ref in named}
    content.warnings += [_ignored(rel, f.shown) for rel, f in others.items()
                         if rel not in content.sources and rel not in referred]
    if problems:
        raise KindexError(problems, count=len(problems) - notes, warnings=content.warnings)
    content.pages.sort(key=lambda p: p.slug)


def _check_named(named: list[tuple[str, str, str, str]], others: dict[str, _Listed], found: dict[str, SourceText],
                 problems: list[str]) -> None:
    """The source files refused bundles name, checked as a valid run's are (on the error path only:
    a load with such a bundle fails)."""
    checks, checked = SourceChecks(), {}
    for where, field_name, path, rel in named:
        if rel in found:
            continue
        problem = checked.get(rel)
        if problem is None:
            problem = checked[rel] = checks.check(rel, others.get(rel))
        if isinstance(problem, str):
            problems.append(f"{where}: run.spec.{field_name}.path: {printable(repr(path))}: {problem}")


def _ignored(rel: str, shown: str) -> str:
    folder = _document_folder(rel)
    if folder is None:
        return f"{shown}: ignored (only *.json, *.jsonl, pages/*.md and the source files runs refer to are read)"
    return (f"{shown}: ignored ({folder}/ holds {DOCUMENT_KINDS[folder].__name__} documents: only {folder}/*.json "
            f"and {folder}/*.jsonl are read in it, and the source files runs refer to)")


def _is_bundle(rel: str) -> bool:
    return rel.endswith((".json", ".jsonl")) and _document_folder(rel) is None


def _is_page(rel: str) -> bool:
    return rel.startswith("pages/") and rel.count("/") == 1 and rel.endswith(".md")


class LoadState:
    """A resident caller's (build --watch, serve) last clean load, kept so that the next load, given
    the content folder's snapshot, reads and checks only the files whose stat changed since (and
    those read in the tick they were written, RACY_NS) and takes every other file's runs, digest,
    warnings and place in the checks across files as they were: passing over every file costs
    5–10 µs a file, a tenth of a second at 10,000 files.

    What it gives is what a whole pass gives: runs in path order, each protocol and environment as
    the first file (in path order) defining it has it, in the order a whole pass meets them. A load
    that a patch cannot tell as surely is a whole pass: a changed file with a problem, a protocol or
    environment defined anew or no longer, or defined otherwise where only changed files define it,
    any entry but a plain file in the snapshot, another content folder, or a different choice of
    keeping documents."""

    def __init__(self) -> None:
        self.clean = False  # holds a clean load to patch
        self.where: tuple = ()  # the content folder as listed and as shown; whether documents were asked for
        self.stats: Mapping[str, tuple[int, ...]] = {}  # the snapshot that load was made from
        self.keep_documents = True
        self.documents_bytes = 0
        self.bundles: dict[str, _Read] = {}  # path under content → what the file gave, in path order
        self.pages: list[str] = []  # the Markdown pages' paths, sorted
        self.others: dict[str, _Listed] = {}  # the other files, in path order
        self.run_names: dict[str, Source] = {}
        self.first_seen: dict[tuple[str, str], tuple[object, Source]] = {}  # (kind, name) → its first file's
        self.first: dict[tuple[str, str], str] = {}  # (kind, name) → the first file defining it
        self.counts: dict[tuple[str, str], int] = {}  # (kind, name) → how many files define it
        self.protocols: dict[str, BenchmarkProtocol] = {}
        self.environments: dict[str, ExecutionEnvironment] = {}
        self.digests: dict[str, str] = {}
        self.warnings: list[str] = []
        self.racy: set[str] = set()  # files read in the tick they were written: compared again next time
        self.sources: dict[str, SourceText] = {}  # the source files runs refer to, in path order
        self.referred: dict[str, int] = {}  # source file → how many of the runs' references name it
        self.documents: dict[str, _DocumentFile | None] = {}  # costs/ and reviews/ files; None: to be read again

    def keep(self, content_dir: Path, stats: Mapping | None, wanted: bool, keep_documents: bool, documents_bytes: int,
             read: dict[str, _Read], pages: list[_Listed], others: dict[str, _Listed], checks: _CrossFile,
             content: Content, memo: dict, sources: SourceChecks, documents: dict[str, _DocumentFile]) -> None:
        """Keep a whole pass's load (clean: it raised otherwise)."""
        self.clean = False
        if not stats or not all(key[0] >= 0 for key in stats.values()):
            return  # (the listing then has more to say than a snapshot: every load is a whole pass)
        self.where = (*_roots(content_dir), wanted)
        self.stats, self.keep_documents, self.documents_bytes = stats, keep_documents, documents_bytes
        self.bundles = {rel: read[rel] for rel in sorted(read)}
        self.pages = [f.rel for f in pages]
        self.others = others
        self.run_names = checks.run_names
        self.first_seen = {key: seen for key, seen in checks.first_seen.items() if key[0] != "same"}
        self.first, self.counts = {}, {}
        for rel, result in self.bundles.items():
            for key in result.index.definitions:
                self.counts[key] = self.counts.get(key, 0) + 1
                self.first.setdefault(key, rel)
        self.protocols, self.environments = dict(content.protocols), dict(content.environments)
        self.digests = dict(content.digests)
        self.warnings = [w for result in self.bundles.values() for w in result.warnings]
        self.documents = dict(documents)
        self.racy = self._racy(self.bundles, memo) | sources.racy() | self._racy_documents()
        self.sources, self.referred = dict(content.sources), _referred(content.runs)
        self.clean = True

    def _racy(self, rels, memo: dict) -> set[str]:
        shown_root = self.where[1]
        return {rel for rel in rels if (m := memo.get(shown_root + rel)) is not None
                and m.stat[1] >= m.read_at - RACY_NS}

    def _racy_documents(self) -> set[str]:
        return {rel for rel, found in self.documents.items()
                if found is not None and found.stat is not None and found.stat[1] >= found.read_at - RACY_NS}

    def patched(self, content_dir: Path, stats: Mapping[str, tuple[int, ...]], reader: _Reader,
                progress: Callable[[int, int], None] | None, sources: SourceChecks) -> Content | None:
        """The load of `stats`, made from the last one and the files changed since; None when it
        takes a whole pass (see the class). Raises KindexError for a page or source file's problem."""
        at, shown_root = _roots(content_dir)
        if not self.clean or self.where != (at, shown_root, reader.keep_documents):
            return None
        self.clean = False  # (until this load is done: what follows changes what is kept in place)
        changes = self._changes(stats, at, shown_root)
        if changes is None:
            return None
        gone, fresh, sources_changed = changes
        reader.keep_documents = self.where[2] and self.documents_bytes <= KEEP_DOCUMENTS_MAX_BYTES
        if reader.keep_documents != self.keep_documents:
            return None
        read = reader.read_all(fresh, progress)
        refind = self._exchanged(gone, fresh, read)
        if refind is None:
            return None
        dropped = [source.rel for rel in gone for run in self.bundles[rel].runs for source in run.files.values()]
        self._take(gone, read, shown_root)
        if refind:
            self._find_first(refind)
        content = Content(runs=[run for result in self.bundles.values() for run in result.runs],
                          protocols=dict(self.protocols), environments=dict(self.environments),
                          warnings=list(self.warnings), files=len(self.bundles), read=reader.fresh,
                          digests=dict(self.digests))
        problems: list[str] = []
        self._pages_and_documents(at, shown_root, stats, content, problems)
        if sources_changed:
            _attach_files(content, self.others, problems, sources)
            self.referred = _referred(content.runs)
        else:  # the runs of other files refer to the files they did, as they were
            self._attach(content, [run for f in fresh for run in read[f.rel].runs], dropped, problems, sources)
        self.sources = content.sources
        _finish(content, self.others, problems, 0, sources, attach=False, documents=self.documents)
        self.stats = stats
        self.racy = self._racy(read, reader.memo) | sources.racy() | self._racy_documents()
        self.clean = True
        return content

    def _pages_and_documents(self, at: str, shown_root: str, stats: Mapping[str, tuple[int, ...]], content: Content,
                             problems: list[str]) -> None:
        """The pages, read again, and the costs/ and reviews/ files changed since (the others' documents
        kept), in path order, as a whole pass says their problems."""
        documents = self.documents
        for rel in sorted([*self.pages, *documents]):
            if rel in documents:
                found = documents[rel]
                if found is None:
                    found = documents[rel] = _read_documents(_Listed(at + rel, rel, shown_root + rel, stats[rel]))
                problems += found.problems
                continue
            page = _read_page(Path(at + rel), shown_root + rel, problems)
            if page:
                content.pages.append(page)

    def _changes(self, stats: Mapping[str, tuple[int, ...]], at: str, shown_root: str) -> tuple | None:
        """The bundle files read last time and changed or gone, those to read, and whether a source
        file (or one a run may come to refer to) changed; the pages, costs/ and reviews/ files (those
        changed marked to be read again) and other files kept up to date.
        None when the listing has more to say than a patch can (a symlink, an odd name)."""
        gone: list[str] = []
        fresh: list[_Listed] = []
        sources_changed = pages_changed = False
        for rel in sorted({rel for rel, _ in stats.items() ^ self.stats.items()} | self.racy):
            key = stats.get(rel)
            if key is not None and key[0] < 0:
                return None
            if _is_page(rel):
                pages_changed = True
                if key is None and rel in self.pages:
                    self.pages.remove(rel)
                elif key is not None and rel not in self.pages:
                    self.pages.append(rel)
            elif is_document(rel):  # (read again in _pages_and_documents)
                if key is None:
                    self.documents.pop(rel, None)
                else:
                    self.documents[rel] = None
            elif _is_bundle(rel):
                if rel in self.bundles:
                    gone.append(rel)
                    self.documents_bytes -= self.stats[rel][0]
                if key is not None:
                    fresh.append(_Listed(at + rel, rel, shown_root + rel, key))
                    self.documents_bytes += key[0]
            else:
                sources_changed = True
                if key is None:
                    self.others.pop(rel, None)
                else:
                    self.others[rel] = _Listed(at + rel, rel, shown_root + rel, key)
        if pages_changed:
            self.pages.sort()
        if sources_changed:  # (sorted once: a pull may bring thousands of kernels)
            self.others = dict(sorted(self.others.items()))
        return gone, fresh, sources_changed

    def _exchanged(self, gone: list[str], fresh: list[_Listed], read: dict[str, _Read]) -> set | None:
        """Out go the changed files' runs and definitions; in go their new ones, which must agree with
        every other file's (their `==`, as the whole pass's `_same`) and bring no new definition.
        Returns the definitions whose first file may be another now; None when a whole pass must decide."""
        bundles, counts, first, run_names = self.bundles, self.counts, self.first, self.run_names
        refind: set[tuple[str, str]] = set()
        for rel in gone:
            index = bundles[rel].index
            for name in index.names:
                del run_names[name]
            for key in index.definitions:
                counts[key] -= 1
                if first[key] == rel:
                    refind.add(key)
        for f in fresh:
            result = read[f.rel]
            index = result.index
            if result.problems or not index.clean or index.names.keys() & run_names.keys():
                return None
            for key, (doc, _) in index.definitions.items():
                seen = self.first_seen.get(key)
                if seen is None or (seen[0] is not doc and seen[0] != doc):
                    return None
                counts[key] += 1
                if f.rel <= first[key]:
                    refind.add(key)
            run_names.update(index.names)
        if any(counts[key] == 0 for rel in gone for key in bundles[rel].index.definitions):
            return None  # (no file defines it now: its pages go)
        return refind

    def _take(self, gone: list[str], read: dict[str, _Read], shown_root: str) -> None:
        """The changed files' new runs in place of their old ones, in path order."""
        bundles = self.bundles
        added = False
        for rel in gone:
            if rel not in read:
                del bundles[rel]
                del self.digests[shown_root + rel]
        for rel, result in read.items():
            added = added or rel not in bundles
            bundles[rel] = result
            self.digests[shown_root + rel] = result.digest
        if added:
            self.bundles = bundles = dict(sorted(bundles.items()))
            self.digests = {shown_root + rel: result.digest for rel, result in bundles.items()}
        if any(bundles[rel].warnings for rel in read) or any(rel not in read for rel in gone) or self.warnings:
            self.warnings = [w for result in bundles.values() for w in result.warnings]

    def _attach(self, content: Content, runs: list[Run], dropped: list[str], problems: list[str],
                sources: SourceChecks) -> None:
        """The source files of `runs` (the changed files'), whose earlier versions referred to `dropped`;
        Content.sources as a whole pass makes it."""
        content.sources = found = dict(self.sources)
        _attach_files(content, self.others, problems, sources, runs)
        referred = self.referred
        for rel in dropped:
            referred[rel] -= 1
        for rel, n in _referred(runs).items():
            referred[rel] = referred.get(rel, 0) + n
        if found.keys() != self.sources.keys() or any(not referred[rel] for rel in dropped):
            content.sources = {rel: found[rel] for rel in sorted(found) if referred.get(rel)}
            for rel in [rel for rel, n in referred.items() if not n]:
                del referred[rel]
            sources.keep_only(content.sources.keys())

    def _find_first(self, keys: set[tuple[str, str]]) -> None:
        """The first file (in path order) defining each of `keys` now, and the protocols and
        environments in the order a whole pass meets them."""
        for key in keys:
            for rel, result in self.bundles.items():
                seen = result.index.definitions.get(key)
                if seen is not None:
                    self.first[key], self.first_seen[key] = rel, seen
                    break

        def met(key):
            rel = self.first[key]
            return rel, list(self.bundles[rel].index.definitions).index(key)

        order = sorted(self.first, key=met)
        self.protocols = {name: self.first_seen[(kind, name)][0] for kind, name in order if kind == "BenchmarkProtocol"}
        self.environments = {name: self.first_seen[(kind, name)][0] for kind, name in order
                             if kind == "ExecutionEnvironment"}


def _referred(runs: list[Run]) -> dict[str, int]:
    """Source file → how many of the runs' references name it."""
    referred: dict[str, int] = {}
    for run in runs:
        for source in run.files.values():
            referred[source.rel] = referred.get(source.rel, 0) + 1
    return referred


def _roots(root: Path) -> tuple[str, str]:
    """The content folder as its listed files' paths start (os.DirEntry.path) and as they are shown."""
    shown_root = display(root)
    shown_root = "" if shown_root == "." else shown_root + ("" if shown_root.endswith("/") else "/")
    return os.path.join(root, ""), shown_root


class _CrossFile:
    """The checks across files: run names unique, each protocol and environment defined one way."""

    def __init__(self, content: Content):
        self.content = content
        self.first_seen: dict[tuple[str, str], tuple[object, Source]] = {}  # (kind, name) → (model, source)
        self.run_names: dict[str, Source] = {}

    def add(self, runs: list[Run], index: _FileIndex, problems: list[str]) -> None:
        """A file at a time when its runs agree among themselves (the usual case); run by run, to
        say exactly what is wrong, otherwise."""
        if index.clean and not index.names.keys() & self.run_names.keys() and index.agrees(self.first_seen,
                                                                                             self.content):
            self.run_names.update(index.names)
            self.content.runs += runs
        else:
            for run in runs:
                _add(run, self.content, self.first_seen, self.run_names, problems)


@dataclass(frozen=True)
class SourceText:
    """A source file runs refer to (models.SourceFile): checked when content is read, its text read
    again when a page shows it (a site of many kernels does not hold them all)."""

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


_SOURCE_FIELDS = (("implementation", "implementation_source", "implementationSource"),
                  ("workload", "workload_source", "workloadSource"))


def _attach_files(content: Content, others: dict[str, _Listed], problems: list[str],
                  known: SourceChecks | None, runs: list[Run] | None = None) -> None:
    """Each run's source files (run.files), checked once per file: under the content folder, a
    file of its own (not a bundle or page), UTF-8, at most MAX_SOURCE_BYTES. Content.sources lists
    them, in path order. A file `known` holds unchanged is not read again (a kernel in each run's
    folder: as many files as runs). `runs`: only these (LoadState.patched: the others are as they were)."""
    checked: dict[str, SourceText | str] = {}  # path under content → the file, or what is wrong with it
    known = known if known is not None else SourceChecks()
    for run in content.runs if runs is None else runs:
        f = run.facts
        if f.implementation_source is None and f.workload_source is None:
            if run.files:
                run.files = _NO_FILES
            continue
        folder = posixpath.dirname(run.source.rel) or "."
        files: dict[str, SourceText] = {}
        for kind, fact, field_name in _SOURCE_FIELDS:
            ref = getattr(f, fact)
            if ref is None:
                continue
            rel = _beside(folder, ref[0])
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


def _beside(folder: str, path: str) -> str:
    """A source file's path under the content folder, from its bundle's folder and the path the run gives."""
    if "/" not in path and path not in (".", ".."):  # (the usual: a file beside the bundle)
        return path if folder == "." else f"{folder}/{path}"
    return posixpath.normpath(posixpath.join(folder, path))


class _KnownSource(NamedTuple):
    stat: tuple[int, int, int]  # size, mtime, ctime when read
    read_at: int  # time.time_ns() just before it was read
    source: SourceText


class SourceChecks:
    """The source files runs refer to as a build found them, by their path under the content folder:
    one whose stat is unchanged since (and that was not written in the tick it was read, RACY_NS) is
    not read again. A long-running caller keeps them; cache.py stores them for the next command-line
    build (`records`: path, digest, stat, time read)."""

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

    def check(self, rel: str, listed: _Listed | None) -> SourceText | str:
        """The file, or what is wrong with it."""
        if listed is None:
            return "no such source file under the content folder (bundles and pages are not source files)"
        earlier = self.known.get(rel)
        if earlier is not None and earlier.stat == listed.stat and earlier.stat[1] < earlier.read_at - RACY_NS:
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
        """The files read since last asked that were written in the tick they were read (RACY_NS)."""
        found = {rel for rel in self.fresh if (k := self.known.get(rel)) is not None and k.stat[1] >= k.read_at - RACY_NS}
        self.fresh = set()
        return found

    def keep_only(self, rels) -> None:
        for rel in self.known.keys() - rels:
            del self.known[rel]
            self.changed = True


def _source_text(rel: str, listed: _Listed) -> SourceText | str:
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
    """A file's bytes, MAX_SOURCE_BYTES + 1 of them at most (a file of gigabytes is refused unread),
    and its size. Asked for by its size (a read of the most a file may hold allocates that much, for
    each of ten thousand kernels), and read on if it has grown since."""
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


# Validated documents weigh about twice their JSON in memory, most of a big build's: beyond this
# much JSON (about 180,000 runs, 1.2 GB of documents) a run keeps its facts alone, and its page reads
# its document again (7% slower at 100,000 runs, a third of the memory).
KEEP_DOCUMENTS_MAX_BYTES = 512 * 2**20


def _documents_bytes(listed: list[_Listed]) -> int:
    return sum(f.stat[0] for f in listed if f.stat is not None and _is_bundle(f.rel))


# File times tick with the kernel's coarse clock: a file written within this long before it was read
# may be written again, same size, with the same time. Such a file is compared by its bytes (git's
# "racily clean" rule); any other with an unchanged size and time is taken as unchanged.
RACY_NS = 100_000_000


class _Remembered(NamedTuple):
    """What load_content's memo keeps of a file that loaded cleanly."""

    stat: tuple[int, int, int]  # size, mtime, ctime when read
    digest: str  # sha256 of its bytes
    runs: list[Run]
    read_at: int  # time.time_ns() just before it was read (or last compared)
    index: _FileIndex
    rel: str  # its path under the content folder
    warnings: tuple[str, ...] = ()  # its FormatWarnings lines


class _Read(NamedTuple):
    """A bundle file, read (or remembered): its runs, their index, its problems, whether reading it
    stopped early, its warnings, the sha256 of its bytes (None if it could not be read), and the
    source files its refused bundles name (_named_sources')."""

    runs: list[Run]
    index: _FileIndex
    problems: list[str]
    stopped: bool
    warnings: tuple[str, ...]
    digest: str | None
    named: list[tuple[str, str, str, str]] | tuple = ()


def _still_same(listed: _Listed, remembered: _Remembered, memo: dict, shown: str) -> bool:
    """Its stat is as remembered: is it the same file? (Yes, unless it was written in the tick it was read.)"""
    if remembered.stat[1] < remembered.read_at - RACY_NS:
        return True
    checked_at = time.time_ns()
    try:
        with listed.path.open("rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()  # (a .jsonl file may be gigabytes)
    except OSError:
        return False
    if digest != remembered.digest:
        return False
    memo[shown] = remembered._replace(read_at=checked_at)  # compared now: later, its time alone will do
    return True


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        return cache.stat_key(path.stat())  # (the snapshot's)
    except OSError:
        return None


class _Reader:
    """Reads a load's bundle files: the memo's unchanged ones taken as they were, the others read
    here or, when there are many, by `_ReadingProcesses`. Its `known` definitions are validated once,
    whichever file repeats them."""

    def __init__(self, trusted: frozenset[str], memo: dict | None, keep_documents: bool,
                 definitions: Definitions | None = None):
        self.trusted, self.memo, self.keep_documents = trusted, memo, keep_documents
        self.known = definitions if definitions is not None else Definitions()
        self.fresh = 0  # files read (not remembered)

    def read_all(self, files: list[_Listed], progress: Callable[[int, int], None] | None) -> dict[str, _Read]:
        """rel → what each file gave."""
        results: dict[str, _Read] = {}
        unread: list[_Listed] = []
        memo = self.memo if self.memo is not None else {}
        for f in files:  # (the loop of a rebuild over every file: what is not needed twice is done once)
            r = memo.get(f.shown)
            if r is None or r.stat != f.stat or not (r.stat[1] < r.read_at - RACY_NS
                                                     or _still_same(f, r, memo, f.shown)):
                unread.append(f)
                continue
            r = memo[f.shown]  # (_still_same may have put a newer one)
            if r.runs and r.runs[0]._origin is None:  # (restored from the runs cache)
                for run in r.runs:
                    run.origin = f
            results[f.rel] = _Read(r.runs, r.index, [], False, r.warnings, r.digest)
        self.fresh = len(unread)
        done = len(results)
        if _in_processes(unread):
            reading = _ReadingProcesses(self, unread).results()
        else:
            reading = ((f, self.read(f)) for f in unread)
        with contextlib.closing(reading):  # (an interrupt here ends the reading processes at once)
            for f, result in reading:
                results[f.rel] = result
                done += 1
                if progress is not None:
                    progress(done, len(files))
        return results

    def read(self, f: _Listed) -> _Read:
        """Read and validate one file, and remember it in the memo if it loaded cleanly."""
        shown = f.shown
        earlier = self.memo.get(shown) if self.memo is not None else None
        read_at = time.time_ns()
        digests: dict[str, str] = {}
        runs, problems, stopped, warnings, named = _read_file(
            f.at, shown, f.rel, digests, self.trusted, self.keep_documents,
            earlier.runs if earlier is not None else (), self.known, f.stat[0] if f.stat else None, origin=f)
        result = _Read(runs, _FileIndex(runs), problems, stopped, warnings, digests.get(shown), named)
        self.remember(f, result, read_at)
        return result

    def remember(self, f: _Listed, result: _Read, read_at: int) -> None:
        if self.memo is not None and not result.problems and f.stat is not None:
            self.memo[f.shown] = _Remembered(f.stat, result.digest, result.runs, read_at, result.index, f.rel,
                                             result.warnings)


def _read_file(path: str | Path, shown: str, rel: str, digests: dict[str, str], trusted: frozenset[str],
               keep_documents: bool, earlier: list[Run] = (), known: Definitions | None = None,
               size: int | None = None, as_json: bool = False, origin: Path | _Listed | None = None):
    """A file's validated runs, its problems (parse and validation), whether reading stopped
    early (then the last line says so, and is not itself a problem), its warnings (FormatWarnings),
    and the source files its refused bundles name (`_named_sources`: checked with the others', so
    that one pass says all that is wrong).

    `earlier` are the runs this file gave last time (serve): a document whose place and bytes are
    unchanged (Source index or line, and digest) is not validated again; its run is taken as it was.
    `known` holds the protocols and environments validated so far (by this load; a file's own otherwise).
    `origin` is what its runs are read again from (the file as listed; else `path`, as a Path).
    """
    origin = origin if origin is not None else Path(path)
    validated: list[Run] = []
    problems: list[str] = []
    known = known if known is not None else Definitions()
    same = {(r.source.index, r.source.line, r.source.digest): r for r in earlier}
    warnings = FormatWarnings(shown, known.unknown)
    named: list[tuple[str, str, str, str]] = []  # the source files refused bundles name
    documents = _documents(path, shown, problems, digests, trusted, rel=rel, size=size)
    seen = 0
    for source, raw in documents:
        seen += 1
        if type(raw) is _RefusedBundle:  # (the strict decoder refused a value in it: said already)
            named += _named_sources(raw.value, source, rel)
            raw = _INVALID
        kept = same.get((source.index, source.line, source.digest)) if same and raw is not _INVALID else None
        if kept is not None:
            # Its protocol and environment models are the ones a fresh read of this file would give
            # it (shared with an earlier document, or its own), not what it shared last time.
            kept.definitions, kept.origin = known.models(raw), origin
            warnings.check(raw, source, kept.definitions)
            validated.append(kept)
        else:
            bundle = None if raw is _INVALID else _validate(raw, source, problems, known)
            if bundle is not None:
                run = _checked_run(raw, bundle, source, origin, keep_documents and not as_json, warnings, known,
                                   problems, size is None or size > MAX_DOCUMENT_BYTES)
                if run is not None:
                    if as_json and keep_documents:
                        run._doc = _shown_json(bundle[0])
                    validated.append(run)
                else:
                    named += _named_sources(raw, source, rel)
            elif type(raw) is dict:  # (the error path: the rest of what is wrong with it, said now)
                warnings.check_invalid(raw, source)
                named += _named_sources(raw, source, rel)
        if warnings.errors:  # (a near miss of a known field: with the bundle's other problems)
            problems += warnings.take_errors()
        if len(problems) >= MAX_PROBLEMS_PER_FILE:
            documents.close()  # bounded time and output on a file that is broken throughout
            problems.append(f"{shown}: stopped reading after {len(problems)} problems in this file")
            return validated, problems, True, warnings.result(), named
    if not seen and not problems:  # (an empty array: said, as an empty file is)
        warnings.lines.append(f"{shown}: holds an empty array: no bundle")
    return validated, problems, False, warnings.result(), named


def _named_sources(raw: dict, source: Source, rel: str) -> list[tuple[str, str, str, str]]:
    """(where, field, path as written, path under the content folder) of each source file a refused
    bundle names well enough to be found (`implementationSource.path`, a relative path): checked as
    a valid run's are, and not said to be ignored."""
    run = raw.get("run")
    spec = run.get("spec") if type(run) is dict else None
    if type(spec) is not dict:
        return []
    found = []
    for _, _, field_name in _SOURCE_FIELDS:
        ref = spec.get(field_name)
        path = ref.get("path") if type(ref) is dict else None
        if type(path) is not str or not 0 < len(path) <= 500:
            continue
        try:
            check_relative_path(path)
        except ValueError:
            continue  # (its own problem says so)
        found.append((str(source), field_name, path, _beside(posixpath.dirname(rel) or ".", path)))
    return found


def _checked_run(raw: dict, bundle: tuple, source: Source, origin: Path | _Listed, keep_document: bool,
                 warnings: FormatWarnings, known: Definitions, problems: list[str], may_be_big: bool = True) -> Run | None:
    """A valid bundle's run, unless a value in it is beyond strictjson's bounds or a document is bigger
    than a page may show (then a problem each). `may_be_big`: its file is bigger than MAX_DOCUMENT_BYTES."""
    beyond = _out_of_bounds(raw, warnings.check(raw, source, bundle[1:]), bundle[1:], known.bounded)
    if may_be_big:
        beyond = [*beyond, *_too_big(raw, bundle[1:], known)]
    if beyond:
        problems += [f"{source}: {line}" for line in beyond]
        return None
    run = Run(*bundle, source, keep_document, origin)
    run.definitions = known.pair_of(run.definitions)  # (one tuple for the runs of a protocol and environment)
    return run


# A document's JSON (compact, UTF-8) is shown whole on a page (a run's page, a protocol's, a host's):
# bounded, so that one bundle cannot make a page, or a site, of any size (docs/content-format.md).
MAX_DOCUMENT_BYTES = 64 * 2**10


def _too_big(raw: dict, definitions: tuple, known: Definitions) -> list[str]:
    """A line for each document of the bundle (its run; its protocol and environment, once per model)
    whose JSON is over MAX_DOCUMENT_BYTES, naming the biggest field in it."""
    found = []
    for slot, value, model in (("run", raw["run"], None), ("protocol", raw["protocol"], definitions[0]),
                               ("environment", raw["environment"], definitions[1])):
        if model is not None:
            if id(model) in known.sized:
                continue
            known.sized.add(id(model))
        size = _json_bytes(value)
        if size > MAX_DOCUMENT_BYTES:
            field, its = _biggest_field(value, slot)
            found.append(f"{field}: the {slot} document is {size:,} bytes of JSON ({its:,} of them here), more than "
                         f"the {MAX_DOCUMENT_BYTES // 2**10} KiB a page shows of one document")
    return found


def _json_bytes(value) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def _biggest_field(value, path: str) -> tuple[str, int]:
    """The path of the deepest field holding most of `value`'s JSON (over half of it), and its size."""
    size = _json_bytes(value)
    while True:
        items = value.items() if type(value) is dict else enumerate(value) if type(value) is list else ()
        sizes = [(_json_bytes(v), k, v) for k, v in items]
        if not sizes:
            return path, size
        biggest, key, child = max(sizes, key=lambda s: s[0])
        if biggest * 2 < size:
            return path, size
        path = f"{path}[{key}]" if type(key) is int else f"{path}.{key}"
        value, size = child, biggest


def _shown_json(doc: BenchmarkRun) -> bytes:
    """A validated document as its run page shows it (Run.shown), as compact JSON: parsed again, it
    is the same value (pydantic's JSON writer gives each float the digits that read back as it)."""
    return BenchmarkRun.__pydantic_serializer__.to_json(doc, exclude_unset=True)


# Reading in forked processes pays when there is this much to read (their start costs a few milliseconds).
PARALLEL_MIN_FILES = 8
PARALLEL_MIN_BYTES = 2**20
CHUNK_BYTES = (64 * 2**10, 2**20)  # a chunk's bytes, at least and at most: its runs, sent back, fit in a pipe
CHUNKS_PER_CORE = 16  # chunks of about equal bytes, handed out as they are done: the readers end together


def _in_processes(files: list[_Listed]) -> bool:
    return (len(files) >= PARALLEL_MIN_FILES and can_fork()
            and sum(f.stat[0] for f in files if f.stat is not None) >= PARALLEL_MIN_BYTES)


def _chunks(files: list[_Listed], cores: int) -> list[list[int]]:
    """The files' numbers in runs of about equal bytes, in order."""
    sizes = [f.stat[0] if f.stat is not None else 0 for f in files]
    target = min(CHUNK_BYTES[1], max(CHUNK_BYTES[0], sum(sizes) // (cores * CHUNKS_PER_CORE)))
    chunks: list[list[int]] = [[]]
    filled = 0
    for i, size in enumerate(sizes):
        if filled >= target:
            chunks.append([])
            filled = 0
        chunks[-1].append(i)
        filled += size
    return chunks


class _ReadingProcesses:
    """Reads the files in chunks here and in worker processes (workers.Workers), one per other core. A
    worker sends each file's runs back as StoredRun records (plain values: facts, the document as
    compact JSON, each protocol and environment once, as its JSON) and the Runs are made again here
    (a tenth of the cost of reading them); the chunks read here keep their validated documents.
    Each worker has two chunks handed to it, so that it reads on while this one reads too; a chunk
    whose worker died is read here."""

    def __init__(self, reader: _Reader, files: list[_Listed]):
        self.reader, self.files = reader, files
        self.chunks = _chunks(files, cores())
        self.models: dict[int, list] = {}  # pid → the definitions it sent, by their numbers
        self.numbers: dict[int, int] = {}  # (in a worker) id(model) → its number, as sent
        self.read_at = time.time_ns()  # (before any file is read: what the memo's racy rule needs)

    def results(self):
        """(file, _Read) for each file, chunk by chunk as they are read."""
        readers = Workers(min(cores() - 1, len(self.chunks) - 1), self._read_there, what="reading the content",
                          in_flight=2, encode=marshal.dumps, decode=marshal.loads, pipe_bytes=CHUNK_BYTES[1])
        for pid, chunk, result in readers.results(len(self.chunks), here=self._read_here):
            yield from result if pid is None else self._made(pid, chunk, result)

    def _read_here(self, chunk: int) -> list:
        return [(self.files[i], self.reader.read(self.files[i])) for i in self.chunks[chunk]]

    def _read_there(self, chunk: int) -> list:
        """A worker's records of a chunk's files."""
        reader, records = self.reader, []
        for i in self.chunks[chunk]:
            f = self.files[i]
            digests: dict[str, str] = {}
            read = _read_file(f.at, f.shown, f.rel, digests, reader.trusted, reader.keep_documents, (),
                              reader.known, f.stat[0] if f.stat else None, as_json=True, origin=f)
            records.append(self._record(read, digests.get(f.shown)))
        return records

    def _record(self, read: tuple, digest: str | None) -> tuple:
        runs, problems, stopped, warnings, named = read
        definitions = []  # (slot, JSON) of the definitions not sent before
        raw = self.reader.known.raw
        records = _stored_runs(runs, self.numbers, lambda model: definitions.append(raw[id(model)][:2]), documents=True)
        return digest, problems, stopped, warnings, definitions, records, named

    def _made(self, pid: int, chunk: int, records: list):
        models = self.models.setdefault(pid, [])
        for i, (digest, problems, stopped, warnings, definitions, runs, named) in zip(self.chunks[chunk], records):
            models += [self.reader.known.model(slot, Definitions.key(value), value) for slot, value in definitions]
            f = self.files[i]
            made = _rebuilt_runs(runs, models, f.shown, f.rel, f)
            result = _Read(made, _FileIndex(made), problems, stopped, warnings, digest, named)
            self.reader.remember(f, result, self.read_at)
            yield f, result


class _Listed:
    """A file found under the content folder. Its Path is made when asked for (a file whose runs
    are remembered unchanged needs none)."""

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


def _content_files(root: Path, warnings: list[str], problems: list[str],
                   stats: Mapping[str, tuple[int, ...]] | None) -> list[_Listed]:
    """Every file under root, sorted, skipping dotfiles; symlinks leaving root are not followed.
    The listing is `stats`, the content folder's snapshot (cache.snapshot: one stat per file), taken
    here when not given; its plain files are listed as they are, the rest looked at here.

    Nothing else is left out without a word: a folder that cannot be listed, a name that is not
    UTF-8 (the site could not name it) and anything but a file, folder or symlink (a pipe would
    never end a read) are problems.
    """
    at, shown_root = _roots(root)  # (os.DirEntry.path is the listed folder joined with the name)
    stats = cache.snapshot(root) if stats is None else stats
    if all(key[0] >= 0 for key in stats.values()):
        return [_Listed(at + rel, rel, shown_root + rel, key) for rel, key in sorted(stats.items())]
    found: list[_Listed] = []
    skipped = None  # a folder whose files are not read
    for rel, key in sorted(stats.items()):
        if skipped is not None and rel.startswith(skipped):
            continue
        if key[0] >= 0:
            found.append(_Listed(at + rel, rel, shown_root + rel, key))
        elif rel.endswith("/"):
            if not _listable(Path(at + rel) if rel != "./" else root, key, warnings, problems):
                skipped = rel
        else:
            stat = _special_file(Path(at + rel), key, root.resolve(), warnings, problems)
            if stat is not None:
                found.append(_Listed(at + rel, rel, shown_root + rel, stat or None))
    return found


def _listable(path: Path, key: tuple, warnings: list[str], problems: list[str]) -> bool:
    """Whether what is under a folder the snapshot marked (cache.LOOK, LINKED, UNKNOWN) is read; if
    not, a problem or warning says why."""
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
    """A file the snapshot marked (a symlink, a name in other characters, or cache.UNKNOWN): its
    stat key (() if it could not be had: reading it says why), or None for what is not read (a
    problem or a warning says so)."""
    if _unnamable(path.name, path, False, problems):
        return None
    if path.is_symlink():
        target = path.resolve()
        if not target.is_relative_to(real_root) or not target.is_file():
            warnings.append(f"{display(path)}: symlink to a file outside the content folder not followed")
            return None
        return _stat_key(path) or ()
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
    if not _utf8_name(name):
        problems.append(f"{_named(path)}{'/' if is_dir else ''}: its name is not UTF-8 "
                        "(the bytes that are not are shown as \\xNN); rename it")
        return True
    if printable(name) != name:
        problems.append(f"{_named(path)}{'/' if is_dir else ''}: its name holds a control or "
                        "bidirectional character (shown escaped); rename it")
        return True
    return False


def _utf8_name(name: str) -> bool:
    """A name os.scandir gave is UTF-8 unless it holds the surrogates that stand for other bytes."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _named(path: Path) -> str:
    """display(path), with bytes that are not UTF-8 shown as \\xNN (content/caf\\xe9.json), and
    what would not show as written escaped (errors.printable)."""
    return printable(display(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))


MAX_JSON_BYTES = 64 * 2**20  # one .json file is parsed whole; larger corpora belong in .jsonl
MAX_LINE_BYTES = 2**20  # one bundle is a few KB; a longer .jsonl line is not a bundle
MAX_PROBLEMS_PER_FILE = 50  # a broken million-line file should not print a million lines


def _documents(path: str | Path, shown: str, problems: list[str], digests: dict[str, str], trusted: frozenset[str],
               rel: str = "", size: int | None = None):
    """Yield (Source, parsed JSON value, or _INVALID, or a _RefusedBundle) for each bundle in a file;
    errors go to problems.
    `size`: its size as listed (else it is asked for)."""
    try:
        if os.fspath(path).endswith(".jsonl"):
            with open(path, "rb") as f:
                digest = hashlib.sha256()
                yield from _jsonl_documents(f, shown, problems, digest, rel)
                digests[shown] = digest.hexdigest()
            return
        size = os.stat(path).st_size if size is None else size
        if size > MAX_JSON_BYTES:
            problems.append(f"{shown}: {size / 2**20:.0f} MiB is more than a .json file may hold "
                            f"({MAX_JSON_BYTES // 2**20} MiB); write large corpora as .jsonl, one bundle per line")
            return
        data = _file_bytes(path, size)
    except OSError as e:
        problems.append(f"{shown}: cannot read: {e.strerror}")
        return
    file_digest = digests[shown] = hashlib.sha256(data).hexdigest()
    text = _decode(data, shown, problems, check_bom=True)
    if text is None:
        return
    if not text.strip():
        problems.append(f"{shown}: file is empty")
        return
    decoder = _PLAIN_DECODER if file_digest in trusted else _DECODER
    strings = _SURROGATE_ESCAPE.search(data) is not None  # (look at strings only then)
    if text.lstrip(" \t\r\n").startswith("["):
        # An array: each element keeps its own digest, so that changing one run of a file of
        # hundreds (the importer writes such files) changes only what shows that run.
        items = _parse(text, Source(shown), problems, decoder, array=True)
        if items is _INVALID:
            return
        marked = type(items) is _MarkedItems
        for index, (item, span) in enumerate(items):
            source = Source(shown, index=index, digest=hashlib.sha1(span.encode()).digest(), rel=rel)
            if marked and _refused(item, source, problems):
                yield source, _RefusedBundle(item)
                continue
            yield source, _encodable(item, source, problems) if strings else item
        return
    value = _parse(text, Source(shown), problems, decoder)
    if value is not _INVALID:
        source = Source(shown, digest=bytes.fromhex(file_digest), rel=rel)
        yield source, _encodable(value, source, problems) if strings else value


def _file_bytes(path: str | Path, size: int) -> bytes:
    """A file's bytes, `size` of them as listed (or more, if it has grown), read unbuffered by the
    system calls themselves (a Path and a file object cost as much again as the reading, per file)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        parts = []
        while part := os.read(fd, size + 1 if not parts else 2**20):
            parts.append(part)
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _jsonl_documents(f, shown: str, problems: list[str], file_digest, rel: str = ""):
    blank = True
    for number, raw in _jsonl_lines(f, file_digest):
        if raw is None:
            problems.append(f"{shown}:{number}: line longer than {MAX_LINE_BYTES // 2**10} KiB; not a bundle")
            blank = False
            continue
        source = Source(shown, line=number, digest=hashlib.sha1(raw).digest(), rel=rel)
        line = _decode(raw, str(source), problems, check_bom=number == 1)
        if line is not None and not line.strip():
            continue  # (a line of other whitespace, such as U+00A0)
        blank = False
        value = _INVALID if line is None else _parse(line, source, problems)
        if value is not _INVALID and _SURROGATE_ESCAPE.search(raw) is not None:
            value = _encodable(value, source, problems)
        # Failures are yielded too (as _INVALID), so the caller can stop a file that fails throughout.
        yield source, value
    if blank:
        problems.append(f"{shown}: file is empty")


_NOT_BLANK = re.compile(rb"[^ \t\r\n\x0b\x0c]")  # (a blank line holds ASCII whitespace alone)
_BLOCK_BYTES = 2**20


def _jsonl_lines(f, file_digest=None, starts: array | None = None):
    """(number, its bytes with its line break) for each line of a .jsonl file but those of ASCII
    whitespace alone, numbered from 1; None for the bytes of a line longer than MAX_LINE_BYTES,
    whose rest is skipped unheld. Read in blocks, a run of blank lines stepped over at once (read a
    line at a time, 10 MiB of blank lines took 20 s: the next character that is not whitespace is
    searched for, and the lines before its own are blank). `file_digest` is updated with every byte;
    `starts`, if given, gets where each line ends, blank ones included."""
    buf, at, number, read, ended = b"", 0, 0, 0, False  # (buf holds the file's bytes read - len(buf) to read)
    while True:
        found = _NOT_BLANK.search(buf, at)
        skipped = buf.rfind(b"\n", at, found.start() if found else len(buf)) + 1
        if skipped > at:
            if starts is None:
                number += buf.count(b"\n", at, skipped)
            else:
                base = read - len(buf)
                while at < skipped:
                    at = buf.index(b"\n", at) + 1
                    number += 1
                    starts.append(base + at)
            at = skipped
        end = buf.find(b"\n", at)
        if end < 0 and not ended and len(buf) - at <= MAX_LINE_BYTES:
            more = f.read(_BLOCK_BYTES)
            read += len(more)
            if file_digest is not None:
                file_digest.update(more)
            buf, at, ended = buf[at:] + more, 0, not more
            continue
        if at == len(buf):
            return
        number += 1
        if (end if end >= 0 else len(buf)) - at > MAX_LINE_BYTES:  # too long: skipped to its end
            if end >= 0:
                at = end + 1
            else:
                buf, at = b"", 0
                while not ended:
                    more = f.read(_BLOCK_BYTES)
                    read += len(more)
                    if file_digest is not None:
                        file_digest.update(more)
                    ended, end = not more, more.find(b"\n")
                    if end >= 0:
                        buf, at = more, end + 1
                        break
            if starts is not None:
                starts.append(read - len(buf) + at)
            yield number, None
            continue
        stop = len(buf) if end < 0 else end + 1
        raw, at = buf[at:stop], stop
        if starts is not None:
            starts.append(read - len(buf) + at)
        yield number, raw


def _decode(data: bytes, where: str, problems: list[str], check_bom: bool) -> str | None:
    if check_bom and data.startswith(b"\xef\xbb\xbf"):
        problems.append(f"{where}: starts with a byte-order mark; save it as UTF-8 without BOM")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        problems.append(f"{where}: not UTF-8 (byte {e.start}: {data[e.start:e.start + 1]!r})")
        return None


_DECODER = strictjson.decoder()
_INVALID = object()  # what _parse returns for text that is not JSON (None is JSON's null)


_WHITESPACE = re.compile(r"[ \t\n\r]*")
_PLAIN_DECODER = json.JSONDecoder()  # for files an earlier build read cleanly: C speed, no hooks


def _array_items(text: str, decoder: json.JSONDecoder) -> list[tuple[object, str]]:
    """A top-level JSON array as (element, the element's own text) pairs."""
    return [(item, text[start:end]) for item, start, end in _array_elements(text, decoder)]


def _array_elements(text: str, decoder: json.JSONDecoder):
    """Yield (element, where its text starts, where it ends) for each element of a top-level JSON array."""
    ws = _WHITESPACE.match
    idx = ws(text, ws(text, 0).end() + 1).end()  # past the opening bracket
    if text.startswith("]", idx):
        end = idx + 1
    else:
        while True:
            item, end = decoder.raw_decode(text, idx)
            yield item, idx, end
            idx = ws(text, end).end()
            if text.startswith(",", idx):
                idx = ws(text, idx + 1).end()
            elif text.startswith("]", idx):
                end = idx + 1
                break
            else:
                raise json.JSONDecodeError("Expecting ',' delimiter", text, idx)
    rest = ws(text, end).end()
    if rest != len(text):
        raise json.JSONDecodeError("Extra data", text, rest)


def _parse(text: str, source: Source, problems: list[str], decoder: json.JSONDecoder = _DECODER,
           array: bool = False):
    try:
        return _array_items(text, decoder) if array else decoder.decode(text)
    except json.JSONDecodeError as e:
        where = f"line {e.lineno} column {e.colno}" if source.line is None else f"column {e.colno}"
        problems.append(f"{source}: invalid JSON at {where}: {e.msg}")
    except ValueError as e:  # strictjson.JSONRejected, or an integer of more digits than Python converts
        if array:
            marked = _marked_items(text)
            if marked is not None:
                return marked  # (each element is looked at: those without a mark are bundles as any other)
        problems += _located(text, source, e)
    except RecursionError:
        problems.append(f"{source}: JSON nested too deeply")
    return _INVALID


_LOCATING_DECODER = strictjson.locating_decoder()


class _RefusedBundle(NamedTuple):
    """An element of a marked array holding marks: no bundle (its problems are said), but the source
    files it names are looked for (`_named_sources`)."""

    value: object


class _MarkedItems(list):
    """An array's (element, text) pairs parsed by the locating decoder: what the strict decoder
    refuses is marked (strictjson.Refused) where it is, and each element is looked at for marks."""


def _marked_items(text: str) -> _MarkedItems | None:
    try:
        return _MarkedItems(_array_items(text, _LOCATING_DECODER))
    except (ValueError, RecursionError):
        return None  # (broken further on too: _located says what was found first)


def _refused(item: object, source: Source, problems: list[str]) -> bool:
    """Whether an element of a marked array holds a mark; each is a problem."""
    found = [f"{source}: {_location(at)}{message}"
             for at, message in itertools.islice(strictjson.marks(item), MAX_PROBLEMS_PER_FILE)]
    problems += found
    return bool(found)


def _located(text: str, source: Source, error: ValueError) -> list[str]:
    """The lines for what the strict decoder refused in a bundle, with where each is: the text is
    parsed again, each refused value marked (strictjson.Refused), and every value beyond the bounds
    said (up to MAX_PROBLEMS_PER_FILE)."""
    try:
        value = _LOCATING_DECODER.decode(text)
    except (ValueError, RecursionError):
        return [f"{source}: {error}"]  # (broken further on too: what was found first is said)
    found = [f"{source}: {_location(at)}{message}"
             for at, message in itertools.islice(strictjson.refusals(value), MAX_PROBLEMS_PER_FILE)]
    return found or [f"{source}: {error}"]


# Only a \ud800–\udfff escape can make a string UTF-8 cannot encode (the text itself was UTF-8):
# the strings of a document are looked at when its text has one.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _encodable(value: object, source: Source, problems: list[str]) -> object:
    """value, or _INVALID with a problem when a string or key in it cannot be written as UTF-8
    (or it is beyond strictjson's other bounds)."""
    if strictjson.refusal(value, strings=True) is None:
        return value
    problems += [f"{source}: {_location(at)}{message}"
                 for at, message in itertools.islice(strictjson.refusals(value, strings=True), MAX_PROBLEMS_PER_FILE)]
    return _INVALID


def _location(loc: tuple) -> str:
    """`where: ` for a problem line: format_location, with what a key would not show as written
    (a newline, \\ud800) escaped; nothing for the top level (the line is then `file: message`)."""
    return printable(format_location(loc)) + ": " if loc else ""


def _out_of_bounds(raw: dict, known: bool, definitions: tuple, bounded: dict) -> list[str] | tuple:
    """`location: message` for each value of a valid bundle beyond strictjson's bounds (depth,
    numbers); none, usually. The models bound the fields they know; what they keep unchecked is
    sourceNative and, when the run holds fields the format does not know (`known` is False),
    whatever those hold. A protocol or environment is looked at once per model (`bounded`: id →
    (model, its problems)): a file's bundles that repeat one share its model."""
    run = raw["run"]
    found: list[str] | tuple = ()
    if known:
        native = run["spec"].get("sourceNative")
        if native and not strictjson.within(native, 4):
            found = _refusal_lines(("run", "spec", "sourceNative"), native, 4)
    elif not strictjson.within(run, 2):
        found = _refusal_lines(("run",), run, 2)
    for slot, model in zip(("protocol", "environment"), definitions):
        seen = bounded.get(id(model))
        if seen is None:
            value = raw[slot]
            seen = bounded[id(model)] = (model, () if strictjson.within(value, 2) else _refusal_lines((slot,), value, 2))
        if seen[1]:
            found = [*found, *seen[1]]
    return found


def _refusal_lines(at: tuple, value: object, depth: int) -> list[str]:
    return [f"{_location(at + loc)}{message}"
            for loc, message in itertools.islice(strictjson.refusals(value, depth), MAX_PROBLEMS_PER_FILE)]


_SHARED_KINDS = {"protocol": BenchmarkProtocol, "environment": ExecutionEnvironment}
_BUNDLE_KEYS = {"run", "protocol", "environment"}


class Definitions:
    """The protocols and environments validated, each once: by one load, or (a long-running builder's,
    load_content's `definitions`) by its loads so far and the runs restored from the cache.

    Bundles repeat their protocol and environment word for word, in a file and across files (one
    file per run repeats them in every file): each is validated once and its model shared by every
    run that repeats it, which saves time and memory (a million runs, a handful of definitions)
    and makes the checks across files (`_add`) mostly identity tests. A repeat is recognised by its
    parsed JSON as marshal writes it (which tells 1, 1.0 and true apart, as validation does), so it
    is exactly what validating it again would give.
    """

    MAX_SHARED = 4096  # per kind: content that defines more (hostile, say) has the rest validated each time

    def __init__(self):
        self.shared: dict[str, dict[bytes, object]] = {"protocol": {}, "environment": {}}
        self.raw: dict[int, tuple[str, object, object]] = {}  # id(model) → (slot, its JSON, model), for every model made
        self.bounded: dict[int, tuple] = {}  # id(model) → (model, its _out_of_bounds lines)
        self.unknown: dict[int, tuple] = {}  # id(model) → (model, its unknown fields): models.FormatWarnings'
        self.pairs: dict[tuple[int, int], tuple] = {}  # (ids of a protocol and an environment) → their tuple
        self.sized: set[int] = set()  # id(model) of those whose size was checked (_too_big)

    @staticmethod
    def key(value: object) -> bytes | None:
        try:
            return marshal.dumps(value, 2)  # (version 2: no back-references, so equal values give equal bytes)
        except ValueError:  # nested deeper than marshal goes
            return None

    def keys(self, raw: dict) -> tuple[bytes | None, bytes | None]:
        if raw.keys() != _BUNDLE_KEYS:
            return None, None
        return self.key(raw["protocol"]), self.key(raw["environment"])

    def pair(self, keys: tuple) -> tuple | None:
        """The shared (protocol, environment) for a bundle's keys, if both are known."""
        protocol = self.shared["protocol"].get(keys[0]) if keys[0] is not None else None
        environment = self.shared["environment"].get(keys[1]) if keys[1] is not None else None
        return None if protocol is None or environment is None else (protocol, environment)

    def adopt(self, slot: str, key: bytes | None, value: object, model):
        """The shared model for value: the one validated before, else this one (now shared)."""
        if key is not None:
            shared = self.shared[slot]
            known = shared.get(key)
            if known is not None:
                return known
            if len(shared) < self.MAX_SHARED:
                shared[key] = model
        self.raw[id(model)] = (slot, value, model)
        return model

    @property
    def crowded(self) -> bool:
        """Whether it holds many more models than it shares (definitions edited again and again under a
        long-running builder): then a new one is started."""
        return len(self.raw) > 4 * self.MAX_SHARED

    def pair_of(self, definitions: tuple):
        """One (protocol, environment) tuple shared by every run that names that pair."""
        return self.pairs.setdefault((id(definitions[0]), id(definitions[1])), definitions)

    def model(self, slot: str, key: bytes | None, value: object):
        """The shared model for a valid definition's JSON, validated if it is new."""
        known = self.shared[slot].get(key) if key is not None else None
        return known if known is not None else self.adopt(slot, key, value, _SHARED_KINDS[slot].model_validate(value))

    def models(self, raw: dict) -> tuple[BenchmarkProtocol, ExecutionEnvironment]:
        """A valid bundle's (protocol, environment) models as _validate would give them, without
        validating its run again."""
        keys = self.keys(raw)
        return self.model("protocol", keys[0], raw["protocol"]), self.model("environment", keys[1], raw["environment"])


def _validate(raw: object, source: Source, problems: list[str], known: Definitions | None = None
              ) -> tuple[BenchmarkRun, BenchmarkProtocol, ExecutionEnvironment] | None:
    """A bundle, validated, as (run, protocol, environment); `known` holds the protocols and
    environments validated so far (see Definitions)."""
    if not isinstance(raw, dict):
        kind = "null" if raw is None else type(raw).__name__.replace("str", "string").replace("dict", "object")
        problems.append(f"{source}: expected a bundle object {{run, protocol, environment}}, not {kind}")
        return None
    known = known if known is not None else Definitions()
    keys = known.keys(raw)
    pair = known.pair(keys)
    try:
        if pair is not None:
            return _prefixed("run", BenchmarkRun.model_validate, raw["run"]), *pair
        bundle = Bundle.model_validate(raw)
    except ValidationError as e:
        problems += _error_lines(source, e)
        return None
    return (bundle.run, known.adopt("protocol", keys[0], raw["protocol"], bundle.protocol),
            known.adopt("environment", keys[1], raw["environment"], bundle.environment))


def _prefixed(slot: str, validate, value):
    """validate(value), with error locations said from the bundle (run.spec… rather than spec…)."""
    try:
        return validate(value)
    except ValidationError as e:
        raise ValidationError.from_exception_data(e.title, [
            {**err, "loc": (slot, *err["loc"])} for err in e.errors(include_url=False)]) from None


def format_location(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def _error_lines(source: Source, error: ValidationError) -> list[str]:
    """A bundle's validation errors, a line each: every field that is wrong, said once."""
    lines: list[str] = []
    for err in error.errors(include_url=False):
        loc = err["loc"]
        if len(loc) > 1 and loc[-1] in _UNION_TAGS and err["type"] in _NOT_A_NUMBER:
            loc = loc[:-1]  # (a number, integer or float: one line for the two members of its union)
            err = {**err, "loc": loc, "msg": "Input should be a number"}
        line = f"{source}: {printable(format_location(loc))}: {_message(err)}"
        if line not in lines:
            lines.append(line)
    return lines


_UNION_TAGS = ("int", "float")
_NOT_A_NUMBER = ("int_type", "float_type")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")

# What `kindex-site new-run` leaves where a value is still to be given (submit.TODO_*), and what to
# put there instead, by field.
PLACEHOLDER = "TODO:"
_PLACEHOLDER_WANTS = {
    "run.spec.timing.samples": "the number of timed samples the mean is over (an integer)",
    "run.spec.timing.latencyNs.mean": "the mean latency in whole nanoseconds (an integer: 4.94 ms is 4940000)",
    "run.spec.timing.latencyNs.minimum": "the fastest sample's latency in whole nanoseconds (an integer)",
    "run.spec.timing.latencyNs.maximum": "the slowest sample's latency in whole nanoseconds (an integer)",
    "run.spec.timing.latencyNs.confidence95": "the mean's 95% confidence interval, [lo, hi] in whole nanoseconds",
    "run.spec.timing.latencyNs.confidence95[0]": ("the lower end of the mean's 95% confidence interval, in whole "
                                                  "nanoseconds (an integer)"),
    "run.spec.timing.latencyNs.confidence95[1]": ("the upper end of the mean's 95% confidence interval, in whole "
                                                  "nanoseconds (an integer)"),
    "run.spec.implementationDigest": ("your kernel source's digest, the sha256:… that `kindex-site digest "
                                      "YOUR_KERNEL_SOURCE` prints"),
    "run.spec.observedAt": "when the run was timed, such as 2026-03-05T08:38:15Z",
}


def _message(err: dict) -> str:
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    value = err.get("input")
    if type(value) is str and value.startswith(PLACEHOLDER):
        wants = _PLACEHOLDER_WANTS.get(format_location(err["loc"]))
        return "still the new-run placeholder 'TODO: …': " + (f"give {wants}" if wants else f"replace it ({msg})")
    kind = err["type"]
    if kind == "string_pattern_mismatch" and err["loc"][-1] in ("name", "run"):  # (a review's spec.run names a run)
        msg = "must be lowercase letters, digits, '.', '-' or '_', starting and ending with a letter or digit"
    elif kind in _NOT_A_NUMBER and type(value) is str and len(value) <= 40 and _JSON_NUMBER.fullmatch(value):
        msg += f", not the string {value!r}: write it without quotes"
    elif kind == "extra_forbidden" and len(err["loc"]) == 1:  # (a bundle's own keys: any other is refused)
        near = nearest_name(str(err["loc"][0]), _BUNDLE_KEYS)
        msg = ("unknown field" + (f" (did you mean {near!r}?)" if near else "")
               + ": a bundle holds run, protocol and environment")
    return msg


class _FileIndex:
    """A file's run names and definitions, and whether its runs agree among themselves."""

    def __init__(self, runs: list[Run]):
        self.names = {run.name: run.source for run in runs}
        self.definitions: dict[tuple[str, str], tuple[object, Source]] = {}
        self.clean = len(self.names) == len(runs)
        for run in runs:
            protocol, environment = run.definitions
            for kind, doc in (("BenchmarkProtocol", protocol), ("ExecutionEnvironment", environment)):
                seen = self.definitions.setdefault((kind, doc.metadata.name), (doc, run.source))
                if seen[0] is not doc and seen[0] != doc:
                    self.clean = False
            statistic = run.facts.statistic
            if statistic is not None and statistic != protocol.spec.measurement.primaryStatistic:
                self.clean = False

    def agrees(self, first_seen: dict, content: Content) -> bool:
        """Register this file's definitions; False if one differs from an earlier file's."""
        for (kind, name), (doc, source) in self.definitions.items():
            seen = first_seen.get((kind, name))
            if seen is None:
                first_seen[(kind, name)] = (doc, source)
                (content.protocols if kind == "BenchmarkProtocol" else content.environments)[name] = doc
            elif seen[0] is not doc and not _same(seen[0], doc, first_seen):
                return False
        return True


def _add(run: Run, content: Content, first_seen: dict, run_names: dict[str, Source], problems: list[str]) -> None:
    ok = True
    source = run.source
    for slot, kind, registry, doc in (
        ("protocol", "BenchmarkProtocol", content.protocols, run.definitions[0]),
        ("environment", "ExecutionEnvironment", content.environments, run.definitions[1]),
    ):
        name = doc.metadata.name
        seen = first_seen.get((kind, name))
        if seen is None:
            first_seen[(kind, name)] = (doc, source)
            registry[name] = doc
        elif seen[0] is not doc and not _same(seen[0], doc, first_seen):
            problems.append(
                f"{source}: {slot}: {kind} {name!r} differs from its definition in {seen[1]}"
            )
            ok = False

    seen = run_names.get(run.name)
    if seen is not None:
        problems.append(f"{source}: run.metadata.name: {run.name!r} is also the name of the run in {seen}")
        ok = False
    else:
        run_names[run.name] = source

    wanted = run.definitions[0].spec.measurement.primaryStatistic
    statistic = run.facts.statistic
    if statistic is not None and statistic != wanted:
        problems.append(
            f"{source}: run.spec.timing.primaryStatistic: {statistic!r} differs from "
            f"the protocol's {wanted!r}"
        )
        ok = False
    if ok:
        content.runs.append(run)


def _same(a, b, first_seen: dict) -> bool:
    """a == b for two definitions, remembered: each file shares one model among its bundles."""
    pair = ("same", id(a), id(b))
    known = first_seen.get(pair)
    if known is None:
        known = first_seen[pair] = (a == b, b)  # b is held so that its id is not reused meanwhile
    return known[0]


_PAGE_SLUG = re.compile(NAME_PATTERN)
# Markdown costs up to 15 µs a character to render (brackets, tables): 256 KiB is 4 s and 200 MB at
# worst, and some thirty times the bundled about page.
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


def _read_page(path: Path, shown: str, problems: list[str]) -> MarkdownPage | None:
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



# --- The publisher's documents: costs/ and reviews/ ---------------------------------------------
# What the publisher says of workloads and runs, one level under the content folder as pages are:
# read with the bundles' machinery (decoder, bounds, problem lines), checked against one another
# and the runs once every file is in (_check_documents). Nothing else in these folders is a bundle.

DOCUMENT_KINDS = {"costs": WorkloadCost, "reviews": RunReview}  # folder → the kind of document it holds


def _document_folder(rel: str) -> str | None:
    folder, slash, _ = rel.partition("/")
    return folder if slash and folder in DOCUMENT_KINDS else None


def is_document(rel: str) -> bool:
    """costs/*.json(l) or reviews/*.json(l), by its path under the content folder: the publisher's documents."""
    folder = _document_folder(rel)
    return folder is not None and rel.count("/") == 1 and rel.endswith((".json", ".jsonl"))


class _DocumentFile(NamedTuple):
    """A costs/ or reviews/ file, read: its valid documents with where each is, its problems (a last
    line saying reading stopped is not one: `stopped`) and warnings, and its stat and when it was read
    (a resident builder's racy rule)."""

    documents: list[tuple[Source, WorkloadCost | RunReview]]
    problems: list[str]
    warnings: list[str]
    stopped: bool
    stat: tuple | None
    read_at: int


def _read_documents(f: _Listed) -> _DocumentFile:
    """A costs/ or reviews/ file's documents, read and validated as bundles are (one or an array a
    .json file, one a .jsonl line)."""
    model = DOCUMENT_KINDS[f.rel.partition("/")[0]]
    read_at = time.time_ns()
    found: list[tuple[Source, WorkloadCost | RunReview]] = []
    problems: list[str] = []
    unknown: list[str] = []
    seen = 0
    values = _documents(f.at, f.shown, problems, {}, frozenset(), rel=f.rel, size=f.stat[0] if f.stat else None)
    for source, raw in values:
        seen += 1
        if raw is not _INVALID and type(raw) is not _RefusedBundle:  # (else said already)
            doc = _document(raw, source, model, problems, unknown, f.stat is None or f.stat[0] > MAX_DOCUMENT_BYTES)
            if doc is not None:
                found.append((source, doc))
        if len(problems) >= MAX_PROBLEMS_PER_FILE:
            values.close()
            problems.append(f"{f.shown}: stopped reading after {len(problems)} problems in this file")
            return _DocumentFile(found, problems, _capped(unknown, f.shown), True, f.stat, read_at)
    if not seen and not problems:
        unknown.insert(0, f"{f.shown}: holds an empty array: no document")
    return _DocumentFile(found, problems, _capped(unknown, f.shown), False, f.stat, read_at)


def _capped(lines: list[str], shown: str) -> list[str]:
    """A file's warnings about unknown fields, MAX_FORMAT_WARNINGS_PER_FILE at most, then how many more."""
    if len(lines) <= MAX_FORMAT_WARNINGS_PER_FILE:
        return lines
    more = len(lines) - MAX_FORMAT_WARNINGS_PER_FILE
    return [*lines[:MAX_FORMAT_WARNINGS_PER_FILE], f"{shown}: and {more} more unknown fields like these"]


def _document(raw: object, source: Source, model: type[WorkloadCost | RunReview], problems: list[str],
              unknown: list[str], may_be_big: bool) -> WorkloadCost | RunReview | None:
    """One document of a costs/ or reviews/ file, validated; None with its problems. Its unknown
    fields are said as a bundle's are: a near miss of a known one is a problem, any other a warning."""
    kind, folder = model.__name__, _document_folder(source.rel)
    if type(raw) is not dict:
        what = "null" if raw is None else type(raw).__name__.replace("str", "string").replace("list", "array")
        problems.append(f"{source}: expected a {kind} document object, not {what}")
        return None
    if "kind" not in raw and raw.keys() & _BUNDLE_KEYS:
        problems.append(f"{source}: a bundle, where {folder}/ holds {kind} documents (bundles go anywhere else)")
        return None
    if "kind" in raw and raw["kind"] != kind:
        problems.append(f"{source}: kind: {printable(repr(raw['kind']))[:80]}: {folder}/ holds {kind} documents only")
        return None
    for where, message, near in unknown_in_document(raw, kind):
        (problems if near else unknown).append(f"{source}: {where}: {message}")
    try:
        doc = model.model_validate(raw)
    except ValidationError as e:
        problems += _error_lines(source, e)
        return None
    beyond = _refusal_lines((), raw, 1) if not strictjson.within(raw) else []
    if may_be_big and not beyond and _json_bytes(raw) > MAX_DOCUMENT_BYTES:
        field_name, its = _biggest_field(raw, "")
        beyond = [f"{field_name.removeprefix('.') or '(top level)'}: the document is {_json_bytes(raw):,} bytes of "
                  f"JSON ({its:,} of them here), more than the {MAX_DOCUMENT_BYTES // 2**10} KiB a page shows of one"]
    problems += [f"{source}: {line}" for line in beyond]
    return None if beyond else doc


def _check_documents(content: Content, documents: Mapping[str, _DocumentFile], problems: list[str]) -> int:
    """The documents across files and against the runs, into content.costs and content.reviews: one
    cost a workload, one document a kind and name, a review's run among the runs; a cost of a workload
    no run has is warned about and left out. Returns how many files stopped being read (not problems)."""
    names: dict[tuple[str, str], Source] = {}
    costs_at: dict[str, Source] = {}
    reviews: list[tuple] = []
    runs = workloads = None  # (made when first needed: a million runs, and no documents, is the usual)
    for rel, found in sorted(documents.items()):
        content.warnings += found.warnings
        for source, doc in found.documents:
            first = names.setdefault((doc.kind, doc.metadata.name), source)
            if first is not source:
                problems.append(f"{source}: metadata.name: {doc.metadata.name!r} is also the name of the {doc.kind} "
                                f"in {first}")
            if doc.kind == "RunReview":
                runs = runs if runs is not None else {run.name for run in content.runs}
                if doc.spec.run not in runs:
                    problems.append(f"{source}: spec.run: no run named {doc.spec.run!r} in the content")
                reviews.append((doc.spec.since, rel, source.index or source.line or 0, doc))
                continue
            digest = doc.spec.workloadDigest
            first = costs_at.setdefault(digest, source)
            workloads = workloads if workloads is not None else {run.facts.workload_digest for run in content.runs}
            if first is not source:
                problems.append(f"{source}: spec.workloadDigest: {digest} has a cost in {first} already")
            elif digest not in workloads:
                content.warnings.append(f"{source}: no run has workload {digest} (its cost is not shown)")
            else:
                content.costs[digest] = doc
    for *_, doc in sorted(reviews, key=lambda review: review[:3]):
        content.reviews.setdefault(doc.spec.run, []).append(doc)
    return sum(found.stopped for found in documents.values())


# --- Runs kept between command-line builds ----------------------------------------------------
# A command-line build starts in a new process: without these, it would parse and validate every
# document again to change one page. The runs cache stores each cleanly loaded file's runs as the
# records below (marshal'd as plain tuples in their fields' order), keyed like the memo (size,
# modification and change time; the racily-clean rule); the next build restores them into
# load_content's memo, where a file found changed is read again.


class StoredFile(NamedTuple):
    """A content file's runs as the runs cache keeps them (file_records writes it, restore_files
    reads it back)."""

    VERSION = 1
    shown: str  # the file as shown
    rel: str  # its path under the content folder
    stat: tuple  # cache.stat_key when it was read
    digest: str  # its bytes' sha256
    read_at: int  # when it was read (ns): the racily-clean rule
    definitions: list  # its protocols and environments: (kind, JSON, number) or the number of one stored before
    runs: list  # StoredRun records
    warnings: list  # what reading it said


class StoredRun(NamedTuple):
    """One run of a StoredFile, or of a reading process's records (_rebuilt_runs reads it back)."""

    VERSION = 1
    index: int | None  # its place in the file (Source)
    line: int | None
    digest: str  # its bundle's digest
    name: str
    protocol: int  # its definitions' numbers in the file's `definitions`
    environment: int
    facts: tuple  # its Facts, slot by slot (Facts.__slots__: load.py's digest is in the header)
    document: bytes | None  # its document as the page shows it (a reading process's only)


@lru_cache(maxsize=1)  # (the code it digests does not change while a process runs)
def runs_format() -> bytes:
    """The runs cache's header: its records, and the code that derives a run's facts."""
    from .cache import record_format

    return record_format("runs", (StoredFile, StoredRun), ("load.py", "models.py", "importers/naming.py"))


def file_records(memo: dict, present: dict[str, str], known: Definitions | None = None):
    """The memo's files still present (`present`: Content.digests), each as plain values; a protocol
    or environment as `known` (load_content's `definitions`) holds its JSON, else as its model gives it."""
    kinds = {BenchmarkProtocol: "protocol", ExecutionEnvironment: "environment"}
    dumped: dict[int, int] = {}  # id(model) → its number (models are shared across files)
    for shown, r in memo.items():
        if shown not in present:
            continue
        definitions: list = []

        def define(model) -> None:
            shared = dumped.get(id(model))
            if shared is None:
                # Its JSON as read (so that restore_files shares it with a file that repeats it, read
                # again: Definitions.key), else what was set: validating either again gives an equal
                # model (cache.py's format names this code's version, so the fields are the same). Its
                # number tells restore_files which files share it (one write numbers them all): the
                # files after the first that has it name it by its number alone.
                shared = dumped[id(model)] = len(dumped)
                raw = known.raw.get(id(model)) if known is not None else None
                value = raw[1] if raw is not None else model.model_dump(mode="json", exclude_unset=True)
                definitions.append((kinds[type(model)], value, shared))
            else:
                definitions.append(shared)

        records = _stored_runs(r.runs, {}, define, documents=False)
        yield tuple(StoredFile(shown, r.rel, r.stat, r.digest, r.read_at, definitions, records, r.warnings))


def _stored_runs(runs: list[Run], numbers: dict[int, int], define: Callable[[object], None], documents: bool) -> list:
    """Each run as a StoredRun record, its protocol and environment by their numbers in `numbers`
    (id(model) → number, counted from 0); `define(model)` for each model numbered here first."""
    records = []
    for run in runs:
        pair = []
        for model in run.definitions:
            number = numbers.get(id(model))
            if number is None:
                number = numbers[id(model)] = len(numbers)
                define(model)
            pair.append(number)
        s = run.source
        records.append(tuple(StoredRun(s.index, s.line, s.digest, run.name, pair[0], pair[1], _fact_values(run.facts),
                                       run._doc if documents else None)))
    return records


_fact_values = operator.attrgetter(*Facts.__slots__)  # a run's facts as one tuple, in slot order


def _restored_facts(values: tuple) -> Facts:
    # One unpacking in Facts.__slots__'s order (tests/test_incremental.py checks it): five times
    # quicker than a setattr per slot, for every run a command-line build restores.
    facts = object.__new__(Facts)
    (facts.title_parts, facts.status, facts.samples, facts.mean, facts.minimum, facts.maximum, facts.ci_low,
     facts.ci_high, facts.statistic, facts.observed_at, facts.std_ns, facts.hardware, facts.naming,
     facts.problem_text, facts.workload_digest, facts.environment_digest, facts.implementation_digest,
     facts.former_problem_text, facts.implementation_source, facts.workload_source) = values
    return facts


def restore_files(entries, content_dir: Path, known: Definitions | None = None) -> dict:
    """load_content's memo from file_records' values (from the last build's cache). The runs' origin
    is set by load_content, from its listing, when it finds their file unchanged. Their protocols
    and environments are put in `known` (load_content's `definitions`)."""
    shared: dict[int, object] = {}  # a definition's number → its model: validated once, whichever files repeat it
    known = known if known is not None else Definitions()
    memo = {}
    for entry in entries:
        f = StoredFile._make(entry)
        try:
            models = [shared[d] if type(d) is int else _shared_model(shared, known, *d) for d in f.definitions]
        except (KeyError, ValueError, TypeError):  # (ValidationError is a ValueError; KeyError: a number never defined)
            continue  # not what this version writes: the file is read again
        runs = _rebuilt_runs(f.runs, models, f.shown, f.rel, None)
        memo[f.shown] = _Remembered(f.stat, f.digest, runs, f.read_at, _FileIndex(runs), f.rel, f.warnings)
    return memo


def _shared_model(shared: dict[int, object], known: Definitions, kind: str, value: dict, number: int):
    model = shared.get(number)
    if model is None:
        model = shared[number] = known.model(kind, Definitions.key(value), value)
    return model


def _rebuilt_runs(records: list, models: list, shown: str, rel: str, origin: Path | _Listed | None) -> list[Run]:
    """A file's runs from their plain values (file_records', or a reading process's, which end with
    the document as JSON), their definitions numbered in `models`."""
    runs = []
    pairs = {}  # (protocol, environment) numbers → (definitions, their names): shared by the file's runs
    for index, line, run_digest, name, protocol, environment, facts, document in records:  # (StoredRun's fields)
        pair = pairs.get((protocol, environment))
        if pair is None:
            definitions = (models[protocol], models[environment])
            pair = pairs[protocol, environment] = (definitions, *(d.metadata.name for d in definitions))
        run = Run.__new__(Run)
        run._doc, run.origin, run.facts, run.grouping, run.files = (document, origin,
                                                                    _restored_facts(facts), None, _NO_FILES)
        run.definitions, run.protocol, run.environment = pair
        run.source, run.name = Source(shown, index, line, run_digest, rel), name
        runs.append(run)
    return runs


def document_at(path: Path, source: Source) -> BenchmarkRun:
    """A run's whole document, read again from its file (a run kept only its facts)."""
    for again in (False, True):  # (again: the file held from before may have changed within its clock tick)
        run = _reread_files.file(path, again).run(source)
        if run is not None:
            return _prefixed("run", BenchmarkRun.model_validate, run)
    raise KindexError(f"{source}: changed while the site was being built; build again")


class _Reread:
    """A content file, ready to give its documents again: where each element of a .json array is
    in the file (each is read, checked and parsed when asked for: the whole file's documents
    parsed at once would weigh six times its bytes, in every render worker); a .json file of one
    bundle, its run, parsed; a .jsonl file's line offsets alone (it may hold millions of lines:
    each is read, checked and parsed when asked for)."""

    __slots__ = ("path", "runs", "spans", "starts")

    def __init__(self, path: Path):
        self.path = path
        self.runs: dict[None, tuple[bytes, object]] = {}  # a file of one bundle's
        self.spans = array("q")  # an array's elements: each one's first byte and the byte after it
        self.starts: array | None = None
        if path.suffix == ".jsonl":
            self.starts = _line_starts(path)
            return
        try:
            data = _file_bytes(path, path.stat().st_size)
        except OSError:
            return  # (then no run is found: the caller says the file changed)
        text = _decode(data, "", [], check_bom=True)
        if text is None:
            return
        if text.startswith("[", _WHITESPACE.match(text).end()):
            self.spans = _element_spans(text, len(text) == len(data))
            return
        try:
            raw = _PLAIN_DECODER.decode(text)
        except (ValueError, RecursionError):
            return
        self.runs[None] = (hashlib.sha256(data).digest(), raw.get("run") if isinstance(raw, dict) else None)

    def run(self, source: Source) -> object | None:
        """The run part of the bundle at source's place, if its bytes are still the ones read."""
        if self.starts is None:
            if source.index is None:
                digest, run = self.runs.get(None, (None, None))
                return run if digest == source.digest else None
            return self._element_run(source)
        line = source.line or 0
        if not 0 < line < len(self.starts):
            return None
        return self._run_between(self.starts[line - 1], self.starts[line], source.digest)

    def _element_run(self, source: Source) -> object | None:
        """The run part of the array's element at source's index, if its text is the one read."""
        if not 0 <= source.index < len(self.spans) // 2:
            return None
        return self._run_between(self.spans[2 * source.index], self.spans[2 * source.index + 1], source.digest)

    def _run_between(self, start: int, end: int, digest: bytes) -> object | None:
        """The run part of the bundle in the file's bytes start:end, if their sha1 is `digest` (a line
        of a .jsonl file, or an array's element: its text's UTF-8 is the bytes it was read from)."""
        try:
            with self.path.open("rb") as f:
                f.seek(start)
                raw = f.read(end - start)
        except OSError:
            return None
        if hashlib.sha1(raw).digest() != digest:
            return None
        bundle = _PLAIN_DECODER.decode(raw.decode("utf-8"))  # (the same bytes parsed cleanly before)
        return bundle.get("run") if isinstance(bundle, dict) else None


def _element_spans(text: str, ascii: bool) -> array:
    """Where each element of the top-level JSON array in text starts and ends in its UTF-8 bytes,
    in pairs (none if it is not valid JSON). Each element is parsed and let go: only offsets are kept."""
    spans = array("q")
    chars = bytes_before = 0  # (past ASCII: characters counted into bytes, each stretch once)
    try:
        for _, start, end in _array_elements(text, _PLAIN_DECODER):
            if not ascii:
                bytes_before += len(text[chars:start].encode())
                start, chars = bytes_before, start
                bytes_before += len(text[chars:end].encode())
                end, chars = bytes_before, end
            spans.append(start)
            spans.append(end)
    except (ValueError, RecursionError):
        return array("q")
    return spans


def _line_starts(path: Path) -> array:
    """Where each line of a .jsonl file starts (and where the last ends), numbered as _jsonl_documents numbers them."""
    starts = array("q", [0])
    try:
        with path.open("rb") as f:
            for _ in _jsonl_lines(f, starts=starts):
                pass
    except OSError:
        pass  # (then no line is found: the caller says the file changed)
    return starts


class _RereadFiles:
    """The content files documents were last read again from (as `stat` found each), the newest last:
    run pages asked for one after another share a file (build.py makes the pages reading one file
    together). A one-off build holds the last one alone; a long-running builder keeps up to `RESIDENT`
    between builds, as a rebuild makes again the pages of a few runs, mostly in the files it read last."""

    RESIDENT = 64
    # Freed memory is given back after reading a file this big: not after each small one (one file
    # per run: a run page each), where the call would cost a fifth of the page.
    TRIM_AFTER_BYTES = 2**20

    def __init__(self):
        self.held: dict[Path, tuple[tuple | None, _Reread]] = {}
        self.most = 1

    def file(self, path: Path, again: bool) -> _Reread:
        stat = _stat_key(path)
        held = self.held.pop(path, None)
        if held is None or held[0] != stat or again:
            while len(self.held) >= self.most:  # (the oldest go before the next file is read, not after)
                del self.held[next(iter(self.held))]
            held = (stat, _Reread(path))
            if stat is not None and stat[0] >= self.TRIM_AFTER_BYTES:
                release_free_memory()  # (the file's bytes and text, read to find its elements: 60 MB at a million runs)
        self.held[path] = held
        return held[1]

    def keep(self, resident: bool) -> None:
        """Hold files for a long-running builder's next build, or let them go (a one-off build's end)."""
        self.most = self.RESIDENT if resident else 1
        if not resident:
            self.held.clear()


_reread_files = _RereadFiles()


def keep_reread_files(resident: bool) -> None:
    """After a build: keep the files read again for the next (`resident`: a long-running builder), or
    let them go."""
    _reread_files.keep(resident)
