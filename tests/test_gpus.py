"""What each GPU can do (kindex_site/gpus.toml): every figure dense, sourced and recomputable from what
its source prints; GPUs found under the names the content and KernelBench give them; a site's
corrections in kindex.toml. `python tests/test_gpus.py` writes docs/gpus.md's tables from gpus.toml
(the test fails while they differ)."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest

from kindex_site.config import Config, load_config
from kindex_site.errors import KindexError
from kindex_site.gpus import FIGURES, PEAKS, _package_table, figure_value, load_gpus

ROOT = Path(__file__).parent.parent
DOC = ROOT / "docs/gpus.md"
BEGIN, END = "<!-- GPU TABLES: written by python tests/test_gpus.py -->", "<!-- END GPU TABLES -->"

# The GPUs issue 43 asks for, each with what must be known of it.
REQUIRED = ["NVIDIA H100 PCIe", "NVIDIA H100 SXM", "NVIDIA H100 NVL", "NVIDIA H200 SXM", "NVIDIA H200 NVL",
            "NVIDIA B200", "NVIDIA A100 40GB PCIe", "NVIDIA A100 80GB PCIe", "NVIDIA A100 40GB SXM",
            "NVIDIA A100 80GB SXM", "NVIDIA A10G", "NVIDIA L40S", "NVIDIA L4", "NVIDIA T4", "NVIDIA RTX A6000",
            "NVIDIA GeForce RTX 3090 Ti", "AMD Instinct MI250", "AMD Instinct MI250X", "AMD Instinct MI300X"]
TERA, PETA, GB, MIB = 1e12, 1e15, 1e9, 2**20

# Figures a reader recomputes from the cited page: (GPU, figure, what the source prints, converted).
RECOMPUTED = [
    ("NVIDIA H100 SXM", "fp16", "1,979 teraFLOPS* (with sparsity) / 2", 989.5 * TERA),
    ("NVIDIA H100 SXM", "tf32", "989 teraFLOPS* / 2", 494.5 * TERA),
    ("NVIDIA H100 SXM", "fp64", "34 teraFLOPS", 34 * TERA),
    ("NVIDIA H100 SXM", "dram_bytes_per_s", "3.35TB/s", 3.35 * TERA),
    ("NVIDIA H100 PCIe", "fp16", "1,513 teraFLOPS* / 2", 756.5 * TERA),
    ("NVIDIA H100 PCIe", "fp32", "51 teraFLOPS", 51 * TERA),
    ("NVIDIA H100 PCIe", "dram_bytes_per_s", "2TB/s", 2 * TERA),
    ("NVIDIA H100 PCIe", "l2_bytes", "50 MB", 50 * MIB),
    ("NVIDIA H100 NVL", "dram_bytes_per_s", "3.9TB/s", 3.9 * TERA),
    ("NVIDIA H200 SXM", "dram_bytes_per_s", "4.8TB/s", 4.8 * TERA),
    ("NVIDIA H200 NVL", "bf16", "1,671 TFLOPS* / 2", 835.5 * TERA),
    ("NVIDIA B200", "fp16", "4.5 PFLOPS* / 2", 2.25 * PETA),
    ("NVIDIA B200", "dram_bytes_per_s", "64TB/s for 8 GPUs", 8 * TERA),
    ("NVIDIA A100 40GB PCIe", "dram_bytes_per_s", "1,555GB/s", 1555 * GB),
    ("NVIDIA A100 80GB PCIe", "dram_bytes_per_s", "1,935GB/s", 1935 * GB),
    ("NVIDIA A100 80GB SXM", "dram_bytes_per_s", "2,039GB/s", 2039 * GB),
    ("NVIDIA A100 80GB SXM", "fp16", "312 TFLOPS (dense column)", 312 * TERA),
    ("NVIDIA A100 80GB SXM", "l2_bytes", "40 MB", 40 * MIB),
    ("NVIDIA L40S", "fp16", "362.05 teraFLOPS (dense column)", 362.05 * TERA),
    ("NVIDIA L40S", "dram_bytes_per_s", "864GB/s", 864 * GB),
    ("NVIDIA L4", "fp16", "242 teraFLOPs* / 2", 121 * TERA),
    ("NVIDIA L4", "dram_bytes_per_s", "300GB/s", 300 * GB),
    ("NVIDIA T4", "fp16", "65 TFLOPS (Turing: no sparsity)", 65 * TERA),
    ("NVIDIA RTX A6000", "fp32", "38.7 TFLOPS", 38.7 * TERA),
    ("AMD Instinct MI250", "fp32_matrix", "90.5 TFLOPs for 2 GCDs", 45.25 * TERA),
    ("AMD Instinct MI250", "dram_bytes_per_s", "3.2 TB/s for 2 GCDs", 1.6 * TERA),
    ("AMD Instinct MI250X", "fp16", "383 TFLOPs for 2 GCDs", 191.5 * TERA),
    ("AMD Instinct MI300X", "fp16", "1307.4 TFLOPs (dense)", 1307.4 * TERA),
    ("AMD Instinct MI300X", "l2_bytes", "256 MiB Infinity Cache", 256 * MIB),
]


@pytest.fixture(scope="module")
def table():
    return load_gpus()


def figure(gpu, name):
    return gpu.dram_bytes_per_s if name == "dram_bytes_per_s" else gpu.l2_bytes if name == "l2_bytes" \
        else gpu.peaks.get(name)


def test_the_table_loads_with_every_gpu_asked_for(table):
    assert sorted(g.name for g in table) == sorted(REQUIRED)
    for name in REQUIRED:
        gpu = table.get(name)
        assert table.find(name) is gpu, name  # each findable under its own name
        if name != "NVIDIA A10G":  # no vendor figures: docs/gpus.md says so
            assert gpu.dram_bytes_per_s and gpu.peaks, name


def test_every_figure_has_its_source_and_every_source_is_a_vendor_document():
    documents, entries = _package_table()
    used = set()
    for name, entry in entries.items():
        for key in FIGURES:
            if key in entry:
                spec = dict(entry[key])
                assert spec["source"] in documents, (name, key)
                assert spec.get("where"), (name, key)
                assert ("value" in spec) == ("derivation" in spec), (name, key)
                used.add(spec["source"])
    assert used == set(documents), "documents cited by no figure"
    for key, document in documents.items():
        assert document["title"] and 2018 <= document["year"] <= 2026, key
        host = re.match(r"https://([^/]+)/", document["url"])[1]
        assert host.endswith(("nvidia.com", "amd.com")), key  # the vendor's own
    for gpu in load_gpus():
        assert set(gpu.sources) == {k for k in FIGURES if figure(gpu, k) is not None}, gpu.name
        for text in gpu.sources.values():
            assert "https://" in text and "→" in text


def test_no_figure_is_a_sparsity_one(table):
    _, entries = _package_table()
    for name, entry in entries.items():
        for key in PEAKS:
            spec = dict(entry.get(key, ()))
            starred = "*" in spec.get("printed", "")
            assert starred == spec.get("sparse", False), (name, key, spec)  # printed with sparsity → halved
    h100 = table.get("NVIDIA H100 SXM")
    assert h100.peaks["fp16"] == pytest.approx(989.4e12, rel=1e-3)  # the whitepaper's dense 989.4, not 1,979
    assert h100.peaks["fp8"] == pytest.approx(1978.9e12, rel=1e-3)
    for gpu in table:  # dense tensor throughput never exceeds 32× the vector FP32 (sparse figures would)
        if "fp16" in gpu.peaks and "fp32" in gpu.peaks:
            assert gpu.peaks["fp16"] / gpu.peaks["fp32"] <= 32, gpu.name


@pytest.mark.parametrize("name, key, printed, value", RECOMPUTED, ids=[f"{n}:{k}" for n, k, _, _ in RECOMPUTED])
def test_a_figure_is_what_its_source_prints_converted(table, name, key, printed, value):
    assert figure(table.get(name), key) == pytest.approx(value, rel=1e-9), printed


def test_conversions():
    assert figure_value("fp16", {"printed": "1,979 teraFLOPS*", "sparse": True}) == 989.5e12
    assert figure_value("dram_bytes_per_s", {"printed": "64TB/s", "per": 8}) == 8e12
    assert figure_value("l2_bytes", {"printed": "98,304 KB"}) == 96 * MIB
    assert figure_value("int8", {"printed": "2.2 POPS"}) == pytest.approx(2.2e15)
    with pytest.raises(ValueError, match="not a number with one of the units"):
        figure_value("dram_bytes_per_s", {"printed": "3.35 TFLOPS"})  # a rate is not a bandwidth


def test_the_fastest_path_of_a_precision(table):
    assert table.get("NVIDIA H100 SXM").peak("fp64") == 67e12  # DGEMM runs on the FP64 Tensor Cores
    assert table.get("AMD Instinct MI250").peak("fp32") == 45.25e12  # matrix cores and packed FP32
    assert table.get("NVIDIA H100 SXM").peak("fp32") == 67e12
    assert table.get("NVIDIA T4").peak("fp8") is None


def _environments():
    """(product, formFactor, memory, recorded GPUs) of each bundled host: environments and runs' sourceNative."""
    hosts: dict[str, set] = {}
    for path in sorted((ROOT / "content").rglob("*.json")):
        if path.parent.name == "pages":
            continue
        documents = json.loads(path.read_text(encoding="utf-8"))
        for document in documents if isinstance(documents, list) else [documents]:
            environment = document.get("environment") if isinstance(document, dict) else None
            hardware = (environment or {}).get("spec", {}).get("hardware")
            if not hardware:
                continue
            recorded = (document.get("run", {}).get("spec", {}).get("sourceNative") or {}).get("hardware")
            memory = hardware.get("memory")
            key = (hardware["product"], hardware.get("formFactor"), memory if isinstance(memory, str) else None)
            hosts.setdefault(key, set()).add(recorded)
    return hosts


