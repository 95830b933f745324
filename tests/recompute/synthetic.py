"""A small content folder for the rules the bundled content does not exercise: history and trends,
no interval at all, rounding bounds with stepNs, several references, no reference, a failed reference,
implausible and reviewed speedups (and a slow one, never held out), a rank that needs the union rule,
two workloads on one host, a replaced KernelBench problem (one place in the suite), a problem without
a KernelBench level, a run on another GPU, an implausible latency, another lab's run of the
reference.

Each case is clearly within the about page's text: its ambiguous corners (runs observed at the same
time, runs without observedAt, several tables for one workload) are left out on purpose."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

PLAIN = {"name": "kx-plain", "title": "No resolution stated", "resolution": None}
SIG3 = {"name": "kx-sig3", "title": "Three significant figures", "resolution": {"significantFigures": 3}}
STEP = {"name": "kx-step", "title": "Three figures, 50 µs steps",
        "resolution": {"significantFigures": 3, "stepNs": 50_000}}

SETTINGS = """title = "Synthetic"
reviewed_runs = ["alpha-reviewed"]
"""

REVIEWED = "alpha-reviewed"


def _digest(*parts: str) -> str:
    return "sha256:" + hashlib.sha256("|".join(parts).encode()).hexdigest()


def _protocol(p: dict) -> dict:
    measurement = {"primaryStatistic": "mean"}
    if p["resolution"] is not None:
        measurement["resolution"] = p["resolution"]
    return {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "BenchmarkProtocol",
            "metadata": {"name": p["name"], "title": p["title"]},
            "spec": {"harness": {"name": "synthetic"}, "measurement": measurement,
                     "comparability": {"family": p["name"], "notes": "Synthetic runs for the recomputation test."}}}


def _environment(host: str) -> dict:
    return {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "ExecutionEnvironment",
            "metadata": {"name": host, "title": f"Host {host}"},
            "spec": {"hardware": {"vendor": "nvidia", "product": "NVIDIA H100", "formFactor": "PCIe",
                                  "architecture": "sm_90"}, "software": {}}}


def run(name: str, problem: str, implementation: str, host: str, protocol: dict, mean: int | None,
        ci: tuple[int, int] | None = None, observed: str | None = "2026-01-10T00:00:00.000Z",
        status: str = "passed", workload: str = "", digest: str = "", level: int | None = 1,
        hardware: str | None = None) -> dict:
    """One bundle. `problem` is the KernelBench name ("1_Alpha") of a level-`level` problem, or the title's
    problem of a run from another source (level None)."""
    spec: dict = {"status": status, "measurements": [],
                  "protocolDigest": _digest(protocol["name"]),
                  "workloadDigest": _digest("workload", problem, workload),
                  "environmentDigest": _digest("environment", host),
                  "implementationDigest": digest or _digest("implementation", implementation)}
    if mean is not None:
        latency = {"mean": mean, "minimum": mean, "maximum": mean}
        if ci is not None:
            latency.update(confidence95=list(ci), minimum=min(mean, ci[0]), maximum=max(mean, ci[1]))
        spec["timing"] = {"samples": 100, "latencyNs": latency, "primaryStatistic": "mean"}
    if observed is not None:
        spec["observedAt"] = observed
    if level is not None:
        spec["sourceNative"] = {"source": "kernelbench", "externalId": f"synthetic/level{level}/{problem}.py"}
    else:
        spec["sourceNative"] = {"source": "synthetic"}
    if hardware is not None:
        spec["sourceNative"]["hardware"] = hardware
    title = problem.split("_", 1)[-1] if level is not None else problem
    return {"run": {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "BenchmarkRun",
                    "metadata": {"name": name, "title": f"{title} · {implementation} · synthetic"}, "spec": spec},
            "protocol": _protocol(protocol), "environment": _environment(host)}


def _lab(bundle: dict, lab: str) -> dict:
    """The bundle with its title's lab part replaced."""
    meta = bundle["run"]["metadata"]
    meta["title"] = " · ".join(meta["title"].split(" · ")[:2] + [lab])
    return bundle


EAGER = "PyTorch eager"
T0, T1, T2, T3 = ("2025-06-01T00:00:00.000Z", "2025-09-01T00:00:00.000Z", "2025-12-01T00:00:00.000Z",
                  "2026-01-10T00:00:00.000Z")


