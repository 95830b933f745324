"""`kindex-site import costs`: each workload's source found by its digest, and its cost counted on PyTorch's
meta device in a child process.

The counter's tests need PyTorch (`pip install 'kindex-site[costs]'`) and are skipped, saying so, without it;
the source lookup and the missing-PyTorch error are tested everywhere."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import bundle
from kindex_site.importers import costs
from kindex_site.load import load_content
from kindex_site.models import WorkloadCost
from test_import_kernelbench import GitRepo, needs_git, run_cli, source_workload

KB = "KernelBench"
torch_installed = costs.torch_installed()
# (the counter's version as its documents give it, read without importing PyTorch here)
TORCH = f"torch {importlib.metadata.version('torch')}" if torch_installed else None
NO_TORCH = "PyTorch is not installed: pip install 'kindex-site[costs]'"
needs_torch = pytest.mark.skipif(not torch_installed, reason=NO_TORCH)


def problem_run(name: str, problem: str, digest: str, workload_source: str | None = None) -> dict:
    """A KernelBench timing run of `problem` (levelN/M_Name.py) whose workload is `digest`."""
    changes = {"run.metadata.name": name, "run.metadata.title": f"{problem} · PyTorch eager · Somewhere",
               "run.spec.sourceNative.externalId": f"HOST/torch/{problem}", "run.spec.workloadDigest": digest}
    if workload_source is not None:
        changes["run.spec.workloadSource"] = {"path": workload_source, "language": "python"}
    return bundle(changes)


def write_content(root: Path, runs: list[dict], files: dict[str, str] | None = None) -> Path:
    content = root / "content"
    content.mkdir(exist_ok=True)
    for rel, text in (files or {}).items():
        (content / rel).parent.mkdir(parents=True, exist_ok=True)
        (content / rel).write_text(text, encoding="utf-8")
    (content / "runs.json").write_text(json.dumps(runs, indent=1), encoding="utf-8")
    return content


# --- without PyTorch: the sources, by digest ---------------------------------------------------------


def small_problem(size: int) -> str:
    return textwrap.dedent(f"""\
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def forward(self, x):
                return torch.relu(x)


        def get_inputs():
            return [torch.rand(8, {size})]


        def get_init_inputs():
            return []
    """)


@needs_git
@pytest.mark.parametrize("as_bundle", [False, True], ids=["checkout", "bundle"])
def test_each_workload_source_is_found_by_its_digest(tmp_path, monkeypatch, as_bundle):
    monkeypatch.chdir(tmp_path)
    a, b_old, b_new, c, d, e = (small_problem(size) for size in (1, 2, 3, 4, 5, 6))
    repo = GitRepo(tmp_path / "kb")
    first = repo.commit("2025-01-01T00:00:00Z", {f"{KB}/level1/1_A.py": a, f"{KB}/level1/2_B.py": b_old})
    repo.commit("2025-07-10T00:00:00Z", {f"{KB}/level1/2_B.py": b_new})
    repo.commit("2025-08-01T00:00:00Z", {f"{KB}/level1/9_Same_A.py": a})  # (a later copy: the oldest names it)
    folder = tmp_path / "sources"
    (folder / "deep").mkdir(parents=True)
    (folder / "deep" / "anything.py").write_text(c, encoding="utf-8")
    (folder / "l1_p4.py").write_text(d, encoding="utf-8")  # (named as the leaderboard names problems)
    runs = [
        # (a) its own workloadSource, which the history holds too: the content's file is the source
        problem_run("run-a", "level1/1_A.py", source_workload("level1/1_A.py", a), "problems/level1/1_A.py"),
        # (b) the history only: its older version
        problem_run("run-b", "level1/2_B.py", source_workload("level1/2_B.py", b_old)),
        # (c) a --sources file, by the sha256 of its bytes
        problem_run("run-c", "level1/3_C.py", "sha256:" + hashlib.sha256(c.encode()).hexdigest()),
        # (c) a --sources file named otherwise: by the problem name the runs give
        problem_run("run-d", "level1/4_D.py", source_workload("level1/4_D.py", d)),
        # nowhere
        problem_run("run-e", "level1/5_E.py", source_workload("level1/5_E.py", e)),
    ]
    content = write_content(tmp_path, runs, {"problems/level1/1_A.py": a})
    if as_bundle:
        repo.git("bundle", "create", str(tmp_path / "kb.bundle"), "--all")
    loaded = load_content(content, keep_documents=False)
    workloads = costs.workloads_of(loaded)
    found = costs.find_sources(loaded, workloads, repo=tmp_path / ("kb.bundle" if as_bundle else "kb"),
                               repo_url="https://example.org/kb", sources=folder)
    by_run = {w.runs[0]: found.get(digest) for digest, w in workloads.items()}
    assert {run: source and source.where for run, source in by_run.items()} == {
        "run-a": "problems/level1/1_A.py",
        "run-b": f"https://example.org/kb@{first}:KernelBench/level1/2_B.py",
        "run-c": "sources/deep/anything.py",
        "run-d": "sources/l1_p4.py",
        "run-e": None,
    }
    assert [by_run[r].text.decode() for r in ("run-a", "run-b", "run-c", "run-d")] == [a, b_old, c, d]
    assert workloads[runs[0]["run"]["spec"]["workloadDigest"]].title == "A"


def test_a_source_matches_its_sha256_and_its_kernelbench_digests():
    text = b"class Model: pass\n"
    sha = hashlib.sha256(text).hexdigest()
    assert costs.digests_of(text, "problems/level2/7_X.py", {"level1/1_Y.py"}) == [
        "sha256:" + sha, source_workload("level1/1_Y.py", text.decode()),
        source_workload("level2/7_X.py", text.decode())]
    assert costs.digests_of(text, "notes.py") == ["sha256:" + sha]


def test_without_pytorch_the_import_says_how_to_get_it_and_writes_nothing(tmp_path):
    content = write_content(tmp_path, [problem_run("run-a", "level1/1_A.py", source_workload("level1/1_A.py", "x"))])
    hide_torch = "import sys; sys.modules['torch'] = None; from kindex_site.cli import run; run()"
    done = subprocess.run([sys.executable, "-c", hide_torch, "import", "costs", str(content), "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == "kindex-site import costs needs PyTorch: pip install 'kindex-site[costs]'"
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_the_documents_go_to_the_content_folders_costs_by_default(tmp_path, capsys, monkeypatch):
    """Without --out, the documents are written where the site reads them: CONTENT/costs/, wherever the
    command runs (the counting itself is stood in for: it needs PyTorch)."""
    asked = {}
    monkeypatch.setattr(costs, "import_costs", lambda content, out, **_: asked.update(out=out) or costs.Result())
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(capsys, "import", "costs", "lab/content")
    assert code == 0 and asked["out"] == Path("lab/content/costs")
    assert out.splitlines()[-1] == ("Counted 0 workloads: 0 counted, 0 failed, 0 without a source → lab/content/costs/ "
                                    "(0 written, 0 unchanged)")
    run_cli(capsys, "import", "costs", "lab/content", "--out", "elsewhere")
    assert asked["out"] == Path("elsewhere")


def test_the_site_never_imports_pytorch():
    """build and check run where PyTorch is not: the command line, the importers and the build import none of it."""
    code = ("import sys; from kindex_site.cli import make_parser; make_parser(None); "
            "import kindex_site.build, kindex_site.importers.costs; print('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


# --- with PyTorch: the counter ------------------------------------------------------------------------


def problem(body: str, inputs: str, init: str = "[]", header: str = "") -> str:
    """A KernelBench-style problem file: Model, get_inputs, get_init_inputs."""
    return (f"import torch\nimport torch.nn as nn\n{header}\n\nclass Model(nn.Module):\n"
            + textwrap.indent(textwrap.dedent(body), "    ")
            + f"\n\ndef get_inputs():\n    return {inputs}\n\n\ndef get_init_inputs():\n    return {init}\n")


MATMUL = problem("""\
    def forward(self, A, B):
        return torch.matmul(A, B)
