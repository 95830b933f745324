"""The kernelindex.dev/v1alpha1 document kinds, as pydantic models. No I/O here.

Models keep fields they do not know (``extra="allow"``): whatever the user wrote survives to the run
page. Numbers are strict: a latency given as a string or a float is an error, not a coercion. Unknown
fields inside known objects and unknown statuses are warnings (`FormatWarnings`), and a near miss of
an allowed field (`confidense95`: `is_typo`) is an error naming it.
"""

from __future__ import annotations

import difflib
import math
import re
from datetime import datetime, timezone
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, model_validator

from .errors import printable
from .strictjson import MAX_FLOAT, MAX_INTEGER

API_VERSION = "kernelindex.dev/v1alpha1"

# Largest integer a JavaScript JSON reader holds exactly: the API must hand readers the very number
# that came in (strictjson.MAX_INTEGER).
MAX_SAFE_INT = MAX_INTEGER

# A name becomes a folder in site/ (runs/<name>/), so it is a lowercase DNS-style label:
# no slashes, no leading dot, no case-only twins on case-insensitive disks.
NAME_PATTERN = r"^[a-z0-9](?:[a-z0-9._-]{0,198}[a-z0-9])?$"
_WINDOWS_DEVICES = {"con", "prn", "aux", "nul"} | {f"{d}{i}" for d in ("com", "lpt") for i in range(10)}


def is_windows_device(name: str) -> bool:
    """CON, NUL, COM1 … cannot be file or folder names on Windows, with any extension."""
    return name.split(".")[0].lower() in _WINDOWS_DEVICES


def _check_name(name: str) -> str:
    if ".." in name:
        raise ValueError("must not contain '..'")
    if is_windows_device(name):
        raise ValueError(f"{name!r} is a reserved device name on Windows")
    return name


# The date-times every reader parses alike (RFC 3339); fromisoformat alone also takes week dates.
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?", re.ASCII)


def _check_timestamp(value: str) -> str:
    try:
        if not _TIMESTAMP.fullmatch(value):
            raise ValueError
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("must be an ISO 8601 date-time such as 2026-03-05T08:38:15Z "
                         "(YYYY-MM-DDTHH:MM[:SS[.fraction]] and a time zone: Z or ±HH:MM)") from None
    if parsed.tzinfo is None:
        raise ValueError("must carry a time zone (e.g. a trailing Z for UTC)")
    try:
        parsed.astimezone(timezone.utc)  # (pages show it in UTC: 0001-01-01T00:00+14:00 is before year 1 there)
    except OverflowError:
        raise ValueError("must be between years 1 and 9999 in UTC") from None
    return value


