"""Settings and layouts that keep a million-run site under GitHub Pages' 1 GB (docs/scale.md):
`board_csvs`, `api_entries`, lean pages without run pages, level, host and implementation pages split
into pages, and the build's advice when a site nears the limit."""

from __future__ import annotations

import json
import re

import pytest

from conftest import read_html, seed_problem_run, tables, visible_text
from kindex_site import paging, publish
from kindex_site.render import format_ms
from test_incremental import rebuild_matches_clean
from test_publish import crawl


def problems(project, count: int, hosts=("gpu-a", "gpu-b"), impls=("PyTorch eager", "Triton kernel"),
             level=lambda n: 1) -> None:
    """`count` problems, each timed by every implementation on every host; problem n at level(n)."""
    runs = []
    for n in range(1, count + 1):
        for h, host in enumerate(hosts):
            for i, impl in enumerate(impls):
                doc = seed_problem_run(host, impl, 1_000_000 + 1000 * n + 100 * h + 7 * i)
                doc["run"]["metadata"]["name"] = f"p{n}-{host}-{i}"
                doc["run"]["spec"]["sourceNative"]["externalId"] = f"H/t/level{level(n)}/{n}_Problem_{n}.py"
                doc["run"]["spec"]["workloadDigest"] = f"sha256:{n:064x}"  # (a problem is its workload)
                runs.append(doc)
    project.write("content/runs.json", runs)


def every_run_in_its_table(project) -> int:
    """Each API entry's run shows in its board's table on its problem page, with its mean."""
    seen = 0
    for problem in project.api("index.json")["problems"]:
        doc = project.api(f"problems/{problem['slug']}.json")
        tables = read_html(project.page(f"problems/{problem['slug']}")).tables
        for board in doc["boards"]:
            entries = board.get("entries") or [dict(zip(doc["columns"], row)) for row in board["rows"]]
            table = next(t for t in tables if t["caption"] == f"Latency on Host {board['host']}")
            for entry in entries:
                label = entry["implementation"]
                label = doc["implementations"][label] if isinstance(label, int) else label
                row = next(r for r in table["rows"][1:] if r[1].startswith(label))
                assert row[3] == format_ms(entry["mean_ns"]), (row, entry)
                seen += 1
    return seen


# --- without run pages ------------------------------------------------------------------------


def test_without_run_pages_rows_do_not_link_to_their_own_table(project):
    problems(project, 2)
    project.write("kindex.toml", "run_pages = false\n")
    project.built("--base-url", "https://example.org/kindex/")
    page = project.page("problems/level1-1-problem-1")
    assert 'href="/kindex/problems/level1-1-problem-1/#' not in page.split('<section class="board"', 1)[1]
    assert every_run_in_its_table(project) == 8
    host = project.page("hosts/gpu-a/levels/1")
    assert host.count('href="/kindex/problems/level1-1-problem-1/#board-gpu-a"') == 1  # the problem, not its fastest run too
    implementation = project.page("implementations/triton-kernel")
    assert "/#gpu-a" not in implementation and format_ms(1_001_007) in implementation
    assert crawl(project.root / "site", "https://example.org/kindex/") > 0


def test_with_run_pages_rows_link_to_them(project):
    problems(project, 1)
    project.built()
    assert 'href="/runs/p1-gpu-a-1/"' in project.page("problems/level1-1-problem-1")
    assert 'href="/runs/p1-gpu-a-1/"' in project.page("implementations/triton-kernel")


# --- board_csvs and api_entries ---------------------------------------------------------------


def test_board_csvs_off_leaves_out_the_csvs_and_their_links(project):
    problems(project, 2)
    project.write("kindex.toml", "run_pages = false\nboard_csvs = false\n")
    project.built()
    site = project.root / "site"
    assert not list(site.rglob("*.csv"))
    assert ".csv" not in project.page("problems/level1-1-problem-1")
    assert every_run_in_its_table(project) == 8
    project.write("kindex.toml", "run_pages = false\n")  # and back: a rebuild makes them again
    project.built()
    assert (site / "problems/level1-1-problem-1/gpu-a.csv").is_file()
    assert 'href="/problems/level1-1-problem-1/gpu-a.csv"' in project.page("problems/level1-1-problem-1")


