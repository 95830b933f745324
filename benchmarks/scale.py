#!/usr/bin/env python3
"""A million-run build against the issue's limits: peak RSS ≤ 2 GiB and a site under GitHub Pages' 1 GB.

Builds a corpus (made with make_corpus.py unless --content names one) with `kindex-site build --clean`
under /usr/bin/time, once per settings file, and prints wall time, peak RSS (the largest of the build
and its render workers) and the bytes written, next to the limits.

  minimal: run_pages = false                    (no page per run; the memory limit holds with it alone)
  all:     + board_csvs = false, api_entries = "arrays"   (docs/scale.md: the site under 1 GB)

usage: python benchmarks/scale.py [N] [--content DIR] [--settings minimal all]
needs: /usr/bin/time and kindex-site installed; a million runs take about 3 GB of corpus, 1 GB of
site and several minutes per build on a 2-core machine
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SETTINGS = {
    "minimal": "run_pages = false\n",
    "all": 'run_pages = false\nboard_csvs = false\napi_entries = "arrays"\n',
}
RSS_LIMIT_KIB = 2 * 2**20  # 2 GiB
SITE_LIMIT_BYTES = 10**9  # GitHub Pages' 1 GB


def file_bytes(folder: Path) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(folder) for f in files)


def main() -> int:
    # As an installed kindex-site runs: its first run writes the package's bytecode, the next ones
    # load it. With PYTHONDONTWRITEBYTECODE set, every timed run would compile the package again.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("n", type=int, nargs="?", default=1_000_000)
    parser.add_argument("--content", type=Path, help="an existing content folder (else one of N runs is made)")
    parser.add_argument("--settings", nargs="+", choices=SETTINGS, default=list(SETTINGS))
    args = parser.parse_args()
    kindex = shutil.which("kindex-site") or sys.exit("kindex-site not found on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        content = args.content
        if content is None:
            content = work / "content"
            subprocess.run([sys.executable, str(Path(__file__).with_name("make_corpus.py")), str(args.n),
                            "--out", str(content)], check=True)
        print("| settings | runs | wall | peak RSS (limit 2 GiB) | files written (limit 1 GB) |")
        print("|---|---|---|---|---|")
        for name in args.settings:
            config = work / f"{name}.toml"
            config.write_text(SETTINGS[name])
            out = work / f"site-{name}"
            started = time.perf_counter()
            proc = subprocess.run(["/usr/bin/time", "-v", kindex, "build", "--clean", "--config", str(config),
                                   "--content", str(content.resolve()), "--out", str(out)],
                                  cwd=work, capture_output=True, text=True)
            wall = time.perf_counter() - started
            if proc.returncode != 0:
                sys.exit(f"build failed:\n{proc.stdout}\n{proc.stderr}")
            rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
            runs = re.search(r"from (\d+) runs", proc.stdout).group(1)
            size = file_bytes(out)
            print(f"| {name} | {int(runs):,} | {wall:.0f} s | {rss / 2**20:.2f} GiB "
                  f"({'within' if rss <= RSS_LIMIT_KIB else 'over'}) | {size / 1e9:.3f} GB "
                  f"({'within' if size <= SITE_LIMIT_BYTES else 'over'}) |", flush=True)
            shutil.rmtree(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
