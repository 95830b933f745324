"""Submitting results: `check --format github`, `digest` and `new-run` (docs/submitting.md)."""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal, InvalidOperation
from pathlib import Path

from .errors import WARNING, KindexError, display

# --- check --format github -------------------------------------------------------------------

ANNOTATION_TITLE = "kindex-site check"


def print_annotations(lines: list[str], level: str) -> None:
    """Print each problem line as a GitHub Actions workflow command (`level`: error or warning)."""
    for annotation in github_annotations(lines, level):
        print(annotation)


def github_annotations(lines: list[str], level: str) -> list[str]:
    """`content/x.jsonl:12: field: message` → `::error file=content/x.jsonl,line=12,title=…::field: message`,
    shown on the pull request's diff at that line; a line naming no file is an annotation without one,
    and one starting `warning: ` a warning."""
    json_files = _JsonFiles()
    return [_annotation("warning", _locate(line[len(WARNING):], json_files)) if line.startswith(WARNING)
            else _annotation(level, _locate(line, json_files)) for line in lines]


@dataclass(frozen=True)
class _Place:
    message: str
    file: str | None = None
    line: int | None = None
    col: int | None = None


# Where a problem line's place ends: `file: …`, or `file and file: …` (a warning naming two runs).
_PLACE_END = re.compile(r": | and ")
_FILE_AND_PLACE = re.compile(r"(.+?)(?:\[(\d+)\]|:(\d+))?")  # file, its [array index] or :line
_JSON_AT = re.compile(r"invalid JSON at (?:line (\d+) )?column (\d+)")  # load.py's parse errors
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)$")  # tomllib's, for kindex.toml


def _locate(text: str, json_files: _JsonFiles) -> _Place:
    for end in _PLACE_END.finditer(text):
        head = text[:end.start()]
        m = _FILE_AND_PLACE.fullmatch(head)
        if m is None:  # (nothing before it)
            continue
        for file, index, line in ((m[1], m[2], m[3]), (head, None, None)):
            if not _is_file(file):
                continue
            # A line naming two places is one sentence about both: it is kept whole.
            message = text[end.end():] if end.group() == ": " else text
            at = _JSON_AT.match(message) or _TOML_AT.search(message)
            if at is not None:
                return _Place(message, file, int(at[1]) if at[1] else int(line or 1), int(at[2]))
            if line is not None:
                return _Place(message, file, int(line))
            if file.endswith(".json"):
                return _Place(message, file, json_files.line(file, int(index) if index else None, message))
            return _Place(message, file, 1)
    return _Place(text)


def _is_file(name: str) -> bool:
    path = Path(name)
    return path.is_file() or path.is_symlink()


class _JsonFiles:
    """Lines in the .json files that problem lines name; each file is read once, when first named."""

    def __init__(self):
        self._file: tuple[str, str, list[int]] | None = None  # the last file named: its text, where each element starts

    def line(self, file: str, index: int | None, message: str) -> int:
        """The line of the field a message is about, within the index-th bundle of an array or the
        file's one bundle; else the line of its nearest parent that is there."""
        if self._file is None or self._file[0] != file:  # (one file held at a time: problems come file by file)
            self._file = (file, *_read_json_text(Path(file)))
        _, text, starts = self._file
        if index is None:
            start = _skip_space(text, 0)
        elif index < len(starts):
            start = starts[index]
        else:
            return 1
        return text.count("\n", 0, field_position(text, start, message.split(": ", 1)[0])) + 1


def _read_json_text(path: Path) -> tuple[str, list[int]]:
    """A plain file's text (never a link's), up to the size a .json file may have."""
    from .jsonread import MAX_JSON_BYTES

    try:
        if not stat.S_ISREG(path.lstat().st_mode) or path.lstat().st_size > MAX_JSON_BYTES:
            return "", []
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return "", []
    return text, element_starts(text)


