"""The front end without a browser: charts, the script's size, the search index and the no-JS search page.

`representative_content` is the small site the HTML-validator tests build too: every kind of page, two
hosts, a board with warnings (a failed run, a run without a CI), a problem timed at two workloads, a
problem from another source, runs timed twice (one improved, one regressed), a problem where nothing
beats the reference beyond noise (its fastest shares the reference's rank) and a Markdown page.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import SEED, bundle, read_html, tables, visible_text
from kindex_site import charts
from kindex_site.numbers import format_ratio

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "static" / "kindex.js"
SEED_PAGE = "problems/level2-84-gemm-batchnorm-scaling-softmax"
SVG = "{http://www.w3.org/2000/svg}"
DOTS = r'<svg class="chart dots".*?</svg>(?:<text.*?</text>)*</svg>'  # a board's chart in a page
SEED_NOTES = SEED["protocol"]["spec"]["comparability"]["notes"]

PROBLEMS = [  # (level, number, name)
    (1, 1, "Square_matrix_multiplication_"), (1, 2, "Standard_matrix_multiplication_"), (1, 19, "ReLU"),
    (1, 23, "Softmax"), (2, 84, "Gemm_BatchNorm_Scaling_Softmax"), (2, 12, "Gemm_Multiply_LeakyReLU"),
]
IMPLEMENTATIONS = [("PyTorch eager", 1.0), ("Triton kernel", 0.5), ("CUDA kernel", 0.8), ("torch.compile default", 1.3)]
HOSTS = ["gpu-a", "gpu-b"]
OLD_WORKLOAD = "sha256:" + "1" * 64


def _run(level, number, name, impl, host, mean, *, ci=True, prefix="", changes=None, **shortcuts) -> dict:
    title = name.replace("_", " ").strip()
    slug = impl.lower().replace(" ", "-").replace(".", "-")
    latency = {"mean": mean, "minimum": mean - mean // 50, "maximum": mean + mean // 20}
    if ci:
        latency["confidence95"] = [mean - mean // 100, mean + mean // 100]
    return bundle(name=f"{prefix}l{level}-{number}-{host}-{slug}", title=f"{title} · {impl} · lab", host=host,
                  changes={"run.spec.sourceNative.externalId": f"H/x/level{level}/{number}_{name}.py",
                           "run.spec.timing.latencyNs": latency, **(changes or {})}, **shortcuts)


def representative_content() -> dict[str, object]:
    """Relative path → document: what a small but complete site is built from."""
    docs = []
    for p, (level, number, name) in enumerate(PROBLEMS):
        for h, host in enumerate(HOSTS):
            for i, (impl, factor) in enumerate(IMPLEMENTATIONS):
                mean = int(1_000_000 * (1 + p) * (1 + h / 2) * factor ** (1 + (p % 3) / 2))
                docs.append(_run(level, number, name, impl, host, mean))
    # The seed's board on gpu-a gets warnings: a failed run and a run without a confidence interval.
    failed = _run(2, 84, "Gemm_BatchNorm_Scaling_Softmax", "Broken kernel", "gpu-a", 1, status="failed")
    del failed["run"]["spec"]["timing"]
    docs.append(failed)
    docs.append(_run(2, 84, "Gemm_BatchNorm_Scaling_Softmax", "Rough kernel", "gpu-a", 2_500_000, ci=False))
    # Level 1 #1 was also timed at an older workload on gpu-a: two workload groups on its page.
    for impl, factor in IMPLEMENTATIONS[:2]:
        docs.append(_run(1, 1, "Square_matrix_multiplication_", impl, "gpu-a", int(3_000_000 * factor), prefix="old-",
                         changes={"run.spec.workloadDigest": OLD_WORKLOAD, "run.spec.observedAt": "2025-01-19T00:00:00Z"}))
    # History: the Triton kernel's earlier, slower run on the seed's gpu-a table (its latest improved), and
    # the CUDA kernel's earlier, faster run of ReLU on gpu-b (its latest regressed).
    earlier = {"run.spec.observedAt": "2025-12-01T00:00:00Z"}
    docs.append(_run(2, 84, "Gemm_BatchNorm_Scaling_Softmax", "Triton kernel", "gpu-a", 4_000_000, prefix="earlier-",
                     changes=earlier))
    docs.append(_run(1, 19, "ReLU", "CUDA kernel", "gpu-b", 1_000_000, prefix="earlier-", changes=earlier))
    # Level 1 #3 on gpu-a: the fastest is within noise of the reference, and shares its rank.
    docs.append(_run(1, 3, "Batched_matrix_multiplication", "PyTorch eager", "gpu-a", 1_000_000))
    docs.append(_run(1, 3, "Batched_matrix_multiplication", "Triton kernel", "gpu-a", 995_000))
    other = bundle(name="fused-attention-mine", title="Fused attention · My kernel · lab", host="gpu-b",
                   changes={"run.spec.sourceNative": {"source": "mine"}})
    return {"content/runs.json": docs, "content/other.json": other,
            "content/pages/about.md": "# About this board\n\nHow to read it, with a [link](../hosts/).\n\n"
                                      "| a | b |\n| - | - |\n| 1 | 2 |\n"}


def write_representative(project) -> None:
    for rel, data in representative_content().items():
        project.write(rel, data)


@pytest.fixture
def site(project):
    write_representative(project)
    return project.built()


# --- Charts -----------------------------------------------------------------------------------


def _svg(markup) -> ET.Element:
    return ET.fromstring(str(markup).replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1))


def _points():
    return [charts.Point("1 Triton <kernel>", 2.0, (1.8, 2.2)),
            charts.Point("=2 PyTorch eager (reference)", 1.0, (1.0, 1.0), reference=True),
            charts.Point("=2 No CI & co", 0.98, (0.9, 1.05), beyond=False)]


def _dots(svg: ET.Element) -> dict[str, list[tuple[float, float]]]:
    """(x, y) of each point mark ("M x y h0") per class."""
    return {p.get("class"): [tuple(map(float, m)) for m in re.findall(r"M([\d.]+) ([\d.]+)h0", p.get("d"))]
            for p in svg.iter(f"{SVG}path") if "h0" in p.get("d")}


def test_dot_chart_has_a_point_and_interval_per_run_on_a_log_axis():
    svg = _svg(charts.dot_chart(_points(), "Title <x>", "Desc & more"))
    assert svg.get("role") == "img"
    assert svg.find(f"{SVG}title").text == "Title <x>" and svg.find(f"{SVG}desc").text == "Desc & more"
    labels = [t.text for t in svg.iter(f"{SVG}text") if t.get("class") is None]
    assert labels == ["1 Triton <kernel>", "=2 PyTorch eager (reference)", "=2 No CI & co"]
    dots = _dots(svg)
    # Filled where beyond noise, hollow (a dot and its hole) where within, the reference in its colour.
    assert len(dots["pt"]) == 1 and len(dots["open"]) == 1 and dots["hole"] == dots["open"] and len(dots["ref"]) == 1
    (x2, y2), (x1, y1), (x098, y098) = dots["pt"][0], dots["ref"][0], dots["open"][0]
    assert y2 < y1 < y098  # one row each, in order
    # A logarithmic axis: 1 → 2 spans what 0.5 → 1 would; the dashed line sits at 1×.
    refline = next(p.get("d") for p in svg.iter(f"{SVG}path") if p.get("class") == "refline")
    assert refline.startswith(f"M{x1:g} ")
    ci = next(p.get("d") for p in svg.iter(f"{SVG}path") if p.get("class") == "ci")
    lo, hi = map(float, re.match(r"M([\d.]+) [\d.]+H([\d.]+)", ci).groups())
    assert (x2 - lo) == pytest.approx((hi - x2) * math.log(2 / 1.8) / math.log(2.2 / 2), abs=0.3)
    assert (x1 - x098) == pytest.approx((x2 - x1) * math.log(1 / 0.98) / math.log(2), abs=0.3)
    # Ticks: round values, 1× among them.
    ticks = [t.text for t in svg.iter(f"{SVG}text") if (t.get("class") or "").startswith("tick")]
    assert ticks == ["1×", "1.5×", "2×"]


def test_a_small_difference_is_drawn_wide_and_overlap_stays_visible():
    """The axis spans the values shown, not from zero: 1.6% apart is most of the width."""
    points = [charts.Point("1 compiled", 1.016, (1.012, 1.021)), charts.Point("2 eager", 1.0, (1.0, 1.0), reference=True)]
    dots = _dots(_svg(charts.dot_chart(points, "t", "d")))
    assert dots["pt"][0][0] - dots["ref"][0][0] > 600  # of 1000 units
    # Two intervals that overlap are drawn overlapping.
    points = [charts.Point("=1 a", 1.01, (0.99, 1.03), beyond=False), charts.Point("=1 b", 1.0, (0.98, 1.02), beyond=False)]
    ci = next(p.get("d") for p in _svg(charts.dot_chart(points, "t", "d")).iter(f"{SVG}path") if p.get("class") == "ci")
    (a_lo, a_hi), (b_lo, b_hi) = [tuple(map(float, m)) for m in re.findall(r"M([\d.]+) [\d.]+H([\d.]+)", ci)]
    assert a_lo < b_hi and b_lo < a_hi


def test_long_labels_are_broken_into_lines_and_ticks_stay_inside():
    label = "=4 torch.compile (inductor, max-autotune-no-cudagraphs) (reference)"
    assert charts.wrap(label) == ["=4 torch.compile (inductor,", "max-autotune-no-cudagraphs) (reference)"]
    assert all(len(line) <= charts.LABEL_CHARS for line in charts.wrap(label))
    svg = _svg(charts.dot_chart([charts.Point(label, 0.1), charts.Point("1 short", 12.0)], "t", "d"))
    assert [t.text for t in svg.iter(f"{SVG}text") if t.get("class") is None] == charts.wrap(label) + ["1 short"]
    ticks = [t for t in svg.iter(f"{SVG}text") if (t.get("class") or "").startswith("tick")]
    # A tick label near an end is anchored there (class s: at its start, e: at its end), by its length.
    for t in ticks:
        at, n = float(t.get("x").rstrip("%")), len(t.text)
        assert t.get("class") == ("tick s" if at < n + 1 else "tick e" if at > 99 - n else "tick"), (t.text, at)
    assert charts.nice_ticks(0.99, 1.03) == [0.99, 1.0, 1.01, 1.02, 1.03]
    assert charts.nice_ticks(0.2, 17) == [0.2, 0.5, 1.0, 2.0, 5.0, 10.0]


def test_coordinates_are_whole_units_and_never_styles():
    points = [charts.Point("a", 1 / 3, (0.3, 0.37)), charts.Point("b", 2 / 3, (0.6, 0.7))]
    markup = str(charts.dot_chart(points, "t", "d", unit=" ms", one=None))
    graphics = re.sub(r"<text.*?</text>", "", markup)
    assert re.findall(r'd="M\d+ \d+', graphics) and not re.findall(r'd="[^"]*\d\.\d', graphics)
    assert "style=" not in markup and "<script" not in markup
    assert "refline" not in markup  # a latency axis has no 1× line
    series = [charts.Series("s", [1 / 3, 2 / 3, 1.7])]
    numbers = re.findall(r"\d+\.\d+", re.sub(r"<text.*?</text>", "", str(charts.distribution_chart(series, "t", "d"))))
    assert numbers and all(len(n.split(".")[1]) == 1 for n in numbers), numbers


def test_distribution_is_a_log_scale_histogram_with_one_row_per_series():
    series = [charts.Series("Triton", [0.5, 1.0, 2.0, 2.1, 8.0], "5 problems"), charts.Series("Empty", []),
              charts.Series("CUDA", [1.0, 1.0])]
    svg = _svg(charts.distribution_chart(series, "Speedups", "Histogram"))
    labels = [t.text for t in svg.iter(f"{SVG}text") if not (t.get("class") or "").startswith(("tick", "xt", "yt"))]
    assert labels == ["Triton", "5 problems", "CUDA"]  # a series without values is left out
    ticks = [t.text for t in svg.iter(f"{SVG}text") if (t.get("class") or "").startswith("tick")]
    assert "1×" in ticks and "2×" in ticks and "1/2×" in ticks
    bins = next(p.get("d") for p in svg.iter(f"{SVG}path") if p.get("class") == "bar")
    heights = [float(h) for h in re.findall(r"v-([\d.]+)", bins)]
    # Triton: one value in each of the bins of 0.5, 1, 8 and two in the bin of 2 (tallest, 36 px); CUDA: one bin.
    assert sorted(heights) == [18, 18, 18, 36, 36]
    # Equal steps in log space: 0.5 → 1 and 1 → 2 are the same distance.
    xs = [float(x) for x in re.findall(r"M([\d.]+) \d+v-", bins)]
    assert xs[1] - xs[0] == pytest.approx(xs[2] - xs[1], abs=0.2)
    assert charts.distribution_chart([charts.Series("none", [])], "t", "d") == ""


def test_board_chart_on_the_problem_page(site):
    html = site.page(SEED_PAGE)
    svgs = re.findall(DOTS, html, re.S)
    assert len(svgs) == 2  # one per board (gpu-a, gpu-b)
    first = _svg(svgs[0])
    labels = [t.text for t in first.iter(f"{SVG}text") if t.get("class") is None]
    # Ranked runs only, fastest first, with their ranks: the failed run has no point.
    assert labels == ["1 Triton kernel", "2 Rough kernel", "3 CUDA kernel", "4 PyTorch eager (reference)",
                      "5 torch.compile default"]
    assert "Broken kernel" not in svgs[0]
    assert first.find(f"{SVG}title").text == "Speedup vs PyTorch eager on Host gpu-a"
    assert "log axis; dashed: 1×; hollow: within noise" in first.find(f"{SVG}desc").text
    ci = next(p.get("d") for p in first.iter(f"{SVG}path") if p.get("class") == "ci")
    # Every run but the reference has an interval: a speedup carries the reference's noise too (the run
    # without a CI as well); the reference's own speedup is exactly 1.
    assert ci.count("H") == 4
    # Every ranked run but the reference is beyond noise here: filled points, none hollow.
    assert len(_dots(first)["pt"]) == 4 and "open" not in _dots(first)
    # The table stays the source of the numbers, after the chart.
    assert html.index(svgs[0]) < html.index('<table class="latency')


def test_a_board_without_a_reference_draws_latencies_not_from_zero(project):
    project.write("content/runs.json", [_run(2, 84, "Gemm_BatchNorm_Scaling_Softmax", impl, "gpu-x", mean)
                                        for impl, mean in [("Triton kernel", 4_900_000), ("CUDA kernel", 5_000_000)]])
    html = project.built().page(SEED_PAGE)
    [svg] = re.findall(DOTS, html, re.S)
    chart = _svg(svg)
    assert chart.find(f"{SVG}title").text == "Mean latency on Host gpu-x"
    assert "not from zero" in chart.find(f"{SVG}desc").text
    ticks = [t.text for t in chart.iter(f"{SVG}text") if (t.get("class") or "").startswith("tick")]
    assert ticks and all(t.endswith(" ms") for t in ticks) and "0 ms" not in ticks
    assert 4.8 <= float(ticks[0].split()[0]) and float(ticks[-1].split()[0]) <= 5.1
    dots = _dots(chart)["pt"]
    assert dots[1][0] - dots[0][0] > 300  # 2% apart: a third of the width or more


def _many_hosts(project, hosts: int) -> None:
    docs = []
    for h in range(hosts):
        for i, (impl, factor) in enumerate(IMPLEMENTATIONS):
            docs.append(_run(2, 84, "Gemm_BatchNorm_Scaling_Softmax", impl, f"gpu-{h}", int(1_000_000 * factor * (1 + h))))
    project.write("content/runs.json", docs)
    project.built()


def test_every_table_has_its_chart_and_keeps_the_extra_columns_a_click_away(project):
    _many_hosts(project, 6)
    html = project.page(SEED_PAGE)
    assert len(re.findall(r'<svg class="chart dots"', html)) == 6 and "style=" not in html
    # Min, max, std, samples and date: in the table (and its CSV), shown by the disclosure before it.
    toggles = re.findall(r'<details class="more"><summary>Min, max, std, samples, date</summary></details>\n'
                         r'<div class="table-scroll">\n<table class="latency', html)
    assert len(toggles) == 6
    assert all(len(row) == 13 for t in tables(html, "latency") for row in t["rows"])
    css = (ROOT / "static/style.css").read_text(encoding="utf-8")
    assert ".latency th:nth-child(n+9), .latency td:nth-child(n+9) { display: none; }" in css
    assert "details.more[open] ~ .table-scroll .latency td:nth-child(n+9) { display: table-cell; }" in css
    # Means and speedups line up on the decimal point.
    assert re.search(r"<td>\d+<i>\.\d+</i><td>[\d.]+–[\d.]+<td>\d+<i>\.\d+</i><td>", html)


def test_comparability_notes_said_once_and_linked_from_every_table(project):
    _many_hosts(project, 6)
    html = project.page(SEED_PAGE)
    notes = SEED_NOTES
    assert visible_text(html).count(notes) == 1
    [target] = re.findall(r'<p class="notes" id="([^"]+)">', html)
    links = re.findall(r'<p class="board-meta"><a href="#([^"]+)">Comparable within this table only</a>', html)
    assert links == [target] * 6
    text = visible_text(html)
    assert text.index(notes) < text.index("Latency on")  # read before the tables


def test_distribution_charts_on_host_and_implementation_pages(site):
    host = site.page("hosts/gpu-a")
    [svg] = re.findall(r"<svg class=\"chart dist\".*?</svg></svg>", host, re.S)
    labels = [t.text for t in _svg(svg).iter(f"{SVG}text") if t.get("class") is None]
    notes = [t.text for t in _svg(svg).iter(f"{SVG}text") if t.get("class") == "note"]
    api = site.api("hosts/gpu-a.json")["implementations"]  # in the summaries' one order
    with_speedups = [s for s in api if s["levels"]["all"]["geomean_over"]]
    assert labels == [s["implementation"] for s in with_speedups]
    for note, s in zip(notes, with_speedups):
        n, suite = s["levels"]["all"]["geomean_over"], s["levels"]["all"]["suite"]
        assert note.startswith(f"{n} problem{'s' if n != 1 else ''} of {suite} passed, geometric mean")
    impl = site.page("implementations/triton-kernel")
    [svg] = re.findall(r"<svg class=\"chart dist\".*?</svg></svg>", impl, re.S)
    labels = [t.text for t in _svg(svg).iter(f"{SVG}text") if t.get("class") is None]
    notes = [t.text for t in _svg(svg).iter(f"{SVG}text") if t.get("class") == "note"]
    assert labels == ["Host gpu-a", "Host gpu-b"]
    summary = next(t for t in tables(impl) if "All levels, within each host" in t["caption"])
    triton = next(s for s in api if s["implementation"] == "Triton kernel")["levels"]["all"]
    assert summary["rows"][1][:3] == ["Host gpu-a", f"{triton['attempted']} of {triton['suite']}", f"{triton['passed']} " + summary["rows"][1][2].split(" ", 1)[1]]
    assert notes[0].startswith(f"{triton['geomean_over']} problems of {triton['suite']} passed")  # as in the summary table
    assert "<svg" not in site.page("implementations/pytorch-eager")  # the reference: no speedups to show


def test_fast_p_chart_draws_a_line_per_implementation_readable_without_script(site):
    host = site.page("hosts/gpu-a")
    [figure] = re.findall(r'<figure class="fastp">.*?</figure>', host, re.S)
    api = site.api("hosts/gpu-a.json")["implementations"]
    svg = _svg(re.search(r"(<svg class=\"chart fastp\".*?)<figcaption>", figure, re.S).group(1))
    lines = [p for p in svg.iter(f"{SVG}path") if (p.get("class") or "").startswith("fp ")]
    assert len(lines) == len(api)
    legend = [visible_text(li) for li in re.findall(r"<li>.*?</li>", figure, re.S)]
    for i, (item, s) in enumerate(zip(legend, api)):
        everything = s["levels"]["all"]
        assert item == (f"{i + 1} {s['implementation']} fast_0 {everything['fast_p_count']['0']}, "
                        f"fast_1 {everything['fast_p_count']['1']} of {everything['suite']}")
    # Each line starts at fast_0 of the passed with a speedup (p = 0) and falls one step per speedup.
    first = api[0]["levels"]["all"]
    start = float(re.match(r"M0 ([\d.]+)", lines[0].get("d")).group(1))
    top, bottom = charts.FP_TOP, charts.FP_BOTTOM
    assert start == pytest.approx(bottom - (bottom - top) * first["geomean_over"] / first["suite"], abs=0.06)
    assert lines[0].get("d").count("V") == min(first["geomean_over"], lines[0].get("d").count("V"))


def test_chart_text_is_escaped(project):
    evil = '<script>alert(1)</script>"&'
    project.write("content/a.json", [
        bundle(name="a", title=f"P · {evil} · x", host="h", changes={"run.spec.sourceNative": {"source": "s"}}),
        bundle(name="b", title="P · PyTorch eager · x", host="h", mean=9_000_000,
               changes={"run.spec.sourceNative": {"source": "s"}})])
    project.built()
    html = project.page("problems/p")
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&amp;</text>" in html


# --- The script -----------------------------------------------------------------------------


def test_script_is_small_and_on_every_page_without_inline_code(site):
    assert SCRIPT.stat().st_size < 10 * 1024
    script = SCRIPT.read_text(encoding="utf-8")
    assert "http://" not in script and "https://" not in script  # no CDN, nothing fetched from elsewhere
    assert "innerHTML" not in script  # content strings only ever become text
    for page in ["", SEED_PAGE, "hosts/gpu-a", "about", "search"]:
        html = site.page(page)
        assert '<script src="/static/kindex.js" defer></script>' in html
        assert not re.search(r"<script(?![^>]*\bsrc=)", html)
        assert not re.search(r"\son[a-z]+\s*=", html)
        assert "style=" not in html


def test_sortable_tables_stay_lean(site):
    # Latency tables sort by the numbers as shown (no per-cell attributes: problem pages stay small);
    # the level pages' overview, whose cells hold a name beside the number, carries the raw speedup.
    html = site.page(SEED_PAGE)
    row = re.search(r"<tr><td>1<th><a href=\"/runs/l2-84-gpu-a-triton-kernel/\">.*?\n", html).group(0)
    assert "data-sort-value" not in row and "<td>passed<td>" in row  # (cells' end tags implied)
    level = site.page("levels/2")
    cells = re.findall(r'<td class="b\d" data-sort-value="([\d.]+)"><a href="[^"]+">([\d.]+)×', level)
    assert cells and all(float(raw) == pytest.approx(float(shown), rel=0.01) for raw, shown in cells)


# --- The overview, a page per level ----------------------------------------------------------


def test_the_overview_names_the_best_run_per_host_and_links_its_board(site):
    html = site.page("levels/2")
    [level2] = tables(html, "overview")
    assert level2["caption"].startswith("Level 2")
    assert level2["rows"][0] == ["#", "Problem", "Host gpu-a", "Host gpu-b"]
    row = next(r for r in level2["rows"] if r[1] == "Gemm BatchNorm Scaling Softmax")
    assert row[2].endswith("Triton kernel") and row[3].endswith("Triton kernel")
    speedup = float(row[2].split("×")[0])
    api = site.api("problems/level2-84-gemm-batchnorm-scaling-softmax.json")
    board = next(b for b in api["boards"] if b["host"] == "gpu-a")
    assert speedup == pytest.approx(board["entries"][0]["speedup"]["value"], rel=0.01)
    assert 'href="/problems/level2-84-gemm-batchnorm-scaling-softmax/#board-gpu-a"' in html
    # Two workloads on gpu-a for level 1 #1: the newest one's board, and the cell says so.
    html = site.page("levels/1")
    [level1] = tables(html, "overview")
    row = next(r for r in level1["rows"] if r[1] == "Square matrix multiplication")
    assert "‡" in row[2] and "‡" not in row[3]
    assert "newest workload" in visible_text(html)
    # Colour with text: every coloured cell holds its number, and the legend says what each colour means.
    assert re.findall(r'<td class="(b\d)"', html)
    legend = re.search(r'<ul class="legend".*?</ul>', html, re.S).group(0)
    assert legend.count("<li>") == 6 and "4× or more" in legend and "nothing beats PyTorch eager beyond noise" in legend


def test_the_overview_colours_only_wins_beyond_noise_and_names_ties(site):
    """Level 1 #3 on gpu-a: the Triton kernel is 0.5% faster than PyTorch eager, within noise: the two
    share rank 1, the cell names both and is muted; where a run beats the reference beyond noise, the
    cell is coloured by its speedup."""
    html = "".join(site.page(f"levels/{level}") for level in ("1", "2", "other"))
    api = site.api("problems/level1-3-batched-matrix-multiplication.json")
    [board] = api["boards"]
    assert [(e["implementation"], e["rank"], e["tied"]) for e in board["entries"]] == [
        ("Triton kernel", 1, True), ("PyTorch eager", 1, True)]
    assert board["entries"][0]["speedup"]["ci95"][0] <= 1  # within noise
    cell = re.search(r'<td class="(\w+)" data-sort-value="[\d.]+"><a href="/problems/level1-3-batched-matrix-multiplication/'
                     r'#board-gpu-a">([^<]+)<span>([^<]+)</span>', html)
    assert cell.group(1) == "mu" and cell.group(2).startswith("1.01× (tie)")
    assert cell.group(3) == "Triton kernel = PyTorch eager"
    for problem in api_problems_with_a_win(site):
        assert re.search(rf'<td class="b\d" data-sort-value="[\d.]+"><a href="/problems/{problem}/#board-gpu-a[^"]*">', html)


def api_problems_with_a_win(site) -> list[str]:
    """Problems whose gpu-a table has a run beating the reference beyond noise (its speedup's interval above 1)."""
    found = []
    for p in site.api("index.json")["problems"]:
        boards = [b for b in site.api(f"problems/{p['slug']}.json")["boards"] if b["host"] == "gpu-a"]
        if boards and any(e["speedup"] and e["speedup"]["ci95"] and e["speedup"]["ci95"][0] > 1
                          for e in boards[-1]["entries"] if e["rank"]):
            found.append(p["slug"])
    assert found
    return found


def test_home_headline_ranks_by_fast_1_over_the_suite_per_level(site):
    html = site.page("")
    text = visible_text(html)
    assert text.index("Which implementation is best on which GPU?") < text.index("Newest runs")
    cards = re.findall(r'<section class="host-card" aria-labelledby="best-([^"]+)">(.*?)</section>', html, re.S)
    assert [name for name, _ in cards] == ["gpu-a", "gpu-b"]
    for name, card in cards:
        [table] = tables(card, "best")
        host = site.api(f"hosts/{name}.json")
        api = {s["implementation"]: s for s in host["implementations"]}
        groups = list(next(iter(api.values()))["levels"].items())
        titles = {"all": "All levels", "other": "Other problems"}
        assert table["rows"][0] == ["Implementation"] + [
            f"fast_1, {s.get('title') or titles.get(g) or 'Level ' + g} of {s['suite']}" for g, s in groups] + [
            "fast_0 (passed), all", "Attempted, all", "Geometric mean over the passed (×)"]
        shown = [r[0] for r in table["rows"][1:]]
        assert shown == [s["implementation"] for s in host["implementations"]]
        # One order, over the same problems: fast_1 over the suite, then fast_0, then the name.
        assert shown == sorted(shown, key=lambda i: (-api[i]["levels"]["all"]["fast_p_count"]["1"],
                                                     -api[i]["levels"]["all"]["fast_p_count"]["0"], i.casefold()))
        for row in table["rows"][1:]:
            s = api[row[0]]
            for cell, (g, _) in zip(row[1:], groups):
                level = s["levels"][g]
                assert level["fast_p"]["1"] == level["fast_p_count"]["1"] / level["suite"]
                assert cell.startswith(f"{level['fast_p_count']['1']} (")
            everything = s["levels"]["all"]
            assert row[-3].startswith(f"{everything['fast_p_count']['0']} (")
            assert row[-2] == f"{everything['attempted']} of {everything['suite']}"
            assert row[-1] == "—" if everything["geomean_speedup"] is None else \
                row[-1] == f"{format_ratio(everything['geomean_speedup'])} over {everything['geomean_over']}"
    # An implementation timed on a host with no run compared with the reference is named, not dropped.
    assert "My kernel" in visible_text(cards[1][1]) and "My kernel" not in visible_text(cards[0][1])


def test_home_says_what_changed_lately(site):
    html = site.page("")
    newest = re.search(r'<h2 id="lately-newest">.*?</ul>', html, re.S).group(0)
    items = [visible_text(li) for li in re.findall(r"<li>.*?</li>", newest, re.S)]
    assert items[0].startswith("2026-") and items[-1].startswith("2025-01-19 · Host gpu-a: 2 runs of 1 problem")
    changes = re.search(r'<h2 id="lately-changes">.*?</ul>', html, re.S).group(0)
    text = visible_text(changes)
    assert "1 latest run regressed and 1 improved" in text
    rows = [visible_text(li) for li in re.findall(r"<li>.*?</li>", changes, re.S)]
    assert len(rows) == 2
    improved = next(r for r in rows if r.startswith("improved"))
    assert "Triton kernel on Gemm BatchNorm Scaling Softmax, Host gpu-a, 2026-03-05: its mean ×" in improved
    api = site.api("problems/level2-84-gemm-batchnorm-scaling-softmax.json")
    trend = next(e for b in api["boards"] for e in b["entries"] if e["run"] == "l2-84-gpu-a-triton-kernel")["trend"]
    assert trend["verdict"] == "improved" and f"×{trend['ratio']:.3g}" in improved
    assert any(r.startswith("regressed") and "CUDA kernel on ReLU, Host gpu-b" in r for r in rows)


# --- Run pages -------------------------------------------------------------------------------


def test_a_run_page_leads_with_its_verdict(site):
    """Rank, speedup (and whether beyond noise), the change against the run before, the mean: as the
    API gives them, before the facts and the whole document."""
    api = site.api("problems/level2-84-gemm-batchnorm-scaling-softmax.json")
    board = next(b for b in api["boards"] if b["host"] == "gpu-a")
    entry = next(e for e in board["entries"] if e["run"] == "l2-84-gpu-a-triton-kernel")
    html = site.page("runs/l2-84-gpu-a-triton-kernel")
    verdict = re.search(r'<dl class="verdict">.*?</dl>', html, re.S).group(0)
    assert html.index(verdict) < html.index('<dl class="facts">')
    cards = [visible_text(c) for c in re.findall(r"<div>(.*?)</div>", verdict, re.S)]
    ranked = sum(1 for e in board["entries"] if e["rank"])
    assert cards[0].startswith(f"Rank {entry['rank']} of {ranked} in its table on Host gpu-a")
    assert cards[1].startswith(f"Speedup vs PyTorch eager {entry['speedup']['value']:.3g}× 95% CI ")
    assert entry["speedup"]["ci95"][0] > 1 and cards[1].endswith("faster beyond noise")
    assert cards[2].startswith("Vs its previous run improved ×") and "against earlier-l2-84-gpu-a-triton-kernel" in cards[2]
    assert cards[3].startswith("Mean ") and " ms 95% CI " in cards[3]
    failed = visible_text(re.search(r'<dl class="verdict">.*?</dl>', site.page("runs/l2-84-gpu-a-broken-kernel"), re.S).group(0))
    assert "Rank not ranked it did not pass (failed)" in failed and "Speedup vs PyTorch eager — not ranked, so no speedup" in failed


# --- Search -----------------------------------------------------------------------------------


def test_search_index_lists_every_problem_host_and_implementation(site):
    index = json.loads((site.root / "site/search/index.json").read_text(encoding="utf-8"))
    assert index["version"] == 1 and index["kinds"] == ["problem", "host", "implementation"]
    by_kind: dict[str, list] = {}
    for title, kind, url, detail in index["items"]:
        by_kind.setdefault(index["kinds"][kind], []).append((title, url, detail))
    api = site.api("index.json")
    assert [t for t, _, _ in by_kind["problem"]] == [p["title"] for p in api["problems"]]
    assert [u for _, u, _ in by_kind["problem"]] == [p["url"] for p in api["problems"]]
    assert ("Gemm BatchNorm Scaling Softmax", "/problems/level2-84-gemm-batchnorm-scaling-softmax/", "Level 2 · #84") \
        in by_kind["problem"]
    assert [t for t, _, _ in by_kind["host"]] == ["Host gpu-a", "Host gpu-b"]
    assert {t for t, _, _ in by_kind["implementation"]} == {
        "PyTorch eager", "Triton kernel", "CUDA kernel", "torch.compile default", "Broken kernel", "Rough kernel",
        "My kernel"}
    for _, url, _ in by_kind["implementation"]:
        assert (site.root / "site" / url.strip("/") / "index.html").is_file()


def test_search_index_urls_carry_the_base_path(project):
    write_representative(project)
    project.built("--base-url", "https://example.org/kindex/")
    index = json.loads((project.root / "site/search/index.json").read_text(encoding="utf-8"))
    assert all(url.startswith("/kindex/") for _, _, url, _ in index["items"])
    home = project.page("")
    assert '<form class="search" role="search" action="/kindex/search/" method="get" ' \
           'data-index="/kindex/search/index.json">' in home


def test_without_javascript_the_search_box_submits_to_a_page_listing_everything(site):
    home = site.page("")
    form = re.search(r'<form class="search"[^>]*>.*?</form>', home, re.S).group(0)
    assert 'action="/search/"' in form and 'method="get"' in form and 'name="q"' in form
    assert re.search(r'<label class="vh" for="site-search">', form) and '<button type="submit">' in form
    page = site.page("search")
    found = {t["caption"]: [r[0] for r in t["rows"][1:]] for t in tables(page)}
    problems = next(v for k, v in found.items() if k.endswith("problems"))
    assert len(problems) == 8 and "Fused attention" in problems
    assert next(v for k, v in found.items() if k.endswith("timing hosts")) == ["Host gpu-a", "Host gpu-b"]
    assert len(next(v for k, v in found.items() if k.endswith("implementations"))) == 7
    links = re.findall(r'href="(/(?:problems|hosts|implementations)/[^"]*)"', page)
    assert "/problems/fused-attention/" in links and "/hosts/gpu-b/" in links
    assert read_html(page).tables  # plain tables: usable and complete without the script