def _check_number(value: float | int) -> float | int:
    """Within what every number of a document must be (strictjson's bounds)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        if not -MAX_FLOAT <= value <= MAX_FLOAT:
            raise ValueError("must be within ±1e300")
    elif not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
        raise ValueError(f"must be within ±{MAX_SAFE_INT} (2⁵³−1, the largest integer a JavaScript reader holds exactly)")
    return value


Name = Annotated[str, Field(pattern=NAME_PATTERN), AfterValidator(_check_name)]
Nanoseconds = Annotated[StrictInt, Field(gt=0, le=MAX_SAFE_INT)]
Digest = Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]
Timestamp = Annotated[str, AfterValidator(_check_timestamp)]
Number = Annotated[StrictInt | StrictFloat, AfterValidator(_check_number)]
Text = Annotated[str, Field(min_length=1, max_length=10_000)]


class Open(BaseModel):
    """A part of a document: unknown fields are kept, so nothing the user wrote is lost."""

    model_config = ConfigDict(extra="allow", frozen=True)


class Metadata(Open):
    name: Name
    title: Text


# --- BenchmarkRun ---------------------------------------------------------------------------

PrimaryStatistic = Literal["mean", "minimum", "maximum"]


class LatencyNs(Open):
    """The mean is required; a source that did not record the extremes or an interval leaves them out."""

    mean: Nanoseconds
    minimum: Nanoseconds | None = None
    maximum: Nanoseconds | None = None
    confidence95: tuple[Nanoseconds, Nanoseconds] | None = None

    @model_validator(mode="after")
    def _ordered(self) -> LatencyNs:
        lo = self.minimum if self.minimum is not None else self.mean
        hi = self.maximum if self.maximum is not None else self.mean
        if not lo <= self.mean <= hi:
            raise ValueError(
                f"must satisfy minimum ≤ mean ≤ maximum (got {self.minimum}, {self.mean}, {self.maximum})"
            )
        if self.confidence95 is not None:
            lo, hi = self.confidence95
            if not lo <= self.mean <= hi:
                raise ValueError(f"confidence95 [{lo}, {hi}] must contain the mean {self.mean}")
        return self


class Timing(Open):
    samples: Annotated[StrictInt, Field(ge=1, le=MAX_SAFE_INT)] | None = None
    latencyNs: LatencyNs
    primaryStatistic: PrimaryStatistic = "mean"


class Measurement(Open):
    metric: Text
    statistic: Text
    unit: Text
    value: Number


# Other statuses validate (sources grow), but are warned about: a typo must not quietly unrank a run.
STATUSES = ("passed", "failed", "error", "timeout", "incorrect", "incomplete-timing", "invalid-timing")


STATUS_PATTERN = r"^[a-z][a-z0-9_-]{0,39}$"

MAX_SOURCE_BYTES = 2**20  # a source file shown on a run page: 1 MiB at most


def check_relative_path(path: str) -> str:
    """Relative, '/' between folders, no '.', '..' or hidden segments: it stays under content/."""
    if path.startswith("/") or "\\" in path or any(ord(c) < 32 for c in path):
        raise ValueError("must be a relative path with '/' between folders")
    if any(not part or part.startswith(".") for part in path.split("/")):
        raise ValueError("must not have empty, '.', '..' or hidden (dot) parts")
    return path


class SourceFile(Open):
    """A text file under content/ that a run refers to: its implementation's source, or its
    workload's (the problem's reference code). The run page shows it highlighted, and links the raw file."""

    path: Annotated[str, Field(
        min_length=1, max_length=500,
        description="The file's path relative to the folder of the file holding this bundle, with '/' "
                    f"between folders; it must lie under the content folder, be UTF-8 text and hold at most "
                    f"{MAX_SOURCE_BYTES // 2**20} MiB."), AfterValidator(check_relative_path)]
    language: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9+#._-]{0,39}$", description=(
        "The language it is highlighted as: python (or triton), cuda (or hip), c or cpp; any other is shown as "
        "plain text. By default, told from the file name."))] | None = None


class RunSpec(Open):
    status: Annotated[str, Field(pattern=STATUS_PATTERN, description=(
        "What became of the run: " + ", ".join(STATUSES) + ". Only 'passed' runs are ranked, and they "
        "must have timing. Another status is accepted but warned about (`kindex-site check --strict` fails)."))]
    timing: Timing | None = None
    observedAt: Timestamp | None = None
    measurements: list[Measurement] = []
    sourceNative: dict[str, Any] = {}
    protocolDigest: Digest
    workloadDigest: Digest
    environmentDigest: Digest
    implementationDigest: Digest
    implementationSource: SourceFile | None = Field(None, description=(
        "The implementation's source (a generated or hand-written kernel), shown on the run's page."))
    workloadSource: SourceFile | None = Field(None, description=(
        "The workload's source (the problem's reference code), shown on the problem's page."))

    @model_validator(mode="after")
    def _passed_has_timing(self) -> RunSpec:
        if self.status == "passed" and self.timing is None:
            raise ValueError("a run with status 'passed' must have timing")
        return self


class BenchmarkRun(Open):
    apiVersion: Literal["kernelindex.dev/v1alpha1"]
    kind: Literal["BenchmarkRun"]
    metadata: Metadata
    spec: RunSpec


# --- BenchmarkProtocol ----------------------------------------------------------------------


class Harness(Open):
    name: Text
    repository: Text | None = None


class Resolution(Open):
    """How finely the source reports latencies: rounded to `significantFigures` significant figures
    (of whatever unit it wrote: KernelBench gives 3 of a millisecond value) and/or to multiples of
    `stepNs` nanoseconds; at least one of the two. The site widens each comparison by half a
    rounding step: for a latency of d digits in ns, the larger of 10^(d − significantFigures) and stepNs."""

    model_config = ConfigDict(json_schema_extra={"anyOf": [{"required": ["significantFigures"]},
                                                           {"required": ["stepNs"]}]})

    significantFigures: Annotated[StrictInt, Field(ge=1, le=17)] | None = Field(None, description=(
        "Latencies are rounded to this many significant figures (KernelBench: 3)."))
    stepNs: Nanoseconds | None = Field(None, description="Latencies are multiples of this many nanoseconds.")

    @model_validator(mode="after")
    def _says_something(self) -> Resolution:
        if self.significantFigures is None and self.stepNs is None:
            raise ValueError("must give significantFigures, stepNs or both")
        return self


class MeasurementMethod(Open):
    timer: Text | None = None
    primaryStatistic: PrimaryStatistic = "mean"
    resolution: Resolution | None = Field(None, description=(
        "How finely the source reports latencies; without it they are taken as exact."))
    cacheFlushed: StrictBool | None = Field(None, description=(
        "The GPU's cache is flushed before each timed call, so inputs come from DRAM even when they would "
        "fit in it (the floor is then claimed for cache-sized workloads too)."))


class Comparability(Open):
    family: Text
    notes: Text


class ProtocolSpec(Open):
    harness: Harness
    measurement: MeasurementMethod
    comparability: Comparability


class BenchmarkProtocol(Open):
    apiVersion: Literal["kernelindex.dev/v1alpha1"]
    kind: Literal["BenchmarkProtocol"]
    metadata: Metadata
    spec: ProtocolSpec


# --- ExecutionEnvironment -------------------------------------------------------------------


# Hardware fields the site reads or shows beyond the model's own, not warned about as unknown.
HARDWARE_KNOWN_OPTIONAL = ("memory", "count", "cpu")


class Hardware(Open):
    """The timing host's GPU. Optional fields the site knows besides these: memory (e.g. "80GB",
    compared with what runs record), count (GPUs in the host), cpu."""

    product: Text
    vendor: Text | None = None
    formFactor: Text | None = None
    architecture: Text | None = None


class EnvironmentSpec(Open):
    hardware: Hardware
    software: dict[str, Any] = {}


class ExecutionEnvironment(Open):
    apiVersion: Literal["kernelindex.dev/v1alpha1"]
    kind: Literal["ExecutionEnvironment"]
    metadata: Metadata
    spec: EnvironmentSpec


class Bundle(BaseModel):
    """One timing with the protocol and environment it was taken under (the seed's shape)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run: BenchmarkRun
    protocol: BenchmarkProtocol
    environment: ExecutionEnvironment


# --- WorkloadCost ---------------------------------------------------------------------------
# Counted once from the problem's own source by `kindex-site import costs` and kept as content, so
# that no build needs PyTorch.

COST_API_VERSION = "kindex-site.dev/v1"
PRECISIONS = ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8")  # the peaks gpus.toml gives, dense
Count = Annotated[StrictInt, Field(ge=0, le=MAX_SAFE_INT)]


class TensorCost(Open):
    """One tensor the workload reads or writes: its shape and dtype, and the bytes they make."""

    shape: list[Annotated[StrictInt, Field(ge=0, le=2**62)]] = Field(max_length=16)
    dtype: Annotated[str, Field(pattern=r"^[a-z0-9_]{1,24}$")]
    bytes: Count


class Counter(Open):
    """What counted the operations, and its version (e.g. torch.utils.flop_counter.FlopCounterMode, torch 2.13.0)."""

    name: Text
    version: Text


class CostSpec(Open):
    workloadDigest: Digest
    status: Literal["counted", "failed"]
    reason: Text | None = None  # why no cost was counted (a model that fails on the meta device)
    inputs: list[TensorCost] = Field([], max_length=256)
    outputs: list[TensorCost] = Field([], max_length=256)
    inputBytes: Count | None = None
    outputBytes: Count | None = None
    parameterBytes: Count | None = None
    # By the precision PyTorch's defaults run them in (FP32 matmul; TF32 for cuDNN convolutions).
    flops: dict[Literal[PRECISIONS], Count] = {}
    counter: Counter
    source: Text  # the source the cost was counted from (its path in the publisher's tree, or its repository and commit)

    @model_validator(mode="after")
    def _counted_or_why(self) -> CostSpec:
        if self.status == "counted":
            missing = [f for f in ("inputBytes", "outputBytes", "parameterBytes") if getattr(self, f) is None]
            if missing:
                raise ValueError(f"a counted cost must give {', '.join(missing)}")
            for name, tensors, total in (("inputs", self.inputs, self.inputBytes), ("outputs", self.outputs, self.outputBytes)):
                if tensors and sum(t.bytes for t in tensors) != total:
                    raise ValueError(f"{name}: its tensors' bytes add up to {sum(t.bytes for t in tensors)}, "
                                     f"not {name[:-1]}Bytes {total}")
        elif self.reason is None:
            raise ValueError("a cost that failed must say why (reason)")
        return self


class WorkloadCost(Open):
    apiVersion: Literal["kindex-site.dev/v1"]
    kind: Literal["WorkloadCost"]
    metadata: Metadata
    spec: CostSpec


# --- RunReview ------------------------------------------------------------------------------
# The publisher's verdict on one run, from a date on, versioned with what it judges (content/reviews/).

VERDICTS = ("clean", "reward-hack", "incorrect-output", "timing-bug", "under-review")
HELD_VERDICTS = tuple(v for v in VERDICTS if v != "clean")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_URL = re.compile(r"https?://[^/?#\s\x00-\x1f\x7f]+[^\s\x00-\x1f\x7f]*", re.ASCII)


def _check_review_date(value: str) -> str:
    if _DATE.fullmatch(value):
        try:
            datetime.strptime(value, "%Y-%m-%d")
        except ValueError:
            raise ValueError("must be a date that exists, YYYY-MM-DD") from None
        return value
    try:
        return _check_timestamp(value)
    except ValueError:
        raise ValueError("must be a date such as 2026-03-05 or a date-time such as 2026-03-05T08:38:15Z "
                         "(with a time zone: Z or ±HH:MM)") from None


def _check_url(value: str) -> str:
    if not _URL.fullmatch(value):
        raise ValueError("must be an http:// or https:// URL, without spaces or control characters")
    return value


ReviewDate = Annotated[str, AfterValidator(_check_review_date)]
Url = Annotated[str, Field(max_length=2000), AfterValidator(_check_url)]


def applies_from(date: str) -> datetime:
    """When a review's `date` takes effect, in UTC: a bare date from its start (midnight UTC)."""
    if _DATE.fullmatch(date):
        return datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    return datetime.fromisoformat(date).astimezone(timezone.utc)


class ReviewSpec(Open):
    run: Name  # the reviewed run's metadata.name
    verdict: Literal[VERDICTS]
    reason: Text
    evidence: Url | None = None
    date: ReviewDate  # from when the verdict applies
    reviewer: Text | None = None

    @model_validator(mode="after")
    def _evidence_unless_under_review(self) -> ReviewSpec:
        if self.evidence is None and self.verdict != "under-review":
            raise ValueError(f"a {self.verdict!r} verdict must give its evidence (an http(s) URL); "
                             "only 'under-review' may leave it out")
        return self

    @property
    def since(self) -> datetime:
        return applies_from(self.date)


class RunReview(Open):
    apiVersion: Literal["kindex-site.dev/v1"]
    kind: Literal["RunReview"]
    metadata: Metadata
    spec: ReviewSpec


# --- Strictness: fields and statuses the format does not know --------------------------------
# Inside the format's own objects an unknown field is most likely a typo that silently drops a value:
# a near miss of an allowed field is an error, any other a warning. Free-form places (sourceNative,
# environment.spec.software) are never looked into.

MAX_FORMAT_WARNINGS_PER_FILE = 20  # a typo repeated in 100,000 runs is said 20 times, then counted


class _Shape(NamedTuple):
    """A known object: the field names it may hold, and its fields that hold known objects (or lists of them)."""

    fields: frozenset[str]
    inner: dict[str, _Shape]


def _shape(model: type[BaseModel], also: tuple[str, ...] = (), **inner: _Shape) -> _Shape:
    return _Shape(frozenset(model.model_fields) | frozenset(also), inner)


_METADATA = _shape(Metadata)
_SHAPES = {
    "run": _shape(BenchmarkRun, metadata=_METADATA, spec=_shape(
        RunSpec, timing=_shape(Timing, latencyNs=_shape(LatencyNs)), measurements=_shape(Measurement),
        implementationSource=_shape(SourceFile), workloadSource=_shape(SourceFile))),
    "protocol": _shape(BenchmarkProtocol, metadata=_METADATA, spec=_shape(
        ProtocolSpec, harness=_shape(Harness), comparability=_shape(Comparability),
        measurement=_shape(MeasurementMethod, resolution=_shape(Resolution)))),
    "environment": _shape(ExecutionEnvironment, metadata=_METADATA, spec=_shape(
        EnvironmentSpec, hardware=_shape(Hardware, also=HARDWARE_KNOWN_OPTIONAL))),
}
_RUN_SHAPE = _SHAPES["run"]
_DOCUMENT_SHAPES = {
    "WorkloadCost": _shape(WorkloadCost, metadata=_METADATA, spec=_shape(
        CostSpec, inputs=_shape(TensorCost), outputs=_shape(TensorCost), counter=_shape(Counter))),
    "RunReview": _shape(RunReview, metadata=_METADATA, spec=_shape(ReviewSpec)),
}


def nearest_name(word: str, known) -> str | None:
    """The known name `word` most likely misspells: the nearest ignoring case (`formfactor`), or one
    the word begins (`repo`); None when none is near."""
    by_lower = {name.lower(): name for name in sorted(known)}
    close = difflib.get_close_matches(word.lower(), by_lower, n=1)
    if not close and len(word) >= 3:
        close = [name for name in by_lower if name.startswith(word.lower())][:1]
    return by_lower[close[0]] if close else None


def _did_you_mean(word: str, known) -> str:
    near = nearest_name(word, known)
    return f" (did you mean {near!r}?)" if near is not None else ""


def is_typo(word: str, name: str) -> bool:
    """Whether `word` is `name` mistyped: the same ignoring case, or one edit per four letters of
    `name` off. A name built on a known one (`timingWas`) or a short one's neighbour (`gpu`) is not."""
    a, b = word.lower(), name.lower()
    most = len(b) // 4
    if abs(len(a) - len(b)) > most:
        return False
    # The optimal string alignment distance, row by row.
    before, row = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        above, row = row, [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(above[j] + 1, row[j - 1] + 1, above[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], before[j - 2] + 1)
        before = above
    return row[-1] <= most


class Unknown(NamedTuple):
    """A field the format does not know where it is, or a status outside STATUSES."""

    where: str  # its location (`run.spec.timing.latencyNs.confidense95`)
    message: str  # `unknown field (did you mean 'confidence95'?)`
    near: bool  # a typo of a field allowed in its place (is_typo): an error (a status never is)


def _unknown_fields(value: object, shape: _Shape, where: str, found: list[Unknown]) -> None:
    """Append each field of `value` (and of the known objects in it) that `shape` does not know."""
    if not isinstance(value, dict):
        return
    if not value.keys() <= shape.fields:
        for key in value:
            if key not in shape.fields:
                near = nearest_name(key, shape.fields)
                found.append(Unknown(f"{where}.{printable(key)}", "unknown field" + (
                    f" (did you mean {near!r}?)" if near is not None else ""),
                    near is not None and is_typo(key, near)))
    for key, inner in shape.inner.items():
        child = value.get(key)
        if isinstance(child, list):
            for i, item in enumerate(child):
                _unknown_fields(item, inner, f"{where}.{key}[{i}]", found)
        else:
            _unknown_fields(child, inner, f"{where}.{key}", found)


def _all_known(value: object, shape: _Shape) -> bool:
    """_unknown_fields would find nothing (the usual case, told quicker: no locations made)."""
    if type(value) is not dict:
        return True
    if not value.keys() <= shape.fields:
        return False
    for key, inner in shape.inner.items():
        child = value.get(key)
        if type(child) is list:
            if not all(_all_known(item, inner) for item in child):
                return False
        elif child is not None and not _all_known(child, inner):
            return False
    return True


def _unknown_status(run: object, found: list[Unknown]) -> None:
    """(A status that is not a status at all is the model's to refuse.)"""
    spec = run.get("spec") if isinstance(run, dict) else None
    status = spec.get("status") if isinstance(spec, dict) else None
    if isinstance(status, str) and status not in STATUSES and re.fullmatch(STATUS_PATTERN, status):
        found.append(Unknown("run.spec.status", f"unknown status {printable(repr(status))}"
                             + _did_you_mean(status, STATUSES), False))


def unknown_in_document(document: object, kind: str) -> list[Unknown]:
    """The fields a publisher's document (WorkloadCost, RunReview) holds where the format knows none
    (`spec.evidance`): as a bundle's, a near miss of a known field is an error, any other a warning."""
    found: list[Unknown] = []
    _unknown_fields(document, _DOCUMENT_SHAPES[kind], "", found)
    return [unknown._replace(where=unknown.where.removeprefix(".")) for unknown in found]


class FormatWarnings:
    """One file's lines about what the format does not know, as `file[index]: location: message`,
    each definition's once. A near miss of a known field is an error (`take_errors`); the others are
    warnings, at most MAX_FORMAT_WARNINGS_PER_FILE lines, then how many more."""

    def __init__(self, file: str, found: dict[int, tuple] | None = None):
        self.file = file
        self.lines: list[str] = []
        self.errors: list[str] = []
        self.more = 0
        self._checked: dict[int, object] = {}  # id → a definition model already looked at (held: ids stay unique)
        self._said: set[tuple] = set()  # (slot, definition's name, location, message) said for the file
        # Shared by the files of one load, whose bundles share a model only when their JSON is the same.
        self._found: dict[int, tuple] = found if found is not None else {}

    def check(self, raw: dict, source: object, definitions: tuple[BaseModel, BaseModel]) -> bool:
        """Look at a valid bundle found at `source`, `definitions` its shared protocol and environment
        models; True when its run holds only fields the format knows."""
        run = raw["run"]
        known = _all_known(run, _RUN_SHAPE)
        if not known or run["spec"]["status"] not in STATUSES:
            found: list[Unknown] = []
            _unknown_fields(run, _RUN_SHAPE, "run", found)
            _unknown_status(run, found)
            for unknown in found:
                self._say(source, unknown)
        protocol, environment = definitions
        if id(protocol) in self._checked and id(environment) in self._checked:
            return known  # (the usual case: the file's one protocol and environment, looked at already)
        for slot, model in (("protocol", protocol), ("environment", environment)):
            if id(model) in self._checked:
                continue
            self._checked[id(model)] = model
            for unknown in self._unknown_in(slot, raw[slot], model):
                self._say_once(source, slot, model.metadata.name, unknown)
        return known

    def check_invalid(self, raw: dict, source: object) -> None:
        """Look at a bundle that did not validate, so that one pass tells all its problems."""
        found: list[Unknown] = []
        _unknown_fields(raw.get("run"), _RUN_SHAPE, "run", found)
        _unknown_status(raw.get("run"), found)
        for unknown in found:
            self._say(source, unknown)
        for slot in ("protocol", "environment"):
            value = raw.get(slot)
            found = []
            _unknown_fields(value, _SHAPES[slot], slot, found)
            metadata = value.get("metadata") if isinstance(value, dict) else None
            name = metadata.get("name") if isinstance(metadata, dict) else None
            for unknown in found:
                self._say_once(source, slot, name if isinstance(name, str) else None, unknown)

    def _unknown_in(self, slot: str, value: object, model: BaseModel) -> list[Unknown]:
        known = self._found.get(id(model))
        if known is None:
            found: list[Unknown] = []
            _unknown_fields(value, _SHAPES[slot], slot, found)
            known = self._found[id(model)] = (model, found)
        return known[1]

    def _say_once(self, source: object, slot: str, name: str | None, unknown: Unknown) -> None:
        """A definition's line, unless the file said it already (a repeat beyond the shared models' few)."""
        said = (slot, name, unknown.where, unknown.message)
        if said not in self._said:
            self._said.add(said)
            self._say(source, unknown)

    def _say(self, source: object, unknown: Unknown) -> None:
        line = f"{source}: {unknown.where}: {unknown.message}"
        if unknown.near:
            self.errors.append(line)
        elif len(self.lines) < MAX_FORMAT_WARNINGS_PER_FILE:
            self.lines.append(line)
        else:
            self.more += 1

    def take_errors(self) -> list[str]:
        """The errors said since last asked."""
        errors, self.errors = self.errors, []
        return errors

    def result(self) -> tuple[str, ...]:
        if not self.more:
            return tuple(self.lines)
        return (*self.lines, f"{self.file}: and {self.more} more unknown fields or statuses like these")
