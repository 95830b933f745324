#!/usr/bin/env python3
"""kindex-site against Hugo on the same corpus, as ratios measured side by side.

For each corpus, in each layout of make_corpus.py (arrays, .jsonl, one file per run, one folder per
submission with its kernel's source; the bundled content as it is): lay it out as a Hugo project (../shared/bench/hugo_peer.py), then for several
rounds, alternating, time `hugo` (a full build into an empty folder), `kindex-site build` into an
empty folder with no cache (full: the same start as Hugo's), then again with nothing changed (no-op)
and with one run changed (one file). Then `kindex-site build --watch` runs, and one run is changed
again several times: each is timed from just before the file is written to the watcher's
"Rebuilt in" line (the file-system event, the rebuild and the site's files in place); Hugo
builds once more just after.
Prints medians, the ratios kindex/Hugo-full and peak RSS. Absolute times drift on shared
machines: each ratio is the median of each round's figure over that round's Hugo build.

usage: python benchmarks/vs_hugo.py [--rounds 3] [--sizes bundled 10000 100000] [--layouts arrays jsonl …]
                                   [--work /dev/shm]
needs: hugo on PATH (Debian: apt-get install hugo), /usr/bin/time, and kindex-site installed
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import re
import signal
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date
from pathlib import Path

from make_corpus import LAYOUTS, make_project  # benchmarks/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parent.parent
PEER = ROOT.parent / "shared" / "bench" / "hugo_peer.py"


def timed(cmd: list[str], cwd: Path) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (KiB) and stdout of one command; fails loudly."""
    started = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    rss = int(proc.stderr.strip().splitlines()[-1])
    return seconds, rss, proc.stdout


def emptied(*folders: Path) -> None:
    """Remove what a full build starts without, outside the timing, and let the disk settle.

    Deleting a big site is slow on some disks and goes on in the kernel after rmtree returns (the
    journal, discards): os.sync() keeps that out of the next timing.
    """
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    os.sync()


def first_content_file(content: Path) -> Path:
    """The content file the one-run edits change (found before any clock starts: listing a big
    content tree takes longer than a rebuild)."""
    return min(p for p in content.rglob("*.json*") if p.suffix in (".json", ".jsonl"))


def one_run_changed(path: Path, flip: bool) -> bytes:
    """The content file `path` with one run's observedAt changed: one run updated, as a user would."""
    observed = "2026-02-0%dT00:00:00Z" % (2 if flip else 3)
    if path.suffix == ".jsonl":
        first, rest = path.read_text().split("\n", 1)
        bundle = json.loads(first)
        bundle["run"]["spec"]["observedAt"] = observed
        return (json.dumps(bundle, ensure_ascii=False) + "\n" + rest).encode()
    data = json.loads(path.read_text())
    bundles = data if isinstance(data, list) else [data]
    bundles[0]["run"]["spec"]["observedAt"] = observed
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


def touch_one_run(path: Path, flip: bool) -> None:
    """Write the content file `path` with one run changed (one_run_changed)."""
    path.write_bytes(one_run_changed(path, flip))


