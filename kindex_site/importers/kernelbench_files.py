"""KernelBench's timing files: found, dated (PROVENANCE.txt, --observed-at, or --repo's history) and
read; what each record means as a run's timing, and what a run keeps of it."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from ..errors import KindexError, printable
from ..models import MAX_SAFE_INT
from .common import (OUTSIDE_UTC, Imported, digest, in_utc_range, json_kind, json_number, kept_problems, ms_problem,
                     ms_to_ns, plain, read_json, shown_number, utc_timestamp, whole_ns)
from .kernelbench_history import History, Version

SOURCE = "kernelbench"
FILE_PATTERN = re.compile(r"^baseline_time_(.+)\.json$")
LEVEL_PATTERN = re.compile(r"^level(\d{1,15})$")
# A file name, never a path: a separator, NUL or lone surrogate would name a file elsewhere, or none.
ENTRY_PATTERN = re.compile(r"^(\d{1,15})_([^/\\\x00\ud800-\udfff]+)\.py$")

Z95 = Decimal("1.96")


@dataclass
class Result(Imported):  # notes: with --repo, each file's KernelBench version, and why
    sources: int = 0
    hosts: int = 0
    statuses: Counter = field(default_factory=Counter)


@dataclass
class SourceFile:
    host: str  # folder name, e.g. "H100_PCIe_LambdaLabs"
    implementation: str  # file-name suffix, e.g. "torch_compile_inductor_default"
    path: Path
    observed_at: datetime | None = None
    commit: str | None = None  # the commit PROVENANCE.txt names for it, if any
    added: str | None = None  # with --repo: the first commit holding its bytes anywhere (see `date_by_history`)
    copy_of: str | None = None  # … where that commit holds them, when not at this file's own path
    given: datetime | None = None  # the date PROVENANCE.txt or --observed-at gave, when `added` dates it otherwise
    data: dict | None = None
    fingerprint: str | None = None  # its timings as runs keep them: a host's copies of one timing are imported once
    version: Version | None = None  # with --repo: the KernelBench version its timings were made with
    sources: dict[str, Version] = field(default_factory=dict)  # with --repo: each problem's version
    stamp: str | None = None  # a host's later timing of an implementation: its date, in its runs' and file's names

    @property
    def benchmark(self) -> str:
        return f"{self.host}/{self.path.name}"

    @property
    def when(self) -> str:
        """observedAt as the runs write it: what orders a host's timings of an implementation."""
        return utc_timestamp(self.observed_at)


def read_and_date(files: list[SourceFile], sources: list[Path], fallback: datetime | None,
                  errors: list[str], undated_ok: bool = False) -> None:
    """Each file's data and its date: PROVENANCE.txt's, else --observed-at (a file's modification
    time is when it was copied), else an error unless `undated_ok` (--repo may date it)."""
    dates = _provenance(sources, errors)
    for f in files:
        f.data = _read(f.path, errors)
        f.fingerprint = _file_fingerprint(f.data) if f.data is not None else None
        f.observed_at, f.commit = dates.get(f.path.resolve(), (fallback, None))
        if f.observed_at is None and not undated_ok:
            errors.append(_undated(f, ""))


def _undated(f: SourceFile, also: str) -> str:
    return (f"{f.path}: no date for its timings: no PROVENANCE.txt line names it and --observed-at is not given"
            f"{also}; add '{f.benchmark} [COMMIT] DATE-TIME' to a PROVENANCE.txt in the folder holding its host "
            "folder, or give --observed-at")