@pytest.mark.parametrize("run_pages", [True, False])
def test_api_entries_arrays_hold_the_same_values_as_objects(project, run_pages):
    problems(project, 2)
    failed = seed_problem_run("gpu-a", "CUDA kernel", 1, status="failed")
    del failed["run"]["spec"]["timing"]
    project.write("content/failed.json", failed)
    flag = f"run_pages = {str(run_pages).lower()}\n"
    project.write("kindex.toml", flag)
    project.built()
    objects = {p["slug"]: project.api(f"problems/{p['slug']}.json") for p in project.api("index.json")["problems"]}
    project.write("kindex.toml", flag + 'api_entries = "arrays"\n')
    project.built()
    for slug, full in objects.items():
        doc = project.api(f"problems/{slug}.json")
        assert doc["apiVersion"] == "kindex-site/v1" and doc["workloads"] == full["workloads"]
        assert ("url" in doc["columns"]) == run_pages
        for board, expected in zip(doc["boards"], full["boards"], strict=True):
            assert {k: board[k] for k in ("host", "workload", "protocol")} == \
                {k: expected[k] for k in ("host", "workload", "protocol")}
            assert doc["protocols"][board["protocol"]] == expected["comparability"]
            names = [row[doc["columns"].index("run")] for row in board["rows"]]
            assert (names[board["reference"]] if board["reference"] is not None else None) == expected["reference"]
            assert [{**w, "runs": [names[i] for i in w["runs"]]} for w in board["warnings"]] == expected["warnings"]
            for row, entry in zip(board["rows"], expected["entries"], strict=True):
                got = dict(zip(doc["columns"], row, strict=True))
                got["implementation"] = doc["implementations"][got["implementation"]]
                value, ci95, bounds = got.pop("speedup"), got.pop("speedup_ci95"), got.pop("speedup_rounding_bounds")
                got["speedup"] = None if value is None else {"value": value, "ci95": ci95, "rounding_bounds": bounds}
                verdict, previous = got.pop("trend"), got.pop("trend_previous")
                ratio, ratio_ci95 = got.pop("trend_ratio"), got.pop("trend_ratio_ci95")
                ratio_bounds = got.pop("trend_ratio_rounding_bounds")
                got["trend"] = None if verdict is None else {
                    "previous": previous, "ratio": ratio, "ratio_ci95": ratio_ci95,
                    "ratio_rounding_bounds": ratio_bounds, "verdict": verdict}
                got.setdefault("url", board.get("url"))
                assert got == entry
            assert len(board["history"]) == len(expected["history"])


def test_a_bad_api_entries_value_is_an_error(project):
    problems(project, 1)
    project.write("kindex.toml", 'api_entries = "rows"\nboard_csvs = "maybe"\n')
    code, _, err = project.build()
    assert code == 1
    assert "kindex.toml: board_csvs: Input should be a valid boolean, unable to interpret input" in err
    assert "kindex.toml: api_entries: Input should be 'objects' or 'arrays'" in err


# --- host and implementation pages split into pages -------------------------------------------


def listed_problems(html: str) -> list[str]:
    table = next(t for t in read_html(html).tables if "latency tables on this host" in t["caption"]
                 or "mean latency (ms) per problem" in t["caption"])
    return [row[0].split(" L1 #")[0] for row in table["rows"][1:]]


def test_long_host_and_implementation_pages_are_split_and_list_every_problem_once(project, monkeypatch):
    monkeypatch.setattr(paging, "PROBLEMS_PER_PAGE", 2)
    monkeypatch.setattr(paging, "TABLES_PER_HOST_PAGE", 2)  # (a table per problem on the host here)
    problems(project, 5)
    project.built("--base-url", "https://example.org/kindex/")
    site = project.root / "site"
    for first in ("hosts/gpu-a/levels/1/", "implementations/triton-kernel/"):
        urls = [first, f"{first}page/2/", f"{first}page/3/"]
        assert not (site / first / "page/4").exists()
        listed = []
        for n, url in enumerate(urls, start=1):
            html = project.page(url)
            listed += listed_problems(html)
            assert "of 5; page" in html and '<strong aria-current="page">' + str(n) in html
            for other in set(urls) - {url}:  # each page links to every other one
                assert f'href="/kindex/{other}"' in html
        assert listed == [f"Problem {n}" for n in range(1, 6)]
        assert "(page 2 of 3)" in project.page(urls[1]).split("</title>")[0]
    assert "Hardware" in project.page("hosts/gpu-a") and "Hardware" not in project.page("hosts/gpu-a/levels/1/page/2")
    assert "Level 1 against" in project.page("hosts/gpu-a/levels/1") and \
        "Level 1 against" not in project.page("hosts/gpu-a/levels/1/page/2")
    assert crawl(site, "https://example.org/kindex/") > 0
    sitemap = (site / "sitemap.xml").read_text()
    assert "https://example.org/kindex/hosts/gpu-a/levels/1/page/3/" in sitemap


