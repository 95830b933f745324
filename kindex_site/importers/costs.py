"""`kindex-site import costs`: what each workload of a content folder costs, as WorkloadCost documents.

Each workload's source is found by its digest (`find_sources`) and counted in a child process of its
own, with a timeout and a memory limit: the problem's code is executed, on PyTorch's meta device under
FlopCounterMode, never in this process. docs/importing.md states what is counted and the precision
rule (`_precision`); a problem that fails gets a ``failed`` document with the reason on one line.
Every document is validated before anything is written, one file per workload.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from ..errors import KindexError, display, plural
from ..models import COST_API_VERSION, PRECISIONS, WorkloadCost
from .common import Imported, add_source_parser, dump, report, slug, some, stop_if_any, write_changed
from .kernelbench_history import git, read_blobs, tree_blobs
from .kernelbench_workloads import source_digest
from ..naming import problem_naming

EXAMPLE = (
    "example:\n"
    "  git clone ../shared/data/kernelbench-history.bundle /tmp/kernelbench\n"
    "  kindex-site import costs content --repo /tmp/kernelbench     # writes content/costs/"
)

COUNTER = "torch.utils.flop_counter.FlopCounterMode"
NEEDS_TORCH = "kindex-site import costs needs PyTorch: pip install 'kindex-site[costs]'"
KERNELBENCH_URL = "https://github.com/ScalingIntelligence/KernelBench"
PROBLEM_FILE = re.compile(r"^(?:.*/)?(level\d+/[^/]+\.py)$")  # a KernelBench problem's name: levelN/<file>
REPO_PROBLEM = re.compile(r"^KernelBench/level\d+/[^/]+\.py$")
NAME_HEX = 16  # a cost's file and name carry this many hex digits of its workload digest
MAX_REASON = 500  # characters of an exception's message kept as a failure's reason
TIMEOUT_S = 120
MEMORY_MIB = 4096  # address space: enough for torch itself; meta tensors take none

# What the child process runs: the counting code of this module, in a process of its own.
_CHILD = "from kindex_site.importers.costs import _child_main; _child_main()"
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # (so that a checkout not installed works too)


# --- the command ---------------------------------------------------------------------------------


def add_parser(sources) -> None:
    p = add_source_parser(
        sources, "costs", help="each workload's bytes and operations, counted with PyTorch",
        description="Count what each workload of a content folder costs (input, output and parameter bytes, "
                    "and its reference's floating-point operations by precision) from its source, on PyTorch's "
                    "meta device, and write one WorkloadCost document per workload. Needs PyTorch: "
                    "pip install 'kindex-site[costs]'.",
        example=EXAMPLE,
    )
    p.add_argument("content", metavar="CONTENT", type=Path, nargs="?", default=Path("content"),
                   help="the content folder whose runs' workloads are counted (default: content)")
    p.add_argument("--repo", metavar="KERNELBENCH_GIT", type=Path,
                   help="a KernelBench git checkout or bundle: every problem file of its whole history is a source")
    p.add_argument("--repo-url", metavar="URL", default=KERNELBENCH_URL,
                   help=f"the repository a cost's source names for --repo's files (default: {KERNELBENCH_URL})")
    p.add_argument("--sources", metavar="DIR", type=Path, help="a folder of problem sources (*.py, at any depth)")
    p.add_argument("--out", metavar="DIR", type=Path,
                   help="folder to write the cost documents to (default: CONTENT/costs, where the site reads them)")
    p.add_argument("--timeout", metavar="SECONDS", type=_positive, default=TIMEOUT_S,
                   help=f"time each problem's count may take (default: {TIMEOUT_S})")
    p.add_argument("--memory", metavar="MIB", type=_positive, default=MEMORY_MIB,
                   help=f"address space each problem's count may use (default: {MEMORY_MIB})")
    p.add_argument("--jobs", metavar="N", type=_positive, default=os.cpu_count() or 1,
                   help="problems counted at once (default: one per core)")
    p.set_defaults(run=run)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return int(text)


def run(args: argparse.Namespace) -> int:
    out = args.out if args.out is not None else args.content / "costs"
    result = import_costs(args.content, out, repo=args.repo, repo_url=args.repo_url, sources=args.sources,
                          timeout=args.timeout, memory_mib=args.memory, jobs=args.jobs)
    return report(result, f"Counted {plural(result.workloads, 'workload')}: {result.counted} counted, "
                          f"{result.failed} failed, {result.unfound} without a source", out)


# --- the import ----------------------------------------------------------------------------------


@dataclass
class Result(Imported):
    workloads: int = 0  # the distinct workload digests of the runs
    counted: int = 0
    failed: int = 0
    unfound: int = 0  # workloads whose source was found nowhere: no document


@dataclass
class Workload:
    digest: str
    runs: list[str] = field(default_factory=list)  # the names of the runs of it
    titles: Counter = field(default_factory=Counter)  # their problems' titles
    names: set[str] = field(default_factory=set)  # the problem names (levelN/<file>) their sources give

    @property
    def title(self) -> str:
        """Its runs' problem title (the most common; the first by sort among equals)."""
        return max(sorted(self.titles), key=lambda t: self.titles[t])


