#!/usr/bin/env python3
"""Generate a realistic corpus of N runs, deterministic from a seed.

It writes KernelBench-native timing files (results/timing/<HOST>/baseline_time_<impl>.json, times in
ms, `null` for failures, some records without std) for up to 16 published hosts × 6 implementations,
then converts them with `kindex-site import kernelbench` — so the bundles have exactly the shapes the
importer writes, one JSON array per host × implementation.

usage: python benchmarks/make_corpus.py N --out DIR [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kindex_site.importers.kernelbench import HOSTS, import_kernelbench

IMPLEMENTATIONS = ["torch", "torch_compile_inductor_default", "torch_compile_inductor_reduce-overhead",
                   "torch_compile_inductor_max-autotune", "torch_compile_inductor_max-autotune-no-cudagraphs",
                   "torch_compile_cudagraphs"]
WORDS = ["Gemm", "Conv2d", "ReLU", "Softmax", "BatchNorm", "LayerNorm", "GELU", "Matmul", "Scaling", "Sum",
         "Max", "Dropout", "Attention", "Mean", "Tanh", "Sigmoid", "Transpose", "Pool", "Bias", "Residual"]


def hardware_string(name: str) -> str:
    host = HOSTS[name]
    if name == "MI250":
        return "AMD Instinct MI250X/MI250"
    return f"{host.product} PCIe" if name == "H100_PCIe_LambdaLabs" else host.product


def native_files(n: int, root: Path, rng: random.Random) -> int:
    hosts = list(HOSTS)
    per_problem = len(hosts) * len(IMPLEMENTATIONS)
    problems = max(1, math.ceil(n / per_problem))
    names = []
    for p in range(problems):
        level = 1 + p % 3
        words = "_".join(rng.sample(WORDS, 3))
        names.append((f"level{level}", f"{p + 1}_{words}.py"))
    base = {name: math.exp(rng.uniform(math.log(0.01), math.log(50))) for name in names}
    speed = {h: rng.uniform(0.5, 2.0) for h in hosts}
    made = 0
    for h in hosts:
        for impl_index, impl in enumerate(IMPLEMENTATIONS):
            data: dict[str, dict] = {"level1": {}, "level2": {}, "level3": {}}
            for name in names:
                if made >= n:
                    break
                made += 1
                if rng.random() < 0.05:
                    data[name[0]][name[1]] = None  # a failed run
                    continue
                mean = base[name] * speed[h] * rng.uniform(0.6, 1.4) * (1 + 0.05 * impl_index)
                std = mean * rng.choice([0.005, 0.02, 0.05, 0.15])
                record = {"mean": round(mean, 4), "std": round(std, 5), "min": round(mean * 0.95, 4),
                          "max": round(mean * rng.choice([1.05, 1.2, 2.5]), 4), "num_trials": 100,
                          "hardware": hardware_string(h), "device": "cuda:0"}
                if rng.random() < 0.03:
                    del record["std"]  # no interval
                data[name[0]][name[1]] = record
            folder = root / h
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"baseline_time_{impl}.json").write_text(json.dumps(data))
    return made


def make_project(size: str, work: Path) -> Path:
    """A folder `work/corpus-<size>` holding content/: the repository's bundled content, or N generated runs."""
    project = work / f"corpus-{size}"
    if size == "bundled":
        shutil.copytree(Path(__file__).resolve().parent.parent / "content", project / "content")
    else:
        subprocess.run([sys.executable, __file__, size, "--out", str(project / "content")], check=True,
                       stdout=subprocess.DEVNULL)
    return project


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("n", type=int)
    parser.add_argument("--out", type=Path, required=True, help="content folder to write")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        made = native_files(args.n, Path(tmp), random.Random(args.seed))
        result = import_kernelbench([Path(tmp)], args.out / "kernelbench", observed_at="2026-01-01T00:00:00Z")
    print(f"{made} runs ({result.statuses.get('failed', 0)} failed) in {args.out} "
          f"({time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
