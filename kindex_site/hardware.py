"""Is the GPU a run recorded the same GPU as its timing host's? A name is reduced to its model tokens,
memory size and form factor; two GPUs are the same when their models match and nothing contradicts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_BRANDS = {"nvidia", "amd", "intel", "geforce", "tesla", "instinct", "radeon", "quadro", "gpu", "graphics", "card"}
_FORM_FACTORS = {"pcie": "pcie", "sxm": "sxm", "sxm2": "sxm", "sxm3": "sxm", "sxm4": "sxm", "sxm5": "sxm",
                 "nvl": "nvl", "oam": "oam"}
_MEMORY_KINDS = {"hbm", "hbm2", "hbm2e", "hbm3", "hbm3e", "gddr6", "gddr6x"}
_MEMORY = re.compile(r"^(\d{1,15})(gb|g)$")  # bounded: int() refuses 4,300+ digits


@dataclass(frozen=True)
class Gpu:
    models: tuple[frozenset[str], ...]  # alternatives: "MI250X/MI250" is either
    memory_gb: int | None
    form_factor: str | None


def parse_gpu(name: str, form_factor: str | None = None, memory: str | None = None) -> Gpu:
    text = f"{name} {memory or ''}".lower()
    memory_gb = None
    found_form = _FORM_FACTORS.get((form_factor or "").lower().replace("-", "").replace(" ", ""))
    alternatives: list[list[str]] = [[]]
    for chunk in re.split(r"\s+", text.strip()):
        parts = chunk.split("/")
        for i, part in enumerate(parts):
            tokens = [t for t in re.split(r"[^a-z0-9]+", part) if t]
            model_tokens = []
            for token in tokens:
                if token in _BRANDS or token in _MEMORY_KINDS:
                    continue
                if token in _FORM_FACTORS:
                    found_form = found_form or _FORM_FACTORS[token]
                    continue
                m = _MEMORY.match(token)
                if m:
                    memory_gb = int(m[1])
                    continue
                model_tokens.append(token)
            if i == 0:
                for alt in alternatives:
                    alt.extend(model_tokens)
            else:
                # "MI250X/MI250": the part after the slash replaces the last model token
                base = alternatives[0][:-len(model_tokens)] if model_tokens else alternatives[0]
                alternatives.append(base + model_tokens)
    models = tuple(frozenset(a) for a in alternatives if a)
    return Gpu(models, memory_gb, found_form)


@lru_cache(maxsize=4096)  # a corpus names few distinct GPUs, each on thousands of runs
def same_gpu(run_hardware: str, host_product: str, host_form_factor: str | None = None,
             host_memory: str | None = None) -> bool:
    run = parse_gpu(run_hardware)
    host = parse_gpu(host_product, host_form_factor, host_memory)
    if not run.models or not host.models:
        return True  # nothing to compare: no warning on a guess
    if not any(r == h for r in run.models for h in host.models):
        return False
    if run.memory_gb and host.memory_gb and run.memory_gb != host.memory_gb:
        return False
    if run.form_factor and host.form_factor and run.form_factor != host.form_factor:
        return False
    return True