""", "[torch.rand(32, 48), torch.rand(48, 16)]")
RELU = problem("""\
    def forward(self, x):
        return torch.relu(x)
""", "[torch.rand(8, 1024)]")
CONV = problem("""\
    def __init__(self, cin, cout, k):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k)

    def forward(self, x):
        return self.conv(x)
""", "[torch.rand(2, 3, 16, 16)]", init="[3, 8, 3]")
HALF_LINEAR = problem("""\
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(64, 32).half().cuda()  # (written for a GPU: made on meta all the same)

    def forward(self, x, scale):
        y = self.linear(x)
        return y, [y.float() * scale]
""", "[torch.rand(4, 64, dtype=torch.float16).cuda(), 7]")
ATTENTION = problem("""\
    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)
""", "[torch.rand(2, 4, 16, 8, device='cuda', dtype=torch.float16) for _ in range(3)]")
ITEM = problem("""\
    def forward(self, x):
        if x.sum().item() > 0:
            return x
        return -x
""", "[torch.rand(8)]")
NO_INPUTS = "import torch\n\n\nclass Model(torch.nn.Module):\n    pass\n\n\ndef get_init_inputs():\n    return []\n"
TOO_BIG = "import torch\n\nhog = bytearray(3 << 30)\n" + RELU.split("\n", 1)[1]

PROBLEMS = {  # levelN/M_Name.py → source
    "level1/1_Small_matmul.py": MATMUL, "level1/19_ReLU.py": RELU, "level1/50_Conv2d.py": CONV,
    "level1/97_Attention.py": ATTENTION, "level2/3_Half_Linear.py": HALF_LINEAR, "level2/4_Item.py": ITEM,
    "level2/5_No_inputs.py": NO_INPUTS, "level2/6_Too_big.py": TOO_BIG,
}


@pytest.fixture(scope="module")
def counted(tmp_path_factory):
    """The problems above imported once, with --sources: {problem: its cost document}, the output, the command's."""
    root = tmp_path_factory.mktemp("costs")
    if not torch_installed:
        pytest.skip(NO_TORCH)
    for name, text in PROBLEMS.items():
        (root / "sources" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "sources" / name).write_text(text, encoding="utf-8")
    content = write_content(root, [problem_run(f"run-{n}", name, source_workload(name, text))
                                   for n, (name, text) in enumerate(PROBLEMS.items())])
    argv = ["import", "costs", str(content), "--sources", str(root / "sources"), "--out", str(root / "out"),
            "--jobs", "2", "--memory", "2048"]
    done = subprocess.run([sys.executable, "-m", "kindex_site.cli", *argv], capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr
    documents = {}
    for name, text in PROBLEMS.items():
        path = root / "out" / f"{source_workload(name, text).removeprefix('sha256:')[:16]}.json"
        documents[name] = json.loads(path.read_text(encoding="utf-8"))
        WorkloadCost.model_validate(documents[name])
    return documents, root, argv, done


def spec(counted, name: str) -> dict:
    return counted[0][name]["spec"]


def tensor(shape: list[int], bytes: int, dtype: str = "float32") -> dict:
    return {"shape": shape, "dtype": dtype, "bytes": bytes}


@needs_torch
def test_matmul_costs_2mnk_fp32_flops_and_its_three_matrices(counted):
    document = counted[0]["level1/1_Small_matmul.py"]
    assert document == {
        "apiVersion": "kindex-site.dev/v1", "kind": "WorkloadCost",
        "metadata": {"name": "cost-" + source_workload("level1/1_Small_matmul.py", MATMUL)[7:23],
                     "title": "Cost of Small matmul"},
        "spec": {
            "workloadDigest": source_workload("level1/1_Small_matmul.py", MATMUL), "status": "counted",
            "inputs": [tensor([32, 48], 32 * 48 * 4), tensor([48, 16], 48 * 16 * 4)],
            "outputs": [tensor([32, 16], 32 * 16 * 4)],
            "inputBytes": 32 * 48 * 4 + 48 * 16 * 4, "outputBytes": 32 * 16 * 4, "parameterBytes": 0,
            "flops": {"fp32": 2 * 32 * 48 * 16},  # an FP32 matmul: allow_tf32 is off by default for matmul
            "counter": {"name": "torch.utils.flop_counter.FlopCounterMode", "version": TORCH},
            "source": "sources/level1/1_Small_matmul.py",
        },
    }


@needs_torch
def test_relu_reads_and_writes_its_tensor_and_counts_no_flops(counted):
    s = spec(counted, "level1/19_ReLU.py")
    assert (s["inputs"], s["outputs"]) == ([tensor([8, 1024], 8 * 1024 * 4)], [tensor([8, 1024], 8 * 1024 * 4)])
    assert (s["inputBytes"], s["outputBytes"], s["parameterBytes"], s["flops"]) == (32768, 32768, 0, {})


@needs_torch
def test_float32_convolution_counts_as_tf32_with_its_weights_as_parameters(counted):
    s = spec(counted, "level1/50_Conv2d.py")
    assert s["inputs"] == [tensor([2, 3, 16, 16], 2 * 3 * 16 * 16 * 4)]
    assert s["outputs"] == [tensor([2, 8, 14, 14], 2 * 8 * 14 * 14 * 4)]
    # 2 flops per multiply-add: batch × output pixels × output channels × (input channels × 3 × 3); no bias.
    assert s["flops"] == {"tf32": 2 * 2 * 14 * 14 * 8 * 3 * 3 * 3}  # cudnn.allow_tf32 is on by default
    assert s["parameterBytes"] == (8 * 3 * 3 * 3 + 8) * 4  # weight and bias


@needs_torch
def test_half_precision_counts_as_fp16_and_nested_outputs_are_flattened(counted):
    s = spec(counted, "level2/3_Half_Linear.py")
    assert s["inputs"] == [tensor([4, 64], 4 * 64 * 2, "float16")]  # (the 7 is no tensor)
    assert s["outputs"] == [tensor([4, 32], 4 * 32 * 2, "float16"), tensor([4, 32], 4 * 32 * 4)]
    assert s["flops"] == {"fp16": 2 * 4 * 64 * 32}
    assert s["parameterBytes"] == (64 * 32 + 32) * 2


@needs_torch
def test_attention_on_float16_counts_as_fp16_on_tensors_asked_for_on_cuda(counted):
    s = spec(counted, "level1/97_Attention.py")
    q = tensor([2, 4, 16, 8], 2 * 4 * 16 * 8 * 2, "float16")
    assert (s["inputs"], s["outputs"], s["parameterBytes"]) == ([q, q, q], [q], 0)
    # Q·Kᵀ and its softmax times V: 2 × (2 × batch × heads × 16 × 16 × 8); off a GPU PyTorch computes it in
    # float32, on a GPU in float16.
    assert s["flops"] == {"fp16": 2 * 2 * 2 * 4 * 16 * 16 * 8}


@needs_torch
def test_a_model_that_fails_on_meta_gets_a_failed_cost_saying_why(counted):
    assert spec(counted, "level2/4_Item.py") == {
        "workloadDigest": source_workload("level2/4_Item.py", ITEM), "status": "failed",
        "reason": "RuntimeError: Tensor.item() cannot be called on meta tensors",
        "counter": {"name": "torch.utils.flop_counter.FlopCounterMode", "version": TORCH},
        "source": "sources/level2/4_Item.py"}
    assert spec(counted, "level2/5_No_inputs.py")["reason"] == "AttributeError: the problem defines no get_inputs"
    assert spec(counted, "level2/6_Too_big.py")["reason"] == "MemoryError"  # (--memory 2048: 3 GiB asked)
    lines = counted[3].stdout.splitlines()
    assert lines[-1] == (f"Counted 8 workloads: 5 counted, 3 failed, 0 without a source → {counted[1] / 'out'}/ "
                         "(8 written, 0 unchanged)")
    assert any(line.endswith("Item: failed: RuntimeError: Tensor.item() cannot be called on meta tensors")
               for line in lines)


@needs_torch
def test_a_second_import_writes_the_same_bytes(counted):
    _, root, argv, _ = counted
    before = {p.name: p.read_bytes() for p in sorted((root / "out").iterdir())}
    done = subprocess.run([sys.executable, "-m", "kindex_site.cli", *argv[:-4], "--jobs", "1", "--memory", "2048"],
                          capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].endswith("(0 written, 8 unchanged)")
    assert {p.name: p.read_bytes() for p in sorted((root / "out").iterdir())} == before


@needs_torch
def test_a_problem_that_runs_too_long_is_stopped(tmp_path, capsys, monkeypatch):
    """A count that runs too long is stopped; its failed cost goes to the content folder's costs/ (no
    --out), where the site reads it."""
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # (the default follows CONTENT, not the working folder)
    text = "import torch\n\nwhile True:\n    pass\n"
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "1_Forever.py").write_text(text, encoding="utf-8")
    digest = source_workload("level1/1_Forever.py", text)
    content = write_content(tmp_path, [problem_run("run-forever", "level1/1_Forever.py", digest)])
    code, out, err = run_cli(capsys, "import", "costs", content, "--sources", tmp_path / "sources", "--timeout", "3")
    assert code == 0, err
    document = json.loads((content / "costs" / f"{digest[7:23]}.json").read_text(encoding="utf-8"))
    assert document["spec"]["reason"] == "TimeoutError: the count took longer than 3 s"
    assert load_content(content).costs[digest].spec.status == "failed"
