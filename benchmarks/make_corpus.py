#!/usr/bin/env python3
"""Generate a realistic corpus of N runs, deterministic from a seed, in one of four layouts.

It writes KernelBench-native timing files (results/timing/<HOST>/baseline_time_<impl>.json, times in
ms, `null` for failures, some records without std) for up to 16 published hosts × 6 implementations,
then converts them with `kindex-site import kernelbench` — so the bundles have exactly the shapes the
importer writes. The same runs, laid out as (`--layout`):

- `arrays`: one JSON array per host × implementation, as the importer writes by default
  (`kernelbench/<HOST>/baseline_time_<impl>.json`);
- `jsonl`: the same files as `.jsonl`, one bundle a line;
- `one-file-per-run`: one bundle per file, as `import kernelbench --one-file-per-run` and `new-run`
  write them (`kernelbench/<HOST>/<run name>.json`, an indented object);
- `folders`: one folder per submission, `submissions/<HOST>/<run name>/`, holding the bundle (as
  `new-run` writes it) and its kernel's source, `kernel.py`, named by `implementationSource` and
  digested in `implementationDigest` (one kernel per problem × implementation, shared by the hosts'
  runs, as a lab's generated kernel is).

usage: python benchmarks/make_corpus.py N --out DIR [--seed 1] [--layout arrays|jsonl|one-file-per-run|folders]
"""

from __future__ import annotations

import argparse
import hashlib
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


LAYOUTS = ("arrays", "jsonl", "one-file-per-run", "folders")
ROOT = Path(__file__).resolve().parent.parent
# The bundled generated kernels (KernelBench leaderboard): what a submission's source looks like.
KERNELS = ROOT / "content" / "kernelbench-leaderboard"


def make_project(size: str, work: Path, layout: str = "arrays") -> Path:
    """A folder `work/corpus-<size>[-<layout>]` holding content/: the repository's bundled content,
    or N generated runs in `layout`."""
    project = work / (f"corpus-{size}" if layout == "arrays" else f"corpus-{size}-{layout}")
    if size == "bundled":
        shutil.copytree(ROOT / "content", project / "content")
    else:
        subprocess.run([sys.executable, __file__, size, "--out", str(project / "content"), "--layout", layout],
                       check=True, stdout=subprocess.DEVNULL)
    return project


def _dump(value) -> bytes:
    """JSON as the importer and `new-run` write it."""
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def as_jsonl(folder: Path) -> None:
    """Each array file under folder rewritten as .jsonl, one bundle a line."""
    for path in sorted(folder.rglob("*.json")):
        lines = [json.dumps(b, ensure_ascii=False) + "\n" for b in json.loads(path.read_bytes())]
        if lines:  # (an empty array is a valid .json file; an empty .jsonl file is not)
            path.with_suffix(".jsonl").write_text("".join(lines), encoding="utf-8")
        path.unlink()


def as_folders(imported: Path, out: Path, rng: random.Random) -> None:
    """Each one-run file under imported moved to a folder of its own under out, beside its kernel."""
    kernels = sorted(KERNELS.glob("*.src/*.py"))
    sources: dict[tuple[str, str], bytes] = {}  # (problem, implementation) → its kernel
    for path in sorted(imported.rglob("*.json")):
        bundle = json.loads(path.read_bytes())
        run = bundle["run"]
        native = run["spec"]["sourceNative"]
        key = (native["externalId"].split("/", 1)[-1], run["metadata"]["title"].split(" · ")[1])
        kernel = sources.get(key)
        if kernel is None:
            header = f"# {key[1]}: {key[0]} (generated kernel)\n"
            kernel = sources[key] = header.encode("utf-8") + rng.choice(kernels).read_bytes()
        run["spec"]["implementationDigest"] = "sha256:" + hashlib.sha256(kernel).hexdigest()
        run["spec"]["implementationSource"] = {"path": "kernel.py", "language": "python"}
        folder = out / "submissions" / path.parent.name / path.stem
        folder.mkdir(parents=True)
        (folder / f"{path.stem}.json").write_bytes(_dump(bundle))
        (folder / "kernel.py").write_bytes(kernel)


def write_corpus(n: int, out: Path, seed: int = 1, layout: str = "arrays"):
    """N runs under out in `layout`: (runs made, the importer's result)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        native = Path(tmp) / "native"
        made = native_files(n, native, rng)
        imported = out / "kernelbench" if layout != "folders" else Path(tmp) / "imported"
        result = import_kernelbench([native], imported, observed_at="2026-01-01T00:00:00Z",
                                    one_file_per_run=layout in ("one-file-per-run", "folders"))
        if layout == "jsonl":
            as_jsonl(imported)
        elif layout == "folders":
            as_folders(imported, out, rng)
    return made, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("n", type=int)
    parser.add_argument("--out", type=Path, required=True, help="content folder to write")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--layout", choices=LAYOUTS, default="arrays")
    args = parser.parse_args()
    started = time.perf_counter()
    made, result = write_corpus(args.n, args.out, args.seed, args.layout)
    print(f"{made} runs ({result.statuses.get('failed', 0)} failed) in {args.out}, {args.layout} "
          f"({time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
