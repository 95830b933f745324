"""`kindex-site import kernelbench-leaderboard`: the KernelBench leaderboard's rows → kernelindex bundles.

Each row of its ``raw_data.json`` (one LLM-generated kernel, times in ms) becomes a run; each problem's
PyTorch eager and torch.compile times become baseline runs. A problem is named by where its source's
bytes are in KernelBench's history (`_name_problems`), so that both KernelBench importers put their
runs of it on one problem page. docs/importing.md describes the input and what is written.
"""

from __future__ import annotations

import argparse
import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

from ..errors import KindexError, plural
from ..models import MAX_SOURCE_BYTES
from .common import (NAME, Imported, add_source_parser, bundle, digest, dump, environment_document, json_kind,
                     kept_problems, ms_problem, ms_to_ns, parse_observed_at, plain, protocol_document, read_json,
                     report, run_name, shown_number, slug, some, stop_if_any, tagged, unique, utc_timestamp, valid,
                     whole_ns, write_changed)
from .kernelbench_files import title_part
from .kernelbench_history import History
from .kernelbench_workloads import source_digest
from ..naming import problem_title

EXAMPLE = (
    "example:\n"
    "  kindex-site import kernelbench-leaderboard ../KernelBenchLeaderboard/docs/assets/raw_data.json \\\n"
    "      --problems ../KernelBenchLeaderboard/docs/assets/problems --repo ../KernelBench \\\n"
    "      --out content/kernelbench-leaderboard"
)

SOURCE = "kernelbench-leaderboard"
PROBLEM_FILE = "l{level}_p{number}.py"
# raw_data.json counts problems from 0, KernelBench and problems/ from 1 (problem_id 39: l1_p40.py, 40_LayerNorm).
PROBLEM_ID_OFFSET = 1
# PROVENANCE.txt beside the rows: "… commit <40 hex> (YYYY-MM-DD)" dates the leaderboard's data.
_PROVENANCE_COMMIT = re.compile(r"\bcommit ([0-9a-f]{7,40}) \((\d{4}-\d{2}-\d{2})\)")

BASELINES = (  # (row field, implementation id, label)
    ("baseline_torch_time", "torch", "PyTorch eager"),
    ("baseline_torch_compile_time", "torch_compile", "torch.compile"),
)
WHERE = "KernelBench leaderboard (L40S)"  # a run title's last part

PROTOCOL = protocol_document(
    "kernelbench-leaderboard-eval", "KernelBench leaderboard evaluation", harness="KernelBench leaderboard evaluation",
    repository="https://github.com/anneouyang/KernelBenchLeaderboard",
    # KernelBench's evaluation rounds every time in raw_data.json to 3 significant figures of a millisecond value.
    measurement={"primaryStatistic": "mean", "resolution": {"significantFigures": 3}},
    family="kernelbench_leaderboard_eval",
    notes="Mean latency only, in milliseconds to 3 significant figures, as the leaderboard's raw_data.json gives it: "
          "no trial count, spread or interval. The PyTorch eager and torch.compile baselines were timed in the same "
          "evaluation as the generated kernels, on one NVIDIA L40S. Not comparable with KernelBench's own baseline "
          "timing files (results/timing), which were made by another script on other machines, even for the same "
          "problem source. Comparable only within one problem.",
)
ENVIRONMENT = environment_document("kernelbench-leaderboard-l40s", "KernelBench leaderboard · L40S",
                          {"vendor": "nvidia", "product": "NVIDIA L40S", "formFactor": "PCIe", "architecture": "sm_89"})


# --- entry point ------------------------------------------------------------------------------


