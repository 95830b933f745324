"""The problem overview, one page per level (/levels/<n>/, /levels/other/), and the short home page
that leads to them: what a reader gets on each, built through the real CLI."""

from __future__ import annotations

import json
import re

from conftest import bundle, tables, visible_text
from kindex_site import paging
from test_incremental import rebuild_matches_clean

HOSTS = ("gpu-a", "gpu-b")


def timed(level: int | None, number: int, name: str, impl: str, host: str, mean: int) -> dict:
    """A run of a problem (KernelBench's level `level` #`number`, or, without a level, one titled `name`
    from another source) by `impl` on `host`, with a 95% interval of ±0.5%."""
    slug = impl.lower().replace(" ", "-")
    changes = {"run.spec.timing.latencyNs": {"mean": mean, "minimum": mean, "maximum": mean,
                                             "confidence95": [mean - mean // 200, mean + mean // 200]}}
    if level is None:
        changes["run.spec.sourceNative"] = {"source": "mine"}
    else:
        changes["run.spec.sourceNative.externalId"] = f"H/x/level{level}/{number}_{name.replace(' ', '_')}.py"
    problem = f"l{level}-{number}" if level is not None else name.lower().replace(" ", "-")
    return bundle(name=f"{problem}-{host}-{slug}", title=f"{name} · {impl} · lab", host=host, changes=changes)


def slug_of(level: int, number: int, name: str) -> str:
    return f"level{level}-{number}-{name.lower().replace(' ', '-')}"


def write_levels(project) -> None:
    """Level 1: #1 and #2 (on both hosts, a kernel 2× faster than PyTorch eager), #3 (a kernel 20× faster:
    implausible, on gpu-a only); level 2: #7 (within noise of the reference); Fused attention, from
    another source, on gpu-b only."""
    docs = []
    for number, name in [(1, "Square matmul"), (2, "ReLU")]:
        for host in HOSTS:
            docs += [timed(1, number, name, "PyTorch eager", host, 2_000_000),
                     timed(1, number, name, "Triton kernel", host, 1_000_000)]
    docs += [timed(1, 3, "Softmax", "PyTorch eager", "gpu-a", 20_000_000),
             timed(1, 3, "Softmax", "Magic kernel", "gpu-a", 1_000_000),
             timed(1, 3, "Softmax", "Triton kernel", "gpu-a", 10_000_000)]
    docs += [timed(2, 7, "Conv", "PyTorch eager", host, 3_000_000) for host in HOSTS]
    docs += [timed(2, 7, "Conv", "Triton kernel", host, 2_999_000) for host in HOSTS]
    docs += [timed(None, 0, "Fused attention", impl, "gpu-b", mean)
             for impl, mean in [("PyTorch eager", 1_000_000), ("My kernel", 900_000)]]
    project.write("content/runs.json", docs)


def overview(html: str) -> dict:
    [table] = tables(html, "overview")
    return table


def cell(html: str, slug: str, host: str) -> re.Match:
    """A problem's cell for a host on its level page: (its class, its text)."""
    found = re.search(rf'<td class="(\w*)"[^>]*><a href="/problems/{slug}/#board-{host}">(.*?)</td>', html, re.S)
    assert found, (slug, host)
    return found


def test_a_level_page_lists_its_problems_and_links_each_cell_to_its_table(project):
    write_levels(project)
    project.built()
    html = project.page("levels/1")
    assert "<title>Level 1 · Kernel Index</title>" in html and "<h1>Level 1</h1>" in html
    table = overview(html)
    assert table["caption"].startswith("Level 1: 3 problems;")
    assert table["rows"][0] == ["#", "Problem", "Host gpu-a", "Host gpu-b"]
    assert [r[:2] for r in table["rows"][1:]] == [["1", "Square matmul"], ["2", "ReLU"], ["3", "Softmax"]]
    assert table["rows"][1][2] == "2.00× Triton kernel" and table["rows"][3][3] == "—"  # #3 not timed on gpu-b
    for number, name in [(1, "Square matmul"), (2, "ReLU")]:
        slug = slug_of(1, number, name)
        assert f'<th scope="row"><a href="/problems/{slug}/">{name}</a></th>' in html
        for host in HOSTS:
            assert f'<a href="/problems/{slug}/#board-{host}">' in html
            assert f'id="board-{host}"' in project.page(f"problems/{slug}")  # the link's target is there
        assert cell(html, slug, "gpu-a").group(1) == "b3"  # 2×, beyond noise: coloured
    # Only this level's problems; the others are on their own pages.
    assert "Conv" not in visible_text(html) and "Fused attention" not in visible_text(html)
    level2 = overview(project.page("levels/2"))
    assert [r[1] for r in level2["rows"][1:]] == ["Conv"]
    assert cell(project.page("levels/2"), slug_of(2, 7, "Conv"), "gpu-a").group(1) == "mu"  # within noise
    # Each level page links to the others and back home.
    for url in ("levels/1/", "levels/2/", "levels/other/"):
        page = project.page(url)
        links = re.search(r'<nav class="levels".*?</nav>', page, re.S).group(0)
        assert set(re.findall(r'href="([^"]+)"', links)) == {"/levels/1/", "/levels/2/", "/levels/other/"} - {f"/{url}"}
        assert '<strong aria-current="page">' in links and 'href="/">the home page</a>' in page


def test_the_home_page_links_to_each_level_page_instead_of_the_grid(project):
    write_levels(project)
    project.built()
    home = project.page("")
    assert not tables(home, "overview") and "Square matmul" not in visible_text(home)
    problems = home[home.index('<h2 id="problems">'):]
    assert re.findall(r'<li><a href="([^"]+)">([^<]+)</a> — ([^<]+)</li>', problems) == [
        ("/levels/1/", "Level 1", "3 problems"), ("/levels/2/", "Level 2", "1 problem"),
        ("/levels/other/", "Other problems", "1 problem")]
    assert 'href="/search/">the search page</a>' in problems
    assert 'href="/#problems">Problems</a>' in home  # the nav's Problems leads to these lines
    for text in ("Which implementation is best on which GPU?", "Newest runs", "Regressed or improved lately"):
        assert text in visible_text(home)


def test_an_implausible_fastest_run_is_flagged_in_its_cell_and_not_coloured(project):
    """Level 1 #3 on gpu-a: the Magic kernel is 20× faster than PyTorch eager, flagged implausible in its
    table; its cell says so and stays grey, though the Triton kernel's 2× beats the reference beyond
    noise. Once a review finds the run clean, the cell is coloured as the win it is."""
    write_levels(project)
    project.built()
    slug = slug_of(1, 3, "Softmax")
    [board] = project.api(f"problems/{slug}.json")["boards"]
    fastest = board["entries"][0]
    assert fastest["implementation"] == "Magic kernel" and fastest["implausible"] is True
    assert "Magic kernel implausible" in visible_text(project.page(f"problems/{slug}"))  # the table's flag
    html = project.page("levels/1")
    found = cell(html, slug, "gpu-a")
    assert found.group(1) == "mu"
    assert visible_text(found.group(2)) == "20.0× Magic kernel implausible"
    assert '<span class="flag warn">implausible</span>' in found.group(2)
    # No other cell is flagged; a plausible win stays coloured.
    assert html.count('</a> <span class="flag warn">implausible</span></td>') == 1
    assert cell(html, slug_of(1, 1, "Square matmul"), "gpu-b").group(1) == "b3"
    project.write("content/reviews/magic.json", {
        "apiVersion": "kindex-site.dev/v1", "kind": "RunReview",
        "metadata": {"name": "review-of-the-magic-kernel", "title": "The Magic kernel, reviewed"},
        "spec": {"run": fastest["run"], "verdict": "clean", "reason": "profiled: it fuses the softmax's passes",
                 "date": "2026-03-10", "evidence": "https://example.org/reviews/magic"}})
    project.built()
    found = cell(project.page("levels/1"), slug, "gpu-a")
    assert found.group(1) == "b4" and "implausible" not in found.group(2)


def test_a_problem_without_a_level_is_on_the_other_page(project):
    write_levels(project)
    # A problem from another source titled "Level 1" has the slug level-1: its page and the level
    # pages live apart (/problems/level-1/, /levels/1/).
    project.write("content/odd.json", [timed(None, 0, "Level 1", impl, "gpu-a", mean)
                                       for impl, mean in [("PyTorch eager", 1_000_000), ("My kernel", 500_000)]])
    project.built()
    other = project.page("levels/other")
    assert "<h1>Other problems</h1>" in other
    table = overview(other)
    assert [r[1] for r in table["rows"][1:]] == ["Fused attention", "Level 1"]
    assert table["rows"][1][0] == "" and table["rows"][1][2] == "—" and table["rows"][1][3] == "1.11× My kernel"
    assert 'href="/problems/fused-attention/#board-gpu-b"' in other
    assert 'href="/problems/level-1/#board-gpu-a"' in other
    assert "Level 1" in visible_text(project.page("problems/level-1"))
    assert [r[1] for r in overview(project.page("levels/1"))["rows"][1:]] == ["Square matmul", "ReLU", "Softmax"]


def test_a_long_level_is_split_into_pages_and_rows_are_kept_between_builds(project, monkeypatch, always_incremental):
    monkeypatch.setattr(paging, "PROBLEMS_PER_PAGE", 2)
    write_levels(project)
    project.built("--base-url", "https://example.org/kindex/")
    first, second = project.page("levels/1"), project.page("levels/1/page/2")
    assert not (project.root / "site/levels/1/page/3").exists() and not (project.root / "site/levels/2/page").exists()
    assert [r[1] for r in overview(first)["rows"][1:]] == ["Square matmul", "ReLU"]
    assert [r[1] for r in overview(second)["rows"][1:]] == ["Softmax"]
    assert overview(second)["caption"].startswith("Level 1: 1 problem here, of 3;")
    assert "<title>Level 1 (page 2 of 2) · Kernel Index</title>" in second
    assert 'href="/kindex/levels/1/page/2/"' in first and 'href="/kindex/levels/1/"' in second
    assert 'class="pager"' not in project.page("levels/2")
    assert "https://example.org/kindex/levels/1/page/2/" in (project.root / "site/sitemap.xml").read_text()
    # A changed run re-renders its problem's row alone; the rebuilt site is a clean build's.
    from kindex_site import build as build_module

    rendered = []
    real = build_module._Renderer.fragment
    monkeypatch.setattr(build_module._Renderer, "fragment",
                        lambda self, name, context: rendered.append((name, context.get("problem"))) or real(self, name, context))
    runs = json.loads((project.root / "content/runs.json").read_text())
    triton = next(d for d in runs if d["run"]["metadata"]["name"] == "l1-3-gpu-a-triton-kernel")
    triton["run"]["spec"]["timing"]["latencyNs"] = {"mean": 4_000_000, "minimum": 4_000_000, "maximum": 4_000_000,
                                                    "confidence95": [3_980_000, 4_020_000]}  # 2× becomes 5×
    project.write("content/runs.json", runs)
    project.built("--base-url", "https://example.org/kindex/")
    assert [(name, p.slug) for name, p in rendered if name == "home_row.html"] == [("home_row.html", slug_of(1, 3, "Softmax"))]
    monkeypatch.setattr(build_module._Renderer, "fragment", real)
    rebuild_matches_clean(project)


# Folders of files a reader does not browse: assets, the schema, kernel sources and the JSON API
# (/api/v1/index.json lists the API's documents).
NO_INDEX = ("static", "schema", "sources", "api")


def test_every_folder_a_reader_reaches_by_trimming_a_url_has_a_page(project):
    write_levels(project)
    project.write("kindex.toml", 'base_url = "https://x.github.io/board"\n')
    project.built()
    site = project.root / "site"
    missing = [d.relative_to(site).as_posix() for d in site.rglob("*") if d.is_dir()
               and d.relative_to(site).parts[0] not in NO_INDEX and not (d / "index.html").exists()]
    assert missing == []
    problems = project.page("problems")
    text = visible_text(problems)
    assert "Level 1 (3 problems)" in text and "Other problems (1 problem)" in text
    assert f'href="/board/problems/{slug_of(1, 2, "ReLU")}/"' in problems
    levels = project.page("levels")
    assert 'href="/board/levels/1/"' in levels and 'href="/board/levels/other/"' in levels
    runs = project.page("runs")
    assert 'href="/board/problems/"' in runs and 'href="/board/search/"' in runs
    assert re.search(r"\d+ runs, each listed on its problem's page", visible_text(runs)) and "/runs/l1-" not in runs
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert all(f"https://x.github.io/board/{folder}/</loc>" in sitemap for folder in ("problems", "levels", "runs"))