def bundles() -> dict[str, list[dict]]:
    """File name → its bundles."""
    alpha = dict(problem="1_Alpha", host="h1", protocol=SIG3)
    files = {
        # One board with most cases: no CI (D), failed (F), implausible (G, X10), reviewed,
        # slow, another GPU, and history: A improved over its last passed run (a failed run between),
        # C regressed, D improved beyond rounding only.
        "alpha.json": [
            run("alpha-eager", implementation=EAGER, mean=4_940_000, ci=(4_931_062, 4_948_938), **alpha),
            run("alpha-a-1", implementation="A", mean=2_500_000, ci=(2_490_000, 2_510_000), observed=T0, **alpha),
            run("alpha-a-2", implementation="A", mean=None, status="failed", observed=T1, **alpha),
            run("alpha-a-3", implementation="A", mean=2_000_000, ci=(1_990_000, 2_010_000), **alpha),
            run("alpha-b", implementation="B", mean=2_050_000, ci=(1_900_000, 2_200_000), **alpha),
            run("alpha-c-1", implementation="C", mean=2_000_000, ci=(1_995_000, 2_005_000), observed=T1, **alpha),
            run("alpha-c-2", implementation="C", mean=2_300_000, ci=(2_250_000, 2_350_000), **alpha),
            run("alpha-d-1", implementation="D", mean=3_100_000, observed=T2, **alpha),
            run("alpha-d-2", implementation="D", mean=3_000_000, **alpha),
            run("alpha-f", implementation="F", mean=None, status="failed", **alpha),
            run("alpha-g", implementation="G", mean=400_000, ci=(399_000, 401_000), **alpha),
            run("alpha-x10", implementation="X10", mean=494_000, **alpha),
            run(REVIEWED, implementation="Reviewed", mean=450_000, ci=(449_000, 451_000), **alpha),
            run("alpha-slow", implementation="Slow", mean=60_000_000, ci=(59_000_000, 61_000_000), **alpha),
            run("alpha-other-gpu", implementation="M", mean=1_000_000, ci=(990_000, 1_010_000),
                hardware="NVIDIA A100-SXM4-80GB", **alpha),
            # Rounding bounds that touch: not told apart.
            run("alpha-touch-1", implementation="Touch", mean=4_950_000, observed=T2, **alpha),
            run("alpha-touch-2", implementation="Touch", mean=4_940_000, **alpha),
        ],
        # The union rule: nothing is faster than E beyond noise, but A is faster than the reference, whose
        # mean is below E's: E shares the reference's rank 2 (not 1, above a faster mean).
        "eta.json": [
            run("eta-eager", problem="3_Eta", implementation=EAGER, host="h1", protocol=SIG3, mean=2_300_000,
                ci=(2_290_000, 2_310_000)),
            run("eta-a", problem="3_Eta", implementation="A", host="h1", protocol=SIG3, mean=2_000_000,
                ci=(1_990_000, 2_010_000)),
            run("eta-e", problem="3_Eta", implementation="E", host="h1", protocol=SIG3, mean=2_400_000,
                ci=(1_000_000, 3_800_000)),
        ],
        # No resolution, no intervals: ratios without interval, decided on the means.
        "beta.json": [
            run("beta-eager", problem="2_Beta", implementation=EAGER, host="h1", protocol=PLAIN, mean=1_000_000),
            run("beta-a-1", problem="2_Beta", implementation="A", host="h1", protocol=PLAIN, mean=950_000,
                observed=T2),
            run("beta-a-2", problem="2_Beta", implementation="A", host="h1", protocol=PLAIN, mean=900_000),
            run("beta-b", problem="2_Beta", implementation="B", host="h1", protocol=PLAIN, mean=1_000_000),
            # stepNs larger than the figures' step: touching bounds tie.
            run("beta-h2-eager", problem="2_Beta", implementation=EAGER, host="h2", protocol=STEP,
                mean=1_230_000),
            run("beta-h2-a", problem="2_Beta", implementation="A", host="h2", protocol=STEP, mean=1_180_000),
            run("beta-h2-b", problem="2_Beta", implementation="B", host="h2", protocol=STEP, mean=1_170_000),
            run("beta-h2-c", problem="2_Beta", implementation="C", host="h2", protocol=STEP, mean=123_000_000,
                ci=(122_000_000, 124_000_000)),
        ],
        # Two workloads on h1: the newest counts in the summaries.
        "gamma.json": [
            run("gamma-old-eager", problem="1_Gamma", implementation=EAGER, host="h1", protocol=SIG3,
                mean=1_000_000, ci=(990_000, 1_010_000), observed=T0, workload="old", level=2),
            run("gamma-old-a", problem="1_Gamma", implementation="A", host="h1", protocol=SIG3, mean=100_000,
                ci=(99_000, 101_000), observed=T0, workload="old", level=2),
            run("gamma-old-b", problem="1_Gamma", implementation="B", host="h1", protocol=SIG3, mean=400_000,
                ci=(399_000, 401_000), observed=T0, workload="old", level=2),
            run("gamma-eager", problem="1_Gamma", implementation=EAGER, host="h1", protocol=SIG3,
                mean=2_000_000, ci=(1_990_000, 2_010_000), workload="new", level=2),
            run("gamma-a", problem="1_Gamma", implementation="A", host="h1", protocol=SIG3, mean=1_500_000,
                ci=(1_490_000, 1_510_000), workload="new", level=2),
        ],
        # Several references: no speedups; A passed counts for fast_0 only.
        "delta.json": [
            run("delta-eager-1", problem="2_Delta", implementation=EAGER, host="h1", protocol=SIG3,
                mean=1_000_000, ci=(990_000, 1_010_000), digest=_digest("eager", "one"), level=2),
            run("delta-eager-2", problem="2_Delta", implementation=EAGER, host="h1", protocol=SIG3,
                mean=1_100_000, ci=(1_090_000, 1_110_000), digest=_digest("eager", "two"), level=2),
            run("delta-a", problem="2_Delta", implementation="A", host="h1", protocol=SIG3, mean=500_000,
                ci=(490_000, 510_000), level=2),
        ],
        # No reference at all; a failed run.
        "epsilon.json": [
            run("epsilon-a", problem="3_Epsilon", implementation="A", host="h1", protocol=SIG3, mean=700_000,
                ci=(690_000, 710_000), level=2),
            run("epsilon-b", problem="3_Epsilon", implementation="B", host="h1", protocol=SIG3, mean=None,
                status="failed", level=2),
        ],
        # The reference's current run failed (its earlier one passed): no reference.
        "zeta.json": [
            run("zeta-eager-1", problem="1_Zeta", implementation=EAGER, host="h1", protocol=SIG3, mean=3_000_000,
                ci=(2_990_000, 3_010_000), observed=T0, level=3),
            run("zeta-eager-2", problem="1_Zeta", implementation=EAGER, host="h1", protocol=SIG3, mean=None,
                status="failed", level=3),
            run("zeta-a", problem="1_Zeta", implementation="A", host="h1", protocol=SIG3, mean=1_000_000,
                ci=(990_000, 1_010_000), level=3),
        ],
        # KernelBench replaced level 3 #2: two problems, one place in the suite. h1 timed the old one
        # first and the new one later (the new one counts there); h2 timed the old one only.
        "replaced.json": [
            run("eta-old-eager", problem="2_Eta_Old", implementation=EAGER, host="h1", protocol=SIG3,
                mean=2_000_000, ci=(1_990_000, 2_010_000), observed=T0, level=3),
            run("eta-old-a", problem="2_Eta_Old", implementation="A", host="h1", protocol=SIG3, mean=500_000,
                ci=(490_000, 510_000), observed=T0, level=3),
            run("eta-new-eager", problem="2_Eta_New", implementation=EAGER, host="h1", protocol=SIG3,
                mean=1_000_000, ci=(990_000, 1_010_000), level=3),
            run("eta-new-b", problem="2_Eta_New", implementation="B", host="h1", protocol=SIG3, mean=800_000,
                ci=(790_000, 810_000), level=3),
            run("eta-old-eager-h2", problem="2_Eta_Old", implementation=EAGER, host="h2", protocol=SIG3,
                mean=2_100_000, ci=(2_090_000, 2_110_000), observed=T0, level=3),
            run("eta-old-a-h2", problem="2_Eta_Old", implementation="A", host="h2", protocol=SIG3, mean=600_000,
                ci=(590_000, 610_000), observed=T0, level=3),
        ],
        # An implausible latency: h2's runs of this workload are 5,000× the others' (a unit error, say).
        "theta.json": [
            run("theta-eager-h1", problem="3_Theta", implementation=EAGER, host="h1", protocol=SIG3, mean=2_660_000,
                ci=(2_650_000, 2_670_000)),
            run("theta-a-h1", problem="3_Theta", implementation="A", host="h1", protocol=SIG3, mean=1_330_000,
                ci=(1_320_000, 1_340_000)),
            run("theta-eager-h2", problem="3_Theta", implementation=EAGER, host="h2", protocol=SIG3,
                mean=13_300_000_000, ci=(13_200_000_000, 13_400_000_000)),
            run("theta-a-h2", problem="3_Theta", implementation="A", host="h2", protocol=SIG3, mean=6_650_000_000,
                ci=(6_600_000_000, 6_700_000_000)),
            run("theta-eager-h3", problem="3_Theta", implementation=EAGER, host="h3", protocol=SIG3, mean=2_700_000,
                ci=(2_690_000, 2_710_000)),
        ],
        # Another lab's run of the reference implementation, later and of the same digest: a run of its own,
        # never the table's reference.
        "theta-other-lab.json": [_lab(run("theta-eager-h1-other-lab", problem="3_Theta", implementation=EAGER,
                                          host="h1", protocol=SIG3, mean=1_000_000, ci=(990_000, 1_010_000),
                                          observed="2026-02-01T00:00:00.000Z"), "Other Lab")],
        # A problem from another source: the "other" group.
        "other.jsonl": [
            run("other-eager", problem="Other thing", implementation=EAGER, host="h2", protocol=SIG3,
                mean=5_000_000, ci=(4_900_000, 5_100_000), level=None),
            run("other-b", problem="Other thing", implementation="B", host="h2", protocol=SIG3, mean=2_400_000,
                ci=(2_300_000, 2_500_000), level=None),
        ],
    }
    return files


def write(root: Path) -> tuple[Path, Path]:
    """The content folder and kindex.toml under `root`."""
    content = root / "content"
    for file, docs in bundles().items():
        path = content / "synthetic" / file
        path.parent.mkdir(parents=True, exist_ok=True)
        if file.endswith(".jsonl"):
            path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
        else:
            path.write_text(json.dumps(docs, indent=1), encoding="utf-8")
    settings = root / "kindex.toml"
    settings.write_text(SETTINGS, encoding="utf-8")
    return content, settings
