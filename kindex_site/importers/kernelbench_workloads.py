"""Which problem source each KernelBench timing is of, hence its workload: with --repo, the version of
KernelBench's history the file was made with; else the --problems checkout's source, or the file's era."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from datetime import date, timezone
from pathlib import Path

from ..errors import plural
from .common import digest, some, utc_timestamp
from .kernelbench_files import SOURCE, Result, SourceFile, problem_names
from .kernelbench_history import History, Version

SIZES_CHANGED = date(2025, 7, 2)  # KernelBench changed problem sizes on this day

# KernelBench's renames of its 2025-07 resize (old → newest), as `History` finds them: for imports without --repo.
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


def match_versions(files: list[SourceFile], history: History, result: Result, errors: list[str]) -> None:
    """Each file's version: the one of the first commit holding its bytes anywhere (else PROVENANCE.txt's
    commit, else the one in force at its date), or the latest earlier version that has all the problems
    it names; else each problem is identified on its own (`_identify`)."""
    repeated = Counter(f.benchmark for f in files)
    for f in files:
        names = problem_names(f.data)
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
            f"reachable only from a pull request's ref are not in a plain clone: fetch them in {history.repo} with "
            "git fetch origin '+refs/pull/*/head:refs/remotes/origin/pr/*'); matched by its date instead")
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
    """A file naming problems no one version has together: its timings are of `base`, the version back
    from `first` with the most of them; each other problem of the nearest version that has it. A problem
    found nowhere is left out, with a warning. Returns why."""
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


@dataclass(frozen=True)
class Named:
    """A problem as a timing file names it ("level3/35_LTSM.py"): its newest name and its workload."""
    newest: str  # "level3/35_LSTM.py": what KernelBench calls it now, as the site shows it
    workload_digest: str


def source_digest(problem: str, sha256: str) -> str:
    """A workload: the KernelBench problem whose source has this SHA-256."""
    return digest({"source": SOURCE, "problem": problem, "sourceSha256": sha256})


def named_in_version(f: SourceFile, history: History, source_sha256: dict[str, str]) -> dict[str, Named]:
    """--repo: each problem's source in the file's version, and its name since then."""
    return {name: Named(history.newest_name(name, f.sources[name].when),
                        source_digest(name, source_sha256[f.sources[name].problems[name]]))
            for name in problem_names(f.data)}


def named_without_history(f: SourceFile, problems_dir: Path | None, missing: Counter,
                          warnings: list[str]) -> dict[str, Named]:
    """No --repo: the --problems checkout's source where it has the problem, else the file's era."""
    named: dict[str, Named] = {}
    era = None
    for name in sorted(problem_names(f.data)):
        workload = None
        if problems_dir is not None:
            try:
                workload = source_digest(name, hashlib.sha256((problems_dir / name).read_bytes()).hexdigest())
            except OSError:
                missing[name] += 1
        if workload is None:
            era = era or _era(f, warnings)
            workload = digest({"source": SOURCE, "problem": name, "problemSizes": era})
        named[name] = Named(RENAMES.get(name, name), workload)
    return named


def _era(f: SourceFile, warnings: list[str]) -> str:
    """KernelBench's problem sizes a file's timings are of, by its date and the names it uses."""
    before, since = f"before-{SIZES_CHANGED.isoformat()}", f"since-{SIZES_CHANGED.isoformat()}"
    if f.observed_at.astimezone(timezone.utc).date() < SIZES_CHANGED:
        return before
    old = sorted(name for name in problem_names(f.data) if name in RENAMES)
    if old:  # a file named that way was written before the renames, so with the old sizes
        warnings.append(f"{f.path}: dated {f.observed_at.date().isoformat()} but names {some(old)} by a name "
                        f"from before KernelBench's {SIZES_CHANGED.isoformat()} resize; its workloads are taken as "
                        f"{before}")
        return before
    return since
