"""Reading a load's bundle files (`Reader`): a file the memo holds unchanged is taken as it was, the
others read here or by worker processes on every core, whose runs come back as `StoredRun` records."""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from .bundles import MAX_DOCUMENT_BYTES, Definitions, checked_run, shown_json, validate
from .jsonread import INVALID, MAX_PROBLEMS_PER_FILE, RefusedBundle, Source, file_values
from .listing import Listed, racy
from .models import BenchmarkProtocol, ExecutionEnvironment, FormatWarnings
from .runs import FileIndex, Run
from .sources import named_sources
from .state.records import Remembered, rebuilt_runs, stored_runs
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
    """A file's validated runs, problems, whether reading stopped early, warnings, and the sources its
    refused bundles name; a run of `earlier` whose place and bytes are unchanged is taken as it was."""
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
            # Its definitions are those a fresh read of this file would give, not what it shared last time.
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
    """Reads the files in chunks here and in worker processes (workers.Workers), one per other core;
    runs come back as StoredRun records, and a chunk whose worker died is read here."""

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