def test_short_lists_stay_on_one_page(project, monkeypatch):
    monkeypatch.setattr(paging, "PROBLEMS_PER_PAGE", 2)
    problems(project, 2)
    project.built()
    assert not (project.root / "site/hosts/gpu-a/page").exists()
    assert not (project.root / "site/levels/1/page").exists()
    assert 'class="pager"' not in project.page("hosts/gpu-a") and 'class="pager"' not in project.page("levels/1")


def test_a_site_at_the_limit_is_the_same_as_one_far_under_it(project, monkeypatch):
    problems(project, 2, level=lambda n: n)
    project.built()
    unsplit = project.snapshot()
    monkeypatch.setattr(paging, "PROBLEMS_PER_PAGE", 2)
    project.built("--clean")  # (no input changed: without it, the build would do nothing)
    assert project.snapshot() == unsplit


# --- a level's page of the overview split into pages ------------------------------------------


def level_listed(html: str) -> list[str]:
    """The problems' links in a level page's overview table, in order."""
    return re.findall(r'<th scope="row"><a href="([^"]+)">', html)


def test_a_long_level_page_is_split_and_lists_every_problem_once_in_order(project, monkeypatch):
    problems(project, 6, level=lambda n: 1 if n <= 5 else 2)
    project.built("--base-url", "https://example.org/kindex/")
    unsplit = level_listed(project.page("levels/1"))
    assert len(unsplit) == 5
    monkeypatch.setattr(paging, "PROBLEMS_PER_PAGE", 2)
    project.built("--base-url", "https://example.org/kindex/", "--clean")  # (no input changed)
    site = project.root / "site"
    urls = ["levels/1/", "levels/1/page/2/", "levels/1/page/3/"]
    assert not (site / "levels/1/page/4").exists() and not (site / "levels/1/page/1").exists()
    assert not (site / "levels/2/page").exists() and not (site / "page").exists()
    listed = []
    for n, url in enumerate(urls, start=1):
        html = project.page(url)
        listed += level_listed(html)
        assert html.count('class="pager"') == 2 and '<strong aria-current="page">' + str(n) in html
        for other in set(urls) - {url}:  # each page links to every other one
            assert f'href="/kindex/{other}"' in html
        assert "of 5; page" in visible_text(html)
        assert 'class="legend"' in html and '<a href="/kindex/api/v1/index.json">this page as JSON</a>' in html
    assert listed == unsplit  # each problem once, in the unsplit page's order

    first, second = project.page("levels/1/"), project.page("levels/1/page/2/")
    assert "<title>Level 1 · Kernel Index</title>" in first
    assert "<title>Level 1 (page 2 of 3) · Kernel Index</title>" in second
    assert [t["caption"].split(";")[0] for t in tables(first, "overview")] == ["Level 1: 2 problems here, of 5"]
    assert [t["caption"].split(";")[0] for t in tables(project.page("levels/1/page/3/"), "overview")] == [
        "Level 1: 1 problem here, of 5"]
    # The home page is not split: a line per level, whatever its length.
    assert 'class="pager"' not in project.page("") and "Level 1 — 5 problems" in visible_text(project.page(""))
    assert crawl(site, "https://example.org/kindex/") > 0
    assert "https://example.org/kindex/levels/1/page/3/" in (site / "sitemap.xml").read_text()


def test_a_markdown_page_may_not_take_the_home_pages_folder(project):
    problems(project, 1)
    project.write("content/pages/page.md", "# Page\n")
    code, _, err = project.build()
    assert code == 1
    assert "content/pages/page.md: page name 'page' is reserved for the site's own /page/ section" in err


