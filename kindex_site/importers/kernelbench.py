"""`kindex-site import kernelbench`: KernelBench's own timing files → kernelindex bundles.

KernelBench publishes baseline timings as ``results/timing/<HOST>/baseline_time_<implementation>.json``::

    {"level1": {"1_Square_matrix_multiplication_.py":
                {"mean", "std", "min", "max", "num_trials", "hardware", "device"} | null, …}, …}

with times in milliseconds. Each entry becomes one bundle {run, protocol, environment} in the seed's
shape (tests/fixtures/seed.json); its source's values stay in ``sourceNative`` as written.

A workload is a problem's source: in the KernelBench version the timing was made with (``--repo``:
see `History`), in a checkout's folder (``--problems``), else the file's era (KernelBench changed
problem sizes on 2025-07-02). A problem KernelBench has since renamed is shown under its newest name,
the source's name kept in ``sourceNative.formerExternalId``. docs/importing.md has the digests and
the rules in full.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Iterator

from ..errors import KindexError, plural, printable
from ..models import MAX_SAFE_INT
from .common import (NAME, OUTSIDE_UTC, Imported, add_source_parser, bundle, digest, dump, environment_document,
                     in_utc_range, json_kind, json_number, kept_problem, ms_problem, ms_to_ns, parse_observed_at,
                     plain, protocol_document, read_json, report, run_name, shown_number, slug, some, unique,
                     utc_timestamp, valid, whole_ns, write_changed)
from ..naming import problem_title

EXAMPLE = (
    "example:\n"
    "  kindex-site import kernelbench ../KernelBench/results/timing --out content/kernelbench \\\n"
    "      --repo ../KernelBench\n"
    "  kindex-site import kernelbench results/timing/L40S_matx3 --out content/kernelbench "
    "--observed-at 2025-01-20"
)

SOURCE = "kernelbench"
FILE_PATTERN = re.compile(r"^baseline_time_(.+)\.json$")
LEVEL_PATTERN = re.compile(r"^level(\d{1,15})$")
# A file name, never a path: a key holding a separator, NUL or a lone surrogate would name a file
# elsewhere, or none.
ENTRY_PATTERN = re.compile(r"^(\d{1,15})_([^/\\\x00\ud800-\udfff]+)\.py$")
PROBLEM_PATH = re.compile(r"^level\d+/\d+_[^/]+\.py$")  # a problem source under KernelBench/
SIZES_CHANGED = date(2025, 7, 2)  # KernelBench changed problem sizes on this day
Z95 = Decimal("1.96")

PROTOCOL = protocol_document(
    "kernelbench-timing-v1", "KernelBench baseline timing", harness="KernelBench timing scripts",
    repository="https://github.com/ScalingIntelligence/KernelBench",
    # KernelBench rounds mean, std, min and max to 3 significant figures of a millisecond value.
    measurement={"timer": "cuda_events", "primaryStatistic": "mean", "resolution": {"significantFigures": 3}},
    family="kernelbench_baseline_timing",
    notes="Mean of 100 timed forward passes (CUDA events, warm-up excluded) of the reference module on fixed "
          "inputs; the 95% interval is the mean's, from the reported standard deviation. The upstream JSON records "
          "no torch or CUDA version. Comparable only within one problem and one timing host.",
)


@dataclass(frozen=True)
class Host:
    label: str  # short GPU name for titles, e.g. "H100 PCIe"
    vendor: str | None
    product: str
    form_factor: str | None
    architecture: str | None
    provider: str | None
    expect: str  # regex a row's `hardware` string should match


# The hosts KernelBench has published under results/timing/. Providers and power (hence SXM vs
# PCIe for H100/A100) follow KernelBench's results/timing/README.md; None where it does not say.
HOSTS: dict[str, Host] = {
    "H100_PCIe_LambdaLabs": Host("H100 PCIe", "nvidia", "NVIDIA H100", "PCIe", "sm_90", "Lambda Labs", r"\bH100\b"),
    "H100_together": Host("H100", "nvidia", "NVIDIA H100", "SXM", "sm_90", "Together AI", r"\bH100\b"),
    "H100_Modal": Host("H100", "nvidia", "NVIDIA H100", "SXM", "sm_90", "Modal", r"\bH100\b"),
    "B200_together": Host("B200", "nvidia", "NVIDIA B200", "SXM", "sm_100", "Together AI", r"\bB200\b"),
    "L40S_matx3": Host("L40S", "nvidia", "NVIDIA L40S", "PCIe", "sm_89", "Stanford matx3", r"\bL40S\b"),
    "L40S_babel": Host("L40S", "nvidia", "NVIDIA L40S", "PCIe", "sm_89", "CMU Babel", r"\bL40S\b"),
    "L40S_modal": Host("L40S", "nvidia", "NVIDIA L40S", "PCIe", "sm_89", "Modal", r"\bL40S\b"),
    "L4_GCP": Host("L4", "nvidia", "NVIDIA L4", "PCIe", "sm_89", "Google Cloud", r"\bL4\b"),
    "L4_modal": Host("L4", "nvidia", "NVIDIA L4", "PCIe", "sm_89", "Modal", r"\bL4\b"),
    "A6000_babel": Host("RTX A6000", "nvidia", "NVIDIA RTX A6000", "PCIe", "sm_86", "CMU Babel", r"\bA6000\b"),
    "RTX_3090_Ti": Host("GeForce RTX 3090 Ti", "nvidia", "NVIDIA GeForce RTX 3090 Ti", "PCIe", "sm_86", None,
                        r"\b3090 Ti\b"),
    "A100_modal": Host("A100 40GB", "nvidia", "NVIDIA A100 40GB", "SXM", "sm_80", "Modal", r"\bA100\b"),
    "A100-80GB_modal": Host("A100 80GB", "nvidia", "NVIDIA A100 80GB", None, "sm_80", "Modal", r"\bA100\b"),
    "A10G_modal": Host("A10G", "nvidia", "NVIDIA A10G", "PCIe", "sm_86", "Modal", r"\bA10G\b"),
    "T4_modal": Host("T4", "nvidia", "NVIDIA T4", "PCIe", "sm_75", "Modal", r"\bT4\b"),
    "MI250": Host("MI250", "amd", "AMD Instinct MI250", "OAM", "gfx90a", None, r"\bMI250"),
}
_HOSTS_CASEFOLD = {name.casefold(): host for name, host in HOSTS.items()}
_HOST_NAMES_CASEFOLD = {name.casefold(): name for name in HOSTS}

# The problems KernelBench renamed in its 2025-07 resize (old name → newest name), for imports
# without --repo. Found once by `History` (git's rename detection between consecutive versions on
# the first-parent line, `git log --first-parent -M --diff-filter=R -- KernelBench/`) in the history
# of ScalingIntelligence/KernelBench to 2026-03-05: all nine are in 7ff58da (2025-07-21, "Merge pull
# request #56"). Left out: its 2024-11 renumbering of level3, older than any published timing file,
# and the problems replaced under their number (level1/50, level1/97, level2/27: sources with too
# little in common for git to call it a rename; KernelBench's own commits say "replace").
RENAMES: dict[str, str] = {
    "level2/41_Gemm_BatchNorm_GELU_GroupNorm_Mean_ReLU.py": "level2/41_Gemm_BatchNorm_GELU_ReLU.py",
    "level2/45_Gemm_Sigmoid_Sum_LogSumExp.py": "level2/45_Gemm_Sigmoid_LogSumExp.py",
    "level2/58_ConvTranspose3d_LogSumExp_HardSwish_Subtract_Clamp_Max.py":
        "level2/58_ConvTranspose3d_LogSumExp_HardSwish_Subtract_Clamp.py",
    "level2/66_Matmul_Dropout_Mean_Softmax.py": "level2/66_Matmul_Dropout_Softmax.py",
    "level3/35_LTSM.py": "level3/35_LSTM.py",
    "level3/36_LTSMHn.py": "level3/36_LSTMHn.py",
    "level3/37_LTSMCn.py": "level3/37_LSTMCn.py",
    "level3/38_LTSMBidirectional.py": "level3/38_LSTMBidirectional.py",
    "level3/41_GRUBirectional.py": "level3/41_GRUBidirectional.py",
}


# --- entry point ------------------------------------------------------------------------------


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
    result = import_kernelbench(
        args.sources, args.out, problems=args.problems, repo=args.repo, observed_at=args.observed_at,
        one_file_per_run=args.one_file_per_run,
    )
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(result.statuses.items()))
    return report(result, f"Imported {plural(result.runs, 'run')}{f' ({statuses})' if statuses else ''} from "
                          f"{plural(result.sources, 'file')} on {plural(result.hosts, 'host')}", args.out)


# --- the import ---------------------------------------------------------------------------------


@dataclass
class Result(Imported):  # notes: with --repo, each file's KernelBench version, and why
    sources: int = 0
    hosts: int = 0
    statuses: Counter = field(default_factory=Counter)


@dataclass
class SourceFile:
    host: str  # folder name, e.g. "H100_PCIe_LambdaLabs"
    implementation: str  # file-name suffix, e.g. "torch_compile_inductor_default"
    path: Path
    observed_at: datetime | None = None
    commit: str | None = None  # the commit PROVENANCE.txt names for it, if any
    added: str | None = None  # with --repo: the first commit holding its bytes anywhere (see `_date_by_history`)
    copy_of: str | None = None  # … where that commit holds them, when not at this file's own path
    given: datetime | None = None  # the date PROVENANCE.txt or --observed-at gave, when `added` dates it otherwise
    data: dict | None = None
    fingerprint: str | None = None  # its timings as runs keep them: a host's copies of one timing are imported once
    version: Version | None = None  # with --repo: the KernelBench version its timings were made with
    sources: dict[str, Version] = field(default_factory=dict)  # with --repo: each problem's version
    stamp: str | None = None  # a host's later timing of an implementation: its date, in its runs' and file's names

    @property
    def benchmark(self) -> str:
        return f"{self.host}/{self.path.name}"

    @property
    def when(self) -> str:
        """observedAt as the runs write it: what orders a host's timings of an implementation."""
        return utc_timestamp(self.observed_at)