def add_parser(sources) -> None:
    p = add_source_parser(
        sources, "kernelbench-leaderboard", help="the KernelBench leaderboard's raw_data.json",
        description="Convert the KernelBench leaderboard's rows (docs/assets/raw_data.json: LLM-generated kernels "
                    "and their PyTorch baselines, timed on an L40S) into bundles: one JSON array per model and "
                    "baselines.json, with each kernel's source and each problem's reference source beside them.",
        example=EXAMPLE,
    )
    p.add_argument("file", metavar="FILE", type=Path, help="the leaderboard's raw_data.json")
    p.add_argument("--problems", required=True, metavar="DIR", type=Path,
                   help="the leaderboard's problems folder (l<level>_p<number>.py, each problem's reference source, "
                        "numbered from 1: problem_id + 1)")
    p.add_argument("--repo", required=True, metavar="KERNELBENCH_GIT_DIR", type=Path,
                   help="a KernelBench git checkout (whole history): each problem is named by where its source "
                        "is in it")
    p.add_argument("--out", required=True, metavar="DIR", type=Path, help="folder to write the bundles to")
    p.add_argument("--observed-at", metavar="ISO",
                   help="the data's date, if PROVENANCE.txt beside FILE does not give it "
                        "('… commit <id> (YYYY-MM-DD)')")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    result = import_leaderboard(args.file, args.out, problems=args.problems, repo=args.repo,
                                observed_at=args.observed_at)
    return report(result, f"Imported {plural(result.runs, 'run')} ({result.kernels} generated kernels from "
                          f"{plural(result.rows, 'row')} of {plural(result.models, 'model')}, {result.baselines} "
                          f"baselines) on {plural(result.problems, 'problem')}", args.out)


# --- the import ---------------------------------------------------------------------------------


@dataclass
class Result(Imported):
    rows: int = 0
    kernels: int = 0
    baselines: int = 0
    models: int = 0
    problems: int = 0
    disagreeing: int = 0  # (problem, baseline) pairs whose rows give more than one time


@dataclass
class Row:
    index: int
    where: str  # "raw_data.json[17]"
    data: dict
    level: int
    number: int  # KernelBench's problem number: problem_id + PROBLEM_ID_OFFSET
    code: bytes
    time: Decimal | int  # kernel_eval_time, ms

    @property
    def problem_file(self) -> str:
        return PROBLEM_FILE.format(level=self.level, number=self.number)


@dataclass(frozen=True)
class Problem:
    """A leaderboard problem as KernelBench names it."""
    source: bytes  # the reference source, as the leaderboard has it
    name: str  # "level1/50_Product_reduction_over_a_dimension.py": where KernelBench had these bytes
    newest: str  # what KernelBench calls it now (after renames), for the title
    workload_digest: str

    @property
    def title(self) -> str:
        return problem_title(title_part(self.newest))

    @property
    def path(self) -> str:
        """Where its source is written, relative to --out (and to every bundle file)."""
        return f"problems/{self.name}"


def import_leaderboard(file: Path, out: Path, *, problems: Path, repo: Path,
                       observed_at: str | None = None) -> Result:
    result = Result()
    errors: list[str] = []
    if not file.is_file():
        raise KindexError(f"{file}: not found (give the leaderboard's raw_data.json)")
    when = parse_observed_at(observed_at) if observed_at is not None else _provenance_date(file)
    if not problems.is_dir():
        errors.append(f"--problems: {problems}: not a folder (give the leaderboard's problems folder, "
                      "holding l<level>_p<number>.py files)")
    rows = _read_rows(file, problems if problems.is_dir() else None, errors)
    stop_if_any(errors)
    history = History(repo)
    named = _name_problems(sorted({r.problem_file for r in rows}), problems, history, when, result, errors)
    stop_if_any(errors)

    observed = utc_timestamp(when)
    common = {"protocolDigest": digest(PROTOCOL), "environmentDigest": digest(ENVIRONMENT)}
    outputs: dict[str, list[tuple[tuple, dict]]] = {}  # bundle file name → (sort key, bundle)
    sources: dict[Path, bytes] = {}  # every source file referred to → its bytes
    names: dict[str, str] = {}  # run name → the row it is made from
    stems = _kernel_bundles(rows, named, observed, common, out, outputs, sources, names, result, errors)
    for key, made in _baselines(rows, named, observed, common, result):
        name = made["run"]["metadata"]["name"]
        if valid(made, f"baselines: {name}", errors) and unique(name, f"baselines: {name}", names, errors):
            outputs.setdefault("baselines.json", []).append((key, made))
            result.baselines += 1
    stop_if_any(errors)

    rendered = {out / file: dump([b for _, b in sorted(bundles, key=lambda kb: kb[0])])
                for file, bundles in outputs.items()}
    rendered.update(sources)
    result.rows = len(rows)
    result.runs = result.kernels + result.baselines
    result.models = len(stems)
    result.problems = len(named)
    result.warnings.extend(_stale(out, set(rendered)))
    write_changed(rendered, result)
    return result


