"""What each GPU can do: dense peak throughput per precision, DRAM bandwidth and on-chip cache, each
figure with the vendor document it comes from (gpus.toml), and a site's own corrections (kindex.toml's
`gpus`). docs/gpus.md lists every figure and how a printed one is converted.

GPUs are found by the names runs and hosts give them; an unknown or ambiguous GPU is None, and then
nothing is claimed about it. Standard library only: kindex.toml is checked with it on a no-op build.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .hardware import Gpu, parse_gpu, same_gpu

TABLE_FILE = Path(__file__).with_name("gpus.toml")

# Operations per second, dense. fp64 and fp32 are the vector (CUDA core) units; fp64_tensor and
# fp32_matrix the Tensor/Matrix Core paths of the same precision (AMD's matrix and packed FP32).
PEAKS = ("fp64", "fp64_tensor", "fp32", "fp32_matrix", "tf32", "fp16", "bf16", "fp8", "int8")
FIGURES = (*PEAKS, "dram_bytes_per_s", "l2_bytes")
DESCRIPTIONS = ("product", "form_factor", "memory", "also_named", "note")
FIGURE_KEYS = ("value", "printed", "sparse", "per", "derivation", "source", "where")

_FASTER_PATH = {"fp64": "fp64_tensor", "fp32": "fp32_matrix"}
_RATE_UNITS = {"teraflops": 1e12, "tflops": 1e12, "tf": 1e12, "tops": 1e12, "petaflops": 1e15,
               "pflops": 1e15, "pops": 1e15}
_BANDWIDTH_UNITS = {"tb/s": 1e12, "gb/s": 1e9}
_SIZE_UNITS = {"mb": 2**20, "kb": 2**10, "mib": 2**20, "kib": 2**10}  # a cache's MB is binary
_PRINTED = re.compile(r"^\s*(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)\s*([A-Za-z/]+)\s*\*?\s*$")


def units_of(figure: str) -> dict[str, float]:
    if figure == "dram_bytes_per_s":
        return _BANDWIDTH_UNITS
    if figure == "l2_bytes":
        return _SIZE_UNITS
    return _RATE_UNITS


@dataclass(frozen=True)
class GpuFigures:
    """One GPU's figures; a figure no source gives is absent (peaks) or None."""

    name: str
    peaks: dict[str, float]  # precision → dense operations per second
    dram_bytes_per_s: float | None
    l2_bytes: int | None  # what can stay on chip between calls: L2, or MI300X's Infinity Cache
    sources: dict[str, str]  # figure → where it comes from and how it was converted
    note: str

    def peak(self, precision: str) -> float | None:
        """The fastest dense rate of a precision on any unit: FP64 and FP32 matrix paths included."""
        rates = [r for r in (self.peaks.get(precision), self.peaks.get(_FASTER_PATH.get(precision, ""))) if r]
        return max(rates) if rates else None


@dataclass(frozen=True)
class _Entry:
    name: str
    gpu: Gpu
    also_named: frozenset[str]  # exact device strings (nvidia-smi's "NVIDIA H100 80GB HBM3")
    figures: GpuFigures


class GpuTable:
    """The GPUs a site knows, found by the names runs and hosts give them."""

    def __init__(self, entries: list[_Entry]):
        self._entries = tuple(sorted(entries, key=lambda e: e.name))

    def __iter__(self):
        return (e.figures for e in self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, name: str) -> GpuFigures | None:
        return next((e.figures for e in self._entries if e.name == name), None)

    def find(self, product: str, form_factor: str | None = None, memory: str | None = None) -> GpuFigures | None:
        """The one GPU these names can be; None when none or several can."""
        wanted, named = parse_gpu(product, form_factor, memory), parse_gpu(product)
        if not wanted.models or not _agrees(named, wanted, models=False):  # "H100 PCIe" given as SXM
            return None
        spelled = _spelling(product)
        exact = [e for e in self._entries if spelled in e.also_named and _agrees(wanted, e.gpu, models=False)]
        if len(exact) == 1:
            return exact[0].figures
        found = [e for e in self._entries if _agrees(wanted, e.gpu, models=True)]
        return found[0].figures if len(found) == 1 else None

    def find_for_run(self, recorded: str | None, product: str, form_factor: str | None = None,
                     memory: str | None = None) -> GpuFigures | None:
        """A run's GPU: its own recorded one where that differs from its host's, else the host's, the
        recorded name settling what the host leaves open."""
        if recorded and not same_gpu(recorded, product, form_factor, memory):
            return self.find(recorded)
        host = self.find(product, form_factor, memory)
        if host is not None or not recorded:
            return host
        return self.find(recorded, form_factor, memory)


def _spelling(name: str) -> str:
    return " ".join(name.split()).casefold()


def _agrees(wanted: Gpu, entry: Gpu, models: bool) -> bool:
    if models and not any(w == e for w in wanted.models for e in entry.models):
        return False
    if wanted.memory_gb and entry.memory_gb and wanted.memory_gb != entry.memory_gb:
        return False
    return not (wanted.form_factor and entry.form_factor and wanted.form_factor != entry.form_factor)


def figure_value(figure: str, spec: dict) -> float:
    """A figure's value in operations, bytes per second or bytes, from the way its source prints it."""
    if "value" in spec:
        return spec["value"]
    m = _PRINTED.match(spec["printed"])
    units = units_of(figure)
    if not m or m[2].lower() not in units:
        raise ValueError(f"printed: {spec['printed']!r} is not a number with one of the units {', '.join(units)}")
    value = float(m[1].replace(",", "")) * units[m[2].lower()]
    return value / (2 if spec.get("sparse") else 1) / spec.get("per", 1)