def test_pages_added_and_dropped_incrementally_equal_a_clean_build(project, monkeypatch, always_incremental):
    monkeypatch.setattr(paging, "PROBLEMS_PER_PAGE", 2)
    problems(project, 5)
    project.built()
    problems(project, 3)  # three pages become two
    rebuild_matches_clean(project)
    assert not (project.root / "site/hosts/gpu-a/page/3").exists() and not (project.root / "site/levels/1/page/3").exists()
    problems(project, 7)  # and four
    rebuild_matches_clean(project)
    assert (project.root / "site/implementations/pytorch-eager/page/4/index.html").is_file()
    assert (project.root / "site/levels/1/page/4/index.html").is_file()
    problems(project, 2)  # and one: no pager left on any page
    rebuild_matches_clean(project)
    assert not (project.root / "site/levels/1/page").exists() and 'class="pager"' not in project.page("levels/1")


# --- the build's advice -----------------------------------------------------------------------


def test_size_advice_names_each_setting_that_would_help():
    sizes = {"runs/a/index.html": 300_000_000, "problems/p/h.csv": 200_000_000,
             "api/v1/problems/p.json": 400_000_000, "problems/p/index.html": 300_000_000}
    advice = publish.size_advice(publish.SiteSizes.of(sizes.items()), "objects")
    assert [a.split("`")[1] for a in advice] == ["run_pages = false", "board_csvs = false", 'api_entries = "arrays"']
    assert advice[0].startswith("run pages take 300 MB") and advice[1].startswith("tables' CSVs take 200 MB")
    assert len(publish.size_advice(publish.SiteSizes.of(sizes.items()), "arrays")) == 2
    lean = {"problems/p/index.html": 700_000_000, "api/v1/problems/p.json": 400_000_000}
    assert publish.size_advice(publish.SiteSizes.of(lean.items()), "arrays") == [
        "that is with every setting that makes the site smaller (docs/scale.md): publish parts of the content "
        "as separate sites (say one per KernelBench level), or serve the folder from a host without that limit"]
    assert publish.size_advice(publish.SiteSizes.of({"problems/p/h.csv": 700_000_000}.items()), "objects") == []  # under 80%: nothing to say


def test_a_big_site_is_told_which_settings_would_help(project):
    problems(project, 2)
    project.write("kindex.toml", "max_site_bytes = 50000\n")
    code, _, err = project.build()
    assert code == 1
    for setting in ("`run_pages = false`", "`board_csvs = false`", '`api_entries = "arrays"`'):
        assert setting in err, err
    project.write("kindex.toml", "run_pages = false\nmax_site_bytes = 50000\n")
    code, _, err = project.build()
    assert code == 1 and "`run_pages = false`" not in err and "`board_csvs = false`" in err, err


def test_a_site_with_every_setting_is_told_what_is_left(project):
    problems(project, 2)
    project.write("kindex.toml", 'run_pages = false\nboard_csvs = false\napi_entries = "arrays"\nmax_site_bytes = 20000\n')
    code, _, err = project.build()
    assert code == 1 and "that is with every setting that makes the site smaller" in err, err


# --- whole documents, not held for a big site ------------------------------------------------------


def interleaved_runs(project, suffix: str) -> None:
    """Three files whose runs' names interleave: sorted by name, run pages alternate between files."""
    for f, host in enumerate(("gpu-a", "gpu-b", "gpu-c")):
        runs = []
        for n in range(4):
            doc = seed_problem_run(host, f"Impl {n}", 1_000_000 + 1000 * n + f)
            doc["run"]["metadata"]["name"] = f"run-{n}-{host}"
            doc["run"]["spec"]["sourceNative"]["note"] = f"only in {host}{suffix}"
            runs.append(doc)
        if suffix == ".jsonl":
            project.write(f"content/{host}.jsonl", "".join(json.dumps(r) + "\n" for r in runs))
        else:
            project.write(f"content/{host}.json", runs)


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_big_sites_run_pages_read_their_documents_again_file_by_file(project, monkeypatch, suffix):
    """Beyond KEEP_DOCUMENTS_MAX_BYTES of content, runs keep their facts only (a million documents
    would not fit in memory) and each run page reads its document from its file: the same site,
    with each file opened for it once however the run names interleave."""
    from kindex_site import load, runs

    interleaved_runs(project, suffix)
    held = project.built("--clean").snapshot()
    opened = []

    class Counting(runs._Reread):
        __slots__ = ()

        def __init__(self, path):
            opened.append(path.name)
            super().__init__(path)

    monkeypatch.setattr(load, "KEEP_DOCUMENTS_MAX_BYTES", 0)
    monkeypatch.setattr(runs, "_Reread", Counting)
    assert project.built("--clean").snapshot() == held
    assert sorted(opened) == [f"gpu-a{suffix}", f"gpu-b{suffix}", f"gpu-c{suffix}"]
    assert f"only in gpu-b{suffix}" in project.page("runs/run-2-gpu-b")


