"""KernelBench's timings as runs: each record of a timing file a bundle {run, protocol, environment}, and the
files under --out they are written to, checked against what earlier imports wrote there."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import timezone
from pathlib import Path

from ..errors import plural
from ..naming import problem_title
from .common import NAME, bundle, digest, protocol_document, unique, utc_timestamp, valid
from .kernelbench_files import ENTRY_PATTERN, LEVEL_PATTERN, SOURCE, Result, SourceFile, recorded, title_part
from .kernelbench_history import History
from .kernelbench_hosts import Held, TimingHost, timing_run_name, where_timed
from .kernelbench_workloads import SIZES_CHANGED, Named, named_in_version, named_without_history

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


def bundle_files(hosts: list[TimingHost], out: Path, held: Held, problems_dir: Path | None, history: History | None,
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
                named = named_in_version(f, history, source_sha256)
            else:
                named = named_without_history(f, problems_dir, missing_sources, result.warnings)
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


def implementation_label(suffix: str) -> str:
    if suffix == "torch":
        return "PyTorch eager"
    if suffix.startswith("torch_compile_inductor_"):
        return f"torch.compile (inductor, {suffix.removeprefix('torch_compile_inductor_')})"
    if suffix.startswith("torch_compile_"):
        return f"torch.compile ({suffix.removeprefix('torch_compile_')})"
    return " ".join(suffix.replace("_", " ").split()) or suffix


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
        name = timing_run_name(ctx.host.part, f.implementation, level_number, number, ENTRY_PATTERN.match(entry)[2],
                               f.stamp)
        if not NAME.match(name):
            errors.append(f"{f.path}: {level}/{entry}: cannot make a run name from it ({name!r})")
            continue
        spec = _run_spec(ctx, f"{level}/{entry}", problem, record, odd)
        title = (f"{problem_title(title_part(problem.newest))} · {implementation_label(f.implementation)} · "
                 f"{where_timed(f.host)}")
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
        status, timing, measurements, note, kept = recorded(record)
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