@dataclass
class TimingHost:
    """One timing host: the host folders whose runs get one ExecutionEnvironment (H100_modal and H100_Modal)."""
    spelling: str  # the host table's name for it (H100_Modal), else its folder's name
    environment: dict  # its document; metadata.name is set once every host is known (`_name_hosts`)
    identity: str  # digest of the document but its name: what makes two folders one host
    files: list[SourceFile]
    name: str = ""  # "kernelbench-h100-modal"
    folder: str = ""  # under --out

    @property
    def part(self) -> str:
        """The host's part of its runs' names: "h100-modal"."""
        return self.name.removeprefix("kernelbench-")


def import_kernelbench(sources: list[Path], out: Path, *, problems: Path | None = None, repo: Path | None = None,
                       observed_at: str | None = None, one_file_per_run: bool = False) -> Result:
    if problems is not None and repo is not None:
        raise KindexError("--repo, --problems: give one of them, not both")
    result = Result()
    errors: list[str] = []
    fallback = parse_observed_at(observed_at) if observed_at is not None else None
    problems_dir = _problems_dir(problems) if problems is not None else None
    history = History(repo) if repo is not None else None

    files = _find_files(sources, errors)
    _read_and_date(files, sources, fallback, errors, undated_ok=history is not None)
    if history is not None and not errors:
        _date_by_history(files, history, result, errors)
    if errors:
        raise KindexError(errors)
    held = _Held.read(out)
    hosts = _hosts(files, held, result, errors)
    if errors:
        raise KindexError(errors)
    files = [f for host in hosts for f in host.files]
    source_sha256: dict[str, str] = {}  # with --repo: problem source blob → hex SHA-256 of its bytes
    if history is not None:
        _match_versions(files, history, result, errors)
        if errors:
            raise KindexError(errors)
        source_sha256 = history.sha256s({f.sources[name].problems[name] for f in files for name in _names(f.data)})
    outputs, single = _outputs(hosts, out, held, problems_dir, history, source_sha256, one_file_per_run, result,
                               errors)
    if errors:
        raise KindexError(errors)

    rendered = {path: dump(bundles[0] if path in single else bundles) for path, bundles in outputs.items()}
    result.hosts = len(hosts)
    result.warnings.extend(held.clashes(outputs))
    write_changed(rendered, result)
    return result


def _outputs(hosts: list[TimingHost], out: Path, held: _Held, problems_dir: Path | None, history: History | None,
             source_sha256: dict[str, str], one_file_per_run: bool, result: Result,
             errors: list[str]) -> tuple[dict[Path, list[dict]], set[Path]]:
    """Every output file and its bundles, and which of them hold one run (written as an object)."""
    outputs: dict[Path, list[dict]] = {}
    single: set[Path] = set()
    names: dict[str, str] = {}  # run name → where it came from
    missing_sources: Counter = Counter()
    for host in hosts:
        env_digest = digest(host.environment)
        for f in host.files:
            if problems_dir is not None and f.observed_at.astimezone(timezone.utc).date() < SIZES_CHANGED:
                result.warnings.append(
                    f"{f.path}: dated before {SIZES_CHANGED.isoformat()}, when KernelBench changed problem sizes; "
                    "its workload digests hash the --problems checkout's source, which may be of the new sizes")
            if history is not None:
                named = _named_in_version(f, history, source_sha256)
            else:
                named = _named_without_history(f, problems_dir, missing_sources, result.warnings)
            bundles = _bundles(_FileContext(f, host, env_digest, named), errors, result)
            timing = (host.name, f.implementation, f.when)
            targets = []
            for b in bundles:
                name = b["run"]["metadata"]["name"]
                where = f"{f.path}: {b['run']['spec']['sourceNative']['externalId']}"
                unique(name, where, names, errors)
                other = held.runs.get(name)
                if other is not None and other[0] != timing:
                    errors.append(f"{where}: run name {name!r} is also in {other[1]}, which holds another timing "
                                  f"({_shown_timing(other[0])}); move that file out of --out, or import into another")
                if one_file_per_run:
                    target = out / host.folder / f"{name}.json"
                    outputs[target] = [b]
                    single.add(target)
                    targets.append(target)
            if not one_file_per_run:
                target = out / host.folder / (f.path.name if f.stamp is None else f"{f.path.stem}.{f.stamp}.json")
                if target in outputs:
                    errors.append(f"{f.path}: would be written to {target}, as another source file is")
                outputs[target] = bundles
                targets.append(target)
            for target in targets:
                other = held.files.get(target)
                if other is not None and other != timing:
                    errors.append(f"{f.path}: would replace {target}, which holds another timing "
                                  f"({_shown_timing(other)}); move that file out of --out, or import into another")
                    break
            result.sources += 1
    if missing_sources:
        result.warnings.append(
            f"--problems: {plural(len(missing_sources), 'problem file')} not found there "
            f"(e.g. {min(missing_sources)}); their workload digests are from the problem's name and era instead")
    return outputs, single


def _shown_timing(timing: tuple[str, str, str]) -> str:
    _, implementation, when = timing
    return f"{implementation}, observed at {when}"


# --- hosts and their timings --------------------------------------------------------------------