def date_by_history(files: list[SourceFile], history: History, result: Result, errors: list[str]) -> None:
    """--repo: a file whose bytes the history holds dates from the first commit holding them anywhere,
    so that a copy or move never re-dates its timings."""
    blob_of = history.blob_ids([f.path for f in files])
    first = history.first_commits(set(blob_of.values()))
    for f in files:
        found = first.get(blob_of.get(f.path))
        if found is not None:
            f.added, paths = found
            when = history.dates[f.added]
            if f"results/timing/{f.host}/{f.path.name}" not in paths:
                f.copy_of = paths[0]
                result.warnings.append(
                    f"{f.path} is a copy of {f.copy_of} first committed at {f.added[:7]} ({when.date().isoformat()}): "
                    "its runs are dated and their workloads taken from there")
            if f.observed_at != when:
                f.given, f.observed_at = f.observed_at, when
        if f.observed_at is None:
            errors.append(_undated(f, ", and --repo's history does not hold its bytes"))


def problems_folder(path: Path) -> Path:
    for candidate in (path, path / "KernelBench"):
        if candidate.is_dir() and any(LEVEL_PATTERN.match(p.name) and p.is_dir() for p in candidate.iterdir()):
            return candidate
    raise KindexError(f"--problems: {path}: not a KernelBench checkout's KernelBench/ folder "
                      "(no level1/, level2/, … folders in it)")


def find_files(sources: list[Path], errors: list[str]) -> list[SourceFile]:
    found: list[SourceFile] = []
    seen: set[Path] = set()
    for src in sources:
        if not src.exists():
            errors.append(f"{src}: not found")
            continue
        if not src.is_dir():
            errors.append(f"{src}: not a folder (give a host folder or a results/timing folder)")
            continue
        host_dirs = [src] if _timing_files(src) else sorted(
            (d for d in src.iterdir() if d.is_dir() and not d.name.startswith(".") and _timing_files(d)),
            key=lambda d: d.name)
        if not host_dirs:
            errors.append(f"{src}: no baseline_time_*.json files in it or in its subfolders")
            continue
        for d in host_dirs:
            for path in _timing_files(d):
                if path.resolve() in seen:
                    continue
                seen.add(path.resolve())
                if re.search("[\ud800-\udfff]", f"{d.resolve().name}/{path.name}"):  # a lone surrogate: not UTF-8
                    errors.append(f"{printable(str(path))}: its folder's or its own name is not UTF-8 text; "
                                  "rename it")
                    continue
                found.append(SourceFile(d.resolve().name, FILE_PATTERN.match(path.name)[1], path))
    return found


def _timing_files(folder: Path) -> list[Path]:
    try:
        return sorted((p for p in folder.iterdir() if FILE_PATTERN.match(p.name) and p.is_file()),
                      key=lambda p: p.name)
    except OSError:
        return []


_COMMIT = re.compile(r"^[0-9a-fA-F]{7,40}$")
_PROVENANCE_LINE = ("expected 'HOST/FILE [COMMIT] DATE-TIME', the date-time last with a time zone and the commit "
                    "that added the file before it if known, e.g. "
                    "'L4_GCP/baseline_time_torch.json 2026-01-14T16:21:49-08:00'")


def _provenance(sources: list[Path], errors: list[str]) -> dict[Path, tuple[datetime, str | None]]:
    """PROVENANCE.txt lines `HOST/FILE [COMMIT] ISO-DATE` → {file: (date, commit or None)}."""
    dates: dict[Path, tuple[datetime, str | None]] = {}
    read: set[Path] = set()
    for src in sources:
        for folder in (src, src.parent):
            path = (folder / "PROVENANCE.txt").resolve()
            if path in read or not path.is_file():
                continue
            read.add(path)
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError) as e:
                errors.append(f"{folder / 'PROVENANCE.txt'}: cannot read: {getattr(e, 'strerror', None) or e}")
                continue
            for number, line in enumerate(lines, start=1):
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                # The date-time is the last word, then maybe a commit id: the path, before them, may hold spaces.
                parts = line.strip().rsplit(None, 1)
                when = None
                if len(parts) == 2:
                    try:
                        when = datetime.fromisoformat(parts[1].replace("Z", "+00:00"))
                    except ValueError:
                        pass
                if when is None or when.tzinfo is None:
                    errors.append(f"{folder / 'PROVENANCE.txt'}:{number}: {_PROVENANCE_LINE}")
                    continue
                if not in_utc_range(when):
                    errors.append(f"{folder / 'PROVENANCE.txt'}:{number}: {parts[1]!r} {OUTSIDE_UTC}")
                    continue
                file, commit = parts[0], None
                head = parts[0].rsplit(None, 1)
                if len(head) == 2 and _COMMIT.match(head[1]):
                    file, commit = head[0], head[1].lower()
                dates[(path.parent / file).resolve()] = (when, commit)
    return dates