@dataclass(frozen=True)
class Source:
    text: bytes
    where: str  # what a cost's `source` says: a content path, or repository@commit:path


def import_costs(content: Path, out: Path, *, repo: Path | None = None, repo_url: str = KERNELBENCH_URL,
                 sources: Path | None = None, timeout: int = TIMEOUT_S, memory_mib: int = MEMORY_MIB,
                 jobs: int = 1) -> Result:
    if not torch_installed():
        raise KindexError(NEEDS_TORCH)
    if repo is not None and not repo.exists():
        raise KindexError(f"--repo: {display(repo)}: not found (give a KernelBench git checkout or bundle)")
    if sources is not None and not sources.is_dir():
        raise KindexError(f"--sources: {display(sources)}: not a folder")
    from ..load import load_content  # (not imported where the command line is only parsed)

    loaded = load_content(content, keep_documents=False)
    workloads = workloads_of(loaded)
    found = find_sources(loaded, workloads, repo=repo, repo_url=repo_url, sources=sources)
    result = Result(runs=len(loaded.runs), workloads=len(workloads))
    counted = _count_all({found[d].text for d in workloads if d in found}, timeout, memory_mib, jobs)
    files: dict[Path, bytes] = {}
    errors: list[str] = []
    for digest, workload in sorted(workloads.items()):
        if digest not in found:
            result.unfound += 1
            result.warnings.append(f"{digest}: no source found for this workload: no cost written "
                                   f"(its runs: {some(sorted(workload.runs))})")
            continue
        source = found[digest]
        document = cost_document(workload, source, counted[hashlib.sha256(source.text).hexdigest()])
        path = out / f"{_hex(digest)}.json"
        if path in files:
            errors.append(f"{display(path)}: two workloads' digests begin with {_hex(digest)}: {digest} and "
                          f"{json.loads(files[path])['spec']['workloadDigest']}")
            continue
        try:
            WorkloadCost.model_validate(document)
        except ValidationError as e:  # a bug of this importer's, never the user's: refused, not written
            errors.extend(f"{display(path)}: made an invalid cost: {'.'.join(map(str, err['loc']))}: {err['msg']}"
                          for err in e.errors(include_url=False))
            continue
        if document["spec"]["status"] == "counted":
            result.counted += 1
        else:
            result.failed += 1
            result.notes.append(f"{display(path)}: {workload.title}: failed: {document['spec']['reason']}")
        files[path] = dump(document)
    stop_if_any(errors)
    stale = sorted(p.name for p in out.glob("*.json") if p not in files) if out.is_dir() else []
    if stale:
        result.warnings.append(f"{display(out)}: {plural(len(stale), 'cost file')} this import did not write "
                               f"(e.g. {stale[0]}): the cost of a workload no run has now, or of another import")
    write_changed(files, result)
    return result


def torch_installed() -> bool:
    """Whether PyTorch can be imported here, found without importing it."""
    return importlib.util.find_spec("torch") is not None


def _hex(digest: str) -> str:
    return digest.removeprefix("sha256:")[:NAME_HEX]


def cost_document(workload: Workload, source: Source, count: dict) -> dict:
    """The WorkloadCost of a workload, from its source and the child's count (see `_count_source`)."""
    spec: dict = {"workloadDigest": workload.digest, "status": count["status"]}
    if count["status"] == "counted":
        spec.update(inputs=count["inputs"], outputs=count["outputs"],
                    inputBytes=sum(t["bytes"] for t in count["inputs"]),
                    outputBytes=sum(t["bytes"] for t in count["outputs"]),
                    parameterBytes=count["parameterBytes"], flops=count["flops"])
    else:
        spec["reason"] = count["reason"]
    spec.update(counter={"name": COUNTER, "version": f"torch {count['torch']}"}, source=source.where)
    return {"apiVersion": COST_API_VERSION, "kind": "WorkloadCost",
            "metadata": {"name": f"cost-{_hex(workload.digest)}", "title": f"Cost of {workload.title}"},
            "spec": spec}