def _hosts(files: list[SourceFile], held: _Held, result: Result, errors: list[str]) -> list[TimingHost]:
    """The timing hosts: host folders whose ExecutionEnvironment is the same are one host (H100_modal and
    H100_Modal, or one folder given from several places), each named once; each host's timings of an
    implementation are ordered by date, a copy of one (the same timings) imported once."""
    by_folder: dict[str, list[SourceFile]] = {}
    for f in files:
        if not slug(f.host):
            unnamed = (f"{f.path.parent}: host folder {printable(f.host)!r} has no ASCII letters or digits, of which "
                       "the host's name (kernelbench-<host>) and its folder under --out are made; rename the folder "
                       "(KernelBench's are named like L4_GCP: GPU and provider)")
            if unnamed not in errors:
                errors.append(unnamed)
            continue
        by_folder.setdefault(f.host, []).append(f)
    hosts: dict[str, TimingHost] = {}  # identity → host
    for folder in sorted(by_folder):
        environment = _environment(folder, _distinct(by_folder[folder]), result.warnings)
        identity = _identity(environment)
        if identity in hosts:
            hosts[identity].files += by_folder[folder]
        else:
            spelling = _HOST_NAMES_CASEFOLD.get(folder.casefold(), folder)
            hosts[identity] = TimingHost(spelling, environment, identity, by_folder[folder])
    _name_hosts(list(hosts.values()), held)
    for host in hosts.values():
        host.files = _timings(host, held, result, errors)
    return sorted(hosts.values(), key=lambda h: (h.spelling, h.name))


def _distinct(files: list[SourceFile]) -> list[SourceFile]:
    """One file of each content (a timing given twice counts once)."""
    return list({f.fingerprint: f for f in reversed(files)}.values())[::-1]


def _identity(environment: dict) -> str:
    metadata = {k: v for k, v in environment["metadata"].items() if k != "name"}
    return digest({**environment, "metadata": metadata})


def _name_hosts(hosts: list[TimingHost], held: _Held) -> None:
    """Each host's name: the one --out's files already give its environment, or the runs of one of its folders;
    else kernelbench-<folder slug>, unless another environment has that name (in --out, or a host of this import
    whose folder sorts first): then the name ends in a digest of the environment, so that hosts whose
    environments differ never share a name (Höst and Hást: kernelbench-h-st and kernelbench-h-st-<digest>)."""
    taken = {name: identity for name, (identity, _) in held.environments.items()}
    by_identity: dict[str, str] = {}
    by_folder: dict[str, str] = {}
    for name, (identity, folders) in sorted(held.environments.items()):
        by_identity.setdefault(identity, name)
        for folder in folders:
            by_folder.setdefault(folder, name)

    def earlier(host: TimingHost) -> str | None:
        """The name --out's files give the host: by its environment, else by its folders (an importer whose
        host table has changed since gives a host another environment: it is still that host)."""
        return by_identity.get(host.identity) or next(
            (by_folder[f] for f in sorted({f.host for f in host.files}) if f in by_folder), None)

    given: dict[str, str] = {}  # name → identity, in this import
    for host in sorted(hosts, key=lambda h: (earlier(h) is None, h.spelling, h.identity)):
        plain = f"kernelbench-{slug(host.spelling)}"
        name = earlier(host)
        if name is None or given.get(name, host.identity) != host.identity:
            owner = given.get(plain, taken.get(plain, host.identity))
            name = plain if owner == host.identity else f"{plain}-{host.identity.removeprefix('sha256:')[:8]}"
        given[name] = host.identity
        host.name = name
        host.folder = _safe_folder(host.spelling) if name == plain else host.part
        host.environment["metadata"]["name"] = name


def _timings(host: TimingHost, held: _Held, result: Result, errors: list[str]) -> list[SourceFile]:
    """The host's files, a copy of one (the same timings) once, each timing after the first of its implementation
    stamped with its date. The first keeps the plain names, unless --out holds them for another timing: names
    already given stay."""
    by_implementation: dict[str, list[SourceFile]] = {}
    for f in sorted(host.files, key=lambda f: (f.path.name, f.observed_at.astimezone(timezone.utc), str(f.path))):
        by_implementation.setdefault(f.implementation, []).append(f)
    kept_all: list[SourceFile] = []
    for implementation, files in by_implementation.items():
        kept: list[SourceFile] = []
        for f in files:
            copy = next((k for k in kept if k.fingerprint == f.fingerprint), None)
            if copy is not None:
                result.warnings.append(f"{f.path}: the same timings as {copy.path}, one timing of host "
                                       f"{host.spelling!r}: imported once, observed at {copy.when}")
                continue
            earlier = held.copies.get((host.name, implementation, f.fingerprint))
            if earlier is not None and earlier[0] != f.when:
                result.warnings.append(
                    f"{f.path}: the same timings as {earlier[1]}, which an earlier import wrote (observed at "
                    f"{earlier[0]}): not imported again" + (
                        "; this file is dated earlier: if its date is the right one, delete that file and import "
                        "again" if f.when < earlier[0] else ""))
                continue
            same = next((k for k in kept if k.when == f.when), None)
            if same is not None:
                errors.append(f"{f.path}: another timing of host {host.spelling!r}'s {implementation}, {same.path}, "
                              f"is observed at the same time ({f.when}): the site could not tell which is the newer; "
                              "date each in PROVENANCE.txt")
                continue
            kept.append(f)
        owners = {held.runs[name][0] for f in kept for name in _plain_names(host, f) if name in held.runs}
        first = next((f for f in kept if (host.name, implementation, f.when) in owners), None)
        if first is None and not owners:
            first = kept[0] if kept else None
        for f in kept:
            f.stamp = None if f is first else _stamp(f.observed_at)
        kept_all += kept
    return kept_all


def _plain_names(host: TimingHost, f: SourceFile) -> set[str]:
    return {_run_name(host.part, f.implementation, int(LEVEL_PATTERN.match(level)[1]), int(m[1]), m[2], None)
            for level, entries in f.data.items() for entry in entries if (m := ENTRY_PATTERN.match(entry))}


def _stamp(when: datetime) -> str:
    """A timing's date in its runs' and file's names: 20260114t002149z (UTC)."""
    utc = when.astimezone(timezone.utc)
    return f"{utc.year:04d}{utc:%m%d}t{utc:%H%M%S}z"


@dataclass
class _Held:
    """What earlier imports wrote under --out: the runs an import must neither clash with nor replace."""
    out: Path
    runs: dict[str, tuple[tuple[str, str, str], Path]] = field(default_factory=dict)  # name → (timing, file)
    files: dict[Path, tuple[str, str, str]] = field(default_factory=dict)  # file → its timing
    # environment name → (identity, the host folders its runs are from)
    environments: dict[str, tuple[str, set[str]]] = field(default_factory=dict)
    # (host name, implementation, fingerprint) → (observedAt, a file) of each timing: a copy of one is not
    # imported again under another date
    copies: dict[tuple[str, str, str], tuple[str, Path]] = field(default_factory=dict)

    @classmethod
    def read(cls, out: Path) -> _Held:
        """A timing is (host name, implementation, observedAt)."""
        held = cls(out)
        if not out.is_dir():
            return held
        traces: dict[tuple[str, str, str], list[tuple[str, str, str]]] = {}
        for path in sorted(out.rglob("*.json")):
            if path.name.startswith("."):
                continue
            try:
                value = json.loads(path.read_bytes())
            except (OSError, ValueError, RecursionError):
                continue
            for written in value if isinstance(value, list) else [value]:
                try:
                    spec, environment = written["run"]["spec"], written["environment"]
                    native = spec["sourceNative"]
                    folder, file = native["benchmark"].rsplit("/", 1)
                    host = environment["metadata"]["name"]
                    timing = (host, FILE_PATTERN.match(file)[1], spec["observedAt"])
                    name = written["run"]["metadata"]["name"]
                    if native["source"] != SOURCE or not all(isinstance(v, str) for v in (*timing, name, folder)):
                        continue
                    held.environments.setdefault(host, (_identity(environment), set()))[1].add(folder)
                    problem = native.get("formerExternalId", native["externalId"]).split("/", 2)[2]
                    kept = {k: native[k] for k in ("hardware", "metrics", "extra") if k in native}
                    trace = _trace(problem, spec["status"], (spec.get("timing") or {}).get("samples"), kept)
                except (KeyError, TypeError, AttributeError, IndexError, ValueError):
                    continue
                held.files.setdefault(path, timing)
                held.runs.setdefault(name, (timing, path))
                traces.setdefault(timing, []).append(trace)
        for timing, found in traces.items():
            host, implementation, when = timing
            held.copies.setdefault((host, implementation, _fingerprint(found)), (when, held.runs_file(timing)))
        return held

    def runs_file(self, timing: tuple[str, str, str]) -> Path:
        return min(path for path, held in self.files.items() if held == timing)

    def clashes(self, outputs: dict[Path, list[dict]]) -> list[str]:
        """Files under --out this import does not write that hold runs it writes: stale copies."""
        stale: dict[Path, str] = {}
        for bundles in outputs.values():
            for b in bundles:
                name = b["run"]["metadata"]["name"]
                if name in self.runs and self.runs[name][1] not in outputs:
                    stale.setdefault(self.runs[name][1], name)
        if not stale:
            return []
        first = min(stale)
        return [(f"{self.out}: {plural(len(stale), 'file')} this import did not write hold runs it writes (e.g. "
                 f"{first}: {stale[first]}); delete them, or two runs of one name will clash")]