def test_the_bundled_hosts_and_their_runs_gpus_are_found(table):
    expected = {"NVIDIA H100": "NVIDIA H100 PCIe", "NVIDIA L40S": "NVIDIA L40S", "NVIDIA L4": "NVIDIA L4",
                "AMD Instinct MI250": "AMD Instinct MI250"}
    hosts = _environments()
    assert {product for product, _, _ in hosts} == set(expected)
    for (product, form_factor, memory), recorded in hosts.items():
        assert table.find(product, form_factor, memory).name == expected[product]
        for name in recorded:  # "NVIDIA H100 PCIe", "AMD Instinct MI250X/MI250", or none recorded
            assert table.find_for_run(name, product, form_factor, memory).name == expected[product], name


def test_kernelbench_hosts_are_found():
    from kindex_site.importers.kernelbench import HOSTS

    table = load_gpus()
    expected = {"H100_PCIe_LambdaLabs": "NVIDIA H100 PCIe", "H100_together": "NVIDIA H100 SXM",
                "H100_Modal": "NVIDIA H100 SXM", "B200_together": "NVIDIA B200", "L40S_matx3": "NVIDIA L40S",
                "L40S_babel": "NVIDIA L40S", "L40S_modal": "NVIDIA L40S", "L4_GCP": "NVIDIA L4", "L4_modal": "NVIDIA L4",
                "A6000_babel": "NVIDIA RTX A6000", "RTX_3090_Ti": "NVIDIA GeForce RTX 3090 Ti",
                "A100_modal": "NVIDIA A100 40GB SXM", "A10G_modal": "NVIDIA A10G", "T4_modal": "NVIDIA T4",
                "MI250": "AMD Instinct MI250",
                "A100-80GB_modal": None}  # PCIe or SXM: its host table does not say
    assert set(HOSTS) == set(expected)
    for key, host in HOSTS.items():
        found = table.find(host.product, host.form_factor)
        assert (found and found.name) == expected[key], key
    # What KernelBench's rows record (torch.cuda.get_device_name) settles what a host leaves open.
    a100 = HOSTS["A100-80GB_modal"]
    assert table.find_for_run("NVIDIA A100-SXM4-80GB", a100.product, a100.form_factor).name == "NVIDIA A100 80GB SXM"
    assert table.find_for_run("NVIDIA H100 80GB HBM3", "NVIDIA H100", "SXM").name == "NVIDIA H100 SXM"
    assert table.find_for_run("NVIDIA L40S", "NVIDIA H100", "PCIe").name == "NVIDIA L40S"  # another GPU: its own