# --- the workloads and their sources -------------------------------------------------------------


def find_sources(content, workloads: dict[str, Workload], *, repo: Path | None = None,
                 repo_url: str = KERNELBENCH_URL, sources: Path | None = None) -> dict[str, Source]:
    """Each workload's source found by its digest: (a) in the runs' own workloadSource files, else (b) in
    --repo's history, else (c) in --sources. Workloads found nowhere are left out."""
    names = set().union(*(w.names for w in workloads.values()))
    found: dict[str, Source] = {}
    for candidates in (lambda: _content_sources(content, names), lambda: _repo_sources(repo, repo_url) if repo else {},
                       lambda: _folder_sources(sources, names) if sources else {}):
        for digest, source in candidates().items():
            if digest in workloads:
                found.setdefault(digest, source)
    return found


def workloads_of(content) -> dict[str, Workload]:
    """Each workload digest of the content's runs, with the names and titles of its runs."""
    workloads: dict[str, Workload] = {}
    for run in content.runs:
        facts = run.facts
        workload = workloads.setdefault(facts.workload_digest, Workload(facts.workload_digest))
        workload.runs.append(run.name)
        workload.titles[_problem_title(facts)] += 1
        workload.names.update(m[1] for text in (facts.problem_text, facts.former_problem_text)
                              if text is not None and (m := PROBLEM_FILE.match(text)))
    return workloads


def _problem_title(facts) -> str:
    """The run's problem title as the site names it (naming.py), else its title's first part."""
    naming = problem_naming(facts.naming)
    if naming is not None and facts.problem_text is not None:
        named = naming.problem(facts.problem_text, slug)
        if not isinstance(named, str):
            return named.title
    return facts.title_parts[0].strip()


def digests_of(text: bytes, path: str, names=()) -> list[str]:
    """The workload digests a source file can be: sha256 of its bytes, and KernelBench's workload digest of
    it (kernelbench_workloads.source_digest) under its path's levelN/<file> and under each of `names`."""
    sha256 = hashlib.sha256(text).hexdigest()
    at = PROBLEM_FILE.match(path)
    problems = sorted({*names, at[1]} if at else set(names))
    return ["sha256:" + sha256, *(source_digest(problem, sha256) for problem in problems)]


def _content_sources(content, names: set[str]) -> dict[str, Source]:
    """(a) The runs' own workloadSource files, each by its path under the content folder."""
    found: dict[str, Source] = {}
    files = {run.files["workload"].rel: run.files["workload"] for run in content.runs if "workload" in run.files}
    for rel in sorted(files):
        text = files[rel].data()
        for digest in digests_of(text, rel, names):
            found.setdefault(digest, Source(text, rel))
    return found


def _folder_sources(folder: Path, names: set[str]) -> dict[str, Source]:
    """(c) Every *.py file under --sources, in path order."""
    if not folder.is_dir():
        raise KindexError(f"--sources: {display(folder)}: not a folder")
    found: dict[str, Source] = {}
    for path in sorted(folder.rglob("*.py")):
        if path.is_file():
            text = path.read_bytes()
            for digest in digests_of(text, path.relative_to(folder).as_posix(), names):
                found.setdefault(digest, Source(text, display(path)))
    return found


def _repo_sources(repo: Path, url: str) -> dict[str, Source]:
    """(b) Every KernelBench/levelN/*.py blob of every commit of --repo (a checkout or a bundle), each
    named by the oldest commit holding it at its path."""
    with ExitStack() as stack:
        if repo.is_file():  # a bundle: git reads its objects once cloned
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="kindex-costs-"))
            git(Path(folder), ["clone", "--quiet", "--bare", str(repo.resolve()), folder])
            repo = Path(folder)
        elif not repo.is_dir():
            raise KindexError(f"--repo: {display(repo)}: not found (give a KernelBench git checkout or bundle)")
        oldest_first = git(repo, ["log", "--all", "--date-order", "--reverse", "--format=%H"]).decode().split()
        held: dict[tuple[str, str], str] = {}  # (path, blob) → the oldest commit holding it
        for commit in oldest_first:
            for path, blob in tree_blobs(repo, commit, REPO_PROBLEM, "--", "KernelBench/").items():
                held.setdefault((path, blob), commit)
        texts = read_blobs(repo, sorted({blob for _, blob in held}))
    found: dict[str, Source] = {}
    rank = {commit: n for n, commit in enumerate(oldest_first)}
    for (path, blob), commit in sorted(held.items(), key=lambda item: (rank[item[1]], item[0])):
        for digest in digests_of(texts[blob], path):
            found.setdefault(digest, Source(texts[blob], f"{url}@{commit}:{path}"))
    return found


