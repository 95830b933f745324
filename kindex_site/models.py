"""The kernelindex.dev/v1alpha1 document kinds, as pydantic models. No I/O here.

Models keep fields they do not know (``extra="allow"``): ``sourceNative`` is the source's own
record and documents grow; whatever the user wrote must survive to the run page.
Numbers are strict: a latency given as a string or a float is an error, not a coercion.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictFloat, StrictInt, model_validator

API_VERSION = "kernelindex.dev/v1alpha1"

# Largest integer a JSON reader in JavaScript holds exactly (2**53 - 1 ns is about 104 days):
# the API must hand readers the very number that came in.
MAX_SAFE_INT = 2**53 - 1

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


def _check_timestamp(value: str) -> str:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("must be an ISO 8601 date-time such as 2026-03-05T08:38:15Z") from None
    if parsed.tzinfo is None:
        raise ValueError("must carry a time zone (e.g. a trailing Z for UTC)")
    return value


def _check_finite(value: float | int) -> float | int:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


Name = Annotated[str, Field(pattern=NAME_PATTERN), AfterValidator(_check_name)]
Nanoseconds = Annotated[StrictInt, Field(gt=0, le=MAX_SAFE_INT)]
Digest = Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]
Timestamp = Annotated[str, AfterValidator(_check_timestamp)]
Number = Annotated[StrictInt | StrictFloat, AfterValidator(_check_finite)]
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


class RunSpec(Open):
    status: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,39}$")]
    timing: Timing | None = None
    observedAt: Timestamp | None = None
    measurements: list[Measurement] = []
    sourceNative: dict[str, Any] = {}
    protocolDigest: Digest
    workloadDigest: Digest
    environmentDigest: Digest
    implementationDigest: Digest

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


class MeasurementMethod(Open):
    timer: Text | None = None
    primaryStatistic: PrimaryStatistic = "mean"


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


class Hardware(Open):
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
