"""A small content folder for the rules the bundled content does not exercise: history and trends,
no interval at all, rounding bounds with stepNs, several references, no reference, a failed reference,
implausible and reviewed speedups (and a slow one, never held out), a rank that needs the union rule,
two workloads on one host, a replaced KernelBench problem (one place in the suite), a problem without
a KernelBench level, a run on another GPU, another lab's run of the reference; and physics: a cost for
every workload (one that could not be counted), a GPU of the site's own (kindex.toml's [gpus]) and one no
table knows, runs below their floor (one in a history, one with a cache-flushing protocol), a
cache-resident workload (judged by the 10× rule), a 13× run above its floor (a result), reviews (clean
below the floor, reward hack, a verdict replaced by a newer one), and a host steadily 1,300× off.

Each case is clearly within the about page's text: its ambiguous corners (runs observed at the same
time, runs without observedAt, several tables for one workload, latencies at their floor) are left out
on purpose."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

PLAIN = {"name": "kx-plain", "title": "No resolution stated", "resolution": None}
SIG3 = {"name": "kx-sig3", "title": "Three significant figures", "resolution": {"significantFigures": 3}}
STEP = {"name": "kx-step", "title": "Three figures, 50 µs steps",
        "resolution": {"significantFigures": 3, "stepNs": 50_000}}
FLUSHED = {"name": "kx-flushed", "title": "Three figures, cache flushed before each call",
           "resolution": {"significantFigures": 3}, "cacheFlushed": True}

# The site's own GPU (a publisher adds one in kindex.toml), with figures as a datasheet would print them.
SETTINGS = """title = "Synthetic"