def test_run_pages_read_again_from_an_array_beyond_ascii_are_the_same(project, monkeypatch):
    """An array's element is read again from its place in the file's bytes: characters of several
    bytes before it (in every element here) move that place, and its page is the same all the same."""
    from kindex_site import load, runs as runs_module

    runs = []
    for n in range(3):
        doc = seed_problem_run("gpu-a", f"Impl {n}", 1_000_000 + n)
        doc["run"]["metadata"]["name"] = f"run-{n}"
        doc["run"]["spec"]["sourceNative"]["note"] = f"naïve 日本 {n} ✓"
        runs.append(doc)
    project.write("content/a.json", json.dumps(runs, ensure_ascii=False, indent=1))
    held = project.built("--clean").snapshot()
    monkeypatch.setattr(load, "KEEP_DOCUMENTS_MAX_BYTES", 0)
    monkeypatch.setattr(runs_module, "_reread_files", runs_module._RereadFiles())
    assert project.built("--clean").snapshot() == held
    assert "naïve 日本 2 ✓" in project.page("runs/run-2")


def test_a_document_read_again_is_not_held_by_its_run(tmp_path, monkeypatch):
    """A run page made for a run whose document was not kept leaves it unkept: a build making every
    run page must not end up holding every document."""
    from kindex_site import load, runs

    monkeypatch.setattr(load, "KEEP_DOCUMENTS_MAX_BYTES", 0)
    monkeypatch.setattr(runs, "_reread_files", runs._RereadFiles())
    (tmp_path / "a.json").write_text(json.dumps([seed_problem_run("h1", "Impl A", 1_000_000)]))
    run, = load.load_content(tmp_path, keep_documents=True).runs
    assert run.document_file == tmp_path / "a.json"
    assert run.doc.spec.timing.latencyNs.mean == 1_000_000
    assert run.document_file is not None and run._doc is None


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
@pytest.mark.parametrize("now", ["[1, 2]", "[]", "{}", "1\n2\n", ""])
def test_a_document_whose_file_changed_since_it_was_read_is_an_error(tmp_path, monkeypatch, suffix, now):
    """Read again for its page after its file changed (an edit during a build): a clear error, not a traceback."""
    from kindex_site import load, runs
    from kindex_site.errors import KindexError

    monkeypatch.setattr(load, "KEEP_DOCUMENTS_MAX_BYTES", 0)
    monkeypatch.setattr(runs, "_reread_files", runs._RereadFiles())
    path = tmp_path / f"a{suffix}"
    bundle = seed_problem_run("h1", "Impl A", 1_000_000)
    path.write_text(json.dumps([bundle]) if suffix == ".json" else json.dumps(bundle) + "\n")
    run, = load.load_content(tmp_path).runs
    path.write_text(now)
    with pytest.raises(KindexError, match=r"a\.jsonl?(\[0\]|:1): changed while the site was being built"):
        run.doc


@pytest.mark.parametrize("resident", [False, True])
@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_file_rewritten_unseen_by_its_stat_is_read_again(tmp_path, monkeypatch, suffix, resident):
    """A file rewritten within the clock's tick, same size: its stat says nothing changed, but the
    document asked for is the new one (a long-running builder read it anew, and may still hold the
    file as it was): it is read again."""
    from kindex_site import load, runs

    monkeypatch.setattr(load, "KEEP_DOCUMENTS_MAX_BYTES", 0)
    monkeypatch.setattr(runs, "_reread_files", runs._RereadFiles())
    runs.read_again_into(None, resident)
    monkeypatch.setattr(runs, "_stat_key", lambda path: (1, 2, 3))  # (the same stat whatever happens)
    path = tmp_path / f"a{suffix}"

    def write(mean):
        bundle = seed_problem_run("h1", "Impl A", mean)
        path.write_text(json.dumps([bundle]) if suffix == ".json" else json.dumps(bundle) + "\n")

    write(1_000_000)
    assert load.load_content(tmp_path).runs[0].doc.spec.timing.latencyNs.mean == 1_000_000
    write(2_000_000)  # (same length)
    assert load.load_content(tmp_path).runs[0].doc.spec.timing.latencyNs.mean == 2_000_000