# --- reading ------------------------------------------------------------------------------------


def _read_and_date(files: list[SourceFile], sources: list[Path], fallback: datetime | None,
                   errors: list[str], undated_ok: bool = False) -> None:
    """Each file's data, and its date: PROVENANCE.txt's, else --observed-at; else it is an error (a file's
    modification time is when it was copied, not when it was timed), unless `undated_ok` (--repo may date it)."""
    dates = _provenance(sources, errors)
    for f in files:
        f.data = _read(f.path, errors)
        f.fingerprint = _file_fingerprint(f.data) if f.data is not None else None
        f.observed_at, f.commit = dates.get(f.path.resolve(), (fallback, None))
        if f.observed_at is None and not undated_ok:
            errors.append(_undated(f, ""))


def _undated(f: SourceFile, also: str) -> str:
    return (f"{f.path}: no date for its timings: no PROVENANCE.txt line names it and --observed-at is not given"
            f"{also}; add '{f.benchmark} [COMMIT] DATE-TIME' to a PROVENANCE.txt in the folder holding its host "
            "folder, or give --observed-at")


def _date_by_history(files: list[SourceFile], history: History, result: Result, errors: list[str]) -> None:
    """--repo: a file whose bytes the history holds dates from the first commit holding them anywhere, so that a
    copy, move or reorganisation never re-dates its timings; a copy of another path is warned about."""
    blob_of = history.blob_ids([f.path for f in files])
    first = history.first_commits(set(blob_of.values()))
    for f in files:
        found = first.get(blob_of.get(f.path))
        if found is not None:
            f.added, paths = found
            when = history.dates[f.added]
            if f"results/timing/{f.host}/{f.path.name}" not in paths:
                f.copy_of = paths[0]
                result.warnings.append(
                    f"{f.path} is a copy of {f.copy_of} first committed at {f.added[:7]} ({when.date().isoformat()}): "
                    "its runs are dated and their workloads taken from there")
            if f.observed_at != when:
                f.given, f.observed_at = f.observed_at, when
        if f.observed_at is None:
            errors.append(_undated(f, ", and --repo's history does not hold its bytes"))


def _problems_dir(path: Path) -> Path:
    for candidate in (path, path / "KernelBench"):
        if candidate.is_dir() and any(LEVEL_PATTERN.match(p.name) and p.is_dir() for p in candidate.iterdir()):
            return candidate
    raise KindexError(f"--problems: {path}: not a KernelBench checkout's KernelBench/ folder "
                      "(no level1/, level2/, … folders in it)")


def _find_files(sources: list[Path], errors: list[str]) -> list[SourceFile]:
    found: list[SourceFile] = []
    seen: set[Path] = set()
    for src in sources:
        if not src.exists():
            errors.append(f"{src}: not found")
            continue
        if not src.is_dir():
            errors.append(f"{src}: not a folder (give a host folder or a results/timing folder)")
            continue
        host_dirs = [src] if _timing_files(src) else sorted(
            (d for d in src.iterdir() if d.is_dir() and not d.name.startswith(".") and _timing_files(d)),
            key=lambda d: d.name)
        if not host_dirs:
            errors.append(f"{src}: no baseline_time_*.json files in it or in its subfolders")
            continue
        for d in host_dirs:
            for path in _timing_files(d):
                if path.resolve() in seen:
                    continue
                seen.add(path.resolve())
                if not _utf8(f"{d.resolve().name}/{path.name}"):  # the host and implementation are written
                    errors.append(f"{printable(str(path))}: its folder's or its own name is not UTF-8 text; "
                                  "rename it")
                    continue
                found.append(SourceFile(d.resolve().name, FILE_PATTERN.match(path.name)[1], path))
    return found


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: a file name's bytes that are not UTF-8
        return False
    return True


def _timing_files(folder: Path) -> list[Path]:
    try:
        return sorted((p for p in folder.iterdir() if FILE_PATTERN.match(p.name) and p.is_file()),
                      key=lambda p: p.name)
    except OSError:
        return []


_COMMIT = re.compile(r"^[0-9a-fA-F]{7,40}$")
_PROVENANCE_LINE = ("expected 'HOST/FILE [COMMIT] DATE-TIME', the date-time last with a time zone and the commit "
                    "that added the file before it if known, e.g. "
                    "'L4_GCP/baseline_time_torch.json 2026-01-14T16:21:49-08:00'")


def _provenance(sources: list[Path], errors: list[str]) -> dict[Path, tuple[datetime, str | None]]:
    """PROVENANCE.txt lines `HOST/FILE [COMMIT] ISO-DATE` in a source folder or its parent →
    {file: (date, commit or None)}."""
    dates: dict[Path, tuple[datetime, str | None]] = {}
    read: set[Path] = set()
    for src in sources:
        for folder in (src, src.parent):
            path = (folder / "PROVENANCE.txt").resolve()
            if path in read or not path.is_file():
                continue
            read.add(path)
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError) as e:
                errors.append(f"{folder / 'PROVENANCE.txt'}: cannot read: {getattr(e, 'strerror', None) or e}")
                continue
            for number, line in enumerate(lines, start=1):
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                # The date-time is the line's last word (it holds no white space), a commit id may come before it,
                # and the rest is the path, so a host folder's name may hold spaces. A path ends in the file's
                # name (baseline_time_….json), never in a commit id.
                parts = line.strip().rsplit(None, 1)
                when = None
                if len(parts) == 2:
                    try:
                        when = datetime.fromisoformat(parts[1].replace("Z", "+00:00"))
                    except ValueError:
                        pass
                if when is None or when.tzinfo is None:
                    errors.append(f"{folder / 'PROVENANCE.txt'}:{number}: {_PROVENANCE_LINE}")
                    continue
                if not in_utc_range(when):
                    errors.append(f"{folder / 'PROVENANCE.txt'}:{number}: {parts[1]!r} {OUTSIDE_UTC}")
                    continue
                file, commit = parts[0], None
                head = parts[0].rsplit(None, 1)
                if len(head) == 2 and _COMMIT.match(head[1]):
                    file, commit = head[0], head[1].lower()
                dates[(path.parent / file).resolve()] = (when, commit)
    return dates