[gpus."Synth X1"]
product = "Synth X1"
form_factor = "PCIe"
fp32 = { printed = "20 TFLOPS", source = "synthetic", where = "made up for the recomputation test" }
tf32 = { printed = "160 TFLOPS*", sparse = true, source = "synthetic", where = "with sparsity: 80 dense" }
dram_bytes_per_s = { printed = "1,000 GB/s", source = "synthetic" }
l2_bytes = { printed = "8 MB", source = "synthetic" }
"""

# host → its GPU (product, form factor): h1–h4 an H100 PCIe (the package's figures), h5 the site's own
# GPU, h6 a GPU no table knows.
HOSTS = {"h1": ("NVIDIA H100", "PCIe"), "h2": ("NVIDIA H100", "PCIe"), "h3": ("NVIDIA H100", "PCIe"),
         "h4": ("NVIDIA H100", "PCIe"), "h5": ("Synth X1", "PCIe"), "h6": ("Synth Z9", "PCIe")}

REVIEWED = "alpha-reviewed"  # an implausible speedup (no floor) reviewed clean
BELOW_FLOOR = "floor-hack"  # below its floor: unranked, held out
CLEAN_BELOW_FLOOR = "floor-clean"  # below its floor, reviewed clean: ranked
REWARD_HACK = "floor-rh"  # above its floor, reviewed reward hack: unranked, held out
ABOVE_FLOOR_13X = "floor-diag"  # 13× the reference, above its floor: a result
OFF_HOST = "h4"  # its latencies are 1,300× the other hosts'
ONLY_WITH_OFF_HOST = "mu-a-h1"  # a good host's run of a workload only it and the off host timed


def _digest(*parts: str) -> str:
    return "sha256:" + hashlib.sha256("|".join(parts).encode()).hexdigest()


def _protocol(p: dict) -> dict:
    measurement = {"primaryStatistic": "mean"}
    if p["resolution"] is not None:
        measurement["resolution"] = p["resolution"]
    if p.get("cacheFlushed"):
        measurement["cacheFlushed"] = True
    return {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "BenchmarkProtocol",
            "metadata": {"name": p["name"], "title": p["title"]},
            "spec": {"harness": {"name": "synthetic"}, "measurement": measurement,
                     "comparability": {"family": p["name"], "notes": "Synthetic runs for the recomputation test."}}}


def _environment(host: str) -> dict:
    return {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "ExecutionEnvironment",
            "metadata": {"name": host, "title": f"Host {host}"},
            "spec": {"hardware": {"vendor": "nvidia", "product": HOSTS[host][0], "formFactor": HOSTS[host][1],
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


def _one_board() -> dict[str, list[dict]]:
    """A board with most cases, the union rule, no resolution and stepNs."""
    alpha = dict(problem="1_Alpha", host="h1", protocol=SIG3)
    return {
        # One board with most cases, on a workload the L2 holds (no floor: the 10× rule judges): no CI
        # (D), failed (F), implausible (G, X10), reviewed clean, slow, another GPU, and history: A
        # improved over its last passed run (a failed run between), C regressed, D improved beyond
        # rounding only.
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
    }


def _workloads_and_references() -> dict[str, list[dict]]:
    """Two workloads on a host; several references, none, a failed one."""
    return {
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
    }


def _suite_and_sources() -> dict[str, list[dict]]:
    """A replaced problem; another lab's reference; a problem of another source."""
    return {
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


def _one_workload_off() -> dict[str, list[dict]]:
    """One host far off on one workload only: judged on at least 3, it is not off."""
    return {
        # h2's runs of this one workload are 5,000× the others': a host is judged in units on the workloads
        # it shares (at least 3), and h2 shares 6 with the others, this one alone off.
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
    }


def _physics() -> dict[str, list[dict]]:
    """Floors: on the site's own GPU (h5), on a GPU no table knows (h6), with a cache-flushing protocol."""
    floor = dict(problem="4_Floor", host="h5", protocol=SIG3)
    unknown = dict(problem="4_Floor", host="h6", protocol=SIG3)
    nu = dict(problem="9_Nu", host="h1", protocol=FLUSHED)
    return {
        # 2 GiB in and out at 1,000 GB/s: a floor of about 2.1 ms. A 13× run above it is a result (no
        # 10× rule where a floor judges); runs below it are not, unless reviewed clean; a reward hack
        # above it is held out by its review; a run below its floor in a history is compared with by none.
        "floor.json": [
            run("floor-eager", implementation=EAGER, mean=30_000_000, ci=(29_900_000, 30_100_000), **floor),
            run("floor-a-1", implementation="A", mean=1_000_000, ci=(990_000, 1_010_000), observed=T0, **floor),
            run("floor-a-2", implementation="A", mean=8_000_000, ci=(7_950_000, 8_050_000), **floor),
            run(ABOVE_FLOOR_13X, implementation="Diag", mean=2_300_000, ci=(2_290_000, 2_310_000), **floor),
            run(BELOW_FLOOR, implementation="Hack", mean=500_000, ci=(499_000, 501_000), **floor),
            run(CLEAN_BELOW_FLOOR, implementation="Clean", mean=1_200_000, ci=(1_190_000, 1_210_000), **floor),
            run(REWARD_HACK, implementation="RH", mean=5_000_000, ci=(4_990_000, 5_010_000), **floor),
            run("floor-failed", implementation="F", mean=None, status="failed", **floor),
        ],
        # The same workload on a GPU no table has: no floor, so the 10× rule judges.
        "floor-unknown-gpu.json": [
            run("floor-z9-eager", implementation=EAGER, mean=30_000_000, ci=(29_900_000, 30_100_000), **unknown),
            run("floor-z9-fast", implementation="Hack", mean=1_000_000, ci=(990_000, 1_010_000), **unknown),
            run("floor-z9-a", implementation="A", mean=9_000_000, ci=(8_950_000, 9_050_000), **unknown),
        ],
        # 4 MiB would stay in the L2, but the protocol flushes it before each call: a floor all the same.
        "flushed.json": [
            run("nu-eager", implementation=EAGER, mean=1_000_000, ci=(995_000, 1_005_000), **nu),
            run("nu-a", implementation="A", mean=80_000, ci=(79_500, 80_500), **nu),
            run("nu-hack", implementation="Hack", mean=500, **nu),
        ],
    }


def _off_in_units() -> dict[str, list[dict]]:
    """h4's latencies are 1,300× h1's and h2's on the 3 workloads the three share, and on the one only
    h1 and h4 timed: h4 is off in units; h1 is not, on that workload either."""
    files: dict[str, list[dict]] = {}
    means = {"5_Iota": 1_000_000, "6_Kappa": 1_500_000, "7_Lambda": 2_500_000, "8_Mu": 2_000_000}
    for problem, mean in means.items():
        slug = problem.split("_", 1)[1].lower()
        hosts = {"h1": 1, "h2": 1.1, OFF_HOST: 1300} if problem != "8_Mu" else {"h1": 1, OFF_HOST: 1300}
        files[f"{slug}.json"] = [
            run(f"{slug}-{tag}-{host}", problem=problem, implementation=impl, host=host, protocol=SIG3,
                mean=round(mean * factor * share), ci=(round(mean * factor * share * 0.99),
                                                        round(mean * factor * share * 1.01)))
            for host, factor in hosts.items() for tag, impl, share in (("eager", EAGER, 1), ("a", "A", 0.8))]
    return files


def bundles() -> dict[str, list[dict]]:
    """File name → its bundles."""
    return {**_one_board(), **_workloads_and_references(), **_suite_and_sources(), **_one_workload_off(),
            **_physics(), **_off_in_units()}


# --- The publisher's documents ---------------------------------------------------------------------

MiB = 2**20
COUNTER = {"name": "synthetic", "version": "1"}
# A workload's cost by its problem: bytes in, out, of parameters, and operations by precision. Every
# other workload: 64 MiB in and out, more than an H100's 50 MiB L2 (a floor of 67 µs there).
COSTS = {
    "1_Alpha": (8 * MiB, 8 * MiB, 0, {"fp32": 10**11}),  # 16 MiB: stays in the L2 (no floor, the 10× rule)
    "4_Floor": (1024 * MiB, 1024 * MiB, 4 * MiB, {"fp32": 4 * 10**10, "tf32": 16 * 10**10}),
    "9_Nu": (2 * MiB, 2 * MiB, 0, {"fp32": 10**8}),  # in the L2, but the protocol flushes it
    "3_Epsilon": "the reference calls an operation the meta device does not implement",
}
DEFAULT_COST = (64 * MiB, 64 * MiB, MiB, {"fp32": 10**9})


def _cost(digest: str, problem: str) -> dict:
    spec: dict = {"workloadDigest": digest, "counter": COUNTER, "source": f"synthetic/{problem}.py"}
    found = COSTS.get(problem, DEFAULT_COST)
    if isinstance(found, str):
        spec.update(status="failed", reason=found)
    else:
        inputs, outputs, parameters, flops = found
        spec.update(status="counted", inputBytes=inputs, outputBytes=outputs, parameterBytes=parameters, flops=flops)
    return {"apiVersion": "kindex-site.dev/v1", "kind": "WorkloadCost",
            "metadata": {"name": "cost-" + digest.removeprefix("sha256:")[:16], "title": f"Cost of {problem}"},
            "spec": spec}


def costs() -> list[dict]:
    """A cost for every workload of the synthetic runs."""
    found: dict[str, str] = {}
    for docs in bundles().values():
        for bundle in docs:
            spec = bundle["run"]["spec"]
            external = spec["sourceNative"].get("externalId", "")
            problem = external.rsplit("/", 1)[-1].removesuffix(".py") if external else "other"
            found.setdefault(spec["workloadDigest"], problem)
    return [_cost(digest, problem) for digest, problem in sorted(found.items())]


def _review(run_name: str, verdict: str, date: str, reason: str, evidence: str | None = None) -> dict:
    spec = {"run": run_name, "verdict": verdict, "reason": reason, "date": date}
    if evidence:
        spec["evidence"] = evidence
    return {"apiVersion": "kindex-site.dev/v1", "kind": "RunReview",
            "metadata": {"name": f"review-{run_name}-{date[:10]}", "title": f"Review of {run_name}"}, "spec": spec}


def reviews() -> list[dict]:
    """The publisher's reviews; alpha-reviewed's newer verdict replaces its older one."""
    return [
        _review(REVIEWED, "under-review", "2026-01-11", "an 11× speedup on a workload the L2 holds"),
        _review(REVIEWED, "clean", "2026-01-20", "profiled: it fuses the two passes the reference makes",
                "https://example.org/reviews/alpha-reviewed"),
        _review(CLEAN_BELOW_FLOOR, "clean", "2026-01-15", "its inputs are read once, compressed; checked",
                "https://example.org/reviews/floor-clean"),
        _review(REWARD_HACK, "reward-hack", "2026-01-15T08:00:00Z", "returns a cached output without computing",
                "https://example.org/reviews/floor-rh"),
    ]


def _write(path: Path, docs: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    else:
        path.write_text(json.dumps(docs, indent=1), encoding="utf-8")


def write(root: Path) -> tuple[Path, Path]:
    """The content folder (its runs, costs/ and reviews/) and kindex.toml under `root`."""
    content = root / "content"
    for file, docs in bundles().items():
        _write(content / "synthetic" / file, docs)
    _write(content / "costs" / "synthetic.jsonl", costs())
    _write(content / "reviews" / "synthetic.json", reviews())
    settings = root / "kindex.toml"
    settings.write_text(SETTINGS, encoding="utf-8")
    return content, settings
