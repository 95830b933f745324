"""What physics shows a reader (issue 43; about page, "Physics"): each run's floor, speed of light and
share of it, in the API, the tables, the run pages and the charts; runs below their floor and runs a
review judged, unranked, flagged and held out with why; what is unknown, said with why.

Every expected figure is worked here from the raw bytes and FLOPs of a cost document and the GPU's
figures as kindex_site/gpus.toml prints them (read with tomllib, converted by hand below), never by
physics.py. Content is untrusted: reasons, evidence URLs and counter names are escaped.
"""

from __future__ import annotations

import json
import re
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import SEED, latency_tables, seed_problem_run, visible_text

ROOT = Path(__file__).resolve().parent.parent
GPUS = tomllib.loads((ROOT / "kindex_site/gpus.toml").read_text(encoding="utf-8"))
WORKLOAD = SEED["run"]["spec"]["workloadDigest"]
PROBLEM = "problems/level2-84-gemm-batchnorm-scaling-softmax"
API = "problems/level2-84-gemm-batchnorm-scaling-softmax.json"
H100 = "NVIDIA H100 PCIe"  # the seed host's GPU
N = 4096  # the costs below are KernelBench level 1 #1's at N = 4096: C = A @ B, float32
INPUT_BYTES, OUTPUT_BYTES, FLOPS = 2 * N * N * 4, N * N * 4, 2 * N**3
NS = 10**9


def printed(gpu: str, figure: str) -> Fraction:
    """A gpus.toml figure as its source prints it, converted as docs/gpus.md says: a cache's MB is
    binary, rates and bandwidths decimal, a "with sparsity" figure halved, one printed for several
    GPUs divided."""
    spec = GPUS["gpus"][gpu][figure]
    if "value" in spec:
        return Fraction(spec["value"])
    number, unit = re.fullmatch(r"\s*([\d,.]+)\s*([A-Za-z/]+)\*?\s*", spec["printed"]).groups()
    units = {"tb/s": 10**12, "gb/s": 10**9, "mb": 2**20, "teraflops": 10**12, "tflops": 10**12}
    value = Fraction(number.replace(",", "")) * units[unit.lower()]
    return value / (2 if spec.get("sparse") else 1) / spec.get("per", 1)


def three(x) -> float:
    """3 significant figures, as the API rounds."""
    return float(f"{float(x):.3g}")


def percent(sol) -> str:
    """2 significant figures of a share as a page shows it: 0.7323 → '73%', 2184 → '220000%'."""
    shown = float(f"{float(sol) * 100:.2g}")
    return f"{shown:.0f}%" if shown >= 10 else f"{shown:g}%"


