"""The raw inputs, read with the json and tomllib modules only: bundles, the publisher's documents (costs/ and
reviews/), settings, the built API."""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path


@dataclass(frozen=True)
class Run:
    """What the rules need of one bundle {"run", "protocol", "environment"}."""

    name: str
    title: str
    label: str  # the implementation's label: the title's second " · " part
    implementation_digest: str
    status: str
    mean: int | None  # ns
    ci95: tuple[int, int] | None  # ns, as the source gave it
    observed_at: datetime | None
    host: str  # environment.metadata.name
    protocol: str  # protocol.metadata.name
    workload: str  # workloadDigest
    significant_figures: int | None  # protocol.spec.measurement.resolution
    step_ns: int | None
    level: str  # KernelBench level ("1", "2", …) or "other"
    file: str
    number: int | None = None  # KernelBench problem number, where the level has one
    hardware: str | None = None  # the GPU the run recorded (sourceNative.hardware)
    product: str = ""  # its host's GPU: environment.spec.hardware.product and formFactor
    form_factor: str | None = None
    cache_flushed: bool = False  # the protocol states that the cache is flushed before each timed call


@dataclass(frozen=True)
class Settings:
    reference: str = "PyTorch eager"
    implausible_speedup: float = 10.0
    implausible_latency: float = 1000.0
    gpus: dict = field(default_factory=dict)  # kindex.toml's [gpus]: a site's corrections to the GPU table


def read_settings(path: Path | None) -> Settings:
    if path is None or not path.is_file():
        return Settings()
    with path.open("rb") as f:
        toml = tomllib.load(f)
    return Settings(
        reference=toml.get("reference", "PyTorch eager"),
        implausible_speedup=toml.get("implausible_speedup", 10.0),
        implausible_latency=toml.get("implausible_latency", 1000.0),
        gpus=toml.get("gpus", {}),
    )


def _bundles_of(path: Path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        for line in text.splitlines():
            if line.strip():
                yield json.loads(line)
        return
    doc = json.loads(text)
    yield from doc if isinstance(doc, list) else [doc]


def _observed(value) -> datetime | None:
    if not value:
        return None
    when = datetime.fromisoformat(value)
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _label(run: dict) -> str:
    parts = run["metadata"].get("title", "").split(" · ")
    if len(parts) >= 2 and parts[1].strip():
        return parts[1].strip()
    return "implementation " + run["spec"]["implementationDigest"].removeprefix("sha256:")[:12]


_LEVEL = re.compile(r"(?:^|/)level(\d+)/")
_NUMBER = re.compile(r"(?:^|/)level\d+/(\d+)_")


def _number(spec: dict) -> int | None:
    if _level(spec) == "other":
        return None
    native = spec.get("sourceNative") or {}
    found = _NUMBER.search(str(native.get("externalId", "")))
    return int(found.group(1)) if found else None


def _level(spec: dict) -> str:
    native = spec.get("sourceNative") or {}
    source = native.get("source")
    if not (isinstance(source, str) and (source == "kernelbench" or source.startswith("kernelbench-"))):
        return "other"
    if isinstance(native.get("level"), int):
        return str(native["level"])
    found = _LEVEL.search(str(native.get("externalId", "")))
    return found.group(1) if found else "other"


def run_of(bundle: dict, file: str = "") -> Run:
    run, protocol, environment = bundle["run"], bundle["protocol"], bundle["environment"]
    spec = run["spec"]
    latency = (spec.get("timing") or {}).get("latencyNs") or {}
    ci = latency.get("confidence95")
    measurement = (protocol.get("spec") or {}).get("measurement") or {}
    resolution = measurement.get("resolution") or {}
    hardware = environment["spec"]["hardware"]
    recorded = (spec.get("sourceNative") or {}).get("hardware")
    return Run(
        name=run["metadata"]["name"],
        title=run["metadata"].get("title", ""),
        label=_label(run),
        implementation_digest=spec["implementationDigest"],
        status=spec["status"],
        mean=latency.get("mean"),
        ci95=tuple(ci) if ci is not None else None,
        observed_at=_observed(spec.get("observedAt")),
        host=environment["metadata"]["name"],
        protocol=protocol["metadata"]["name"],
        workload=spec["workloadDigest"],
        significant_figures=resolution.get("significantFigures"),
        step_ns=resolution.get("stepNs"),
        level=_level(spec),
        number=_number(spec),
        file=file,
        hardware=recorded if isinstance(recorded, str) and recorded.strip() else None,
        product=hardware.get("product", ""),
        form_factor=hardware.get("formFactor"),
        cache_flushed=measurement.get("cacheFlushed") is True,
    )


DOCUMENT_FOLDERS = ("costs", "reviews")  # the content's top folders of the publisher's documents, not bundles


def read_runs(content: Path) -> dict[str, Run]:
    """Every bundle under the content folder (.json: one bundle or an array of them; .jsonl: one a line),
    but in costs/ and reviews/."""
    runs: dict[str, Run] = {}
    for folder, dirs, files in os.walk(content):
        top = Path(folder) == content
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (top and d in DOCUMENT_FOLDERS))
        for file in sorted(files):
            if file.startswith(".") or not file.endswith((".json", ".jsonl")):
                continue
            path = Path(folder) / file
            for bundle in _bundles_of(path):
                run = run_of(bundle, path.relative_to(content).as_posix())
                assert run.name not in runs, f"run {run.name} twice"
                runs[run.name] = run
    return runs


