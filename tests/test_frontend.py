"""The front end without a browser: charts, the script's size, the search index and the no-JS search page.

`representative_content` is the small site the browser and HTML-validator tests build too: every kind
of page, two hosts, a board with warnings (a failed run, a run without a CI), a problem timed at two
workloads, a problem from another source and a Markdown page.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import SEED, bundle, read_html, tables, visible_text
from kindex_site import charts

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "static" / "kindex.js"
SEED_PAGE = "problems/level2-84-gemm-batchnorm-scaling-softmax"
SVG = "{http://www.w3.org/2000/svg}"
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


def test_bar_chart_has_a_bar_and_whisker_per_run_and_marks_the_reference():
    bars = [charts.Bar("Triton <kernel>", 1.0, "1.00 ms", (0.9, 1.1)),
            charts.Bar("PyTorch eager", 2.0, "2.00 ms", (1.9, 2.2), reference=True),
            charts.Bar("No CI & co", 4.0, "4.00 ms")]
    svg = _svg(charts.bar_chart(bars, "Title <x>", "Desc & more"))
    assert svg.get("role") == "img"
    assert svg.find(f"{SVG}title").text == "Title <x>" and svg.find(f"{SVG}desc").text == "Desc & more"
    labels = [t.text for t in svg.iter(f"{SVG}text")]
    assert labels == ["1.00 ms · Triton <kernel>", "2.00 ms · PyTorch eager (reference)", "4.00 ms · No CI & co"]
    paths = {p.get("class"): p.get("d") for p in svg.iter(f"{SVG}path")}
    # Scale: the largest value or interval end (4.0) spans the plot's 1000 units.
    assert paths["bar"] == "M0 18h250v10H0zM0 82h1000v10H0z"
    assert paths["ref"] == "M0 50h500v10H0z"
    assert paths["ci"] == "M225 23H275M225 19v8M275 19v8M475 55H550M475 51v8M550 51v8"  # none for the run without CI
    assert paths["refline"] == "M500 16V100"


def test_coordinates_carry_at_most_one_decimal():
    bars = [charts.Bar("a", 1 / 3, "0.333 ms", (0.3, 0.37)), charts.Bar("b", 2 / 3, "0.667 ms", (0.6, 0.7))]
    markup = str(charts.bar_chart(bars, "t", "d"))
    numbers = re.findall(r"\d+\.\d+", re.sub(r"<text.*?</text>", "", markup))
    assert numbers and all(len(n.split(".")[1]) == 1 for n in numbers), numbers
    assert "style=" not in markup and "<script" not in markup


def test_distribution_is_a_log_scale_histogram_with_one_row_per_series():
    series = [charts.Series("Triton", [0.5, 1.0, 2.0, 2.1, 8.0], "5 problems"), charts.Series("Empty", []),
              charts.Series("CUDA", [1.0, 1.0])]
    svg = _svg(charts.distribution_chart(series, "Speedups", "Histogram"))
    labels = [t.text for t in svg.iter(f"{SVG}text") if t.get("class") != "tick"]
    assert labels == ["Triton", "5 problems", "CUDA"]  # a series without values is left out
    ticks = [t.text for t in svg.iter(f"{SVG}text") if t.get("class") == "tick"]
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
    svgs = re.findall(r"<svg class=\"chart bars\".*?</svg></svg>", html, re.S)
    assert len(svgs) == 2  # one per board (gpu-a, gpu-b)
    first = _svg(svgs[0])
    labels = [t.text for t in first.iter(f"{SVG}text")]
    # Ranked runs only, fastest first: the failed run has no bar; the run without a CI has a bar, no whisker.
    assert [label.split(" · ")[1] for label in labels] == [
        "Triton kernel", "Rough kernel", "CUDA kernel", "PyTorch eager (reference)", "torch.compile default"]
    assert "Broken kernel" not in svgs[0]
    assert first.find(f"{SVG}title").text == "Mean latency on Host gpu-a"
    assert "whiskers: 95% CIs; dashed line: PyTorch eager" in first.find(f"{SVG}desc").text
    ci = next(p.get("d") for p in first.iter(f"{SVG}path") if p.get("class") == "ci")
    assert ci.count("H") == 4  # four whiskers for five bars
    # The table stays the source of the numbers, after the chart.
    assert html.index(svgs[0]) < html.index('<table class="latency')


def test_board_chart_drawn_inside_the_table_as_classes():
    """Bars in percent of the largest value or interval end; intervals rounded outwards, never empty."""
    bars = [charts.Bar("a", 1.0, "1.00 ms", (0.9, 1.1)), charts.Bar("ref", 2.0, "2.00 ms", (1.999, 2.001), reference=True),
            charts.Bar("b", 4.0, "4.00 ms")]
    chart = charts.BoardChart(bars, ["run-a", "run-ref", "run-b"], "t", "d", inline=True)
    assert chart and chart.table_class == " r50"
    assert chart.cell("run-a") == ' class="m25 l22 h28"'
    assert chart.cell("run-ref") == ' class="m50 l49 h51 rf"'  # 49.98–50.03 %, outwards to whole percents
    assert chart.cell("run-b") == ' class="m100"'  # no interval, no whisker
    assert chart.cell("failed-run") == ""
    assert "<svg" in str(chart.__html__())  # the same chart as an SVG, for pages with few tables
    assert not charts.BoardChart([], [], "t", "d", inline=True)


def _many_hosts(project, hosts: int) -> None:
    docs = []
    for h in range(hosts):
        for i, (impl, factor) in enumerate(IMPLEMENTATIONS):
            docs.append(_run(2, 84, "Gemm_BatchNorm_Scaling_Softmax", impl, f"gpu-{h}", int(1_000_000 * factor * (1 + h))))
    project.write("content/runs.json", docs)
    project.built()


def test_pages_with_many_tables_draw_each_chart_inside_its_table(project):
    _many_hosts(project, 5)
    html = project.page(SEED_PAGE)
    assert "<svg" not in html and "style=" not in html
    assert len(re.findall(r'<table class="latency sortable r\d+">', html)) == 5  # the reference's mark
    mean_cells = re.findall(r'<td class="(m\d+ l\d+ h\d+(?: rf)?)">([\d.]+)<td>', html)  # (end tags implied)
    assert len(mean_cells) == 5 * 4 and sum(c.endswith(" rf") for c, _ in mean_cells) == 5
    # Each table's slowest mean reaches (about) the full width; the bar follows the number shown.
    gpu0 = tables(html, "latency")[0]
    assert gpu0["rows"][1][1] == "Triton kernel" and gpu0["rows"][-1][1].startswith("torch.compile default")
    assert "Under each mean, a bar draws it to scale within its table" in visible_text(html)


def test_few_tables_keep_their_svg_charts(project):
    _many_hosts(project, 4)
    html = project.page(SEED_PAGE)
    assert len(re.findall(r'<svg class="chart bars"', html)) == 4 and not re.search(r' class="m\d', html)


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
    assert labels == ["CUDA kernel", "Rough kernel", "torch.compile default", "Triton kernel"]
    assert notes[0].startswith("6 problems, geometric mean") and notes[1].startswith("1 problem, ")
    impl = site.page("implementations/triton-kernel")
    [svg] = re.findall(r"<svg class=\"chart dist\".*?</svg></svg>", impl, re.S)
    labels = [t.text for t in _svg(svg).iter(f"{SVG}text") if t.get("class") is None]
    notes = [t.text for t in _svg(svg).iter(f"{SVG}text") if t.get("class") == "note"]
    assert labels == ["Host gpu-a", "Host gpu-b"]
    summary = next(t for t in tables(impl) if "within each host" in t["caption"])
    assert summary["rows"][1][:2] == ["Host gpu-a", "7"]  # both workloads of level 1 #1 count
    assert notes[0].startswith("7 problems") and notes[1].startswith("6 problems")  # as in the summary table
    assert "<svg" not in site.page("implementations/pytorch-eager")  # the reference: no speedups to show


def test_chart_text_is_escaped(project):
    evil = '<script>alert(1)</script>"&'
    project.write("content/a.json", [
        bundle(name="a", title=f"P · {evil} · x", host="h", changes={"run.spec.sourceNative": {"source": "s"}}),
        bundle(name="b", title="P · PyTorch eager · x", host="h", mean=9_000_000,
               changes={"run.spec.sourceNative": {"source": "s"}})])
    project.built()
    html = project.page("problems/p")
    assert "<script>alert" not in html and " · &lt;script&gt;alert(1)&lt;/script&gt;&#34;&amp;</text>" in html


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
    # the home overview, whose cells hold a name beside the number, carries the raw speedup.
    html = site.page(SEED_PAGE)
    row = re.search(r"<tr><td>1<th><a href=\"/runs/l2-84-gpu-a-triton-kernel/\">.*?\n", html).group(0)
    assert "data-sort-value" not in row and "<td>passed<td>" in row  # (cells' end tags implied)
    home = site.page("")
    cells = re.findall(r'<td class="b\d" data-sort-value="([\d.]+)"><a href="[^"]+">([\d.]+)×', home)
    assert cells and all(float(raw) == pytest.approx(float(shown), rel=0.01) for raw, shown in cells)


# --- Home page overview -----------------------------------------------------------------------


def test_home_overview_names_the_best_run_per_host_and_links_its_board(site):
    html = site.page("")
    level2 = next(t for t in tables(html) if t["caption"].startswith("Level 2"))
    assert level2["rows"][0] == ["#", "Problem", "Host gpu-a", "Host gpu-b"]
    row = next(r for r in level2["rows"] if r[1] == "Gemm BatchNorm Scaling Softmax")
    assert row[2].endswith("Triton kernel") and row[3].endswith("Triton kernel")
    speedup = float(row[2].split("×")[0])
    api = site.api("problems/level2-84-gemm-batchnorm-scaling-softmax.json")
    board = next(b for b in api["boards"] if b["host"] == "gpu-a")
    assert speedup == pytest.approx(board["entries"][0]["speedup"]["value"], rel=0.01)
    assert 'href="/problems/level2-84-gemm-batchnorm-scaling-softmax/#board-gpu-a"' in html
    # Two workloads on gpu-a for level 1 #1: the newest one's board, and the cell says so.
    level1 = next(t for t in tables(html) if t["caption"].startswith("Level 1"))
    row = next(r for r in level1["rows"] if r[1] == "Square matrix multiplication")
    assert "‡" in row[2] and "‡" not in row[3]
    assert "newest workload" in visible_text(html)
    # Colour with text: every coloured cell holds its number, and the legend says what each colour means.
    assert re.findall(r'<td class="(b\d)"', html)
    legend = re.search(r'<ul class="legend".*?</ul>', html, re.S).group(0)
    assert legend.count("<li>") == 5 and "4× or more" in legend


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
    assert len(problems) == 7 and "Fused attention" in problems
    assert next(v for k, v in found.items() if k.endswith("timing hosts")) == ["Host gpu-a", "Host gpu-b"]
    assert len(next(v for k, v in found.items() if k.endswith("implementations"))) == 7
    links = re.findall(r'href="(/(?:problems|hosts|implementations)/[^"]*)"', page)
    assert "/problems/fused-attention/" in links and "/hosts/gpu-b/" in links
    assert read_html(page).tables  # plain tables: usable and complete without the script
