"""The raw inputs, read with the json and tomllib modules only: bundles, settings, the built API."""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Settings:
    reference: str = "PyTorch eager"
    implausible_speedup: float = 10.0
    reviewed_runs: frozenset[str] = frozenset()
    implausible_latency: float = 1000.0


def read_settings(path: Path | None) -> Settings:
    if path is None or not path.is_file():
        return Settings()
    with path.open("rb") as f:
        toml = tomllib.load(f)
    return Settings(
        reference=toml.get("reference", "PyTorch eager"),
        implausible_speedup=toml.get("implausible_speedup", 10.0),
        reviewed_runs=frozenset(toml.get("reviewed_runs", ())),
        implausible_latency=toml.get("implausible_latency", 1000.0),
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
    resolution = ((protocol.get("spec") or {}).get("measurement") or {}).get("resolution") or {}
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
    )


def read_runs(content: Path) -> dict[str, Run]:
    """Every bundle under the content folder (.json: one bundle or an array of them; .jsonl: one a line)."""
    runs: dict[str, Run] = {}
    for folder, dirs, files in os.walk(content):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for file in sorted(files):
            if file.startswith(".") or not file.endswith((".json", ".jsonl")):
                continue
            path = Path(folder) / file
            for bundle in _bundles_of(path):
                run = run_of(bundle, path.relative_to(content).as_posix())
                assert run.name not in runs, f"run {run.name} twice"
                runs[run.name] = run
    return runs


def read_api(site: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    """The API's problem documents and host documents, by slug and by host name."""
    api = site / "api" / "v1"
    problems = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted((api / "problems").glob("*.json"))}
    hosts = {}
    for path in sorted((api / "hosts").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        hosts[doc.get("name", path.stem)] = doc
    return problems, hosts
