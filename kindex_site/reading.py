"""Reading a load's bundle files (`Reader`): a file the memo holds unchanged is taken as it was, the
others read here or, when there are many, by worker processes on every core (`_ReadingProcesses`),
whose runs come back as plain records (`StoredRun`). The same records keep runs between command-line
builds (the runs cache: `file_records`, `restore_files`), so that a new process need not validate
every document again to change one page.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import operator
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from .bundles import MAX_DOCUMENT_BYTES, Definitions, checked_run, shown_json, validate
from .jsonread import INVALID, MAX_PROBLEMS_PER_FILE, RefusedBundle, Source, file_values
from .listing import Listed, racy
from .models import BenchmarkProtocol, ExecutionEnvironment, FormatWarnings
from .runs import NO_FILES, READ_MODULES, Facts, FileIndex, Run
from .sources import named_sources
from .workers import Workers, can_fork, cores

# Reading in forked processes pays when there is this much to read (their start costs a few milliseconds).
PARALLEL_MIN_FILES = 8
PARALLEL_MIN_BYTES = 2**20
CHUNK_BYTES = (64 * 2**10, 2**20)  # a chunk's bytes, at least and at most: its runs, sent back, fit in a pipe
CHUNKS_PER_CORE = 16  # chunks of about equal bytes, handed out as they are done: the readers end together


class Read(NamedTuple):
    """A bundle file, read or remembered: see _read_file; `digest`, the sha256 of its bytes (None if unread)."""

    runs: list[Run]
    index: FileIndex
    problems: list[str]
    stopped: bool
    warnings: tuple[str, ...]
    digest: str | None
    named: list[tuple[str, str, str, str]] | tuple = ()


class Remembered(NamedTuple):
    """What load_content's memo keeps of a file that loaded cleanly."""

    stat: tuple[int, int, int]  # size, mtime, ctime when read
    digest: str  # sha256 of its bytes
    runs: list[Run]
    read_at: int  # time.time_ns() just before it was read (or last compared)
    index: FileIndex
    rel: str  # its path under the content folder
    warnings: tuple[str, ...] = ()  # its FormatWarnings lines


class Reader:
    """Reads a load's bundle files; its `known` definitions are validated once, whichever file repeats them."""

    def __init__(self, trusted: frozenset[str], memo: dict | None, keep_documents: bool,
                 definitions: Definitions | None = None):
        self.trusted, self.memo, self.keep_documents = trusted, memo, keep_documents
        self.known = definitions if definitions is not None else Definitions()
        self.fresh = 0  # files read (not remembered)

    def read_all(self, files: list[Listed], progress: Callable[[int, int], None] | None) -> dict[str, Read]:
        """rel → what each file gave."""
        results: dict[str, Read] = {}
        unread: list[Listed] = []
        memo = self.memo if self.memo is not None else {}
        for f in files:  # (the loop of a rebuild over every file: what is not needed twice is done once)
            r = memo.get(f.shown)
            if r is None or r.stat != f.stat or (racy(r.stat, r.read_at) and not _still_same(f, r, memo)):
                unread.append(f)
                continue
            r = memo[f.shown]  # (_still_same may have put a newer one)
            if r.runs and r.runs[0]._origin is None:  # (restored from the runs cache)
                for run in r.runs:
                    run.origin = f
            results[f.rel] = Read(r.runs, r.index, [], False, r.warnings, r.digest)
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

    def read(self, f: Listed) -> Read:
        """Read and validate one file, and remember it in the memo if it loaded cleanly."""
        earlier = self.memo.get(f.shown) if self.memo is not None else None
        read_at = time.time_ns()
        result = _read_file(f, self.trusted, self.keep_documents, earlier.runs if earlier is not None else (), self.known)
        self.remember(f, result, read_at)
        return result

    def remember(self, f: Listed, result: Read, read_at: int) -> None:
        if self.memo is not None and not result.problems and f.stat is not None:
            self.memo[f.shown] = Remembered(f.stat, result.digest, result.runs, read_at, result.index, f.rel,
                                            result.warnings)


