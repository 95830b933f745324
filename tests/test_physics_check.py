"""`check` as the gate on physics (issue 43): a run faster than its GPU allows (below its floor: the
time its workload's inputs and outputs take to move through DRAM) and not reviewed is an error naming
the run, its latency, the floor, the GPU, the bytes and the bandwidth; `build` shows it held out.

The bundle is KernelBench level 2 #84 (Gemm BatchNorm Scaling Softmax) timed by PyTorch eager on the
H100 PCIe at 4.94 ms, as the bundled content holds it; the attack re-times it at 1,234 ns. Its cost is
written by hand from the problem's shapes (batch 1024, 8192 features in and out, float32), as
`kindex-site import costs` counted them from KernelBench's source."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest

from conftest import visible_text

WORKLOAD = "sha256:0b0a76c380b41f22e40b49d5823bbdbeebdc0be9434b9b27d0393f81645143d6"
COST_FILE = "content/costs/0b0a76c380b41f22.json"
PROTOCOL = {
    "apiVersion": "kernelindex.dev/v1alpha1", "kind": "BenchmarkProtocol",
    "metadata": {"name": "kernelbench-timing-v1", "title": "KernelBench baseline timing"},
    "spec": {
        "harness": {"name": "KernelBench timing scripts", "repository": "https://github.com/ScalingIntelligence/KernelBench"},
        "measurement": {"timer": "cuda_events", "primaryStatistic": "mean"},
        "comparability": {"family": "kernelbench_baseline_timing",
                          "notes": "Mean of 100 timed forward passes (CUDA events, warm-up excluded) of the reference "
                                   "module on fixed inputs. Comparable only within one problem and one timing host."},
    },
}
H100 = {
    "apiVersion": "kernelindex.dev/v1alpha1", "kind": "ExecutionEnvironment",
    "metadata": {"name": "kernelbench-h100-pcie-lambdalabs", "title": "KernelBench host · H100 PCIe (Lambda Labs)"},
    "spec": {"hardware": {"vendor": "nvidia", "product": "NVIDIA H100", "formFactor": "PCIe", "architecture": "sm_90"},
             "software": {}},
}
EAGER = {
    "run": {
        "apiVersion": "kernelindex.dev/v1alpha1", "kind": "BenchmarkRun",
        "metadata": {"name": "kernelbench-h100-pcie-lambdalabs-torch-l2-84-gemm-batchnorm-scaling-softmax",
                     "title": "Gemm BatchNorm Scaling Softmax · PyTorch eager · Lambda Labs"},
        "spec": {
            "status": "passed",
            "timing": {"samples": 100, "primaryStatistic": "mean",
                       "latencyNs": {"mean": 4_940_000, "maximum": 4_970_000, "minimum": 4_780_000,
                                     "confidence95": [4_931_062, 4_948_938]}},
            "observedAt": "2026-03-05T08:38:15.000Z",
            "measurements": [{"unit": "ns", "value": 45600, "metric": "latency", "statistic": "std"}],
            "sourceNative": {"source": "kernelbench", "benchmark": "H100_PCIe_LambdaLabs/baseline_time_torch.json",
                             "externalId": "H100_PCIe_LambdaLabs/torch/level2/84_Gemm_BatchNorm_Scaling_Softmax.py",
                             "metrics": {"max_ms": 4.97, "min_ms": 4.78, "std_ms": 0.0456, "mean_ms": 4.94}},
            "protocolDigest": "sha256:547725b033a9911eae0c5ac362344a85aed824894ed4ab476af945b9bb491ea6",
            "workloadDigest": WORKLOAD,
            "environmentDigest": "sha256:89f9b28b06758f22a1df331fea58bfde2c9cc0f3627d1829509743ea538f0011",
            "implementationDigest": "sha256:5353b52c04fd153230227a9ea4057d48c30a5df7eb15f23d8cb348572ab58de2",
        },
    },
    "protocol": PROTOCOL,
    "environment": H100,
}
KERNELBENCH_84 = ("https://github.com/ScalingIntelligence/KernelBench@4b1e4d5b9c930a4938e553305262638c57632a54:"
                  "KernelBench/level2/84_Gemm_BatchNorm_Scaling_Softmax.py")
# The leaderboard's version of the problem (128 × 1024 in, 128 × 512 out): 786,432 bytes, well inside
# the H100's 50 MiB of L2 between timed calls, so no floor is claimed.
SMALL_WORKLOAD = "sha256:a9cbc7234a5d8050c9e64d64beba28db5f11a1a267140b28e9dff48c64b43f73"

RUN = "fused-kernel-hostile-lab"
RUN_FILE = "content/hostile-lab/fused.json"
BELOW = (f"{RUN_FILE}: run {RUN}: 1.23 µs is below its floor of 7.34 µs on NVIDIA H100 PCIe: the workload's "
         "67,108,864 bytes of inputs and outputs (less the 52,428,800 its L2 may hold) take at least that long at 2 TB/s")


def tensor(*shape: int) -> dict:
    count = 1
    for n in shape:
        count *= n
    return {"shape": list(shape), "dtype": "float32", "bytes": 4 * count}


def cost_doc(workload: str = WORKLOAD, inputs=(tensor(1024, 8192),), outputs=(tensor(1024, 8192),),
             parameter_bytes: int = 268_599_308, flops: int = 137_438_953_472, source: str = KERNELBENCH_84) -> dict:
    """A WorkloadCost as `import costs` writes one: level 2 #84 by default (its Linear's 8192 × 8192
    weights and bias, BatchNorm's four vectors, the scale and the batch count; 2 · 1024 · 8192² FLOPs)."""
    return {
        "apiVersion": "kindex-site.dev/v1", "kind": "WorkloadCost",
        "metadata": {"name": f"cost-{workload.removeprefix('sha256:')[:16]}",
                     "title": "Cost of Gemm BatchNorm Scaling Softmax"},
        "spec": {"workloadDigest": workload, "status": "counted", "inputs": list(inputs), "outputs": list(outputs),
                 "inputBytes": sum(t["bytes"] for t in inputs), "outputBytes": sum(t["bytes"] for t in outputs),
                 "parameterBytes": parameter_bytes, "flops": {"fp32": flops},
                 "counter": {"name": "torch.utils.flop_counter.FlopCounterMode", "version": "torch 2.13.0+cpu"},
                 "source": source},
    }