@pytest.mark.parametrize("name, form_factor, found", [
    ("NVIDIA H100 PCIe", None, "NVIDIA H100 PCIe"), ("NVIDIA H100", "PCIe", "NVIDIA H100 PCIe"),
    ("NVIDIA H100 NVL", None, "NVIDIA H100 NVL"), ("NVIDIA H100 80GB HBM3", None, "NVIDIA H100 SXM"),
    ("NVIDIA A100-SXM4-80GB", None, "NVIDIA A100 80GB SXM"), ("NVIDIA A100-SXM4-40GB", None, "NVIDIA A100 40GB SXM"),
    ("NVIDIA A100-PCIE-40GB", None, "NVIDIA A100 40GB PCIe"), ("NVIDIA A100 80GB PCIe", None, "NVIDIA A100 80GB PCIe"),
    ("NVIDIA H200", None, "NVIDIA H200 SXM"), ("NVIDIA H200 NVL", None, "NVIDIA H200 NVL"),
    ("NVIDIA H200", "NVL", "NVIDIA H200 NVL"), ("Tesla T4", None, "NVIDIA T4"),
    ("AMD Instinct MI250X", "OAM", "AMD Instinct MI250X"), ("AMD Instinct MI300X", None, "AMD Instinct MI300X"),
    # unknown or ambiguous: no floor is claimed
    ("NVIDIA H100", None, None), ("NVIDIA A100 80GB", None, None), ("AMD Instinct MI250X/MI250", None, None),
    ("NVIDIA GeForce RTX 4090", None, None), ("NVIDIA GeForce RTX 3090", None, None), ("NVIDIA A10", None, None),
    ("NVIDIA L40", None, None), ("Intel Data Center GPU Max 1550", None, None), ("", None, None), ("NVIDIA", None, None),
    ("NVIDIA H100 PCIe", "SXM", None),
])
def test_find(table, name, form_factor, found):
    gpu = table.find(name, form_factor)
    assert (gpu and gpu.name) == found