def check_figure(figure: str, spec) -> tuple[tuple[str, object], ...]:
    """A figure's table as kindex.toml or gpus.toml gives it, checked; its items sorted."""
    if not isinstance(spec, dict):
        raise ValueError("Input should be a table with value (or printed) and source")
    for key in spec:
        if key not in FIGURE_KEYS:
            raise ValueError(f"{key}: Extra inputs are not permitted")
    if "source" not in spec:
        raise ValueError("source: Field required")
    for key in ("source", "where", "printed", "derivation"):
        if key in spec and (not isinstance(spec[key], str) or not spec[key].strip()):
            raise ValueError(f"{key}: Input should be a non-empty string")
    if ("value" in spec) == ("printed" in spec):
        raise ValueError("Input should have either value or printed")
    if "value" in spec:
        value = spec["value"]
        if type(value) not in (int, float) or not 0 < value < math.inf:
            raise ValueError("value: Input should be a number greater than 0")
        if "sparse" in spec or "per" in spec:
            raise ValueError("value: is the dense figure for one GPU; sparse and per go with printed")
    if "sparse" in spec and type(spec["sparse"]) is not bool:
        raise ValueError("sparse: Input should be a valid boolean")
    if "sparse" in spec and figure not in PEAKS:
        raise ValueError("sparse: only a peak throughput is printed with sparsity")
    if "per" in spec and (type(spec["per"]) is not int or not 1 <= spec["per"] <= 1024):
        raise ValueError("per: Input should be a whole number of GPUs or dies, at least 1")
    figure_value(figure, spec)
    return tuple(sorted(spec.items()))


def check_entry(name: str, entry) -> tuple[tuple[str, object], ...]:
    """One GPU's table, checked; its items sorted, each figure's as sorted pairs (Config stays hashable)."""
    if not isinstance(entry, dict):
        raise ValueError(f"{name}: Input should be a table of figures")
    if not name.strip():
        raise ValueError(f"{name!r}: Input should be a GPU's name")
    items = []
    for key, value in entry.items():
        if key in FIGURES:
            try:
                items.append((key, check_figure(key, value)))
            except ValueError as e:
                raise ValueError(f"{name}: {key}: {e}") from None
        elif key == "also_named":
            if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
                raise ValueError(f"{name}: also_named: Input should be a list of GPU names")
            items.append((key, tuple(value)))
        elif key in DESCRIPTIONS:
            if not isinstance(value, str):
                raise ValueError(f"{name}: {key}: Input should be a valid string")
            items.append((key, value))
        else:
            raise ValueError(f"{name}: {key}: Extra inputs are not permitted")
    return tuple(sorted(items))


def _source_text(figure: str, spec: dict, value: float, documents: dict) -> str:
    """Where a figure comes from, as a reader can check it: the document, its place, what it prints, the conversion."""
    document = documents.get(spec["source"])
    cited = (f"{document['title']} ({document['year']}), {document['url']}" if document else spec["source"])
    parts = [cited]
    if "where" in spec:
        parts.append(spec["where"])
    if "printed" in spec:
        steps = [f"prints “{spec['printed']}”"]
        if spec.get("sparse"):
            steps.append("with sparsity, halved for dense")
        if spec.get("per", 1) > 1:
            steps.append(f"divided by {spec['per']} (printed for {spec['per']} GPUs or dies)")
        parts.append(", ".join(steps))
    if "derivation" in spec:
        parts.append(f"derived: {spec['derivation']}")
    unit = "bytes" if figure == "l2_bytes" else "B/s" if figure == "dram_bytes_per_s" else "ops/s"
    return "; ".join(parts) + f" → {value:.6g} {unit}"


def _figures(name: str, entry: dict, documents: dict) -> GpuFigures:
    values, sources = {}, {}
    for figure in FIGURES:
        if figure in entry:
            spec = dict(entry[figure])
            values[figure] = figure_value(figure, spec)
            sources[figure] = _source_text(figure, spec, values[figure], documents)
    l2 = values.get("l2_bytes")
    return GpuFigures(name=name, peaks={p: values[p] for p in PEAKS if p in values},
                      dram_bytes_per_s=values.get("dram_bytes_per_s"),
                      l2_bytes=round(l2) if l2 is not None else None, sources=sources, note=entry.get("note", ""))


def _entry(name: str, entry: dict, documents: dict) -> _Entry:
    product = entry.get("product", name)  # a site's new GPU may be named by its product alone
    gpu = parse_gpu(product, entry.get("form_factor"), entry.get("memory"))
    names = frozenset(_spelling(n) for n in (name, *entry.get("also_named", ())))
    return _Entry(name, gpu, names, _figures(name, entry, documents))


@lru_cache(maxsize=1)
def _package_table() -> tuple[dict, dict]:
    """gpus.toml: its documents and its GPUs' entries (checked as a site's corrections are)."""
    data = tomllib.loads(TABLE_FILE.read_text(encoding="utf-8"))
    entries = {name: dict(check_entry(name, entry)) for name, entry in data["gpus"].items()}
    return data["documents"], entries


def load_gpus(overrides: tuple = ()) -> GpuTable:
    """The package's table with a site's corrections (Config.gpus): a figure given replaces the package's."""
    documents, entries = _package_table()
    merged = {name: dict(entry) for name, entry in entries.items()}
    for name, items in overrides:
        merged.setdefault(name, {}).update(dict(items))
    return GpuTable([_entry(name, {k: dict(v) if k in FIGURES else v for k, v in entry.items()}, documents)
                     for name, entry in merged.items()])