def _read(path: Path, errors: list[str]) -> dict | None:
    data = read_json(path, dict, 'an object of levels ({"level1": {…}, …})', errors)
    if data is None:
        return None
    ok = True
    for level, entries in data.items():
        if not LEVEL_PATTERN.match(level):
            errors.append(f"{path}: {level!r}: expected level names like 'level1'")
            ok = False
        elif not isinstance(entries, dict):
            errors.append(f"{path}: {level}: expected an object of problems, not {json_kind(entries)}")
            ok = False
        else:
            for entry, record in entries.items():
                where = f"{path}: {level}/{printable(entry)}"
                if not ENTRY_PATTERN.match(entry):
                    errors.append(f"{where}: expected a problem file name like '1_Square_matrix_multiplication_.py'")
                    ok = False
                elif record is not None and not _check_record(record, where, errors):
                    ok = False
    return data if ok else None


_NUMBER_KEYS = ("mean", "std", "min", "max")


def _check_record(record, where: str, errors: list[str]) -> bool:
    if not isinstance(record, dict):
        errors.append(f"{where}: expected a timing object or null, not {json_kind(record)}")
        return False
    ok = True
    if "mean" not in record:
        errors.append(f"{where}: has no 'mean'")
        ok = False
    for key in _NUMBER_KEYS:
        value = record.get(key)
        if key not in record:
            continue
        problem = (f"expected a number of milliseconds, not {json_kind(value)}"
                   if isinstance(value, bool) or not isinstance(value, (int, Decimal)) else ms_problem(value))
        if problem:
            errors.append(f"{where}: {key}: {problem}")
            ok = False
    trials = record.get("num_trials")
    if "num_trials" in record:
        problem = None
        if isinstance(trials, bool) or not isinstance(trials, (int, Decimal)):
            problem = f"expected an integer, not {json_kind(trials)}"
        elif not -MAX_SAFE_INT <= trials <= MAX_SAFE_INT:
            problem = (f"{shown_number(trials)} is beyond 2⁵³−1 ({MAX_SAFE_INT}), the most a JavaScript reader "
                       "counts exactly")
        elif not isinstance(trials, int):
            problem = f"expected an integer, not {json_kind(trials)}"
        if problem:
            errors.append(f"{where}: num_trials: {problem}")
            ok = False
    for key in ("hardware", "device"):
        if key in record and not isinstance(record[key], str):
            errors.append(f"{where}: {key}: expected a string, not {json_kind(record[key])}")
            ok = False
    for key, value in record.items():
        if key in (*_NUMBER_KEYS, "num_trials", "device"):
            continue
        # Kept in sourceNative as they are (the deepest in `extra`, 5 levels deep in a bundle): what `check`
        # would refuse there is refused here.
        problem = kept_problem(key, value, 5)
        if problem is not None:
            errors.append(f"{where}: {problem}")
            ok = False
    return ok


# --- KernelBench's history (--repo) ----------------------------------------------------------------


@dataclass(frozen=True)
class Version:
    """KernelBench/'s problem sources at one commit."""
    commit: str
    when: datetime  # its committer date
    problems: dict[str, str]  # "level1/1_Square_matrix_multiplication_.py" → the source's blob id

    def __str__(self) -> str:
        return f"{self.commit[:7]} ({self.when.date().isoformat()})"