SMALL_COST = cost_doc(SMALL_WORKLOAD, (tensor(128, 1024),), (tensor(128, 512),), 2_107_404, 134_217_728,
                      "kernelbench-leaderboard/problems/level2/84_Gemm_BatchNorm_Scaling_Softmax.py")


def kernel_run(mean: int, name: str = RUN, lab: str = "Hostile Lab", environment: dict = H100,
               workload: str = WORKLOAD) -> dict:
    """The bundled eager run's bundle, re-timed at `mean` ns as another lab's kernel."""
    doc = copy.deepcopy(EAGER)
    spec = doc["run"]["spec"]
    spec["timing"]["latencyNs"] = {"mean": mean, "minimum": mean, "maximum": mean, "confidence95": [mean, mean]}
    spec.pop("measurements")
    spec["sourceNative"] = {"source": lab}
    spec["implementationDigest"] = "sha256:" + hashlib.sha256(name.encode()).hexdigest()
    spec["workloadDigest"] = workload
    spec["observedAt"] = "2026-04-01T00:00:00Z"
    doc["run"]["metadata"] = {"name": name, "title": f"Gemm BatchNorm Scaling Softmax · Fused kernel · {lab}"}
    doc["environment"] = environment
    return doc


def review_doc(run: str, verdict: str, reason: str = "Timed again by the publisher on its own H100 PCIe.") -> dict:
    return {"apiVersion": "kindex-site.dev/v1", "kind": "RunReview",
            "metadata": {"name": f"review-{run}", "title": f"Review of {run}"},
            "spec": {"run": run, "verdict": verdict, "reason": reason,
                     "evidence": "https://example.org/reviews/fused-kernel", "date": "2026-04-02"}}


def physics_settings(settings: str) -> str:
    """`kindex-site new`'s settings with Lambda Labs among the publisher's labs: its eager run is the
    reference, as on the bundled board."""
    return settings.replace('publisher_labs = ["Example Lab"]', 'publisher_labs = ["Example Lab", "Lambda Labs"]')


class Site:
    """A site made by `kindex-site new`, with the bundled eager run of level 2 #84 and its cost."""

    def __init__(self, project, root):
        self.project, self.root = project, root

    def write(self, rel: str, data) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1, ensure_ascii=False),
                        encoding="utf-8")

    def check(self, *flags: str) -> tuple[int, list[str]]:
        """The exit code and stderr's lines."""
        code, _, err = self.project.run("check", *flags)
        return code, err.splitlines()


@pytest.fixture
def site(project, monkeypatch, tmp_path) -> Site:
    code, _, err = project.run("new", "board", "--title", "Board", "--base-url", "/", "--reference", "PyTorch eager")
    assert code == 0, err
    root = tmp_path / "board"
    monkeypatch.chdir(root)
    made = Site(project, root)
    made.write("kindex.toml", physics_settings((root / "kindex.toml").read_text(encoding="utf-8")))
    made.write("content/lambda-labs/eager.json", EAGER)
    made.write(COST_FILE, cost_doc())
    return made