def _still_same(listed: Listed, remembered: Remembered, memo: dict) -> bool:
    """A file whose stat is as remembered, but written in the tick it was read: is it the same file?"""
    checked_at = time.time_ns()
    try:
        with listed.path.open("rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()  # (a .jsonl file may be gigabytes)
    except OSError:
        return False
    if digest != remembered.digest:
        return False
    memo[listed.shown] = remembered._replace(read_at=checked_at)  # compared now: later, its time alone will do
    return True


def _read_file(f: Listed, trusted: frozenset[str], keep_documents: bool, earlier: list[Run], known: Definitions,
               as_json: bool = False) -> Read:
    """A file's validated runs, problems, whether reading stopped early (the last line says so), warnings,
    and the source files its refused bundles name. A run of `earlier` whose place and bytes are unchanged is
    taken as it was; `as_json`: runs hold their documents as pages show them, unindexed (a reading process's)."""
    validated: list[Run] = []
    problems: list[str] = []
    digests: dict[str, str] = {}
    same = {(r.source.index, r.source.line, r.source.digest): r for r in earlier}
    warnings = FormatWarnings(f.shown, known.unknown)
    named: list[tuple[str, str, str, str]] = []  # the source files refused bundles name
    size = f.stat[0] if f.stat else None
    values = file_values(f.at, f.shown, problems, digests, trusted, rel=f.rel, size=size)
    seen, stopped = 0, False
    for source, raw in values:
        seen += 1
        if type(raw) is RefusedBundle:  # (the strict decoder refused a value in it: said already)
            named += named_sources(raw.value, source, f.rel)
            raw = INVALID
        kept = same.get((source.index, source.line, source.digest)) if same and raw is not INVALID else None
        if kept is not None:
            # Its protocol and environment models are the ones a fresh read of this file would give
            # it (shared with an earlier document, or its own), not what it shared last time.
            kept.definitions, kept.origin = known.models(raw), f
            warnings.check(raw, source, kept.definitions)
            validated.append(kept)
        else:
            bundle = None if raw is INVALID else validate(raw, source, problems, known)
            if bundle is not None:
                run = checked_run(raw, bundle, source, f, keep_documents and not as_json, warnings, known,
                                  problems, size is None or size > MAX_DOCUMENT_BYTES)
                if run is not None:
                    if as_json and keep_documents:
                        run._doc = shown_json(bundle[0])
                    validated.append(run)
                else:
                    named += named_sources(raw, source, f.rel)
            elif type(raw) is dict:  # (the error path: the rest of what is wrong with it, said now)
                warnings.check_invalid(raw, source)
                named += named_sources(raw, source, f.rel)
        if warnings.errors:  # (a near miss of a known field: with the bundle's other problems)
            problems += warnings.take_errors()
        if len(problems) >= MAX_PROBLEMS_PER_FILE:
            values.close()  # bounded time and output on a file that is broken throughout
            problems.append(f"{f.shown}: stopped reading after {len(problems)} problems in this file")
            stopped = True
            break
    if not seen and not problems:  # (an empty array: said, as an empty file is)
        warnings.lines.append(f"{f.shown}: holds an empty array: no bundle")
    index = None if as_json else FileIndex(validated)
    return Read(validated, index, problems, stopped, warnings.result(), digests.get(f.shown), named)


def _in_processes(files: list[Listed]) -> bool:
    return (len(files) >= PARALLEL_MIN_FILES and can_fork()
            and sum(f.stat[0] for f in files if f.stat is not None) >= PARALLEL_MIN_BYTES)


def _chunks(files: list[Listed], cores: int) -> list[list[int]]:
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
    """Reads the files in chunks here and in worker processes (workers.Workers), one per other core, each
    with two chunks in hand. A worker sends each file's runs back as StoredRun records (each protocol
    and environment once, as its JSON), made into Runs again here; a chunk whose worker died is read here."""

    def __init__(self, reader: Reader, files: list[Listed]):
        self.reader, self.files = reader, files
        self.chunks = _chunks(files, cores())
        self.models: dict[int, list] = {}  # pid → the definitions it sent, by their numbers
        self.numbers: dict[int, int] = {}  # (in a worker) id(model) → its number, as sent
        self.read_at = time.time_ns()  # (before any file is read: what the memo's racy rule needs)

    def results(self):
        """(file, Read) for each file, chunk by chunk as they are read."""
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
            read = _read_file(self.files[i], reader.trusted, reader.keep_documents, (), reader.known, as_json=True)
            records.append(self._record(read))
        return records

    def _record(self, read: Read) -> tuple:
        definitions = []  # (slot, JSON) of the definitions not sent before
        raw = self.reader.known.raw
        runs = stored_runs(read.runs, self.numbers, lambda model: definitions.append(raw[id(model)][:2]), documents=True)
        return read.digest, read.problems, read.stopped, read.warnings, definitions, runs, read.named

    def _made(self, pid: int, chunk: int, records: list):
        models = self.models.setdefault(pid, [])
        for i, (digest, problems, stopped, warnings, definitions, runs, named) in zip(self.chunks[chunk], records):
            models += [self.reader.known.model(slot, Definitions.key(value), value) for slot, value in definitions]
            f = self.files[i]
            made = rebuilt_runs(runs, models, f.shown, f.rel, f)
            result = Read(made, FileIndex(made), problems, stopped, warnings, digest, named)
            self.reader.remember(f, result, self.read_at)
            yield f, result


class StoredFile(NamedTuple):
    """A content file's runs as the runs cache keeps them (file_records writes it, restore_files reads it)."""

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
    """One run of a StoredFile, or of a reading process's records (rebuilt_runs reads it back)."""

    VERSION = 1
    index: int | None  # its place in the file (Source)
    line: int | None
    digest: str  # its bundle's digest
    name: str
    protocol: int  # its definitions' numbers in the file's `definitions`
    environment: int
    facts: tuple  # its Facts, slot by slot (Facts.__slots__: runs.py's digest is in the header)
    document: bytes | None  # its document as the page shows it (a reading process's only)


@lru_cache(maxsize=1)  # (the code it digests does not change while a process runs)
def runs_format() -> bytes:
    """The runs cache's header: its records, and the code that derives a run's facts."""
    from .cache import record_format

    return record_format("runs", (StoredFile, StoredRun), (*READ_MODULES, "models.py"))


def file_records(memo: dict, present: dict[str, str], known: Definitions | None = None):
    """The memo's files still present (`present`: Content.digests), each as a StoredFile of plain values."""
    kinds = {BenchmarkProtocol: "protocol", ExecutionEnvironment: "environment"}
    dumped: dict[int, int] = {}  # id(model) → its number (models are shared across files)
    for shown, r in memo.items():
        if shown not in present:
            continue
        definitions: list = []

        def define(model) -> None:
            shared = dumped.get(id(model))
            if shared is None:
                # Its JSON as read (shared with a file that repeats it, read again), else as its model
                # gives it; the files after the first that has it name it by its number alone.
                shared = dumped[id(model)] = len(dumped)
                raw = known.raw.get(id(model)) if known is not None else None
                value = raw[1] if raw is not None else model.model_dump(mode="json", exclude_unset=True)
                definitions.append((kinds[type(model)], value, shared))
            else:
                definitions.append(shared)

        records = stored_runs(r.runs, {}, define, documents=False)
        yield tuple(StoredFile(shown, r.rel, r.stat, r.digest, r.read_at, definitions, records, r.warnings))


def stored_runs(runs: list[Run], numbers: dict[int, int], define: Callable[[object], None], documents: bool) -> list:
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
    # One unpacking in Facts.__slots__'s order (tests/test_incremental.py checks it): quicker than setattr.
    facts = object.__new__(Facts)
    (facts.title_parts, facts.status, facts.samples, facts.mean, facts.minimum, facts.maximum, facts.ci_low,
     facts.ci_high, facts.statistic, facts.observed_at, facts.std_ns, facts.hardware, facts.naming,
     facts.problem_text, facts.workload_digest, facts.environment_digest, facts.implementation_digest,
     facts.former_problem_text, facts.implementation_source, facts.workload_source) = values
    return facts


def restore_files(entries, content_dir: Path, known: Definitions | None = None) -> dict:
    """load_content's memo from file_records' values, their protocols and environments put in `known`; a run's
    origin is set when the listing finds its file unchanged."""
    shared: dict[int, object] = {}  # a definition's number → its model: validated once, whichever files repeat it
    known = known if known is not None else Definitions()
    memo = {}
    for entry in entries:
        f = StoredFile._make(entry)
        try:
            models = [shared[d] if type(d) is int else _shared_model(shared, known, *d) for d in f.definitions]
        except (KeyError, ValueError, TypeError):  # (ValidationError is a ValueError; KeyError: a number never defined)
            continue  # not what this version writes: the file is read again
        runs = rebuilt_runs(f.runs, models, f.shown, f.rel, None)
        memo[f.shown] = Remembered(f.stat, f.digest, runs, f.read_at, FileIndex(runs), f.rel, f.warnings)
    return memo


def _shared_model(shared: dict[int, object], known: Definitions, kind: str, value: dict, number: int):
    model = shared.get(number)
    if model is None:
        model = shared[number] = known.model(kind, Definitions.key(value), value)
    return model


def rebuilt_runs(records: list, models: list, shown: str, rel: str, origin: Path | Listed | None) -> list[Run]:
    """A file's runs from their StoredRun records, their definitions numbered in `models`."""
    runs = []
    pairs = {}  # (protocol, environment) numbers → (definitions, their names): shared by the file's runs
    for index, line, run_digest, name, protocol, environment, facts, document in records:  # (StoredRun's fields)
        pair = pairs.get((protocol, environment))
        if pair is None:
            definitions = (models[protocol], models[environment])
            pair = pairs[protocol, environment] = (definitions, *(d.metadata.name for d in definitions))
        run = Run.__new__(Run)
        run._doc, run.origin, run.facts, run.grouping, run.files = (document, origin,
                                                                    _restored_facts(facts), None, NO_FILES)
        run.definitions, run.protocol, run.environment = pair
        run.source, run.name = Source(shown, index, line, run_digest, rel), name
        runs.append(run)
    return runs
