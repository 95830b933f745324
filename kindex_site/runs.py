"""A run as the site holds it: its `Facts` (what pages show and rank), its `Run` (with where it came
from and its document, kept or read again from its file: `document_at`), and a file's `FileIndex`."""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from .errors import KindexError
from .jsonread import PLAIN_DECODER, Source, array_elements, file_bytes, is_array, jsonl_lines, prefixed
from . import listing
from .listing import Listed
from .models import BenchmarkProtocol, BenchmarkRun, ExecutionEnvironment
from .naming import problem_naming
from .workers import release_free_memory

if TYPE_CHECKING:
    from .sources import SourceText

# The code that makes runs from the content: caches of values made from runs digest it (state.files.record_format).
READ_MODULES = ("load.py", "listing.py", "jsonread.py", "runs.py", "bundles.py", "sources.py", "documents.py",
                "reading.py", "state/loadstate.py", "state/records.py", "naming.py")


class Facts:
    """What the site shows and ranks of a run, instead of its whole validated document: latencies
    as the input's integers (ns) or None; strings many runs repeat, interned."""

    __slots__ = ("title_parts", "status", "samples", "mean", "minimum", "maximum", "ci_low", "ci_high", "statistic",
                 "observed_at", "std_ns", "hardware", "naming", "problem_text",
                 "workload_digest", "environment_digest", "implementation_digest", "former_problem_text",
                 "implementation_source", "workload_source")

    def __init__(self, doc: BenchmarkRun):
        spec = doc.spec
        # The title's " · " parts (problem · implementation · host), each shared by many runs.
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
        self.std_ns: int | float | None = next(
            (m.value for m in spec.measurements if m.metric == "latency" and m.statistic == "std" and m.unit == "ns"),
            None)
        native = spec.sourceNative
        hardware = native.get("hardware")  # the GPU the source recorded, checked against the host's
        self.hardware: str | None = sys.intern(hardware) if isinstance(hardware, str) else None
        # The text its problem is told from (leaderboard.problem_of).
        source = native.get("source")
        naming = problem_naming(source)
        self.naming: str | None = sys.intern(source) if naming is not None else None  # the source, if it has one
        if naming is not None:
            text, former = naming.problem_text(native), naming.former_text(native)
            self.problem_text = sys.intern(text) if text is not None else None
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


NO_FILES: Mapping = MappingProxyType({})  # (most runs refer to no source file: one empty mapping for them all)


class Run:
    """One validated run, with its protocol, environment and origin; kept while its file is unchanged,
    so what derives from its document alone is remembered on it (`grouping`)."""

    __slots__ = ("_doc", "_origin", "facts", "protocol", "environment", "source", "name", "definitions", "grouping",
                 "files")

    def __init__(self, doc: BenchmarkRun, protocol: BenchmarkProtocol, environment: ExecutionEnvironment,
                 source: Source, keep_document: bool = True, origin: Path | Listed | None = None):
        self._doc = doc if keep_document else None
        self.origin = origin
        self.facts = Facts(doc)
        self.protocol: str = protocol.metadata.name  # metadata.name of its BenchmarkProtocol
        self.environment: str = environment.metadata.name  # metadata.name of its ExecutionEnvironment
        self.definitions = (protocol, environment)  # as its bundle gave them
        self.source = source
        self.name: str = doc.metadata.name
        self.grouping = None  # leaderboard.py's: its problem and implementation, told from doc alone
        self.files: Mapping[str, SourceText] = NO_FILES  # "implementation" / "workload" → the source file it refers to

    @property
    def doc(self) -> BenchmarkRun | None:
        """The whole validated document: held, validated again from its JSON, or read again from its file (not held)."""
        doc = self._doc
        if type(doc) is bytes:
            return BenchmarkRun.model_validate(PLAIN_DECODER.decode(doc.decode("utf-8")))
        if doc is None and self.origin is not None:
            return document_at(self.origin, self.source)
        return doc

    @property
    def shown(self) -> dict:
        """The whole document as its run page shows it: the fields it gives, as JSON values (bundles.shown_json)."""
        doc = self._doc
        if type(doc) is bytes:
            return PLAIN_DECODER.decode(doc.decode("utf-8"))
        return self.doc.model_dump(mode="json", exclude_unset=True)

    @property
    def document_file(self) -> Path | None:
        """The file `doc` reads, when the document is not held."""
        return self.origin if self._doc is None else None

    @property
    def origin(self) -> Path | None:
        """The file it came from (one Path shared by the file's runs), to read it again."""
        origin = self._origin
        return origin.path if type(origin) is Listed else origin

    @origin.setter
    def origin(self, value: Path | Listed | None) -> None:
        self._origin = value  # (a listed file: its Path is made if the document is read again)

    @property
    def key(self) -> str:
        """Changes whenever this run's document, where it is said to come from, or a file it refers to changes."""
        key = f"{self.source}|{self.source.digest.hex()}"  # (made when asked: a million of them kept weigh 170 MB)
        return key + "".join(f"|{f.rel}:{f.digest}" for f in self.files.values()) if self.files else key

    def __repr__(self) -> str:
        return f"Run({self.name!r} from {self.source})"