def test_the_bandwidths_are_not_below_what_kernelbench_measured():
    """PyTorch eager's ReLU (KernelBench level 1 #19 since its 2025-07 resize: 4096 × 393216 float32, read
    and written once) moves its bytes no faster than the DRAM figure allows."""
    table = load_gpus()
    moved = 2 * 4096 * 393216 * 4
    for folder, gpu in [("H100_PCIe_LambdaLabs", "NVIDIA H100 PCIe"), ("L4_GCP", "NVIDIA L4")]:
        rows = json.loads((ROOT / "content/kernelbench" / folder / "baseline_time_torch.json").read_text())
        run = next(r["run"] for r in rows if r["run"]["spec"]["sourceNative"]["externalId"].endswith("/level1/19_ReLU.py"))
        seconds = run["spec"]["timing"]["latencyNs"]["mean"] / 1e9
        achieved = moved / seconds
        assert 0.5 < achieved / table.get(gpu).dram_bytes_per_s < 1, (folder, achieved)


def test_a_site_corrects_and_adds_gpus_in_kindex_toml(tmp_path):
    (tmp_path / "kindex.toml").write_text(
        '[gpus."NVIDIA H100 PCIe"]\n'
        'dram_bytes_per_s = { value = 2.039e12, source = "NVIDIA H100 PCIe Product Brief (2022), Table 1" }\n'
        'note = "measured by the site"\n'
        '[gpus."NVIDIA GeForce RTX 4090"]\n'
        'fp16 = { printed = "330.3 TFLOPS*", sparse = true, source = "NVIDIA Ada whitepaper, Appendix A" }\n'
        'dram_bytes_per_s = { printed = "1008 GB/s", source = "NVIDIA Ada whitepaper, Appendix A" }\n'
        'l2_bytes = { printed = "73,728 KB", source = "NVIDIA Ada whitepaper, Appendix A" }\n')
    config = load_config(tmp_path / "kindex.toml", {})
    assert hash(config) == hash(load_config(tmp_path / "kindex.toml", {}))
    table = load_gpus(config.gpus)
    h100 = table.find("NVIDIA H100", "PCIe")
    assert h100.dram_bytes_per_s == 2.039e12 and "Product Brief" in h100.sources["dram_bytes_per_s"]
    assert h100.peaks == load_gpus().get("NVIDIA H100 PCIe").peaks  # the other figures stay
    assert h100.note == "measured by the site"
    rtx4090 = table.find("NVIDIA GeForce RTX 4090")
    assert (rtx4090.peaks["fp16"], rtx4090.dram_bytes_per_s, rtx4090.l2_bytes) == (165.15e12, 1.008e12, 72 * MIB)
    assert load_gpus().find("NVIDIA GeForce RTX 4090") is None  # the package's table is left as it was