# --- counting, in child processes ----------------------------------------------------------------


def _count_all(texts: set[bytes], timeout: int, memory_mib: int, jobs: int) -> dict[str, dict]:
    """Each source's count (by its bytes' sha256), `jobs` child processes at a time."""
    children = _Children()
    version = children.torch_version(memory_mib)
    order = sorted(texts, key=lambda t: hashlib.sha256(t).hexdigest())
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        counts = list(pool.map(lambda t: children.count(t, timeout, memory_mib, version), order))
    finally:
        children.kill_all()  # (an interrupt: no child outlives the import, nor does the pool wait for one)
        pool.shutdown(cancel_futures=True)
    return {hashlib.sha256(t).hexdigest(): count for t, count in zip(order, counts)}


class _Children:
    """The child processes counting now: killed, with what they started, if the import stops."""

    def __init__(self):
        self._live: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self._stopped = False

    def torch_version(self, memory_mib: int) -> str:
        """torch.__version__ as a child sees it; the error a user sees when PyTorch is there but fails to import."""
        code, out, err = self._run(b"", ["--version"], 300, memory_mib)
        if code != 0 or not out:
            said = err.decode("utf-8", "replace").strip().splitlines()
            raise KindexError(f"{NEEDS_TORCH} (importing it failed" + (f": {said[-1]}" if said else "") + ")")
        return out.decode().strip()

    def count(self, text: bytes, timeout: int, memory_mib: int, version: str) -> dict:
        """The child's count of one source, or a failure saying why it gave none."""
        try:
            code, out, err = self._run(text, [], timeout, memory_mib)
        except subprocess.TimeoutExpired:
            return _failure(version, f"TimeoutError: the count took longer than {timeout} s")
        if code == 0 and out:
            return json.loads(out)
        if code < 0:
            name = signal.Signals(-code).name
            why = " (out of memory?)" if name == "SIGKILL" else ""
            return _failure(version, f"the counting process was ended by {name}{why}")
        said = err.decode("utf-8", "replace").strip().splitlines()
        return _failure(version, said[-1] if said else f"the counting process exited with status {code}")

    def _run(self, text: bytes, extra: list[str], timeout: int, memory_mib: int) -> tuple[int, bytes, bytes]:
        # One thread each: the meta device computes nothing, and --jobs children share the cores.
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_PACKAGE_ROOT, os.environ.get("PYTHONPATH")])),
               "OMP_NUM_THREADS": "1"}
        with tempfile.TemporaryDirectory(prefix="kindex-cost-") as cwd:  # (whatever the problem writes)
            with self._lock:
                if self._stopped:
                    raise KeyboardInterrupt
                child = subprocess.Popen([sys.executable, "-c", _CHILD, str(memory_mib << 20), *extra], cwd=cwd,
                                         env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True)
                self._live.add(child)
            try:
                out, err = child.communicate(text, timeout=timeout)
            except subprocess.TimeoutExpired:
                self._kill(child)
                child.communicate()
                raise
            finally:
                with self._lock:
                    self._live.discard(child)
        return child.returncode, out, err

    def kill_all(self) -> None:
        with self._lock:
            self._stopped = True
            for child in self._live:
                self._kill(child)

    @staticmethod
    def _kill(child: subprocess.Popen) -> None:
        try:
            os.killpg(child.pid, signal.SIGKILL)  # (its own session: the problem's own processes too)
        except ProcessLookupError:
            pass


def _failure(version: str, reason: str) -> dict:
    return {"status": "failed", "reason": one_line(reason), "torch": version}