def test_the_bundled_eager_run_is_above_its_floor_and_passes(site):
    code, lines = site.check("--strict")
    assert code == 0, lines


def test_the_issues_unit_slip_fails_check_naming_the_floor(site):
    # 4,003× faster than eager's 4.94 ms: its 64 MiB of input and output, less the 50 MiB the L2 keeps,
    # take 7.34 µs at 2 TB/s, whatever the kernel does.
    site.write(RUN_FILE, kernel_run(1_234))
    for flags in ((), ("--strict",)):
        code, lines = site.check(*flags)
        assert code == 1
        assert lines == [BELOW, "error: 1 problem in 1 file; nothing was written"], flags


@pytest.mark.parametrize("mean, shown", [(1, "1 ns"), (500, "500 ns")])
def test_one_nanosecond_and_half_a_microsecond_fail_too(site, mean, shown):
    site.write(RUN_FILE, kernel_run(mean))
    code, lines = site.check()
    assert code == 1
    assert lines[0] == BELOW.replace("1.23 µs", shown)


def test_a_run_just_under_its_floor_is_said_to_the_nanosecond(site):
    # The floor is 14,680,064 bytes / 2 TB/s = 7,340.032 ns: 7,340 ns is under it, 7,341 ns is not.
    site.write(RUN_FILE, kernel_run(7_340))
    code, lines = site.check()
    assert code == 1 and lines[0] == BELOW.replace("1.23 µs", "7,340 ns").replace("7.34 µs", "7,340.032 ns")
    site.write(RUN_FILE, kernel_run(7_341))
    assert site.check()[0] == 0


def test_a_run_above_its_floor_is_a_result_however_fast(site):
    # 494× eager: far past the 10× speedup rule, which retires where physics can judge.
    site.write(RUN_FILE, kernel_run(10_000))
    code, lines = site.check("--strict")
    assert code == 0, lines


def test_build_shows_the_run_held_out_and_does_not_fail(site):
    site.write(RUN_FILE, kernel_run(1_234))
    code, _, err = site.project.run("build")
    assert code == 0, err
    page = visible_text((site.root / "site/problems/level2-84-gemm-batchnorm-scaling-softmax/index.html")
                        .read_text(encoding="utf-8"))
    assert "Fused kernel · Hostile Lab" in page
    assert ("below-floor: 1 run faster than the hardware allows: below the floor, the time the workload's inputs and "
            "outputs take to move through DRAM (7.34 µs on NVIDIA H100 PCIe (67,108,864 bytes at 2 TB/s))") in page


def test_the_publishers_clean_review_lets_the_run_pass(site):
    site.write(RUN_FILE, kernel_run(1_234))
    site.write(f"content/reviews/{RUN}.json", review_doc(RUN, "clean"))
    code, lines = site.check()
    assert code == 0, lines


@pytest.mark.parametrize("verdict", ["reward-hack", "timing-bug", "under-review"])
def test_a_run_the_publisher_judged_is_held_out_and_no_error(site, verdict):
    # Judged, it stays on its page with its verdict and evidence: the gate is for runs nobody has looked at.
    site.write(RUN_FILE, kernel_run(1_234))
    site.write(f"content/reviews/{RUN}.json", review_doc(RUN, verdict))
    code, lines = site.check()
    assert code == 0, lines
    assert not any("below its floor" in line for line in lines)


def test_an_unknown_gpu_claims_no_floor_and_gives_no_error(site):
    acme = copy.deepcopy(H100)
    acme["metadata"] = {"name": "acme-host", "title": "Acme host · Tensor 9000"}
    acme["spec"]["hardware"] = {"vendor": "acme", "product": "Acme Tensor 9000", "architecture": "t9"}
    site.write(RUN_FILE, kernel_run(1, environment=acme))
    code, lines = site.check()
    assert code == 0, lines
    assert not any("below its floor" in line for line in lines)


def test_a_workload_that_fits_in_the_l2_claims_no_floor_and_gives_no_error(site):
    site.write(RUN_FILE, kernel_run(1, workload=SMALL_WORKLOAD))
    site.write("content/costs/a9cbc7234a5d8050.json", SMALL_COST)
    code, lines = site.check()
    assert code == 0, lines
    assert not any("below its floor" in line for line in lines)


def test_a_workload_without_a_cost_claims_no_floor(site):
    (site.root / COST_FILE).unlink()
    site.write(RUN_FILE, kernel_run(1_234))
    code, lines = site.check()
    assert code == 0, lines
    assert not any("below its floor" in line for line in lines)