class History:
    """A KernelBench git checkout's history, read with the git command.

    A timing file was made with the problem sources of the commit that added its bytes; HEAD's
    first-parent commits are the versions KernelBench published, one after another.
    """

    def __init__(self, repo: Path):
        self.repo = repo
        if not repo.is_dir():
            raise KindexError(f"--repo: {repo}: not found (give a KernelBench git checkout)")
        self._git("rev-parse", "--verify", "--quiet", "HEAD^{commit}", what="not a git repository with commits")
        self.dates: dict[str, datetime] = {}  # every commit on any ref → its committer date
        self._rank: dict[str, int] = {}  # … → its place, parents before children: breaks ties between dates
        for line in self._git("log", "--all", "--date-order", "--reverse", "--format=%H %cI").splitlines():
            commit, when = line.split(" ")
            self._rank[commit] = len(self._rank)
            self.dates[commit] = datetime.fromisoformat(when)
        self.chain = self._git("log", "--first-parent", "--reverse", "--format=%H", "HEAD").split()  # oldest first
        self._place = {commit: n for n, commit in enumerate(self.chain)}
        commits = list(self.dates)
        self._trees = dict(zip(commits, self._object_ids([f"{c}:KernelBench" for c in commits])))
        self._listings: dict[str | None, dict[str, str]] = {None: {}}  # KernelBench/ tree → its problems
        if not self._problems(self._trees[self.chain[-1]]):
            raise KindexError(f"--repo: {repo}: its HEAD commit has no KernelBench/levelN/*.py problem sources "
                              "(give a KernelBench git checkout)")
        self.renames = self._renames()

    # What the import asks

    def blob_ids(self, paths: list[Path]) -> dict[Path, str]:
        """Each file's blob id: what git would store for its exact bytes."""
        asked = [p for p in paths if "\n" not in str(p.resolve())]
        text = "".join(f"{p.resolve()}\n" for p in asked)
        return dict(zip(asked, self._git("hash-object", "--no-filters", "--stdin-paths", input=text).split()))

    def first_commits(self, blobs: set[str]) -> dict[str, tuple[str, list[str]]]:
        """Each blob's first commit anywhere in the repository: {blob: (the earliest commit, by date, whose
        changes add it at some path, those paths sorted)}. One `git log` of every commit's changes, read once:
        a blob's later copies and moves are later commits."""
        out = self._git("log", "--all", "--raw", "--no-abbrev", "--no-renames", "--diff-merges=separate", "--root",
                        "-z", "--format=@%H")
        added: dict[str, dict[str, set[str]]] = {}  # blob → commit → paths
        commit = ""
        tokens = iter(out.split("\0"))
        for token in tokens:
            token = token.lstrip("\n")
            if token.startswith("@"):
                commit = token[1:]
            elif token.startswith(":"):  # ":<mode> <mode> <old blob> <new blob> <status>", then its path
                path, blob = next(tokens, ""), token.split(" ")[3]
                if blob in blobs:
                    added.setdefault(blob, {}).setdefault(commit, set()).add(path)
        first = {blob: min(commits, key=self._order) for blob, commits in added.items()}
        return {blob: (commit, sorted(added[blob][commit])) for blob, commit in first.items()}

    def _order(self, commit: str) -> tuple[datetime, int]:
        """Oldest first: by committer date, parents before children on a tie."""
        return self.dates[commit], self._rank[commit]

    def commit_named(self, name: str) -> str | None:
        """The commit a (possibly abbreviated) id names, if one commit on a ref of the checkout has it."""
        found = [c for c in self.dates if c.startswith(name.lower())]
        return found[0] if len(found) == 1 else None

    def nearest_version_holding(self, problem: str, around: str) -> Version | None:
        """The version of HEAD's first-parent line nearest `around` (in commits; the earlier on a tie) whose
        KernelBench/ holds `problem`."""
        at = self._place.get(around)
        if at is None:  # a commit on a side branch: the first-parent line up to its date
            at = max((n for n, c in enumerate(self.chain) if self.dates[c] <= self.dates[around]), default=0)
        for step in range(len(self.chain)):
            for n in (at - step, at + step) if step else (at,):
                if 0 <= n < len(self.chain):
                    if problem in self._problems(self._trees[self.chain[n]]):
                        return self._version(self.chain[n])
        return None

    def commit_holding(self, problem: str, when: datetime) -> Version | None:
        """Any commit, on any ref, whose KernelBench/ holds `problem`: the one dated nearest `when`."""
        holding = [c for c in self.dates if problem in self._problems(self._trees[c])]
        if not holding:
            return None
        return self._version(min(holding, key=lambda c: (abs(self.dates[c] - when), self._rank[c])))

    def in_force_at(self, when: datetime) -> str | None:
        """The latest first-parent commit of HEAD dated at or before `when`."""
        return next((c for c in reversed(self.chain) if self.dates[c] <= when), None)

    def version_at(self, when: datetime) -> Version | None:
        """The version in force at `when` (see `in_force_at`), or None if `when` is before the first commit."""
        commit = self.in_force_at(when)
        return None if commit is None else self._version(commit)

    def paths_of(self, blobs: set[str]) -> dict[str, dict[str, str]]:
        """Where each blob is a problem source anywhere in the history (any commit on any ref):
        {blob: {path under KernelBench/: the first commit holding it there}}, each blob's paths in the order
        of those commits, oldest first (by date, parents before children). Blobs never found are left out."""
        found: dict[str, dict[str, str]] = {}
        for commit in sorted(self.dates, key=self._order):
            for path, blob in self._problems(self._trees[commit]).items():
                if blob in blobs:
                    found.setdefault(blob, {}).setdefault(path, commit)
        return found

    def versions_back_from(self, start: str) -> Iterator[Version]:
        """The version at `start`, then each earlier one on HEAD's first-parent line, newest first."""
        if start in self._place:
            earlier = self.chain[:self._place[start]]
        else:  # a commit on a side branch: the first-parent line up to its date
            earlier = [c for c in self.chain if self.dates[c] < self.dates[start]]
        seen: set[str | None] = set()
        for commit in [start, *reversed(earlier)]:
            tree = self._trees[commit]
            if tree not in seen:  # commits with the same sources are one version: the latest stands for it
                seen.add(tree)
                yield self._version(commit)

    def newest_name(self, problem: str, since: datetime) -> str:
        """What KernelBench calls `problem` (a name in the version of `since`) after the renames since then."""
        for when, old, new in self.renames:
            if when > since and problem == old:
                problem = new
        return problem

    def sha256s(self, blobs: set[str]) -> dict[str, str]:
        """Each blob's hex SHA-256, all read by one `git cat-file --batch`."""
        order = sorted(blobs)
        out = self._run(["cat-file", "--batch"], "".join(f"{b}\n" for b in order).encode())
        found: dict[str, str] = {}
        at = 0
        for blob in order:
            end = out.index(b"\n", at)
            header = out[at:end].split()
            if len(header) != 3 or header[1] != b"blob":
                raise KindexError(f"--repo: {self.repo}: git cannot read the problem source {blob} "
                                  "(a partial or shallow clone? clone the whole history)")
            size = int(header[2])
            found[blob] = hashlib.sha256(out[end + 1:end + 1 + size]).hexdigest()
            at = end + 1 + size + 1
        return found

    # How it is read

    def _version(self, commit: str) -> Version:
        return Version(commit, self.dates[commit], self._problems(self._trees[commit]))

    def _renames(self) -> list[tuple[datetime, str, str]]:
        """(when, old name, new name) of each problem git finds renamed between consecutive first-parent
        versions (its rename detection: at least half the source kept), oldest first. A problem replaced
        by another under its number (level1/50, level1/97) shares too little to count as renamed."""
        out = self._git("log", "--first-parent", "--diff-merges=first-parent", "--reverse", "-M",
                        "--diff-filter=R", "--name-status", "-z", "--format=@%H", "HEAD", "--", "KernelBench/")
        renames = []
        commit = None
        tokens = iter(out.split("\0"))
        for token in tokens:
            token = token.strip("\n")
            if token.startswith("@"):
                commit = token[1:]
            elif token.startswith("R"):
                old, new = (next(tokens).removeprefix("KernelBench/") for _ in range(2))
                if PROBLEM_PATH.match(old) and PROBLEM_PATH.match(new):
                    renames.append((self.dates[commit], old, new))
        return renames

    def _problems(self, tree: str | None) -> dict[str, str]:
        if tree not in self._listings:
            listing = {}
            for entry in self._git("ls-tree", "-r", "-z", tree).split("\0"):
                info, _, path = entry.partition("\t")
                if PROBLEM_PATH.match(path) and info.split(" ")[1:2] == ["blob"]:
                    listing[path] = info.split(" ")[2]
            self._listings[tree] = listing
        return self._listings[tree]

    def _object_ids(self, names: list[str]) -> list[str | None]:
        """Each `<commit>:<path>`'s object id, or None where there is none, by one `git cat-file --batch-check`."""
        if not names:
            return []
        out = self._git("cat-file", "--batch-check", input="".join(f"{n}\n" for n in names))
        ids = []
        for line in out.splitlines():
            parts = line.split(" ")  # "<id> <type> <size>", or "<name> missing"
            ids.append(parts[0] if len(parts) == 3 and parts[2].isdigit() else None)
        return ids

    def _git(self, *args: str, input: str | None = None, what: str | None = None) -> str:
        out = self._run(list(args), input.encode("utf-8", "surrogateescape") if input is not None else None, what)
        return out.decode("utf-8", "surrogateescape")

    def _run(self, args: list[str], input: bytes | None = None, what: str | None = None) -> bytes:
        command = ["git", "-C", str(self.repo), "-c", "log.showSignature=false", "-c", "core.quotePath=false", *args]
        try:
            done = subprocess.run(command, input=input, capture_output=True)
        except FileNotFoundError:
            raise KindexError("--repo: the git command was not found; install git (or use --problems)") from None
        except OSError as e:
            raise KindexError(f"--repo: cannot run git: {e.strerror or e}") from None
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            said = next((line for line in said if line.startswith(("fatal:", "error:"))), said[0] if said else "")
            raise KindexError(f"--repo: {self.repo}: {what or 'git ' + args[0] + ' failed'}"
                              + (f" (git: {said})" if said else ""))
        return done.stdout


FETCH_PULL_REQUESTS = "git fetch origin '+refs/pull/*/head:refs/remotes/origin/pr/*'"


def _match_versions(files: list[SourceFile], history: History, result: Result, errors: list[str]) -> None:
    """Each file's version: the one of the first commit holding its bytes anywhere (else of the commit
    PROVENANCE.txt names, else the one in force at its date), or, if that lacks a problem the file names, the
    latest earlier version that has them all. If none has them all, each problem is identified on its own
    (`_identify`)."""
    repeated = Counter(f.benchmark for f in files)
    for f in files:
        names = _names(f.data)
        found = _start(f, history, result)
        if found is None:
            errors.append(f"{f.path}: dated {f.observed_at.isoformat()}, before --repo's first commit")
            continue
        start, why = found
        versions = history.versions_back_from(start)
        first = version = best = next(versions)
        while not names <= version.problems.keys():
            version = next(versions, None)
            if version is None:
                break
            if len(names & version.problems.keys()) > len(names & best.problems.keys()):
                best = version
        label = f"{f.benchmark} ({f.when})" if repeated[f.benchmark] > 1 else f.benchmark
        if version is None:
            why = _identify(f, names, first, best, why, history, result)
            result.notes.append(f"{label}: KernelBench version {best}, {why}{_redated(f)}")
            continue
        if version is not first:
            missing = sorted(names - first.problems.keys())
            result.warnings.append(
                f"{f.path}: names {some(missing)}, which KernelBench version {first} ({why}) lacks; matched to "
                f"version {version}, the latest earlier one that has every problem it names")
            why = f"the latest before {first} with every problem it names"
        f.version = version
        f.sources = {name: version for name in names}
        result.notes.append(f"{label}: KernelBench version {version}, {why}{_redated(f)}")