_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip_space(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()


def _skip_value(text: str, at: int) -> int:
    """Past the JSON value at `at`, and the comma after it if any."""
    at = _skip_space(text, _DECODER.raw_decode(text, at)[1])
    return _skip_space(text, at + 1) if text.startswith(",", at) else at


def element_starts(text: str) -> list[int]:
    """Where each element of the JSON array `text` holds starts (as far as it parses)."""
    at = _skip_space(text, 0)
    if not text.startswith("[", at):
        return []
    starts: list[int] = []
    at = _skip_space(text, at + 1)
    try:
        while at < len(text) and text[at] != "]":
            starts.append(at)
            at = _skip_value(text, at)
    except (ValueError, RecursionError):
        pass
    return starts


# A field as load.py writes it (`run.spec.timing.latencyNs.confidence95[0]`): keys and indexes.
_LOCATION = re.compile(r"[^.\[\]]+(?:\.[^.\[\]]+|\[\d+\])*")
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def field_position(text: str, start: int, location: str) -> int:
    """Where the deepest part of `location` found in the JSON value at `start` is written."""
    if not _LOCATION.fullmatch(location):
        return start
    found, at = start, start
    try:
        for key, index in _STEP.findall(location):
            step = _child(text, at, key if key else int(index))
            if step is None:
                break
            found, at = step
    except (ValueError, RecursionError):
        pass
    return found


def _child(text: str, at: int, step: str | int) -> tuple[int, int] | None:
    """(where a member is written, where its value starts) in the object or array at `at`."""
    if isinstance(step, str) and text.startswith("{", at):
        at = _skip_space(text, at + 1)
        while text.startswith('"', at):
            key_at = at
            key, at = json.decoder.scanstring(text, at + 1)
            at = _skip_space(text, _skip_space(text, at) + 1)  # past the colon
            if key == step:
                return key_at, at
            at = _skip_value(text, at)
    elif isinstance(step, int) and text.startswith("[", at):
        at = _skip_space(text, at + 1)
        for _ in range(step):
            if text.startswith("]", at):
                return None
            at = _skip_value(text, at)
        if at < len(text) and not text.startswith("]", at):
            return at, at
    return None


def _annotation(level: str, place: _Place) -> str:
    properties = []
    if place.file is not None:
        properties.append(f"file={_escape_property(place.file)}")
    if place.line is not None:
        properties.append(f"line={place.line}")
    if place.col is not None:
        properties.append(f"col={place.col}")
    properties.append(f"title={_escape_property(ANNOTATION_TITLE)}")
    return f"::{level} {','.join(properties)}::{_escape_data(place.message)}"


def _escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit does (escapeData)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow command's property value (escapeProperty): also ':' and ','."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


# --- digest ----------------------------------------------------------------------------------


def digest_lines(files: list[str], canonical_json: bool) -> tuple[list[str], list[str]]:
    """(`sha256:<hex>  FILE` for each file read, a problem line for each that could not be)."""
    lines, problems = [], []
    for name in files:
        try:
            value = json_digest(Path(name)) if canonical_json else file_digest(Path(name))
        except KindexError as e:
            problems += e.problems
            continue
        lines.append(f"{value}  {name}")
    return lines, problems


def file_digest(path: Path) -> str:
    """sha256: of the file's bytes: a kernel source's implementationDigest."""
    return "sha256:" + hashlib.sha256(_read(path)).hexdigest()


def json_digest(path: Path) -> str:
    """sha256: of the file's JSON value in canonical form, as the importers make their digests."""
    from . import strictjson
    from .importers.common import digest

    where = display(path)
    try:
        value = strictjson.decoder().decode(_read(path).decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise KindexError(f"{where}: not UTF-8") from None
    except strictjson.JSONRejected as e:
        raise KindexError(f"{where}: {e}") from None
    except json.JSONDecodeError as e:
        raise KindexError(f"{where}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise KindexError(f"{where}: JSON nested too deeply") from None
    return digest(value)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise KindexError(f"{display(path)}: file not found") from None
    except IsADirectoryError:
        raise KindexError(f"{display(path)}: is a folder, not a file") from None
    except OSError as e:
        raise KindexError(f"{display(path)}: cannot read: {e.strerror}") from None


# --- new-run ---------------------------------------------------------------------------------

# What a skeleton holds where a number or digest is still to be given: a string where the format
# wants an integer or a sha256: digest, so `check` fails naming each field until it is replaced.
TODO_MEAN = "TODO: mean latency in whole nanoseconds (4.94 ms is 4940000)"
TODO_CI = ["TODO: lower end of the 95% confidence interval of the mean, in ns",
           "TODO: upper end of the 95% confidence interval of the mean, in ns"]
TODO_SAMPLES = "TODO: how many timed runs the mean is over"
TODO_DIGEST = "TODO: the sha256:… line `kindex-site digest YOUR_KERNEL_SOURCE` prints"

NS_PER_MS = Decimal(1_000_000)


@dataclass(frozen=True)
class Timing:
    """What the command line gave of a run's timing, in nanoseconds; None where not given."""

    mean_ns: int | None = None
    ci_ns: tuple[int, int] | None = None
    samples: int | None = None

    @classmethod
    def parse(cls, mean_ms: str | None, ci_ms: list[str] | None, samples: int | None) -> Timing:
        """Milliseconds to whole nanoseconds, exactly: the mean to the nearest, the interval outwards."""
        mean = _ns("--mean-ms", mean_ms, ROUND_HALF_EVEN) if mean_ms is not None else None
        ci = None
        if ci_ms is not None:
            ci = (_ns("--ci-ms", ci_ms[0], ROUND_FLOOR), _ns("--ci-ms", ci_ms[1], ROUND_CEILING))
            if ci[0] > ci[1]:
                raise KindexError(f"--ci-ms: the lower end {ci_ms[0]} is above the upper end {ci_ms[1]}")
            if mean is not None and not ci[0] <= mean <= ci[1]:
                raise KindexError(f"--ci-ms: [{ci_ms[0]}, {ci_ms[1]}] ms must contain the mean {mean_ms} ms")
        if samples is not None and samples < 1:
            raise KindexError(f"--samples: must be at least 1 (got {samples})")
        return cls(mean, ci, samples)


def _ns(option: str, text: str, rounding: str) -> int:
    from .models import MAX_SAFE_INT

    try:
        ms = Decimal(text)
    except InvalidOperation:
        raise KindexError(f"{option}: {text!r} is not a number of milliseconds") from None
    if not ms.is_finite() or ms <= 0:
        raise KindexError(f"{option}: {text!r} must be a positive number of milliseconds")
    ns = (ms * NS_PER_MS).to_integral_value(rounding)
    if not 1 <= ns <= MAX_SAFE_INT:
        raise KindexError(f"{option}: {text} ms is not between 1 ns and {MAX_SAFE_INT} ns")
    return int(ns)


@dataclass
class NewRun:
    """What `new-run` wrote: where, as what, after which run, and what is left to fill in."""

    path: Path
    name: str
    title: str
    host: str
    based_on: str
    todo: list[str] = field(default_factory=list)  # fields still holding a TODO value
    content: Path | None = None  # the content folder, to say whether the file is in it
    source_named: Path | None = None  # a --source beside the bundle: named as its implementationSource
    source_copied: tuple[Path, Path] | None = None  # (a --source from elsewhere, its copy beside the bundle)

    def report(self) -> list[str]:
        lines = [f"Wrote {display(self.path)}: {self.title!r} on {self.host}, in the table of run {self.based_on}"]
        if self.todo:
            lines.append("Replace each TODO value (check fails until then):")
            lines += [f"  {place}" for place in self.todo]
        if self.source_named is not None:
            lines.append(f"Named {display(self.source_named)} as the run's implementationSource: its page shows it.")
        if self.source_copied is not None:
            source, copy = self.source_copied
            lines.append(f"Copied {display(source)} to {display(copy)}, named as the run's implementationSource: "
                         "its page shows it.")
        if self.content is not None and not self.path.absolute().is_relative_to(self.content.absolute()):
            also = f" and {display(self.source_copied[1])}" if self.source_copied is not None else ""
            lines.append(f"Move it{also} under {display(self.content)}/ to have it checked and built.")
        lines.append("Then: kindex-site check --strict && kindex-site build")
        return lines


def new_run(config, problem: str, host: str, label: str, lab: str, out: Path | None = None,
            timing: Timing = Timing(), source: Path | None = None) -> NewRun:
    """Write a bundle for a new run of `problem` on `host`, in the table of the newest workload there,
    with that table's protocol, environment and digests; a --source is its implementationSource,
    copied beside the bundle unless it lies in the bundle's folder."""
    label, lab = _title_part("--implementation", label), _title_part("--lab", lab)
    if lab == "kernelbench":  # (sourceNative.source: that one names problems by KernelBench's ids)
        raise KindexError("--lab: 'kernelbench' is the KernelBench importer's source; give your lab's name")
    data = _source_data(source) if source is not None else None
    content, lb = _checked_content(config)
    found = _find_problem(lb, problem)
    base = _base_run(lb, found, _find_host(content, lb, found, host))
    folder = config.folder("content_dir") / _slug(lab, "lab")  # (unless --out says where)
    suffix = _copy_suffix(source) if source is not None else ""
    name = _fresh_name(label, found.slug, base.environment, {r.name for r in content.runs},
                       folder if out is None else None, suffix)
    path = out if out is not None else folder / f"{name}.json"
    title = f"{found.title} · {label} · {lab}"
    digest = "sha256:" + hashlib.sha256(data).hexdigest() if data is not None else TODO_DIGEST
    bundle = {
        "run": _run_document(name, title, base, lab, timing, digest),
        "protocol": content.protocols[base.protocol].model_dump(mode="json", exclude_unset=True),
        "environment": content.environments[base.environment].model_dump(mode="json", exclude_unset=True),
    }
    shown = _source_beside(source, path.parent) if source is not None else None
    copy = None
    if source is not None and shown is None:
        _not_in_content(source, config.folder("content_dir"), path.parent, set(content.sources))
        copy = path.with_name(path.stem + suffix)
        shown = copy.name
    if shown is not None:  # (the run page shows it; the path is relative to the bundle's folder)
        bundle["run"]["spec"]["implementationSource"] = {"path": shown}
    todo = _todo_fields(bundle)
    if not todo:
        _validate(bundle, path)
    _write_new(path, bundle, (copy, data) if copy is not None else None)
    return NewRun(path, name, title, base.environment, base.name, todo, config.folder("content_dir"),
                  source if copy is None and shown is not None else None,
                  (source, copy) if copy is not None else None)


def _source_data(source: Path) -> bytes:
    """A --source's bytes, if a run page can show them (UTF-8 text of at most MAX_SOURCE_BYTES)."""
    from .models import MAX_SOURCE_BYTES

    data = _read(source)
    if len(data) > MAX_SOURCE_BYTES:
        raise KindexError(f"--source: {display(source)}: {len(data) / 2**20:.1f} MiB; a source file a run names "
                          f"may hold {MAX_SOURCE_BYTES // 2**20} MiB at most")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise KindexError(f"--source: {display(source)}: not UTF-8 text (byte {e.start}); a run names only "
                          "text sources") from None
    return data


def _copy_suffix(source: Path) -> str:
    """The suffix a copy of the source keeps; never one the content folder reads as documents."""
    suffix = source.suffix
    if suffix.lower() in (".json", ".jsonl"):
        raise KindexError(f"--source: {display(source)}: a {suffix} file under content/ is read as bundles, not "
                          "shown as a source; rename it after its language (kernel.py, kernel.cu, …)")
    return suffix


def _source_beside(source: Path, folder: Path) -> str | None:
    """The source's path from the bundle's folder, if it lies in or under it (as implementationSource must)."""
    try:
        rel = source.resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        return None
    return None if any(part.startswith(".") for part in rel.split("/")) else rel


def _not_in_content(source: Path, content: Path, folder: Path, named: set[str]) -> None:
    """A --source copied from elsewhere under the content folder must be one a run names already."""
    try:
        rel = source.resolve().relative_to(content.resolve()).as_posix()
    except ValueError:
        return  # (outside it: copied beside the bundle)
    if rel in named or any(part.startswith(".") for part in rel.split("/")):
        return  # (a hidden file is not read; a named one stays named)
    raise KindexError(f"--source: {display(source)} is under {display(content)}/ but not in "
                      f"{display(folder)}/, where the bundle goes, and no run names it: new-run would name a copy "
                      f"of it, and a file under {display(content)}/ that no run names fails check --strict; put it "
                      f"in {display(folder)}/, or keep it outside {display(content)}/")


def _title_part(option: str, text: str) -> str:
    text = " ".join(text.split())
    if not text:
        raise KindexError(f"{option}: must not be empty")
    if "·" in text:
        raise KindexError(f"{option}: must not contain '·', which separates the parts of a run's title")
    return text


def _slug(text: str, otherwise: str) -> str:
    from .leaderboard import slugify

    return slugify(text) or otherwise


def _checked_content(config):
    from .build import check

    try:
        return check(config)
    except KindexError as e:
        raise KindexError([*e.errors, f"{display(config.folder('content_dir'))}: new-run reads it to find "
                           "the problem and host: fix the problems above first (a bundle new-run wrote fails "
                           "until its TODO values are replaced)"], count=e.count, warnings=e.warnings) from None


def _find_problem(lb, slug: str):
    problems = {p.slug: p for p in lb.problems}
    found = problems.get(slug) or lb.redirects.get(slug)
    if found is None:
        raise KindexError(f"--problem: no problem {slug!r} in the content (the slug in /problems/<slug>/)"
                          + _did_you_mean(slug, [*problems, *lb.redirects]))
    return found


def _find_host(content, lb, problem, host: str) -> str:
    if host not in content.environments:
        raise KindexError(f"--host: no timing host {host!r} in the content (an environment's metadata.name)"
                          + _did_you_mean(host, list(content.environments)))
    timed_on = sorted({b.host for b in lb.boards[problem.slug]})
    if host not in timed_on:
        raise KindexError(f"--host: problem {problem.slug!r} has no run on {host!r}; it was timed on "
                          + ", ".join(timed_on))
    return host


def _did_you_mean(text: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(text, choices, n=5, cutoff=0.5)
    close += sorted(c for c in choices if text and text in c and c not in close)[:5 - len(close)]
    return f"; did you mean {', '.join(close)}?" if close else ""


def _base_run(lb, problem, host: str):
    """A run of the table a new run joins: the newest workload's on that host, its first protocol in
    page order; the reference's run if it has one."""
    order = {w.digest: i for i, w in enumerate(lb.workloads[problem.slug])}
    board = None
    for b in lb.boards[problem.slug]:
        if b.host == host and (board is None or order[b.workload] > order[board.workload]):
            board = b
    entry = board.reference or board.entries[0]
    return entry.run


def _fresh_name(label: str, problem_slug: str, host: str, taken: set[str], folder: Path | None,
                suffix: str = "") -> str:
    """`<implementation>-<problem>-<host>`, numbered from -2 when a run or a file in `folder` has it."""
    from .importers.common import MAX_NAME

    stem = f"{_slug(label, 'run')}-{problem_slug}-{host}"
    if len(stem) > MAX_NAME - 4:  # (room for a number)
        stem = stem[:MAX_NAME - 13].rstrip("-._") + "-" + hashlib.sha256(stem.encode()).hexdigest()[:8]
    name, number = stem, 1
    while name in taken or (folder is not None and any((folder / f"{name}{end}").exists()
                                                       for end in {".json", suffix} - {""})):
        number += 1
        name = f"{stem}-{number}"
    return name


def _run_document(name: str, title: str, base, lab: str, timing: Timing, implementation_digest: str) -> dict:
    from .models import API_VERSION

    spec = base.doc.spec  # (read again from its file: check() keeps facts only)
    statistic = base.definitions[0].spec.measurement.primaryStatistic  # (the table ranks by it)
    latency = {"mean": timing.mean_ns if timing.mean_ns is not None else TODO_MEAN,
               "confidence95": list(timing.ci_ns) if timing.ci_ns is not None else TODO_CI}
    if statistic != "mean":
        latency[statistic] = f"TODO: {statistic} latency in whole nanoseconds"
    return {
        "apiVersion": API_VERSION,
        "kind": "BenchmarkRun",
        "metadata": {"name": name, "title": title},
        "spec": {
            "status": "passed",
            "timing": {"samples": timing.samples if timing.samples is not None else TODO_SAMPLES,
                       "latencyNs": latency,
                       "primaryStatistic": statistic},
            "observedAt": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            # The lab's own record: a run not from KernelBench is named by its title's first part.
            "sourceNative": {"source": lab},
            "protocolDigest": spec.protocolDigest,
            "workloadDigest": spec.workloadDigest,
            "environmentDigest": spec.environmentDigest,
            "implementationDigest": implementation_digest,
        },
    }


def _todo_fields(value, where: str = "") -> list[str]:
    """The places (`run.spec.timing.samples`) still holding a TODO value."""
    if isinstance(value, str):
        return [where] if value.startswith("TODO:") else []
    if isinstance(value, list) and any(isinstance(v, str) and v.startswith("TODO:") for v in value):
        return [where]
    items = value.items() if isinstance(value, dict) else ()
    return [place for key, v in items for place in _todo_fields(v, f"{where}.{key}" if where else key)]


def _validate(bundle: dict, path: Path) -> None:
    """A complete bundle is valid before it is written (a wrong one is this module's bug)."""
    from pydantic import ValidationError

    from .jsonread import format_location
    from .models import Bundle

    try:
        Bundle.model_validate(bundle)
    except ValidationError as e:
        raise KindexError([f"{display(path)}: {format_location(err['loc'])}: {err['msg']}"
                           for err in e.errors(include_url=False)]) from None


def _write_new(path: Path, bundle: dict, copy: tuple[Path, bytes] | None = None) -> None:
    """The bundle, and the copy of its source beside it if any: both new files, or neither."""
    text = json.dumps(bundle, indent=2, ensure_ascii=False) + "\n"
    written = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if copy is not None:
            with copy[0].open("xb") as f:
                written = copy[0]
                f.write(copy[1])
        with path.open("x", encoding="utf-8") as f:
            f.write(text)
    except BaseException as e:
        if written is not None:
            written.unlink(missing_ok=True)
        if isinstance(e, FileExistsError):
            raise KindexError(f"{display(Path(e.filename or path))}: already exists; new-run never overwrites a "
                              "file (give another --out)") from None
        if isinstance(e, OSError):
            raise KindexError(f"{display(Path(e.filename or path))}: cannot write: {e.strerror}") from None
        raise
