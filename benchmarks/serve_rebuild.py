#!/usr/bin/env python3
"""Time from a one-file change to `kindex-site serve` serving the rebuilt page with the new value.

For each corpus (the bundled content/, and generated ones from make_corpus.py): copy it into a temporary
project, start `kindex-site serve` on a free port, wait for the first build, then several times change one
run's mean latency in its file (re-written as the importer writes it: one number differs) and poll that
run's page over HTTP until it shows the new value. Prints, per corpus, the median and range of

- change → served: from just before the file is written to the page holding the new value, fetched the
  way an open browser tab gets it: its long poll of `__kindex/events` answers when the rebuild is done,
  then the page is fetched (so nothing polls the server while it builds);
- detect: from the write to the rebuild starting (file-system event, watchfiles' debounce, hand-off);
- build: the whole rebuild (`build(config, memo=…)`), with its phases (BuildResult.timings) as medians.

Each edit waits until the server is idle again, so one edit's rebuild never overlaps the next.

The first edit warms up and is not counted. Absolute times drift on shared machines: compare within a run.

usage: python benchmarks/serve_rebuild.py [--sizes bundled 20000] [--edits 7]
needs: kindex-site installed (pip install -e .)
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from make_corpus import make_project  # benchmarks/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(port: int, path: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path)
        return conn.getresponse().read()
    finally:
        conn.close()


def status(port: int) -> dict:
    return json.loads(fetch(port, "/__kindex/status"))


def idle(port: int, after: int) -> dict:
    """The status once build number `after` or a later one is done and nothing else is running or due."""
    while True:
        state = status(port)
        if state["build"] >= after and not state["building"] and not state["pending"]:
            return state
        time.sleep(0.01)


def target(content: Path) -> tuple[Path, int, str, tuple[int, int]]:
    """The first file, the index of its first run with a 95% interval, that run's name and interval."""
    path = sorted(content.rglob("*.json"))[0]
    bundles = json.loads(path.read_text(encoding="utf-8"))
    bundles = bundles if isinstance(bundles, list) else [bundles]
    for index, b in enumerate(bundles):
        timing = b["run"]["spec"].get("timing")
        latency = timing["latencyNs"] if timing else {}
        if latency.get("confidence95"):  # a new mean inside the interval and the range stays valid
            lo = max(latency["confidence95"][0], latency.get("minimum", 0))
            hi = min(latency["confidence95"][1], latency.get("maximum", 2**53))
            if hi - lo > 100:
                return path, index, b["run"]["metadata"]["name"], (lo, hi)
    raise SystemExit(f"{path}: no run with room in its 95% interval to edit")


def with_mean(path: Path, index: int, mean: int) -> bytes:
    """The content file `path` with one run's mean changed, written as the importer writes."""
    data = json.loads(path.read_text(encoding="utf-8"))
    (data[index] if isinstance(data, list) else data)["run"]["spec"]["timing"]["latencyNs"]["mean"] = mean
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def measure(size: str, edits: int, work: Path) -> dict:
    project = make_project(size, work)
    path, index, name, (lo, hi) = target(project / "content")
    port = free_port()
    log = open(project / "serve.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "kindex_site", "serve", "--port", str(port)], cwd=project,
                            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        started = time.perf_counter()
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"serve exited:\n{(project / 'serve.log').read_text()}")
            try:
                state = status(port)
                if state["build"] >= 1 and state["watching"] and not state["building"]:
                    break
            except OSError:
                pass
            time.sleep(0.05)
        first = time.perf_counter() - started
        if not state["ok"]:
            raise SystemExit(f"the first build failed: {state['errors'][:3]}")
        runs = json.loads(fetch(port, "/api/v1/index.json"))["runs"]
        page = f"/runs/{name}/"
        rows = []
        for i in range(edits + 1):
            mean = lo + 1 + i * max(1, (hi - lo - 2) // (edits + 2))  # inside its interval: still valid
            state = idle(port, 0)
            before, version = state["build"], state["version"]
            needle = f">{mean}<".encode()  # the run page shows the document's raw nanoseconds
            changed = with_mean(path, index, mean)  # (made before the clock starts)
            t0 = time.time()
            path.write_bytes(changed)
            while True:
                version = json.loads(fetch(port, f"/__kindex/events?since={version}"))["version"]
                if needle in fetch(port, page):
                    break
                if time.time() - t0 > 300:
                    raise SystemExit(f"the new value never showed:\n{(project / 'serve.log').read_text()[-3000:]}")
            t1 = time.time()
            time.sleep(0.2)  # a second event for the same save would show as a second rebuild
            state = idle(port, before + 1)
            last = state["last"]
            if not state["ok"]:
                raise SystemExit(f"the edit broke the content: {state['errors'][:3]}")
            if i:  # the first edit warms up
                rows.append({"total": t1 - t0, "detect": last["started"] - t0, "build": last["seconds"],
                             "changed": last["changed"], "builds": state["build"] - before,
                             "timings": last["timings"]})
        return {"size": size, "runs": runs, "first": first, "rows": rows}
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def report(result: dict) -> None:
    rows = result["rows"]

    def med(key):
        values = [r[key] for r in rows]
        return f"{statistics.median(values):6.3f} s ({min(values):.3f}–{max(values):.3f})"

    print(f"\n{result['size']}: {result['runs']} runs; first build {result['first']:.1f} s; "
          f"{len(rows)} edits of one run's mean in one file")
    print(f"  change → served  {med('total')}")
    print(f"    detect         {med('detect')}")
    print(f"    build          {med('build')}")
    print(f"  files changed per rebuild: {sorted({r['changed'] for r in rows})}; "
          f"rebuilds per edit: {sorted({r['builds'] for r in rows})}")
    phases = list(rows[0]["timings"])
    print("  build phases (median):")
    for phase in phases:
        print(f"    {statistics.median(r['timings'].get(phase, 0.0) for r in rows):7.3f} s  {phase}")


def main() -> None:
    # As an installed kindex-site runs: its first run writes the package's bytecode, the next ones
    # load it. With PYTHONDONTWRITEBYTECODE set, every timed run would compile the package again.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["bundled", "20000"],
                        help="'bundled' (content/) and/or run counts for make_corpus.py")
    parser.add_argument("--edits", type=int, default=7, help="measured edits per corpus (after one warm-up)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kindex-serve-bench-") as work:
        for size in args.sizes:
            report(measure(size, args.edits, Path(work)))


if __name__ == "__main__":
    main()