def _kernel_bundles(rows: list[Row], named: dict[str, Problem], observed: str, common: dict, out: Path,
                    outputs: dict, sources: dict, names: dict, result: Result, errors: list[str]) -> dict[str, str]:
    """Each kernel row as a bundle in its model's file, with its source; returns bundle stem → display_name."""
    kernel_names = _kernel_names(rows, named, errors)
    stems: dict[str, str] = {}  # bundle file stem → the display_name that made it
    models_of: dict[str, list[str]] = {}  # display_name → the models that bear it, in row order
    for row in rows:
        problem = named[row.problem_file]
        model, display_name = row.data["model"], row.data["display_name"]
        if model not in models_of.setdefault(display_name, []):
            models_of[display_name].append(model)
        stem = slug(display_name)
        if not stem:
            errors.append(f"{row.where}: display_name: {display_name!r} has no ASCII letters or digits, of which its "
                          "bundle file's name (<display name>.json) and its runs' names are made; give the model a "
                          "display_name with some in raw_data.json"
                          + (f" (its model, {model!r}, has)" if slug(model) else ""))
            continue
        if stem in ("baselines", "problems"):
            errors.append(f"{row.where}: display_name: {display_name!r} would name its bundle file {stem}.json, "
                          + ("which holds the PyTorch baseline runs" if stem == "baselines" else
                             "beside problems/, which holds the problems' sources")
                          + "; give the model another display_name in raw_data.json")
            continue
        if stems.setdefault(stem, display_name) != display_name:
            errors.append(f"{row.where}: display_name: {display_name!r} would share {stem}.json with "
                          f"{stems[stem]!r}")
            continue
        name = kernel_names[row.index]
        native = _native(model, problem)
        native.update((k, plain(v)) for k, v in row.data.items() if k != "code" and k not in native)
        implementation = f"{stem}.src/{name}.py"
        kernel = "sha256:" + hashlib.sha256(row.code).hexdigest()
        spec = _spec(whole_ns(ms_to_ns(row.time)), observed, native, common, problem, kernel, implementation)
        made = _bundle(name, f"{problem.title} · {display_name} (generated CUDA) · {WHERE}", spec)
        if valid(made, row.where, errors) and unique(name, row.where, names, errors):
            outputs.setdefault(f"{stem}.json", []).append(((row.level, row.number, name), made))
            sources[out / implementation] = row.code
            sources[out / problem.path] = problem.source
            result.kernels += 1
    for display_name, models in models_of.items():
        if len(models) > 1:  # (said, not refused: the leaderboard itself shows them under one name)
            result.warnings.append(
                f"display_name {display_name!r} is given to {len(models)} models ({', '.join(map(repr, models))}): "
                "their kernels are one implementation here, told apart on a table by their sources' digests; "
                "give each model its own display_name in raw_data.json to list them apart")
    return stems


# --- reading ------------------------------------------------------------------------------------


def _provenance_date(file: Path) -> datetime:
    """The leaderboard commit's date, from PROVENANCE.txt beside FILE: '… commit <id> (YYYY-MM-DD)'."""
    path = file.parent / "PROVENANCE.txt"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KindexError(f"{file}: no PROVENANCE.txt beside it to date the data; give --observed-at") from None
    except (OSError, UnicodeDecodeError) as e:
        raise KindexError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    found = _PROVENANCE_COMMIT.search(text)
    if found is None:
        raise KindexError(f"{path}: does not date the data ('… commit <id> (YYYY-MM-DD)'); give --observed-at")
    try:
        return datetime.fromisoformat(found[2]).replace(tzinfo=timezone.utc)
    except ValueError:
        raise KindexError(f"{path}: {found[2]!r} is not a date; give --observed-at") from None


_TEXT_FIELDS = ("model", "display_name")
_INT_FIELDS = (("level", 1), ("problem_id", 0))  # (field, its least value)