def _documents(content: Path, folder: str, kind: str):
    """(file, position, document) of each document of a kind in costs/ or reviews/, files by name."""
    for path in sorted((content / folder).rglob("*")):
        if path.suffix in (".json", ".jsonl") and path.is_file() and not path.name.startswith("."):
            for i, doc in enumerate(_bundles_of(path)):
                assert doc.get("kind") == kind, f"{path}: a {doc.get('kind')} among {kind} documents"
                yield path.relative_to(content).as_posix(), i, doc


def read_costs(content: Path) -> dict[str, dict]:
    """workloadDigest → its WorkloadCost's spec (the first, files in order, where several name one)."""
    costs: dict[str, dict] = {}
    for _, _, doc in _documents(content, "costs", "WorkloadCost"):
        costs.setdefault(doc["spec"]["workloadDigest"], doc["spec"])
    return costs


def review_date(value: str) -> datetime:
    """From when a review applies: a date from its start (midnight UTC), or the date-time it gives."""
    when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def read_reviews(content: Path) -> dict[str, str]:
    """Run name → the verdict of its newest RunReview (by date; the text says nothing of two of one
    date: here the later file, then the later in its file)."""
    newest: dict[str, tuple] = {}
    for file, i, doc in _documents(content, "reviews", "RunReview"):
        spec = doc["spec"]
        key = (review_date(spec["date"]), file, i)
        if spec["run"] not in newest or key > newest[spec["run"]][0]:
            newest[spec["run"]] = (key, spec["verdict"])
    return {run: verdict for run, (_, verdict) in newest.items()}


@dataclass(frozen=True)
class Inputs:
    """Everything the rules read: the runs, the settings, the costs and the reviews' verdicts."""

    runs: dict[str, Run]
    settings: Settings
    costs: dict[str, dict] = field(default_factory=dict)  # workloadDigest → its WorkloadCost's spec
    reviews: dict[str, str] = field(default_factory=dict)  # run name → its newest review's verdict


def read_inputs(content: Path, settings_file: Path | None) -> Inputs:
    return Inputs(read_runs(content), read_settings(settings_file), read_costs(content), read_reviews(content))


def read_api(site: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    """The API's problem documents and host documents, by slug and by host name."""
    api = site / "api" / "v1"
    problems = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted((api / "problems").glob("*.json"))}
    hosts = {}
    for path in sorted((api / "hosts").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        hosts[doc.get("name", path.stem)] = doc
    return problems, hosts