def _start(f: SourceFile, history: History, result: Result) -> tuple[str, str] | None:
    """The commit a file's version is looked for from, and why; None if its date is before the history."""
    if f.added is not None:
        return f.added, ("the commit that added this file" if f.copy_of is None else
                         f"the commit that first added its bytes, as {f.copy_of}")
    if f.commit is not None:
        named = history.commit_named(f.commit)
        if named is not None:
            return named, "the commit PROVENANCE.txt names for it (its bytes are not in --repo's history)"
        result.warnings.append(
            f"{f.path}: PROVENANCE.txt says commit {f.commit} added it, which {history.repo} lacks (commits "
            f"reachable only from a pull request's ref are not in a plain clone: fetch them in "
            f"{history.repo} with {FETCH_PULL_REQUESTS}); matched by its date instead")
    start = history.in_force_at(f.observed_at)
    why = (f"in force on its date, {f.observed_at.date().isoformat()} (the file is not in --repo's history"
           + (f"; commit {f.commit} is not in --repo)" if f.commit else ")"))
    return None if start is None else (start, why)


def _redated(f: SourceFile) -> str:
    """What a version's note adds when the history dates a file otherwise than it was given."""
    if f.given is None:
        return ""
    return (f"; its runs dated {f.when}, when its bytes were first committed ({f.added[:7]}), not "
            f"{utc_timestamp(f.given)} as given")


def _identify(f: SourceFile, names: set[str], first: Version, base: Version, why: str, history: History,
              result: Result) -> str:
    """A file naming problems no one version has together (a file copied from another era, or timed on a tree
    that was never published): its timings are of `base`, the version back from `first` with the most of them;
    each other problem is of the nearest version of the first-parent line that has it, else of the commit on
    any ref nearest in date that has it. A problem found nowhere is left out, with a warning. Returns why."""
    f.version = base
    f.sources = {name: base for name in names if name in base.problems}
    elsewhere: list[str] = []
    for name in sorted(names - base.problems.keys()):
        found = history.nearest_version_holding(name, base.commit) or history.commit_holding(name, base.when)
        if found is None:
            result.warnings.append(
                f"{f.path}: {name}: no KernelBench version has this problem, nor any commit on a ref of "
                f"{history.repo}; its entry is not imported")
            level, entry = name.split("/", 1)
            del f.data[level][entry]
            continue
        f.sources[name] = found
        elsewhere.append(f"{name} ({found})")
    held = len(names & base.problems.keys())
    where = (f"{why}, which has {held} of its {len(names)} problems" if base is first else
             f"the version before {first} ({why}) with the most of its problems, {held} of {len(names)}")
    if elsewhere:
        result.warnings.append(
            f"{f.path}: names problems no one KernelBench version has together; matched to version {base}, {where}, "
            f"and {plural(len(elsewhere), 'other problem')} each to the nearest version that has it: "
            f"{some(elsewhere, 12)}")
    return where + (f"; {plural(len(elsewhere), 'problem')} of other versions" if elsewhere else "")


# --- building -----------------------------------------------------------------------------------


def implementation_label(suffix: str) -> str:
    if suffix == "torch":
        return "PyTorch eager"
    if suffix.startswith("torch_compile_inductor_"):
        return f"torch.compile (inductor, {suffix.removeprefix('torch_compile_inductor_')})"
    if suffix.startswith("torch_compile_"):
        return f"torch.compile ({suffix.removeprefix('torch_compile_')})"
    return " ".join(suffix.replace("_", " ").split()) or suffix


def _safe_folder(host: str) -> str:
    return host if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", host) and ".." not in host else slug(host)


def _host_record(host_name: str) -> Host | None:
    return HOSTS.get(host_name) or _HOSTS_CASEFOLD.get(host_name.casefold())


def _environment(host_name: str, files: list[SourceFile], warnings: list[str]) -> dict:
    strings = Counter(
        record["hardware"]
        for f in files if f.data
        for entries in f.data.values()
        for record in entries.values()
        if isinstance(record, dict) and isinstance(record.get("hardware"), str)
    )
    host = _host_record(host_name)
    if host is None:
        product = strings.most_common(1)[0][0] if strings else host_name
        lowered = product.lower()
        vendor = "nvidia" if "nvidia" in lowered else "amd" if re.search(r"\bamd\b", lowered) else None
        host = Host(host_name, vendor, product, None, None, None, "")
        found = ", ".join(repr(s) for s in sorted(strings)) or "none"
        warnings.append(f"host {host_name!r} is not in the importer's table of KernelBench hosts; its hardware is "
                        f"taken from its rows' hardware strings ({found})")
        title = f"KernelBench host · {host_name}"
    else:
        unexpected = sorted(s for s in strings if not re.search(host.expect, s))
        if unexpected:
            warnings.append(f"host {host_name!r}: rows name hardware {', '.join(map(repr, unexpected))}, "
                            f"not the {host.product} the host table gives")
        title = f"KernelBench host · {host.label}" + (f" ({host.provider})" if host.provider else "")
    hardware = {"vendor": host.vendor, "product": host.product, "formFactor": host.form_factor,
                "architecture": host.architecture}
    return environment_document("", title, hardware)  # named by `_name_hosts`


def _where(host_name: str) -> str:
    """The run title's last part: where it was timed (the provider, as in the seed)."""
    host = _host_record(host_name)
    if host is None:
        return host_name
    return host.provider or host.label


@dataclass(frozen=True)
class Named:
    """A problem as a timing file names it ("level3/35_LTSM.py"): its newest name and its workload."""
    newest: str  # "level3/35_LSTM.py": what KernelBench calls it now, as the site shows it
    workload_digest: str


@dataclass
class _FileContext:
    file: SourceFile
    host: TimingHost
    environment_digest: str
    problems: dict[str, Named]  # "levelN/<entry>" → what it is


def _bundles(ctx: _FileContext, errors: list[str], result: Result) -> list[dict]:
    f = ctx.file
    if f.data is None:
        return []
    entries = []
    for level, problems in f.data.items():
        for entry, record in problems.items():
            m = ENTRY_PATTERN.match(entry)
            entries.append((int(LEVEL_PATTERN.match(level)[1]), int(m[1]), entry, level, record))
    entries.sort(key=lambda e: (e[0], e[1], e[2]))
    bundles = []
    odd: Counter = Counter()
    for level_number, number, entry, level, record in entries:
        problem = ctx.problems[f"{level}/{entry}"]
        # The run's name stays the source's (its URL is stable); what it is called is the newest name.
        name = _run_name(ctx.host.part, f.implementation, level_number, number, ENTRY_PATTERN.match(entry)[2],
                         f.stamp)
        if not NAME.match(name):
            errors.append(f"{f.path}: {level}/{entry}: cannot make a run name from it ({name!r})")
            continue
        spec = _run_spec(ctx, f"{level}/{entry}", problem, record, odd)
        title = (f"{problem_title(title_part(problem.newest))} · {implementation_label(f.implementation)} · "
                 f"{_where(f.host)}")
        made = bundle(name, title, spec, PROTOCOL, ctx.host.environment)
        if not valid(made, f"{f.path}: {level}/{entry}", errors):
            continue
        result.runs += 1
        result.statuses[spec["status"]] += 1
        bundles.append(made)
    for note, count in sorted(odd.items()):
        result.warnings.append(f"{f.path}: {count} {'entry' if count == 1 else 'entries'}: {note}")
    return bundles


def _run_spec(ctx: _FileContext, path: str, problem, record: dict | None, odd: Counter) -> dict:
    """One timing file's record as a run's spec; a record's oddities are counted in `odd`."""
    f = ctx.file
    native: dict = {"source": SOURCE, "benchmark": f.benchmark,
                    "externalId": f"{f.host}/{f.implementation}/{problem.newest}"}
    if problem.newest != path:
        native["formerExternalId"] = f"{f.host}/{f.implementation}/{path}"
    spec: dict = {"status": "failed"}
    measurements: list[dict] = []
    if record is not None:
        status, timing, measurements, note, kept = _recorded(record)
        spec = {"status": status}
        if timing is not None:
            spec["timing"] = timing
        if note:
            odd[note] += 1
        native.update(kept)
    spec.update({
        "observedAt": utc_timestamp(f.observed_at),
        "measurements": measurements,
        "sourceNative": native,
        "protocolDigest": digest(PROTOCOL),
        "workloadDigest": problem.workload_digest,
        "environmentDigest": ctx.environment_digest,
        "implementationDigest": digest({"source": SOURCE, "implementation": f.implementation}),
    })
    return spec