def _read_rows(file: Path, problems: Path | None, errors: list[str]) -> list[Row]:
    """The rows that can be runs (each problem's source in `problems`, unless None); why the others cannot."""
    data = read_json(file, list, "an array of rows", errors)
    if data is None:
        return []
    rows = []
    for index, record in enumerate(data):
        row = _row(index, f"{file}[{index}]", record, errors)
        if row is None:
            continue
        if problems is not None and not (problems / row.problem_file).is_file():
            errors.append(f"{row.where}: problem_id: {row.data['problem_id']} (KernelBench's level {row.level} "
                          f"problem {row.number}): no {row.problem_file} in {problems}")
            continue
        rows.append(row)
    return rows


def _row(index: int, where: str, record, errors: list[str]) -> Row | None:
    if not isinstance(record, dict):
        errors.append(f"{where}: expected a row (an object), not {json_kind(record)}")
        return None
    problems: list[str] = []
    for key, least in _INT_FIELDS:
        value = record.get(key)
        if key not in record:
            problems.append(f"{key}: missing")
        elif isinstance(value, bool) or not isinstance(value, int) or value < least:
            problems.append(f"{key}: expected a whole number from {least}, not {_shown(value)}")
    for key in _TEXT_FIELDS:
        value = record.get(key)
        if key not in record:
            problems.append(f"{key}: missing")
        elif not isinstance(value, str) or not value.strip():
            problems.append(f"{key}: expected a name, not {_shown(value)}")
        elif "·" in value:
            problems.append(f"{key}: {value!r} holds '·', which separates a run title's parts")
    code = record.get("code")
    source = None
    if "code" not in record:
        problems.append("code: missing (the kernel's source)")
    elif not isinstance(code, str) or not code.strip():
        problems.append(f"code: expected the kernel's source text, not {_shown(code)}")
    else:
        try:
            source = code.encode("utf-8")
        except UnicodeEncodeError as e:
            problems.append(f"code: holds a character UTF-8 cannot write (at {e.start})")
        else:
            if _too_large(source):
                problems.append(f"code: {_too_large(source)}")
    if "kernel_eval_time" not in record:
        problems.append("kernel_eval_time: missing (the kernel's mean time in ms)")
    for key in ("kernel_eval_time", *(b[0] for b in BASELINES)):
        if key in record:
            message = _time_problem(record[key], allow_null=key != "kernel_eval_time")
            if message:
                problems.append(f"{key}: {message}")
    checked = {"code", "kernel_eval_time", *(b[0] for b in BASELINES), *(f for f, _ in _INT_FIELDS)}
    # A row's other fields are kept in sourceNative as they are.
    problems += kept_problems(record, {*checked, *(p.split(":", 1)[0] for p in problems)}, 4)
    if problems:
        errors.extend(f"{where}: {p}" for p in problems)
        return None
    return Row(index, where, record, record["level"], record["problem_id"] + PROBLEM_ID_OFFSET, source,
               record["kernel_eval_time"])


def _time_problem(value, allow_null: bool) -> str | None:
    """Why `value` cannot be a time in ms (None if it can). A baseline time may be null: no run then."""
    if value is None and allow_null:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        return f"expected a number of milliseconds, not {_shown(value)}"
    if value <= 0:
        return f"expected a time greater than 0 ms, not {shown_number(value)}"
    too_large = ms_problem(value)  # (before converting: 1e30 ms is more digits than Decimal's arithmetic keeps)
    if too_large:
        return too_large
    if whole_ns(ms_to_ns(value)) < 1:
        return f"{shown_number(value)} ms is less than half a nanosecond"
    return None


def _too_large(source: bytes) -> str | None:
    if len(source) <= MAX_SOURCE_BYTES:
        return None
    return f"{len(source):,} bytes, more than the {MAX_SOURCE_BYTES / 2**20:g} MiB a source file the site shows may hold"


def _shown(value) -> str:
    if isinstance(value, (str, int, Decimal)) and not isinstance(value, bool):
        return repr(value) if isinstance(value, str) else shown_number(value)
    return json_kind(value)


# --- naming problems by KernelBench's history ---------------------------------------------------


