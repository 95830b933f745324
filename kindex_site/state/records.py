"""What a later build takes from the last, as records: a content file's validated runs (`Remembered` in
memory; `StoredFile`, `StoredRun` in the runs cache, as reading processes send runs back too), a problem's
planned outputs (`StoredPlan`), the rows of listing pages (`StoredRows`) and compiled templates
(`CompiledTemplates`). A record type is a NamedTuple with a VERSION: `files.record_format` makes a cache's
header from them, so no build reads another's records."""

from __future__ import annotations

import marshal
import operator
import os
import shutil
import sys
from collections.abc import Callable
from contextlib import suppress
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import jinja2

from ..bundles import Definitions
from ..jsonread import Source
from ..listing import Listed
from ..models import BenchmarkProtocol, ExecutionEnvironment
from ..runs import NO_FILES, READ_MODULES, Facts, FileIndex, Run
from .files import framed, frames, path, record_format


class Remembered(NamedTuple):
    """What load_content's memo keeps of a file that loaded cleanly."""

    stat: tuple[int, int, int]  # size, mtime, ctime when read
    digest: str  # sha256 of its bytes
    runs: list[Run]
    read_at: int  # time.time_ns() just before it was read (or last compared)
    index: FileIndex
    rel: str  # its path under the content folder
    warnings: tuple[str, ...] = ()  # its FormatWarnings lines


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


class StoredPlan(NamedTuple):
    """A problem's planned outputs as the plans cache keeps them (planning.ProblemOutputs.stored writes it,
    `planning.planned` reads it back)."""

    VERSION = 1
    made_from: tuple  # what they were planned from (planning.Plan.take_problems): the problem's key, settings, code
    pages: tuple  # the paths of its pages: its own, then its runs'
    files: tuple  # the paths of its other outputs
    keys: tuple  # each path's key, pages then files
    problem_keys: tuple  # keys.ProblemKeys' fields


def plans_format() -> bytes:
    """The plans cache's header."""
    return record_format("plans", (StoredPlan,))


ROWS_FORMAT = b"kindex-site rows 3 " + sys.version.split()[0].encode() + b"\n"
ROWS_FILES_MAX = 8  # more files than this are written into one
ROWS_PENDING_MAX = 2**20  # characters of rows a process holds before it appends them to its file
ROWS_PER_BATCH = 4096  # rows per batch of a file written whole


class StoredRows:
    """The rows of pages listing problems as command-line builds rendered them, each under what it was
    made from (its problem's outputs' `made_from`, template, page and columns). Each process that renders
    rows adds a file of its own to the folder (`flush`); the build writes those in use into one when the
    folder holds many (`tidy`). A file cut short (a killed process) is read up to its last whole row."""

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
        with suppress(OSError):  # (a cache: the next build renders them again)
            self.folder.mkdir(parents=True, exist_ok=True)
            with (self.folder / f"{os.getpid()}-{self.token}.rows").open("ab") as f:
                if f.tell() == 0:
                    f.write(ROWS_FORMAT)
                _write_rows(f, [(key, html.encode("utf-8")) for key, html in rows])

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
    with suppress(ValueError, EOFError, TypeError):
        for head, html in zip(parts, parts):
            at = 0
            for key, size in zip(*marshal.loads(head)):
                rows[key] = html[at:at + size]
                at += size


def _write_in_use(f, rows: dict[tuple, memoryview], made_from: dict[str, tuple]) -> None:
    """The rows of problems' outputs as they are made now, in batches."""
    kept = [(key, html) for key, html in rows.items() if made_from.get(key[0]) == key[3]]
    for at in range(0, len(kept), ROWS_PER_BATCH):
        _write_rows(f, kept[at:at + ROWS_PER_BATCH])


def _write_rows(f, rows: list[tuple[tuple, bytes | memoryview]]) -> None:
    """One batch of rows (_read_rows reads them)."""
    head = marshal.dumps(([key for key, _ in rows], [len(body) for _, body in rows]))
    f.writelines(framed((head, b"".join(body for _, body in rows))))


class CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Jinja's bytecode cache in a folder, for builds to share. Jinja checks each entry against its
    template's source; what it does not check (this program's code, which sets how templates are
    compiled, and Jinja's own version) is the folder's stamp: when that differs, the folder is
    emptied. Only a cache: an entry that cannot be read or written (damaged, a full disk, the
    folder removed by a --clean meanwhile) means one more compile, never a failed build."""

    def __init__(self, folder: Path, code_stamp: str):
        folder.mkdir(parents=True, exist_ok=True)
        stamp, mark = f"{code_stamp}\njinja2 {jinja2.__version__}\n", folder / "stamp"
        try:
            same = mark.read_text(encoding="utf-8") == stamp
        except (OSError, ValueError):
            same = False
        if not same:
            for old in folder.glob("*.cache"):
                old.unlink(missing_ok=True)
            mark.write_text(stamp, encoding="utf-8")
        super().__init__(str(folder))

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # (whatever a damaged entry raises: compile instead)
            bucket.reset()

    def dump_bytecode(self, bucket) -> None:
        with suppress(OSError):
            super().dump_bytecode(bucket)
