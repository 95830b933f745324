#!/usr/bin/env python3
"""One table of N runs (one problem, one timing host, one protocol): does a build stay linear in its rows?

For each N, writes a content folder of N runs of the seed bundle (tests/fixtures/seed.json) on one
table, each its own implementation (or, with --per-implementation K, K runs of each: the earlier ones
in the table's history), and times `kindex-site build --clean --timings` with the caps raised
(max_runs_per_table, max_page_bytes, max_site_bytes: a table this big is over their defaults). Prints
wall and CPU time (the build and its workers), the "render and write" phase, and each size's time
against the first's next to the ratio of their sizes.

usage: python benchmarks/one_table.py [N ...] [--per-implementation K] [--work DIR]
       (default 5000 20000 80000; DIR defaults to /dev/shm where there is one: 80,000 runs write 1.9 GB)
needs: kindex-site on PATH (or PYTHONPATH naming the code to time: `python -m kindex_site` is run)
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SEED = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "seed.json"
SETTINGS = "max_runs_per_table = 10000000\nmax_page_bytes = 10000000000\nmax_site_bytes = 1000000000000\n"


def write_table(n: int, project: Path, per_implementation: int) -> None:
    """N runs of one table as one .jsonl file, and settings that let the table be built."""
    seed = json.loads(SEED.read_text(encoding="utf-8"))
    (project / "content").mkdir(parents=True)
    with open(project / "content" / "runs.jsonl", "w", encoding="utf-8") as f:
        for i in range(n):
            implementation, earlier = divmod(i, per_implementation)
            doc = copy.deepcopy(seed)
            run, mean = doc["run"], 1_000_000 + 37 * i
            run["metadata"]["name"] = f"run-{i}"
            run["metadata"]["title"] = f"Gemm BatchNorm Scaling Softmax · Kernel {implementation} · Lab"
            run["spec"]["timing"]["latencyNs"] = {"mean": mean, "minimum": mean, "maximum": mean,
                                                  "confidence95": [mean, mean]}
            run["spec"]["observedAt"] = f"2026-03-{1 + earlier % 28:02d}T08:38:15.000Z"
            run["spec"]["implementationDigest"] = "sha256:" + hashlib.sha256(str(implementation).encode()).hexdigest()
            f.write(json.dumps(doc) + "\n")
    (project / "kindex.toml").write_text(SETTINGS, encoding="utf-8")


def timed_build(project: Path) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds of the build and its workers, the render and write phase's seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kindex_site", "build", "--clean", "--timings"], cwd=project,
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"build failed:\n{proc.stdout}\n{proc.stderr}")
    render = float(re.search(r"([\d.]+) s  render and write", proc.stderr + proc.stdout).group(1))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, render


def main() -> int:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # (as an installed kindex-site runs: its bytecode kept)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", type=int, nargs="*", default=[5000, 20000, 80000])
    parser.add_argument("--per-implementation", type=int, default=1, help="runs per implementation (K-1 in history)")
    parser.add_argument("--work", type=Path, default=Path("/dev/shm") if Path("/dev/shm").is_dir() else None)
    args = parser.parse_args()
    print("| runs | wall | CPU | render and write | vs the first: size, render |")
    print("|---|---|---|---|---|")
    first = None
    for n in args.sizes:
        with tempfile.TemporaryDirectory(dir=args.work) as tmp:
            project = Path(tmp) / "project"
            write_table(n, project, args.per_implementation)
            wall, cpu, render = timed_build(project)
            shutil.rmtree(project / "site", ignore_errors=True)
        first = first or (n, render)
        print(f"| {n:,} | {wall:.1f} s | {cpu:.1f} s | {render:.1f} s | "
              f"{n / first[0]:.0f}×, {render / first[1]:.1f}× |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