@pytest.mark.parametrize("toml, message", [
    ('[gpus."NVIDIA H100 PCIe"]\nfp16 = { value = 1e15 }', "gpus: NVIDIA H100 PCIe: fp16: source: Field required"),
    ('[gpus."NVIDIA H100 PCIe"]\nfp17 = { value = 1e15, source = "x" }', "gpus: NVIDIA H100 PCIe: fp17: Extra inputs are not permitted"),
    ('[gpus."NVIDIA H100 PCIe"]\nfp16 = { value = -1, source = "x" }', "gpus: NVIDIA H100 PCIe: fp16: value: Input should be a number greater than 0"),
    ('[gpus."NVIDIA H100 PCIe"]\nfp16 = { value = "1e15", source = "x" }', "gpus: NVIDIA H100 PCIe: fp16: value: Input should be a number greater than 0"),
    ('[gpus."NVIDIA H100 PCIe"]\nfp16 = { value = 1e15, source = "" }', "gpus: NVIDIA H100 PCIe: fp16: source: Input should be a non-empty string"),
    ('[gpus."NVIDIA H100 PCIe"]\nfp16 = 1e15', "gpus: NVIDIA H100 PCIe: fp16: Input should be a table with value (or printed) and source"),
    ('[gpus."NVIDIA H100 PCIe"]\nfp16 = { source = "x" }', "gpus: NVIDIA H100 PCIe: fp16: Input should have either value or printed"),
    ('[gpus."NVIDIA H100 PCIe"]\ndram_bytes_per_s = { printed = "2 TFLOPS", source = "x" }',
     "gpus: NVIDIA H100 PCIe: dram_bytes_per_s: printed: '2 TFLOPS' is not a number with one of the units tb/s, gb/s"),
    ('[gpus."NVIDIA H100 PCIe"]\nl2_bytes = { printed = "50 MB", sparse = true, source = "x" }',
     "gpus: NVIDIA H100 PCIe: l2_bytes: sparse: only a peak throughput is printed with sparsity"),
    ('[gpus."NVIDIA H100 PCIe"]\nfp16 = { value = 1e15, source = "x", url = "y" }', "gpus: NVIDIA H100 PCIe: fp16: url: Extra inputs are not permitted"),
    ('[gpus."NVIDIA H100 PCIe"]\nalso_named = "H100"', "gpus: NVIDIA H100 PCIe: also_named: Input should be a list of GPU names"),
    ('[gpus."NVIDIA H100 PCIe"]\nproduct = 3', "gpus: NVIDIA H100 PCIe: product: Input should be a valid string"),
    ('[gpus."NVIDIA H100 PCIe"]\ntdp = 350', "gpus: NVIDIA H100 PCIe: tdp: Extra inputs are not permitted"),
    ('gpus = ["NVIDIA H100 PCIe"]', 'gpus: Input should be a table of GPU name = {figure = {value = …, source = "…"}, …}'),
    ('[gpus]\n"NVIDIA H100 PCIe" = 3', "gpus: NVIDIA H100 PCIe: Input should be a table of figures"),
])
def test_a_bad_correction_is_an_error_naming_the_field(tmp_path, toml, message):
    (tmp_path / "kindex.toml").write_text(toml + "\n")
    with pytest.raises(KindexError) as e:
        load_config(tmp_path / "kindex.toml", {})
    assert e.value.problems == [f"{tmp_path / 'kindex.toml'}: {message}"]


