"""What each GPU can do, read from the package's data file (kindex_site/gpus.toml) with tomllib and a
site's corrections (kindex.toml's [gpus]), each printed figure converted here from the way docs/gpus.md
says it is written: "1,979 teraFLOPS*" with `sparse = true` is halved (dense), `per = 2` divides a
figure printed for two dies, a rate's tera is 10^12 and peta 10^15, a bandwidth's TB and GB decimal, a
cache's MB, KB, MiB and KiB binary. A peak of a precision is its fastest dense unit: FP32 the larger of
`fp32` and `fp32_matrix`, FP64 of `fp64` and `fp64_tensor` (docs/gpus.md, "The figures").

Which GPU a run was timed on is NOT found as the product finds it (kindex_site/gpus.py parses any name
into model tokens, form factor and memory and matches them): here it is an explicit list of the names
the bundled and synthetic content write (`NAMES`), each with the table's GPUs it can be. A name the list
does not know is reported by the comparison, never guessed.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

TABLE = Path(__file__).resolve().parents[2] / "kindex_site" / "gpus.toml"

_RATE = {"teraflops": 10**12, "tflops": 10**12, "tops": 10**12, "tf": 10**12, "petaflops": 10**15,
         "pflops": 10**15, "pops": 10**15}
_BANDWIDTH = {"tb/s": 10**12, "gb/s": 10**9}
_CACHE = {"mb": 2**20, "kb": 2**10, "mib": 2**20, "kib": 2**10}
_PRINTED = re.compile(r"^\s*([\d,]+(?:\.\d+)?)\s*([A-Za-z/]+)\s*\*?\s*$")

# The names runs (sourceNative.hardware) and hosts (environment.spec.hardware: product and form factor)
# are written under in the bundled and synthetic content → the table's GPUs each can be.
NAMES: dict[str, tuple[str, ...]] = {
    "NVIDIA H100 PCIe": ("NVIDIA H100 PCIe",),
    "NVIDIA H100 · PCIe": ("NVIDIA H100 PCIe",),
    "NVIDIA L4": ("NVIDIA L4",),
    "NVIDIA L4 · PCIe": ("NVIDIA L4",),
    "NVIDIA L40S": ("NVIDIA L40S",),
    "NVIDIA L40S · PCIe": ("NVIDIA L40S",),
    "AMD Instinct MI250 · OAM": ("AMD Instinct MI250",),
    "AMD Instinct MI250X/MI250": ("AMD Instinct MI250X", "AMD Instinct MI250"),  # ROCm's name for either
    "NVIDIA A100-SXM4-80GB": ("NVIDIA A100 80GB SXM",),  # nvidia-smi's
    "Synth X1 · PCIe": ("Synth X1",),  # the synthetic content's own GPU (its kindex.toml adds it)
    "Synth Z9 · PCIe": (),  # a GPU no table has
}


@dataclass(frozen=True)
class Figures:
    name: str
    peaks: dict[str, Fraction]  # precision → dense operations per second
    bandwidth: Fraction | None  # DRAM bytes per second
    l2: int | None  # bytes that can stay on chip between timed calls

    def peak(self, precision: str) -> Fraction | None:
        faster = {"fp32": "fp32_matrix", "fp64": "fp64_tensor"}.get(precision)
        rates = [r for r in (self.peaks.get(precision), self.peaks.get(faster)) if r]
        return max(rates) if rates else None


def figure(name: str, spec: dict) -> Fraction:
    """One figure in operations/s, bytes/s or bytes, exactly, from its `value` or its `printed` text."""
    if "value" in spec:
        return Fraction(str(spec["value"]))
    found = _PRINTED.match(spec["printed"])
    assert found, f"{spec['printed']!r}: not a number and a unit"
    units = _CACHE if name == "l2_bytes" else _BANDWIDTH if name == "dram_bytes_per_s" else _RATE
    value = Fraction(found.group(1).replace(",", "")) * units[found.group(2).lower()]
    return value / (2 if spec.get("sparse") else 1) / spec.get("per", 1)


def read_gpus(overrides: dict | None = None) -> dict[str, Figures]:
    """The package's GPUs with a site's corrections: a figure a site gives replaces the package's."""
    with TABLE.open("rb") as f:
        entries = {name: dict(entry) for name, entry in tomllib.load(f)["gpus"].items()}
    for name, entry in (overrides or {}).items():
        entries.setdefault(name, {}).update(entry)
    table = {}
    for name, entry in entries.items():
        figures = {k: figure(k, v) for k, v in entry.items() if isinstance(v, dict)}
        l2 = figures.pop("l2_bytes", None)
        table[name] = Figures(name, {k: v for k, v in figures.items() if k != "dram_bytes_per_s"},
                              figures.get("dram_bytes_per_s"), None if l2 is None else round(l2))
    return table


def host_name(product: str, form_factor: str | None) -> str:
    return f"{product} · {form_factor}" if form_factor else product


class UnknownName(Exception):
    """A GPU name NAMES does not list: the recomputation cannot tell which GPU it is."""


def gpu_of_run(recorded: str | None, product: str, form_factor: str | None) -> str | None:
    """The table's GPU a run was timed on: the one its recorded GPU names where that is not its host's
    GPU, else its host's; None when the name is known to be none or several of the table's."""
    host = host_name(product, form_factor)
    if host not in NAMES:
        raise UnknownName(host)
    of_host = NAMES[host]
    if recorded is None:
        return of_host[0] if len(of_host) == 1 else None
    if recorded not in NAMES:
        raise UnknownName(recorded)
    named = NAMES[recorded]
    if len(of_host) == 1 and of_host[0] in named:
        return of_host[0]
    return named[0] if len(named) == 1 else None