def one_line(text: str) -> str:
    """A message on one line, at most MAX_REASON characters."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON else text[:MAX_REASON - 1] + "…"


def _child_main() -> None:
    """The child process: argv [memory limit in bytes] [--version]; the source on stdin; the count on stdout."""
    import resource

    limit = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    result = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # (the problem's own prints, Python's and C's alike, must not mix with the result)
    sys.stdout = sys.stderr
    if sys.argv[2:] == ["--version"]:
        import torch

        result.write(torch.__version__)
    else:
        source = sys.stdin.buffer.read()
        result.write(json.dumps(_count_source(source)))
    result.close()


def _count_source(source: bytes) -> dict:
    """One problem's count, in this process (docs/importing.md). Executes the problem's code."""
    import types

    import torch
    from torch.utils.flop_counter import FlopCounterMode, flop_registry

    by_precision: dict[str, int] = {}
    attention: list[str] = []  # the dtype of each scaled_dot_product_attention call under way

    def filed(packet, formula):
        def count(*args, out_val=None, **kwargs):
            flops = formula(*args, out_val=out_val, **kwargs)
            name = getattr(packet, "__name__", str(packet)).split(".")[-1]
            precision = _precision(name, attention[0] if attention else _operand_dtype(name, args))
            by_precision[precision] = by_precision.get(precision, 0) + flops
            return flops
        count._get_raw = True  # (the registry's formulas already take tensors: not wrapped again)
        return count

    try:
        module = types.ModuleType("kernelbench_problem")
        sys.modules[module.__name__] = module  # (dataclasses and pickling look their module up)
        with torch.device("meta"), _meta_everywhere(attention), torch.no_grad():
            exec(compile(source, "problem.py", "exec"), module.__dict__)
            for needed in ("Model", "get_inputs", "get_init_inputs"):
                if not hasattr(module, needed):
                    raise AttributeError(f"the problem defines no {needed}")
            model = module.Model(*module.get_init_inputs())
            inputs = list(module.get_inputs())
            with FlopCounterMode(display=False, custom_mapping={
                    packet: filed(packet, formula) for packet, formula in flop_registry.items()}) as counter:
                output = model(*inputs)
        if sum(by_precision.values()) != counter.get_total_flops():
            raise RuntimeError(f"operations filed by precision ({sum(by_precision.values())}) are not "
                               f"FlopCounterMode's total ({counter.get_total_flops()})")
    except (Exception, SystemExit) as e:
        return {"status": "failed", "reason": one_line(f"{type(e).__name__}: {e}".rstrip(": ")),
                "torch": torch.__version__}
    tensors = [t for t in _flat(inputs) if isinstance(t, torch.Tensor)]
    returned = [t for t in _flat(output) if isinstance(t, torch.Tensor)]
    held = [*model.parameters(), *model.buffers()] if isinstance(model, torch.nn.Module) else []
    return {"status": "counted", "inputs": [_tensor(t) for t in tensors], "outputs": [_tensor(t) for t in returned],
            "parameterBytes": sum(t.numel() * t.element_size() for t in held),
            "flops": {p: by_precision[p] for p in PRECISIONS if by_precision.get(p)},
            "torch": torch.__version__}


def _meta_everywhere(attention: list[str]):
    """A mode in which tensors asked for on a GPU are made on the meta device too, and which keeps in
    `attention` the dtype of each scaled_dot_product_attention call under way."""
    import torch
    from torch.overrides import TorchFunctionMode

    class MetaEverywhere(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func in (torch.Tensor.cuda, torch.Tensor.cpu) and isinstance(args[0], torch.Tensor):
                return args[0]
            if "device" in kwargs:
                kwargs = {**kwargs, "device": "meta"}
            if func is torch.Tensor.to:
                args = tuple("meta" if isinstance(a, (str, torch.device)) else a for a in args)
            if func is not torch.nn.functional.scaled_dot_product_attention:
                return func(*args, **kwargs)
            query = args[0] if args else kwargs["query"]
            attention.append(_dtype(query))
            try:
                return func(*args, **kwargs)
            finally:
                attention.pop()

    return MetaEverywhere()


def _dtype(tensor) -> str:
    return str(getattr(tensor, "dtype", None)).removeprefix("torch.")


def _operand_dtype(name: str, args) -> str:
    """The dtype an operation runs in: its first tensor's (addmm's and baddbmm's first is the added term)."""
    tensors = [a for a in (args[1:] if name in ("addmm", "baddbmm") else args) if hasattr(a, "dtype")]
    return _dtype(tensors[0] if tensors else None)


def _precision(name: str, dtype: str) -> str:
    """The precision an operation counts in (docs/importing.md states the rule)."""
    if dtype == "float32":
        return "tf32" if "conv" in name else "fp32"
    precision = {"float64": "fp64", "float16": "fp16", "bfloat16": "bf16", "int8": "int8", "uint8": "int8"}.get(
        dtype, "fp8" if dtype.startswith("float8") else None)
    if precision is None:
        raise TypeError(f"{name} on {dtype}: no precision counts it")
    return precision


def _flat(value) -> list:
    """Tuples, lists and dicts (their values, in order) flattened; anything else as it is."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _flat(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _flat(item)]
    return [value]


def _tensor(t) -> dict:
    return {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch."), "bytes": t.numel() * t.element_size()}