def watched_edits(project: Path, kindex: list[str], edits: int, flip_first: bool) -> list[float]:
    """Seconds from a one-run edit to `build --watch` saying it rebuilt, for each of `edits` edits."""
    err_path = project / "watch.err"
    with open(err_path, "w") as err:
        proc = subprocess.Popen([*kindex, "build", "--watch"], cwd=project, stdout=subprocess.PIPE, stderr=err,
                                text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()

    def next_line(starting: tuple[str, ...]) -> str:
        while True:
            try:
                line = lines.get(timeout=600)
            except queue.Empty:
                proc.kill()
                sys.exit(f"build --watch said nothing for 10 minutes:\n{err_path.read_text()}")
            if line.startswith(starting):
                return line

    try:
        next_line(("Watching",))
        edited = first_content_file(project / "content")
        seconds = []
        for i in range(edits):
            time.sleep(0.5)  # the watcher idle again
            changed = one_run_changed(edited, flip=(i % 2 == 0) == flip_first)  # (made before the clock starts)
            started = time.perf_counter()
            edited.write_bytes(changed)
            next_line(("Rebuilt in", "Fixed; rebuilt in"))
            seconds.append(time.perf_counter() - started)
        return seconds
    finally:
        proc.send_signal(signal.SIGTERM)  # (SIGINT is ignored by a job started in the background)
        proc.wait(timeout=60)


def bench(size: str, layout: str, rounds: int, work: Path, watch: bool = True) -> dict:
    project = make_project(size, work, layout)
    hugo_dir = project / "hugo"
    subprocess.run([sys.executable, str(PEER), str(project / "content"), str(hugo_dir)], check=True,
                   stdout=subprocess.DEVNULL)
    kindex = [shutil.which("kindex-site") or "kindex-site"]
    results: dict[str, list] = {"hugo": [], "full": [], "noop": [], "one": []}
    rss: dict[str, int] = {}
    pages = ""
    for r in range(rounds):
        emptied(project / "hugo-out")
        seconds, peak, _ = timed(["hugo", "--quiet", "-s", str(hugo_dir), "-d", str(project / "hugo-out")], project)
        results["hugo"].append(seconds)
        rss["hugo"] = max(rss.get("hugo", 0), peak)
        for name, args in (("full", []), ("noop", []), ("one", [])):
            if name == "full":  # as Hugo's: into an empty folder, and with no cache
                emptied(project / "site", project / ".kindex-cache")
            if name == "one":
                touch_one_run(first_content_file(project / "content"), flip=r % 2 == 0)
            seconds, peak, out = timed([*kindex, "build", *args], project)
            results[name].append(seconds)
            rss[name] = max(rss.get(name, 0), peak)
            if name == "full":
                pages = re.search(r"Built (\d+) pages from (\d+) runs", out).group(0)
    # (The last one-run round wrote flip=(rounds - 1) % 2 == 0: the first watched edit writes the other.)
    hugo_around_watch = [results["hugo"][-1]]
    if watch:
        results["watch"] = watched_edits(project, kindex, max(5, rounds), flip_first=(rounds - 1) % 2 != 0)
        emptied(project / "hugo-out")  # (and Hugo again just after the edits: the machine's speed then)
        hugo_around_watch.append(timed(["hugo", "--quiet", "-s", str(hugo_dir), "-d", str(project / "hugo-out")],
                                       project)[0])
    med = {k: statistics.median(v) for k, v in results.items()}
    # Each figure against the Hugo build of its own round, then the median of those ratios: this
    # machine's speed drifts from one minute to the next, and a round's builds run within seconds.
    ratio = {k: statistics.median(x / h for x, h in zip(results[k], results["hugo"])) for k in ("full", "noop", "one")}
    if "watch" in results:  # (against the Hugo builds just before and just after the edits)
        ratio["watch"] = statistics.median(results["watch"]) / statistics.mean(hugo_around_watch)
    shutil.rmtree(project, ignore_errors=True)  # (the next corpus gets the room: a 100,000-run one is gigabytes)
    return {"size": size, "layout": "as bundled" if size == "bundled" else layout, "what": pages, "median": med,
            "ratio": ratio, "rss": rss}


def main() -> int:
    # As an installed kindex-site runs: its first run writes the package's bytecode, the next ones
    # load it. With PYTHONDONTWRITEBYTECODE set, every timed run would compile the package again.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", nargs="+", default=["bundled", "10000", "100000"])
    parser.add_argument("--layouts", nargs="+", choices=LAYOUTS, default=list(LAYOUTS),
                        help="layouts of the generated corpora (the bundled content is built as it is)")
    parser.add_argument("--no-watch", action="store_true", help="leave out the `build --watch` edits")
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for the corpora and outputs (default: the system's temporary folder); "
                             "/dev/shm takes the disk out of the measure")
    args = parser.parse_args()
    if not shutil.which("hugo"):
        sys.exit("hugo not found: apt-get install hugo")
    rows = []
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        for size in args.sizes:
            for layout in (["arrays"] if size == "bundled" else args.layouts):
                rows.append(bench(size, layout, args.rounds, Path(tmp), watch=not args.no_watch))
                print(f"done: {size} {layout}", file=sys.stderr)
    hugo_version = subprocess.run(["hugo", "version"], capture_output=True, text=True).stdout.split()[1]
    print(f"{date.today()} · {platform.machine()} · {platform.python_implementation()} {platform.python_version()} "
          f"· Hugo {hugo_version} · median of {args.rounds} rounds · in {args.work or tempfile.gettempdir()}")
    print()
    print("Seconds are medians over the rounds; each ratio (in brackets) is the median of the figure's ratios to "
          "the Hugo build of its own round (the `--watch` edits: to the mean of the Hugo builds just before and after).")
    print()
    print("| corpus | layout | built | Hugo full | kindex full (ratio) | no-op (÷ Hugo full) "
          "| one run changed (÷ Hugo full) | one run changed, `--watch` (÷ Hugo full) | peak RSS Hugo / kindex full |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        m, q, rss = row["median"], row["ratio"], row["rss"]
        watched = f"{m['watch']:.2f} s ({q['watch']:.3f})" if "watch" in m else "–"
        print(f"| {row['size']} | {row['layout']} | {row['what']} | {m['hugo']:.2f} s "
              f"| {m['full']:.2f} s ({q['full']:.2f}) | {m['noop']:.2f} s ({q['noop']:.3f}) "
              f"| {m['one']:.2f} s ({q['one']:.3f}) | {watched} "
              f"| {rss['hugo'] // 1024} / {rss['full'] // 1024} MiB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