class FileIndex:
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


# --- A run's document read again from its file (a run that kept its facts alone) ---------------------


def document_at(path: Path, source: Source) -> BenchmarkRun:
    """A run's whole document, read again from its file (a run kept only its facts)."""
    for again in (False, True):  # (again: the file held from before may have changed within its clock tick)
        run = _reread_files.file(path, again).run(source)
        if run is not None:
            return prefixed("run", BenchmarkRun.model_validate, run)
    raise KindexError(f"{source}: changed while the site was being built; build again")


class _Reread:
    """A content file, ready to give its documents again: each element or line parsed when asked
    for (all its documents would weigh six times its bytes), or a .json file's run."""

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
            data = file_bytes(path, path.stat().st_size)
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return  # (then no run is found: the caller says the file changed)
        if is_array(text):
            self.spans = _element_spans(text, len(text) == len(data))
            return
        try:
            raw = PLAIN_DECODER.decode(text)
        except (ValueError, RecursionError):
            return
        self.runs[None] = (hashlib.sha256(data).digest(), raw.get("run") if isinstance(raw, dict) else None)

    def run(self, source: Source) -> object | None:
        """The run part of the bundle at source's place, if its bytes are still the ones read."""
        if self.starts is None and source.index is None:
            digest, run = self.runs.get(None, (None, None))
            return run if digest == source.digest else None
        if self.starts is not None:  # (a .jsonl line: from where it starts to where the next does)
            at, places = (source.line or 0) - 1, self.starts
        else:  # (an array's element: its first byte and the byte after it)
            at, places = 2 * source.index, self.spans
        if not 0 <= at < len(places) - 1:
            return None
        return self._run_between(places[at], places[at + 1], source.digest)

    def _run_between(self, start: int, end: int, digest: bytes) -> object | None:
        """The run part of the bundle in the file's bytes start:end, if their sha1 is still `digest`."""
        try:
            with self.path.open("rb") as f:
                f.seek(start)
                raw = f.read(end - start)
        except OSError:
            return None
        if hashlib.sha1(raw).digest() != digest:
            return None
        bundle = PLAIN_DECODER.decode(raw.decode("utf-8"))  # (the same bytes parsed cleanly before)
        return bundle.get("run") if isinstance(bundle, dict) else None


def _element_spans(text: str, ascii: bool) -> array:
    """Where each element of the top-level JSON array in text starts and ends in its UTF-8 bytes (none if invalid)."""
    spans = array("q")
    chars = bytes_before = 0  # (past ASCII: characters counted into bytes, each stretch once)
    try:
        for _, start, end in array_elements(text, PLAIN_DECODER):
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
    """Where each line of a .jsonl file starts (and where the last ends), numbered as jsonread numbers them."""
    starts = array("q", [0])
    with suppress(OSError):  # (then no line is found: the caller says the file changed)
        with path.open("rb") as f:
            for _ in jsonl_lines(f, starts=starts):
                pass
    return starts


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        return listing.stat_key(path.stat())  # (the snapshot's)
    except OSError:
        return None


class _RereadFiles:
    """The content files documents were last read again from, newest last: one for a one-off build,
    `RESIDENT` kept between a resident builder's builds."""

    RESIDENT = 64
    TRIM_AFTER_BYTES = 2**20  # freed memory is given back after a file this big: not after a run page's own

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
                release_free_memory()  # (the file's bytes and text, read to find its elements)
        self.held[path] = held
        return held[1]

    def keep(self, resident: bool) -> None:
        """Hold files for a resident builder's next build, or let them go (a one-off build's end)."""
        self.most = self.RESIDENT if resident else 1
        if not resident:
            self.held.clear()


_reread_files = _RereadFiles()  # the files the build under way read again (`read_again_into`)


def read_again_into(files: _RereadFiles | None, resident: bool = False) -> _RereadFiles:
    """Keep the files documents are read again from in `files` (a resident builder's), or in new
    ones (None); returns them."""
    global _reread_files
    _reread_files = files if files is not None else _RereadFiles()
    _reread_files.keep(resident)
    return _reread_files