def _recorded(record: dict) -> tuple[str, dict | None, list[dict], str | None, dict]:
    """A record's status, timing, measurements and oddity (see `_timing`), and what sourceNative keeps of it:
    its hardware string, its numbers as the source wrote them (`metrics`), its other keys (`extra`)."""
    status, timing, measurements, note = _timing(record)
    kept: dict = {}
    if "hardware" in record:
        kept["hardware"] = record["hardware"]
    kept["metrics"] = {f"{k}_ms": plain(record[k]) for k in _NUMBER_KEYS if k in record}
    if timing is None and "num_trials" in record:
        kept["metrics"]["num_trials"] = record["num_trials"]
    extra = {k: plain(v) for k, v in record.items() if k not in (*_NUMBER_KEYS, "num_trials", "hardware", "device")}
    if extra:
        kept["extra"] = extra
    return status, timing, measurements, note, kept


def _trace(problem: str, status: str, samples, kept: dict) -> tuple[str, str, str]:
    """What a run keeps of one entry of its timing file, as text: equal for the same timings, whichever import
    wrote them and whatever their date."""
    return problem, status, json.dumps([samples, kept], sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _fingerprint(traces: list[tuple[str, str, str]]) -> str:
    return digest(sorted(traces))


def _file_fingerprint(data: dict) -> str:
    """The timings a file holds, as its runs keep them (see `_trace`)."""
    traces = []
    for level, entries in data.items():
        for entry, record in entries.items():
            if record is None:
                traces.append(_trace(f"{level}/{entry}", "failed", None, {}))
                continue
            status, timing, _, _, kept = _recorded(record)
            traces.append(_trace(f"{level}/{entry}", status, (timing or {}).get("samples"), kept))
    return _fingerprint(traces)


def title_part(problem: str) -> str:
    """ "level3/35_LSTM.py" → "LSTM"."""
    return ENTRY_PATTERN.match(problem.split("/")[-1])[2]


def _run_name(host: str, implementation: str, level: int, number: int, name: str, stamp: str | None) -> str:
    """kernelbench-<host>-<implementation>[-<date>]-l<level>-<number>-<problem>: `host` is the host's part of its
    environment's name; `stamp` a later timing's date (see `_timings`)."""
    stamped = f"-{stamp}" if stamp else ""
    return run_name(f"kernelbench-{host}-{slug(implementation)}{stamped}-l{level}-{number}", name)


_STATISTIC = {"mean": "mean", "min": "minimum", "max": "maximum", "std": "std"}


def _timing(record: dict) -> tuple[str, dict | None, list[dict], str | None]:
    """(status, timing or None, measurements, why it is not a passed run with timing or None)."""
    have = {k: ms_to_ns(record[k]) for k in _NUMBER_KEYS if k in record}
    trials = record.get("num_trials")
    std = have.get("std")

    def each_statistic() -> list[dict]:
        return [{"metric": "latency", "statistic": _STATISTIC[k], "unit": "ns", "value": json_number(v)}
                for k, v in have.items()]

    if "mean" not in have:
        return ("incomplete-timing", None, each_statistic(),
                "no mean; imported with status 'incomplete-timing' and no timing")
    mean = whole_ns(have["mean"])
    minimum, maximum = (whole_ns(have[k]) if k in have else None for k in ("min", "max"))
    if not (0 < (minimum or mean) <= mean <= (maximum or mean) <= MAX_SAFE_INT) \
            or (trials is not None and trials < 1) or (std is not None and std < 0):
        problem = ("impossible numbers (need 0 < min ≤ mean ≤ max, std ≥ 0, num_trials ≥ 1); imported with "
                   "status 'invalid-timing', no timing, the source's values kept in sourceNative.metrics")
        return "invalid-timing", None, each_statistic(), problem
    # Keep what the record has: a mean without extremes or trials is still a timing, just without an interval.
    latency: dict = {"mean": mean}
    latency.update({k: v for k, v in (("minimum", minimum), ("maximum", maximum)) if v is not None})
    measurements = []
    problem = None
    if std is not None and trials is not None:
        half = Z95 * std / Decimal(trials).sqrt()
        lo, hi = whole_ns(have["mean"] - half), whole_ns(have["mean"] + half)
        if hi <= MAX_SAFE_INT:
            # A noisy run keeps its interval: a latency is at least 1 ns, so the low end stops there.
            if lo < 1:
                lo = 1
                problem = "a 95% interval (mean ± 1.96·std/√num_trials) reaching below 1 ns; interval clamped at 1 ns"
            latency["confidence95"] = [lo, hi]
        else:
            problem = "a 95% interval reaching beyond the largest safe integer; imported without confidence95"
    elif std is not None:
        problem = "a std without num_trials; imported without confidence95"
    if std is not None:
        measurements.append({"metric": "latency", "statistic": "std", "unit": "ns", "value": json_number(std)})
    timing = {"latencyNs": latency, "primaryStatistic": "mean"}
    if trials is not None:
        timing = {"samples": trials, **timing}
    return "passed", timing, measurements, problem


def source_digest(problem: str, sha256: str) -> str:
    """A workload: the KernelBench problem whose source has this SHA-256."""
    return digest({"source": SOURCE, "problem": problem, "sourceSha256": sha256})


def _era_digest(problem: str, era: str) -> str:
    return digest({"source": SOURCE, "problem": problem, "problemSizes": era})


def _named_in_version(f: SourceFile, history: History, source_sha256: dict[str, str]) -> dict[str, Named]:
    """--repo: each problem's source in the file's version, and its name since then."""
    return {name: Named(history.newest_name(name, f.sources[name].when),
                        source_digest(name, source_sha256[f.sources[name].problems[name]]))
            for name in _names(f.data)}


def _named_without_history(f: SourceFile, problems_dir: Path | None, missing: Counter,
                           warnings: list[str]) -> dict[str, Named]:
    """No --repo: the --problems checkout's source where it has the problem, else the file's era."""
    named: dict[str, Named] = {}
    era = None
    for name in sorted(_names(f.data)):
        workload = None
        if problems_dir is not None:
            try:
                workload = source_digest(name, hashlib.sha256((problems_dir / name).read_bytes()).hexdigest())
            except OSError:
                missing[name] += 1
        if workload is None:
            era = era or _era(f, warnings)
            workload = _era_digest(name, era)
        named[name] = Named(RENAMES.get(name, name), workload)
    return named


def _era(f: SourceFile, warnings: list[str]) -> str:
    """KernelBench's problem sizes a file's timings are of, by its date and the names it uses."""
    before, since = f"before-{SIZES_CHANGED.isoformat()}", f"since-{SIZES_CHANGED.isoformat()}"
    if f.observed_at.astimezone(timezone.utc).date() < SIZES_CHANGED:
        return before
    old = sorted(name for name in _names(f.data) if name in RENAMES)
    if old:  # a file named that way was written before the renames, so with the old sizes
        warnings.append(f"{f.path}: dated {f.observed_at.date().isoformat()} but names {some(old)} by a name "
                        f"from before KernelBench's {SIZES_CHANGED.isoformat()} resize; its workloads are taken as "
                        f"{before}")
        return before
    return since


def _names(data: dict) -> set[str]:
    """The problems a timing file names: {"level1/1_Square_matrix_multiplication_.py", …}."""
    return {f"{level}/{entry}" for level, entries in data.items() for entry in entries}