def _name_problems(files: list[str], folder: Path, history: History, when: datetime, result: Result,
                   errors: list[str]) -> dict[str, Problem]:
    """Each problem file's KernelBench name, from where its bytes are in the history: the name in the
    version in force on the data's date if it holds them; else, of every path that ever held them, the
    one with the row's level and number, then the first (a later move never renames bytes)."""
    paths = {f: folder / f for f in files}
    blob_of = history.blob_ids(list(paths.values()))
    version = history.version_at(when)
    in_version: dict[str, list[str]] = {}
    if version is not None:
        for path, blob in version.problems.items():
            in_version.setdefault(blob, []).append(path)
    elsewhere = history.paths_of({blob_of[p] for f, p in paths.items()
                                  if p in blob_of and blob_of[p] not in in_version})
    named: dict[str, Problem] = {}
    fallback: list[str] = []
    for f, path in paths.items():
        level, number = (int(x) for x in re.fullmatch(r"l(\d+)_p(\d+)\.py", f).groups())
        place = _place_in_history(blob_of.get(path), level, number, in_version, elsewhere, version, history)
        if place is None:
            errors.append(f"{path}: its source is not a KernelBench problem source anywhere in --repo's history "
                          f"({history.repo}); cannot tell which problem it is")
            continue
        name, since, in_force = place
        if not in_force:
            fallback.append(f"{f} → {name}")
        if not _same_place(name, level, number):
            result.warnings.append(f"{path}: KernelBench has its source as {name}, not as level {level} "
                                   f"problem {number}; named {name}")
        source = _problem_source(path, errors)
        if source is not None:
            newest = history.newest_name(name, since)
            named[f] = Problem(source, name, newest, source_digest(name, hashlib.sha256(source).hexdigest()))
    if errors:
        return named
    how = f"in KernelBench version {version}, in force on the data's date" if version is not None else ""
    found = len(named) - len(fallback)
    result.notes.append(f"{plural(len(named), 'problem')} named by KernelBench's history: {found} {how}"
                        + (f"; {len(fallback)} elsewhere in it ({some(sorted(fallback))})" if fallback else ""))
    renamed = sorted(f"{p.name} → {p.newest.split('/')[-1]}" for p in named.values() if p.newest != p.name)
    if renamed:
        result.notes.append(f"{plural(len(renamed), 'problem')} since renamed, titled by the new name: "
                            f"{some(renamed, 12)}")
    return named


def _same_place(name: str, level: int, number: int) -> bool:
    m = re.fullmatch(r"level(\d{1,15})/(\d{1,15})_.+", name)
    return m is not None and (int(m[1]), int(m[2])) == (level, number)


def _place_in_history(blob: str | None, level: int, number: int, in_version: dict[str, list[str]],
                      elsewhere: dict, version, history: History) -> tuple[str, datetime, bool] | None:
    """The name a problem source's bytes have (see `_name_problems`), since when, and whether it is the
    name in the version in force; None when the history never held these bytes."""
    if blob in in_version:
        return min(in_version[blob], key=lambda n: (not _same_place(n, level, number), n)), version.when, True
    if blob in elsewhere:
        held = elsewhere[blob]  # path → the first commit holding it there, oldest first
        first = {n: order for order, n in enumerate(held)}
        name = min(held, key=lambda n: (not _same_place(n, level, number), first[n]))
        return name, history.dates[held[name]], False
    return None


def _problem_source(path: Path, errors: list[str]) -> bytes | None:
    try:
        source = path.read_bytes()
    except OSError as e:
        errors.append(f"{path}: cannot read: {e.strerror}")
        return None
    if _too_large(source):
        errors.append(f"{path}: {_too_large(source)}")
        return None
    return source


# --- building -----------------------------------------------------------------------------------


def _kernel_names(rows: list[Row], named: dict[str, Problem], errors: list[str]) -> dict[int, str]:
    """Each row's run name: kernelbench-leaderboard-<model>-l<level>-<id>-<problem>, told apart by
    their kernel's digest where needed."""
    base: dict[int, str] = {}
    for row in rows:
        problem = named[row.problem_file]
        base[row.index] = run_name(f"kernelbench-leaderboard-{slug(row.data['display_name'])}-l{row.level}-"
                                   f"{row.number}", title_part(problem.name))
    count = Counter(base.values())
    names = {}
    for row in rows:
        name = base[row.index]
        if count[name] > 1:
            name = tagged(name, hashlib.sha256(row.code).hexdigest()[:8])
        if not NAME.match(name):
            errors.append(f"{row.where}: cannot make a run name from it ({name!r})")
        names[row.index] = name
    return names