def _read(path: Path, errors: list[str]) -> dict | None:
    data = read_json(path, dict, 'an object of levels ({"level1": {…}, …})', errors)
    if data is None:
        return None
    ok = True
    for level, entries in data.items():
        if not LEVEL_PATTERN.match(level):
            errors.append(f"{path}: {level!r}: expected level names like 'level1'")
            ok = False
        elif not isinstance(entries, dict):
            errors.append(f"{path}: {level}: expected an object of problems, not {json_kind(entries)}")
            ok = False
        else:
            for entry, record in entries.items():
                where = f"{path}: {level}/{printable(entry)}"
                if not ENTRY_PATTERN.match(entry):
                    errors.append(f"{where}: expected a problem file name like '1_Square_matrix_multiplication_.py'")
                    ok = False
                elif record is not None and not _check_record(record, where, errors):
                    ok = False
    return data if ok else None


_NUMBER_KEYS = ("mean", "std", "min", "max")


def _check_record(record, where: str, errors: list[str]) -> bool:
    if not isinstance(record, dict):
        errors.append(f"{where}: expected a timing object or null, not {json_kind(record)}")
        return False
    ok = True
    if "mean" not in record:
        errors.append(f"{where}: has no 'mean'")
        ok = False
    for key in _NUMBER_KEYS:
        value = record.get(key)
        if key not in record:
            continue
        problem = (f"expected a number of milliseconds, not {json_kind(value)}"
                   if isinstance(value, bool) or not isinstance(value, (int, Decimal)) else ms_problem(value))
        if problem:
            errors.append(f"{where}: {key}: {problem}")
            ok = False
    trials = record.get("num_trials")
    if "num_trials" in record:
        problem = None
        if isinstance(trials, bool) or not isinstance(trials, (int, Decimal)):
            problem = f"expected an integer, not {json_kind(trials)}"
        elif not -MAX_SAFE_INT <= trials <= MAX_SAFE_INT:
            problem = (f"{shown_number(trials)} is beyond 2⁵³−1 ({MAX_SAFE_INT}), the most a JavaScript reader "
                       "counts exactly")
        elif not isinstance(trials, int):
            problem = f"expected an integer, not {json_kind(trials)}"
        if problem:
            errors.append(f"{where}: num_trials: {problem}")
            ok = False
    for key in ("hardware", "device"):
        if key in record and not isinstance(record[key], str):
            errors.append(f"{where}: {key}: expected a string, not {json_kind(record[key])}")
            ok = False
    # The other fields are kept as they are in sourceNative.extra.
    unkept = kept_problems(record, (*_NUMBER_KEYS, "num_trials", "device"), 5)
    errors.extend(f"{where}: {problem}" for problem in unkept)
    return ok and not unkept


def recorded(record: dict) -> tuple[str, dict | None, list[dict], str | None, dict]:
    """A record's status, timing, measurements and oddity (see `_timing`), and what sourceNative keeps."""
    status, timing, measurements, note = _timing(record)
    kept: dict = {}
    if "hardware" in record:
        kept["hardware"] = record["hardware"]
    kept["metrics"] = {f"{k}_ms": plain(record[k]) for k in _NUMBER_KEYS if k in record}
    if timing is None and "num_trials" in record:
        kept["metrics"]["num_trials"] = record["num_trials"]
    extra = {k: plain(v) for k, v in record.items() if k not in (*_NUMBER_KEYS, "num_trials", "hardware", "device")}
    if extra:
        kept["extra"] = extra
    return status, timing, measurements, note, kept