def test_config_keeps_gpus_as_sorted_tuples():
    given = {"B": {"fp32": {"value": 1e12, "source": "s"}}, "A": {"note": "n", "fp16": {"source": "s", "value": 2e12}}}
    config = Config(gpus=given, root=Path("."))
    assert config.gpus == (("A", (("fp16", (("source", "s"), ("value", 2e12))), ("note", "n"))),
                           ("B", (("fp32", (("source", "s"), ("value", 1e12))),)))
    assert hash(config) == hash(Config(gpus=given, root=Path(".")))
    assert Config(root=Path(".")).gpus == ()


# --- docs/gpus.md's tables, written from gpus.toml -------------------------------------------------------


def _shown(key: str, value: float) -> str:
    if key == "l2_bytes":
        return f"{value / MIB:g} MiB"
    if key == "dram_bytes_per_s":
        return f"{value / TERA:g} TB/s" if value >= TERA else f"{value / GB:g} GB/s"
    unit = "OPS" if key == "int8" else "FLOPS"
    return f"{value / PETA:g} P{unit}" if value >= PETA else f"{value / TERA:.6g} T{unit}"


def gpu_tables() -> str:
    documents, entries = _package_table()
    out = [BEGIN]
    for name in sorted(entries):
        entry = entries[name]
        described = ", ".join(f"{k.replace('_', ' ')} `{entry[k]}`" for k in ("product", "form_factor", "memory") if k in entry)
        out += ["", f"### {name}", "", described + (f"; also named {', '.join(f'`{n}`' for n in entry['also_named'])}"
                                                    if "also_named" in entry else "") + "."]
        if entry.get("note"):
            out += ["", entry["note"]]
        rows = [key for key in FIGURES if key in entry]
        if not rows:
            continue
        out += ["", "| figure | value | as printed | conversion | source |", "| --- | --- | --- | --- | --- |"]
        for key in rows:
            spec = dict(entry[key])
            steps = (["with sparsity ÷ 2"] if spec.get("sparse") else []) + \
                    ([f"÷ {spec['per']}"] if spec.get("per", 1) > 1 else []) + \
                    ([spec["derivation"]] if "derivation" in spec else [])
            document = documents[spec["source"]]
            out.append(f"| `{key}` | {_shown(key, figure_value(key, spec))} | {spec.get('printed', '')} "
                       f"| {'; '.join(steps)} | [{document['title']}]({document['url']}) ({document['year']}): {spec['where']} |")
    out.append(END)
    return "\n".join(out)


def _documented() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text[text.index(BEGIN):text.index(END) + len(END)]


def test_docs_gpus_md_shows_every_figure_of_gpus_toml():
    assert _documented() == gpu_tables(), "docs/gpus.md's tables differ from gpus.toml: run python tests/test_gpus.py"


if __name__ == "__main__":
    text = DOC.read_text(encoding="utf-8")
    DOC.write_text(text.replace(_documented(), gpu_tables()), encoding="utf-8")
    sys.exit(0)