def cost(digest: str = WORKLOAD, inputs: int = INPUT_BYTES, outputs: int = OUTPUT_BYTES, parameters: int = 0,
         flops: dict | None = None, counter: str = "torch.utils.flop_counter.FlopCounterMode", **spec) -> dict:
    """A WorkloadCost (content/costs/): by default two N×N float32 inputs, one output, 2·N³ FP32 FLOPs."""
    shapes = {"inputs": [{"shape": [N, N], "dtype": "float32", "bytes": inputs // 2}] * 2 if inputs else [],
              "outputs": [{"shape": [N, N], "dtype": "float32", "bytes": outputs}] if outputs else []}
    body = {"workloadDigest": digest, "status": "counted", **shapes, "inputBytes": inputs, "outputBytes": outputs,
            "parameterBytes": parameters, "flops": {"fp32": FLOPS} if flops is None else flops,
            "counter": {"name": counter, "version": "torch 2.13.0"},
            "source": "https://github.com/ScalingIntelligence/KernelBench@0:KernelBench/level1/1.py", **spec}
    return {"apiVersion": "kindex-site.dev/v1", "kind": "WorkloadCost",
            "metadata": {"name": f"cost-{digest[7:19]}", "title": "Cost"}, "spec": body}


def review(run: str, verdict: str, reason: str = "its kernel returns a cached output",
           evidence: str | None = "https://example.org/evidence/1", date: str = "2026-03-10", **more) -> dict:
    spec = {"run": run, "verdict": verdict, "reason": reason, "date": date, **more}
    if evidence is not None:
        spec["evidence"] = evidence
    return {"apiVersion": "kindex-site.dev/v1", "kind": "RunReview",
            "metadata": {"name": f"review-{run}-{date}", "title": f"Review of {run}"}, "spec": spec}


def runs(project, *more: dict) -> None:
    """The seed problem on the H100 PCIe host: PyTorch eager at 3.68 ms and a kernel at 2 ms, and `more`."""
    project.write("content/a.json", [seed_problem_run("h", "PyTorch eager", 3_680_000),
                                     seed_problem_run("h", "Kernel", 2_000_000), *more])


def entries(project) -> dict[str, dict]:
    return {e["run"]: e for b in project.api(API)["boards"] for e in b["entries"] + b["history"]}


def expected_h100() -> dict:
    """The seed workload's floor and roofline on the H100 PCIe, from the raw figures (exact)."""
    bandwidth, l2, peak = printed(H100, "dram_bytes_per_s"), printed(H100, "l2_bytes"), printed(H100, "fp32")
    moved = INPUT_BYTES + OUTPUT_BYTES
    floor = (moved - l2) * NS / bandwidth  # (more than the L2 holds: a floor)
    roofline = max(FLOPS * NS / peak, (moved - l2) * NS / bandwidth)
    return {"floor": floor, "roofline": roofline, "dram": moved - l2, "bandwidth": bandwidth, "l2": l2}


# --- A run with a cost on a known GPU -------------------------------------------------------------


def test_a_costed_run_on_a_known_gpu_shows_its_floor_roofline_and_share(project):
    runs(project)
    project.write("content/costs/seed.json", cost())
    project.built()
    want = expected_h100()
    assert want["floor"] > 0 and want["roofline"] == FLOPS * NS / printed(H100, "fp32")  # compute-bound
    eager = entries(project)["run-h-pytorch-eager"]
    assert eager["gpu"] == H100
    assert eager["floor_ns"] == three(want["floor"]) and eager["roofline_ns"] == three(want["roofline"])
    assert eager["floor_why_not"] is None and eager["roofline_why_not"] is None
    assert eager["sol"] == three(want["roofline"] / 3_680_000)
    assert eager["below_floor"] is False and eager["verdict"] is None and eager["reviews"] == []
    [workload] = project.api(API)["workloads"]
    assert workload["cost"]["inputBytes"] == INPUT_BYTES and workload["cost"]["flops"] == {"fp32": FLOPS}
    assert workload["cost_why_not"] is None

    page = project.page(PROBLEM)
    [table] = latency_tables(page)
    column = table["rows"][0].index("% of speed of light")
    shares = {row[1].split(" ")[0]: row[column] for row in table["rows"][1:]}
    # (The kernel beats the reference's roofline: less work than the reference counted, marked †.)
    assert shares == {"PyTorch": percent(want["roofline"] / 3_680_000),
                      "Kernel": percent(want["roofline"] / 2_000_000) + "†"}
    text = visible_text(page)
    floor_us, roofline_ms = f"{float(want['floor']) / 1000:.3g} µs", f"{float(want['roofline']) / 1e6:.3g} ms"
    assert (f"On {H100}: floor {floor_us} ({int(want['dram']):,} bytes through DRAM at "
            f"{float(want['bandwidth']) / 1e12:.3g} TB/s); speed of light {roofline_ms}.") in text
    assert f"Its reference reads {INPUT_BYTES / 1e6:.3g} MB and writes {OUTPUT_BYTES / 1e6:.3g} MB" in text
    assert f"{FLOPS / 1e9:.3g} GFLOP in FP32" in text
    assert "chart dots sol" not in page  # (one host: its table says it all)


def test_a_workload_timed_on_two_hosts_charts_each_implementations_share_on_each(project):
    runs(project, seed_problem_run("h2", "PyTorch eager", 2_694_881))
    project.write("content/costs/seed.json", cost())
    project.built()
    roofline = expected_h100()["roofline"]
    page = project.page(PROBLEM)
    chart = re.search(r'<svg class="chart dots sol".*?</svg>(?:<text.*?</text>)*</svg>', page, re.S).group(0)
    assert 'role="img"' in chart and "fraction of the speed of light per implementation, across timing hosts" in chart
    text = visible_text(chart)
    assert (f"PyTorch eager2 hosts: {percent(roofline / 3_680_000)} (Host h) to {percent(roofline / 2_694_881)} "
            "(Host h2)") in text.replace("\n", "")
    assert f"Kernel{percent(roofline / 2_000_000)} on Host h" in text
    assert "100%" in text  # (the speed of light, dashed)
    assert len(re.findall(r"M\d+ \d+h0", re.search(r'class="pt" d="([^"]*)"', chart).group(1))) == 3  # a mark per run


def test_the_run_page_shows_the_figures_used_with_their_sources_and_the_cost(project):
    runs(project)
    project.write("content/costs/seed.json", cost())
    project.built()
    want = expected_h100()
    page = project.page("runs/run-h-pytorch-eager")
    text = visible_text(page)
    assert (f"% of speed of light {percent(want['roofline'] / 3_680_000)} the reference's roofline time on {H100}, "
            f"{float(want['roofline']) / 1e6:.3g} ms, over its mean latency (physics)") in text
    assert f"Floor{float(want['floor']) / 1000:.3g} µs: {int(want['dram']):,} bytes through DRAM" in text
    assert f"less {int(want['l2']):,} that may stay in the L2" in text
    assert f"Speed of light{float(want['roofline']) / 1e6:.3g} ms" in text
    figures = re.search(r'<dl class="facts figures">(.*?)</dl>', page, re.S).group(1)
    rows = {visible_text(dt): visible_text(dd) for dt, dd in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", figures, re.S)}
    datasheet = GPUS["documents"][GPUS["gpus"][H100]["fp32"]["source"]]
    assert rows["DRAM bandwidth"].startswith(f"{float(printed(H100, 'dram_bytes_per_s')) / 1e12:.3g} TB/s. Source: ")
    assert datasheet["title"] in rows["DRAM bandwidth"] and "2TB/s" in rows["DRAM bandwidth"]
    [fp32] = [text for name, text in rows.items() if name.startswith("FP32 peak")]
    compute_ms = f"{float(FLOPS * NS / printed(H100, 'fp32')) / 1e6:.3g} ms"
    assert fp32.startswith(f"{float(printed(H100, 'fp32')) / 1e12:.3g} TFLOP/s: {compute_ms} for its operations")
    assert "51 teraFLOPS" in fp32
    assert "50 MB" in rows["L2 (what may stay on chip between calls)"]
    assert f"Inputs{INPUT_BYTES:,} bytes: float32 [4096×4096]; float32 [4096×4096]" in text
    assert f"Floating-point operations{FLOPS:,} in FP32" in text
    assert "Counted bytorch.utils.flop_counter.FlopCounterMode (torch 2.13.0)" in text
    assert "No one has reviewed this run." in text


def test_the_host_page_draws_each_implementations_shares_and_counts_the_speedup_rule(project):
    runs(project)
    project.write("content/costs/seed.json", cost())
    project.built()
    page = project.page("hosts/h")
    assert '<svg class="chart box"' in page and "Fraction of the speed of light per implementation" in page
    text = visible_text(page)
    assert "The 10× rule judged 0 of the 1 ranked run with a speedup here" in text
    project.write("content/costs/seed.json", cost(inputs=2 * 1024, outputs=1024))  # now cache-resident
    project.built()
    text = visible_text(project.page("hosts/h"))
    assert ("The 10× rule judged 1 of the 1 ranked run with a speedup here, for want of a floor: 0 whose workload "
            "has no cost, 0 on a GPU the table lacks figures for, 1 whose inputs and outputs stay in the L2") in text


# --- Below the floor, reviewed -------------------------------------------------------------------------


def test_a_run_below_its_floor_is_unranked_flagged_and_held_out_with_why(project):
    runs(project, seed_problem_run("h", "Slip", 1_234))  # a unit slip: 1.23 µs for 201 MB
    project.write("content/costs/seed.json", cost())
    project.built()
    want = expected_h100()
    slip = entries(project)["run-h-slip"]
    assert slip["below_floor"] is True and slip["rank"] is None and slip["speedup"] is None
    assert slip["floor_ns"] == three(want["floor"])
    board = project.api(API)["boards"][0]
    [warning] = [w for w in board["warnings"] if w["code"] == "below-floor"]
    assert warning["runs"] == ["run-h-slip"]
    page = project.page(PROBLEM)
    [table] = latency_tables(page)
    [row] = [row for row in table["rows"] if row[1].startswith("Slip")]
    bandwidth = f"{float(want['bandwidth']) / 1e12:.3g} TB/s"
    assert row[0] == "—" and f"faster than the hardware allows floor {float(want['floor']) / 1000:.3g} µs at {bandwidth}" in row[1]
    assert row[3] == "0.00123" and row[7] == percent(want["roofline"] / 1_234) + "†"
    assert "† Above 100% of the speed of light: the run does less work than the reference counted" in visible_text(page)
    text = visible_text(project.page("runs/run-h-slip"))
    assert (f"Faster than the hardware allows. Its mean latency, 1.23 µs, is below its floor of "
            f"{float(want['floor']) / 1000:.3g} µs: {int(want['dram']):,} bytes must move through DRAM at {bandwidth} "
            f"on {H100}") in text
    assert "not ranked it is faster than the hardware allows" in text
    [summary] = [s for s in project.api("hosts/h.json")["implementations"] if s["implementation"] == "Slip"]
    assert summary["levels"]["all"]["held_out_runs"] == ["run-h-slip"] and summary["levels"]["all"]["passed"] == 0
    host = project.page("hosts/h")
    assert '<a href="/runs/run-h-slip/">run-h-slip</a> (faster than the hardware allows)' in host


def test_a_reviewed_run_shows_its_verdict_and_evidence_and_is_held_out(project):
    runs(project)
    project.write("content/reviews/kernel.json", [
        review("run-h-kernel", "under-review", "a reader asked", evidence=None, date="2026-03-01"),
        review("run-h-kernel", "reward-hack", date="2026-03-10", reviewer="Maintainer A")])
    project.built()
    kernel = entries(project)["run-h-kernel"]
    assert kernel["verdict"] == "reward-hack" and kernel["rank"] is None
    assert [(r["date"], r["verdict"], r["evidence"]) for r in kernel["reviews"]] == [
        ("2026-03-01", "under-review", None), ("2026-03-10", "reward-hack", "https://example.org/evidence/1")]
    assert kernel["reviews"][1]["reviewer"] == "Maintainer A"
    page = project.page(PROBLEM)
    assert '<a class="flag warn" href="https://example.org/evidence/1">reward hack</a>' in page
    text = visible_text(project.page("runs/run-h-kernel"))
    assert ("A review judged it reward hack from 2026-03-10: its kernel returns a cached output (evidence). "
            "Shown here, not ranked, and held out of every summary") in text
    assert "From 2026-03-01: under review. a reader asked" in text
    assert ("From 2026-03-10: reward hack, by Maintainer A. its kernel returns a cached output Evidence. "
            "(the verdict in force)") in text
    assert '<a href="/runs/run-h-kernel/">run-h-kernel</a> (reviewed: reward-hack)' in project.page("hosts/h")
    project.write("content/reviews/kernel.json", review("run-h-kernel", "clean", "checked by hand"))
    project.built()
    assert entries(project)["run-h-kernel"]["rank"] == 1
    assert '<a class="flag" href="https://example.org/evidence/1">reviewed clean</a>' in project.page(PROBLEM)


# --- What is unknown says why ---------------------------------------------------------------------------


def test_an_unknown_gpu_says_so(project):
    odd = seed_problem_run("odd", "PyTorch eager", 3_000_000)
    odd["environment"]["spec"]["hardware"].update(product="Imaginary GPU 9000", formFactor="PCIe")
    project.write("content/a.json", odd)
    project.write("content/costs/seed.json", cost())
    project.built()
    entry = entries(project)["run-odd-pytorch-eager"]
    assert entry["gpu"] is None and entry["floor_ns"] is None and entry["sol"] is None
    assert "the GPU table has no figures for Imaginary GPU 9000" in entry["floor_why_not"]
    assert entry["roofline_why_not"] == entry["floor_why_not"]
    text = visible_text(project.page(PROBLEM))
    assert "No floor or speed of light here: the GPU table has no figures for Imaginary GPU 9000" in text
    text = visible_text(project.page("runs/run-odd-pytorch-eager"))
    assert "GPUnot in the GPU table" in text
    assert "Floornone: the GPU table has no figures for Imaginary GPU 9000" in text


def test_a_cache_resident_workload_says_why_it_has_no_floor(project):
    runs(project)
    small_in, small_out = 2 * 1024 * 1024, 1024 * 1024  # 3 MiB: far less than the H100 PCIe's L2
    project.write("content/costs/seed.json", cost(inputs=small_in, outputs=small_out))
    project.built()
    eager = entries(project)["run-h-pytorch-eager"]
    l2 = int(printed(H100, "l2_bytes"))
    assert eager["floor_ns"] is None
    assert eager["floor_why_not"] == (f"its inputs and outputs ({small_in + small_out:,} bytes) fit in {H100}'s L2 "
                                      f"({l2:,} bytes) between timed calls")
    roofline = FLOPS * NS / printed(H100, "fp32")  # (its bytes stay on chip: the compute term alone)
    assert eager["roofline_ns"] == three(roofline) and eager["sol"] == three(roofline / 3_680_000)
    text = visible_text(project.page(PROBLEM))
    assert f"On {H100}: no floor ({eager['floor_why_not']}); speed of light" in text


def test_a_workload_without_a_cost_says_so_and_the_tables_say_unknown(project):
    runs(project)
    project.built()
    eager = entries(project)["run-h-pytorch-eager"]
    assert eager["floor_ns"] is None and eager["floor_why_not"] == "no cost was counted for its workload"
    [workload] = project.api(API)["workloads"]
    assert workload["cost"] is None and workload["cost_why_not"] == "no cost was counted for its workload"
    page = project.page(PROBLEM)
    assert "No cost was counted for this workload: no floor or speed of light, and the 10× rule judges its runs." \
        in visible_text(page)
    [table] = latency_tables(page)
    column = table["rows"][0].index("% of speed of light")
    assert {row[column] for row in table["rows"][1:]} == {"—"}
    assert "chart dots sol" not in page


def test_a_failed_cost_says_why(project):
    runs(project)
    failed = cost(status="failed", reason="RuntimeError: <meta> tensors have no data")
    for key in ("inputs", "outputs", "inputBytes", "outputBytes", "parameterBytes", "flops"):
        del failed["spec"][key]
    project.write("content/costs/seed.json", failed)
    project.built()
    eager = entries(project)["run-h-pytorch-eager"]
    assert "RuntimeError: <meta> tensors have no data" in eager["floor_why_not"]
    page = project.page(PROBLEM)
    assert "Its cost could not be counted (RuntimeError: &lt;meta&gt; tensors have no data)" in page


# --- The API's two layouts ------------------------------------------------------------------------------


def test_the_arrays_layout_holds_the_same_physics(project):
    runs(project, seed_problem_run("h", "Slip", 1_234))
    project.write("content/costs/seed.json", cost())
    project.write("content/reviews/kernel.json", review("run-h-kernel", "timing-bug"))
    project.built()
    objects = project.api(API)
    project.write("kindex.toml", 'api_entries = "arrays"\n')
    project.built()
    arrays = project.api(API)
    assert arrays["workloads"] == objects["workloads"]
    columns = arrays["columns"]
    for board, expected in zip(arrays["boards"], objects["boards"], strict=True):
        for row, entry in zip(board["rows"], expected["entries"], strict=True):
            got = dict(zip(columns, row, strict=True))
            for key in ("gpu", "floor_ns", "floor_why_not", "roofline_ns", "roofline_why_not", "sol", "below_floor",
                        "verdict", "reviews"):
                assert got[key] == entry[key], key


# --- Content is untrusted -------------------------------------------------------------------------------


HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>'


def test_hostile_review_text_evidence_and_counter_are_escaped(project):
    runs(project)
    project.write("content/costs/seed.json", cost(counter=HOSTILE))
    evidence = 'https://example.org/"><script>alert(3)</script>'
    project.write("content/reviews/kernel.json", review("run-h-kernel", "reward-hack", HOSTILE, evidence=evidence,
                                                        reviewer=HOSTILE))
    project.built()
    for url in (PROBLEM, "runs/run-h-kernel", "runs/run-h-pytorch-eager", "hosts/h"):
        page = project.page(url)
        assert "<script>alert" not in page and "<img src=x" not in page and "onerror=alert(2)>" not in page, url
    page = project.page("runs/run-h-kernel")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'href="https://example.org/&#34;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"' in page
    assert HOSTILE in visible_text(page)
    assert entries(project)["run-h-kernel"]["reviews"][0]["reason"] == HOSTILE  # the API keeps it as given


@pytest.mark.parametrize("evidence", ["javascript:alert(1)", "data:text/html,<b>x</b>", "//example.org/x"])
def test_evidence_that_is_no_http_link_is_refused(project, evidence):
    runs(project)
    project.write("content/reviews/kernel.json", review("run-h-kernel", "reward-hack", evidence=evidence))
    code, _, err = project.build()
    assert code != 0 and "evidence" in err and "http" in err
    assert not (project.root / "site").exists()


# --- Rebuilds: what judges a run is part of its pages' keys ---------------------------------------------


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _rebuild_matches_clean(project) -> None:
    project.built()
    project.built("--out", "clean", "--clean")
    assert _snapshot(project.root / "site") == _snapshot(project.root / "clean")


@pytest.mark.parametrize("change", [
    lambda p: p.write("content/costs/seed.json", cost()),
    lambda p: p.write("content/reviews/kernel.json", review("run-h-kernel", "reward-hack")),
    lambda p: (p.write("content/costs/seed.json", cost()), p.built(),
               p.write("content/costs/seed.json", cost(inputs=2 * 1024, outputs=1024))),
    lambda p: (p.write("content/reviews/kernel.json", review("run-h-kernel", "reward-hack")), p.built(),
               (p.root / "content/reviews/kernel.json").unlink()),
], ids=["a-cost-added", "a-verdict", "a-cost-changed", "a-review-removed"])
def test_a_rebuild_after_a_cost_or_a_review_equals_a_clean_build(project, always_incremental, change):
    runs(project)
    project.built()
    change(project)
    _rebuild_matches_clean(project)


@pytest.mark.parametrize("change", [
    lambda p: p.write("content/reviews/kernel.json", review("run-h-kernel", "reward-hack", "another reason")),
    lambda p: p.write("content/costs/seed.json", cost(counter="another counter")),
    lambda p: p.write("content/costs/seed.json", cost(parameters=4096)),  # (compute-bound: the roofline holds)
], ids=["a-reason", "a-counter", "parameters"])
def test_a_rebuild_after_an_edit_that_changes_no_verdict_equals_a_clean_build(project, always_incremental, change):
    runs(project)
    project.write("content/costs/seed.json", cost())
    project.write("content/reviews/kernel.json", review("run-h-kernel", "reward-hack"))
    project.built()
    change(project)
    _rebuild_matches_clean(project)


# --- The about page -------------------------------------------------------------------------------------


def test_the_about_page_states_the_physics(project):
    project.write("content/a.json", seed_problem_run("h", "PyTorch eager", 3_680_000))
    project.write("content/pages/about.md", (ROOT / "content/pages/about.md").read_text(encoding="utf-8"))
    project.built()
    text = visible_text(project.page("about"))
    for sentence in [
        "floor = (input bytes + output bytes − L2-resident bytes) / DRAM bandwidth",
        "roofline = max(Σ flops[p] / peak[p], (input + output + parameter bytes − L2-resident bytes) / DRAM bandwidth)",
        "sol = roofline / latency",
        "When the inputs and outputs fit in the L2, no floor is claimed.",
        "Parameters and operations are left out: an implementation may store its weights otherwise",
        "FP32 for matrix multiplications, TF32 for cuDNN convolutions",
        "The figures are dense peaks, never the \"with sparsity\" ones",
        "kindex-site import costs",
        "implausible = (no floor) and (speedup ≥ implausible_speedup) and no review finds the run clean",
        "probably not in the stated unit",
        "A run's newest review is its verdict.",
    ]:
        assert sentence in text, sentence
    assert "reviewed_runs" not in text


def test_the_api_figures_carry_three_significant_figures(project):
    runs(project)
    project.write("content/costs/seed.json", cost())
    project.built()
    raw = (project.root / "site/api/v1" / API).read_text(encoding="utf-8")
    doc = json.loads(raw)
    for e in (e for b in doc["boards"] for e in b["entries"]):
        for key in ("floor_ns", "roofline_ns", "sol"):
            assert len(re.sub(r"[^0-9]", "", f"{e[key]:.15g}").strip("0")) <= 3, (key, e[key])