def _baselines(rows: list[Row], named: dict[str, Problem], observed: str, common: dict,
               result: Result) -> list[tuple[tuple, dict]]:
    """Each problem's PyTorch eager and torch.compile runs: one per distinct time its rows give."""
    made = []
    missing: Counter = Counter()
    for order, (key, implementation, label) in enumerate(BASELINES):
        times: dict[str, dict[Decimal, list[Row]]] = {}  # problem file → time (ms) → rows giving it
        for row in rows:
            value = row.data.get(key)
            if value is None:
                missing[key] += 1
                continue
            times.setdefault(row.problem_file, {}).setdefault(Decimal(value), []).append(row)
        implementation_digest = digest({"source": SOURCE, "implementation": implementation})
        for problem_file, by_time in times.items():
            problem = named[problem_file]
            first = by_time[min(by_time)][0]
            several = len(by_time) > 1
            if several:
                result.disagreeing += 1
                shown = ", ".join(f"{t.normalize():f} ms ({plural(len(r), 'row')})" for t, r in sorted(by_time.items()))
                result.warnings.append(f"{problem.name}: its rows give {len(by_time)} {label} times ({shown}); "
                                       "each is its own run")
            for value, giving in sorted(by_time.items()):
                ns = whole_ns(ms_to_ns(value))
                head = f"kernelbench-leaderboard-{slug(implementation)}-l{first.level}-{first.number}"
                name = run_name(head, title_part(problem.name))
                if several:
                    name = tagged(name, f"{ns}ns")
                native = _native(implementation, problem)
                native.update({"level": first.level, "problem_id": first.data["problem_id"],
                               key: plain(giving[0].data[key]),
                               "files": sorted(r.data["file"] for r in giving if isinstance(r.data.get("file"), str))})
                spec = _spec(ns, observed, native, common, problem, implementation_digest)
                made.append(((first.level, first.number, order, value),
                             _bundle(name, f"{problem.title} · {label} · {WHERE}", spec)))
    for key, count in sorted(missing.items()):
        result.warnings.append(f"{plural(count, 'row')} without {key}: no baseline run from them")
    result.notes.append(f"Baselines: {plural(len(made), 'run')}; "
                        + (f"the rows of a problem disagree on {plural(result.disagreeing, 'baseline time')} (each time "
                           "is its own run)"
                           if result.disagreeing else "the rows of each problem agree on its baseline times"))
    return made


def _native(implementation: str, problem: Problem) -> dict:
    """A run's sourceNative ids: `implementation` and the problem by its newest name (and its old one)."""
    native = {"source": SOURCE, "externalId": f"{implementation}/{problem.newest}", "problem": problem.name}
    if problem.newest != problem.name:
        native["formerExternalId"] = f"{implementation}/{problem.name}"
    return native


def _spec(ns: int, observed: str, native: dict, common: dict, problem: Problem, implementation_digest: str,
          implementation_source: str | None = None) -> dict:
    """A run's spec: passed, its mean `ns`, its problem's source, and its kernel's if it has one."""
    spec = {
        "status": "passed",
        "timing": {"latencyNs": {"mean": ns}, "primaryStatistic": "mean"},
        "observedAt": observed,
        "measurements": [],
        "sourceNative": native,
        "protocolDigest": common["protocolDigest"],
        "workloadDigest": problem.workload_digest,
        "environmentDigest": common["environmentDigest"],
        "implementationDigest": implementation_digest,
    }
    if implementation_source is not None:
        spec["implementationSource"] = {"path": implementation_source, "language": "python"}
    spec["workloadSource"] = {"path": problem.path, "language": "python"}
    return spec


def _bundle(name: str, title: str, spec: dict) -> dict:
    return bundle(name, title, spec, PROTOCOL, ENVIRONMENT)


def _stale(out: Path, written: set[Path]) -> list[str]:
    """Files under --out this import did not write (bundles, kernel and problem sources alike)."""
    if not out.is_dir():
        return []
    stale = sorted(p for p in out.rglob("*") if p.is_file() and p not in written and not p.name.startswith("."))
    if not stale:
        return []
    return [f"{out}: {plural(len(stale), 'file')} this import did not write (e.g. {stale[0]}); "
            "delete them if they are stale, or two runs of one name will clash"]