def trace(problem: str, status: str, samples, kept: dict) -> tuple[str, str, str]:
    """What a run keeps of one entry of its timing file, as text, the same whichever import wrote it."""
    return problem, status, json.dumps([samples, kept], sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def timings_fingerprint(traces: list[tuple[str, str, str]]) -> str:
    return digest(sorted(traces))


def _file_fingerprint(data: dict) -> str:
    """The timings a file holds, as its runs keep them (see `trace`)."""
    traces = []
    for level, entries in data.items():
        for entry, record in entries.items():
            if record is None:
                traces.append(trace(f"{level}/{entry}", "failed", None, {}))
                continue
            status, timing, _, _, kept = recorded(record)
            traces.append(trace(f"{level}/{entry}", status, (timing or {}).get("samples"), kept))
    return timings_fingerprint(traces)


def title_part(problem: str) -> str:
    """ "level3/35_LSTM.py" → "LSTM"."""
    return ENTRY_PATTERN.match(problem.split("/")[-1])[2]


_STATISTIC = {"mean": "mean", "min": "minimum", "max": "maximum", "std": "std"}


def _timing(record: dict) -> tuple[str, dict | None, list[dict], str | None]:
    """(status, timing or None, measurements, why it is not a passed run with timing or None)."""
    have = {k: ms_to_ns(record[k]) for k in _NUMBER_KEYS if k in record}
    trials = record.get("num_trials")
    std = have.get("std")

    def each_statistic() -> list[dict]:
        return [{"metric": "latency", "statistic": _STATISTIC[k], "unit": "ns", "value": json_number(v)}
                for k, v in have.items()]

    if "mean" not in have:
        return ("incomplete-timing", None, each_statistic(),
                "no mean; imported with status 'incomplete-timing' and no timing")
    mean = whole_ns(have["mean"])
    minimum, maximum = (whole_ns(have[k]) if k in have else None for k in ("min", "max"))
    if not (0 < (minimum or mean) <= mean <= (maximum or mean) <= MAX_SAFE_INT) \
            or (trials is not None and trials < 1) or (std is not None and std < 0):
        problem = ("impossible numbers (need 0 < min ≤ mean ≤ max, std ≥ 0, num_trials ≥ 1); imported with "
                   "status 'invalid-timing', no timing, the source's values kept in sourceNative.metrics")
        return "invalid-timing", None, each_statistic(), problem
    # Keep what the record has: a mean without extremes or trials is still a timing, just without an interval.
    latency: dict = {"mean": mean}
    latency.update({k: v for k, v in (("minimum", minimum), ("maximum", maximum)) if v is not None})
    measurements = []
    problem = None
    if std is not None and trials is not None:
        half = Z95 * std / Decimal(trials).sqrt()
        lo, hi = whole_ns(have["mean"] - half), whole_ns(have["mean"] + half)
        if hi <= MAX_SAFE_INT:
            # A noisy run keeps its interval: a latency is at least 1 ns, so the low end stops there.
            if lo < 1:
                lo = 1
                problem = "a 95% interval (mean ± 1.96·std/√num_trials) reaching below 1 ns; interval clamped at 1 ns"
            latency["confidence95"] = [lo, hi]
        else:
            problem = "a 95% interval reaching beyond the largest safe integer; imported without confidence95"
    elif std is not None:
        problem = "a std without num_trials; imported without confidence95"
    if std is not None:
        measurements.append({"metric": "latency", "statistic": "std", "unit": "ns", "value": json_number(std)})
    timing = {"latencyNs": latency, "primaryStatistic": "mean"}
    if trials is not None:
        timing = {"samples": trials, **timing}
    return "passed", timing, measurements, problem


def problem_names(data: dict) -> set[str]:
    """The problems a timing file names: {"level1/1_Square_matrix_multiplication_.py", …}."""
    return {f"{level}/{entry}" for level, entries in data.items() for entry in entries}
