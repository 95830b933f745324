"""`kindex-site import kernelbench`: KernelBench's own timing files → kernelindex bundles.

Each entry of ``results/timing/<HOST>/baseline_time_<implementation>.json`` becomes one bundle in the
seed's shape, its source's values kept in ``sourceNative``. Its workload is the problem's source in the
KernelBench version the timing was made with (docs/importing.md has the rules in full). Its parts:
`kernelbench_files`, `kernelbench_history`, `kernelbench_workloads`, `kernelbench_hosts`, `kernelbench_runs`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import KindexError, plural
from .common import add_source_parser, dump, parse_observed_at, report, stop_if_any, write_changed
from .kernelbench_files import (SOURCE, Z95, Result, date_by_history, find_files, problem_names, problems_folder,
                                read_and_date)
from .kernelbench_history import History
from .kernelbench_hosts import HOSTS, Held, timing_hosts
from .kernelbench_runs import bundle_files
from .kernelbench_workloads import match_versions

__all__ = ["HOSTS", "SOURCE", "Z95", "add_parser", "import_kernelbench", "run"]  # what tests and benchmarks use


EXAMPLE = (
    "example:\n"
    "  kindex-site import kernelbench ../KernelBench/results/timing --out content/kernelbench \\\n"
    "      --repo ../KernelBench\n"
    "  kindex-site import kernelbench results/timing/L40S_matx3 --out content/kernelbench "
    "--observed-at 2025-01-20"
)


def add_parser(sources) -> None:
    p = add_source_parser(
        sources, "kernelbench", help="KernelBench results/timing files",
        description="Convert KernelBench baseline timing files (results/timing/<HOST>/baseline_time_*.json) "
                    "into bundles: one JSON array per source file, written under --out/<HOST>/.",
        example=EXAMPLE,
    )
    p.add_argument("sources", nargs="+", metavar="SRC", type=Path,
                   help="a host folder (holding baseline_time_*.json) or a results/timing folder holding several")
    p.add_argument("--out", required=True, metavar="DIR", type=Path, help="folder to write the bundles to")
    problems = p.add_mutually_exclusive_group()
    problems.add_argument("--repo", metavar="KERNELBENCH_GIT_DIR", type=Path,
                          help="a KernelBench git checkout: each timing file's workloads then hash the problem "
                               "sources of the KernelBench version it was made with, found in the history")
    problems.add_argument("--problems", metavar="KERNELBENCH_DIR", type=Path,
                          help="a KernelBench checkout's KernelBench/ folder: workload digests then hash each "
                               "problem's source there, whatever the timing file's date")
    p.add_argument("--observed-at", metavar="ISO",
                   help="date-time for files PROVENANCE.txt does not date (without it, such a file is an error: "
                        "a file's modification time is not when it was timed)")
    p.add_argument("--one-file-per-run", action="store_true",
                   help="write one bundle per file (<HOST>/<run name>.json) instead of one array per source file")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    result = import_kernelbench(args.sources, args.out, problems=args.problems, repo=args.repo,
                                observed_at=args.observed_at, one_file_per_run=args.one_file_per_run)
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(result.statuses.items()))
    return report(result, f"Imported {plural(result.runs, 'run')}{f' ({statuses})' if statuses else ''} from "
                          f"{plural(result.sources, 'file')} on {plural(result.hosts, 'host')}", args.out)

def import_kernelbench(sources: list[Path], out: Path, *, problems: Path | None = None, repo: Path | None = None,
                       observed_at: str | None = None, one_file_per_run: bool = False) -> Result:
    if problems is not None and repo is not None:
        raise KindexError("--repo, --problems: give one of them, not both")
    result = Result()
    errors: list[str] = []
    fallback = parse_observed_at(observed_at) if observed_at is not None else None
    problems_dir = problems_folder(problems) if problems is not None else None
    history = History(repo) if repo is not None else None

    files = find_files(sources, errors)
    read_and_date(files, sources, fallback, errors, undated_ok=history is not None)
    if history is not None and not errors:
        date_by_history(files, history, result, errors)
    stop_if_any(errors)
    held = Held.read(out)
    hosts = timing_hosts(files, held, result, errors)
    stop_if_any(errors)
    files = [f for host in hosts for f in host.files]
    source_sha256: dict[str, str] = {}  # with --repo: problem source blob → hex SHA-256 of its bytes
    if history is not None:
        match_versions(files, history, result, errors)
        stop_if_any(errors)
        source_sha256 = history.sha256s({f.sources[n].problems[n] for f in files for n in problem_names(f.data)})
    outputs, single = bundle_files(hosts, out, held, problems_dir, history, source_sha256, one_file_per_run, result,
                                   errors)
    stop_if_any(errors)

    rendered = {path: dump(bundles[0] if path in single else bundles) for path, bundles in outputs.items()}
    result.hosts = len(hosts)
    result.warnings.extend(held.clashes(outputs))
    write_changed(rendered, result)
    return result
