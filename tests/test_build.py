"""What a reader of the built site sees: pages, tables, numbers, links, and the JSON API."""

from __future__ import annotations

import json
import os
import re
import types

from conftest import DELETE, SEED, bundle, latency_tables, seed_problem_run, tables, visible_text

SEED_PAGE = "problems/level2-84-gemm-batchnorm-scaling-softmax"
SEED_RUN = SEED["run"]["metadata"]["name"]


def test_seed_problem_page_shows_milliseconds_with_interval(project):
    project.write("content/seed.json", SEED)
    code, out, _ = project.build()
    assert code == 0
    assert re.fullmatch(r"Built \d+ pages from 1 run in \d+\.\d s → site/\n", out)

    html = project.page(SEED_PAGE)
    [table] = latency_tables(html)
    header, row = table["rows"]
    assert header == ["Rank", "Implementation", "Status", "Mean (ms)", "95% CI (ms)",
                      "Speedup vs PyTorch eager (×)", "Speedup 95% CI (×)", "% of speed of light", "Min (ms)",
                      "Max (ms)", "Std (ms)", "Samples", "Observed (UTC)"]
    assert row == ["1", "PyTorch eager reference", "passed", "4.94", "4.931–4.949", "1.00", "—", "—",
                   "4.78", "4.97", "0.0456", "100", "2026-03-05"]
    assert "KernelBench host · H100 PCIe (Lambda Labs)" in table["caption"]
    text = visible_text(html)
    assert "Comparable only within one problem and one timing host." in text  # the protocol's notes
    assert 'id="board-kernelbench-h100-pcie-lambdalabs"' in html
    assert '<th scope="col"' in html and '<th scope="row"' in html
    assert "<title>Gemm BatchNorm Scaling Softmax · Kernel Index</title>" in html


def test_a_mean_of_seconds_shows_three_figures_in_grouped_milliseconds(project):
    """33,179,000,000 ns reads 33,200 ms on its table and its run page; the API keeps the nanoseconds."""
    project.write("content/seed.json", bundle(mean=33_179_000_000))
    project.built()
    [table] = latency_tables(project.page(SEED_PAGE))
    row = table["rows"][1]
    assert row[3] == "33,200" and row[4] == "33,179–33,179"
    run = visible_text(project.page(f"runs/{SEED_RUN}"))
    assert "Mean 33,200 ms" in run and "33179 ms" not in run and "33179.0" not in run
    assert project.api("problems/level2-84-gemm-batchnorm-scaling-softmax.json")["boards"][0]["entries"][0]["mean_ns"] \
        == 33_179_000_000


def test_seed_api_has_exact_nanoseconds(project):
    project.write("content/seed.json", SEED)
    project.built()
    doc = project.api("problems/level2-84-gemm-batchnorm-scaling-softmax.json")
    assert doc["apiVersion"] == "kindex-site/v1"
    assert doc["title"] == "Gemm BatchNorm Scaling Softmax"
    [board] = doc["boards"]
    assert board["host"] == "kernelbench-h100-pcie-lambdalabs"
    assert board["protocol"] == "kernelbench-timing-v1"
    assert board["workload"] == SEED["run"]["spec"]["workloadDigest"]
    assert board["comparability"] == SEED["protocol"]["spec"]["comparability"]
    assert board["entries"] == [{
        "run": SEED_RUN, "implementation": "PyTorch eager", "lab": "Lambda Labs", "status": "passed", "rank": 1,
        "mean_ns": 4940000, "ci95_ns": [4931062, 4948938], "min_ns": 4780000, "max_ns": 4970000,
        "std_ns": 45600, "samples": 100, "observed_at": "2026-03-05T08:38:15.000Z",
        "url": f"/runs/{SEED_RUN}/", "tied": False, "mixed_hardware": False, "reference": True,
        "speedup": {"value": 1.0, "ci95": None, "rounding_bounds": None}, "trend": None, "implausible": False, "implausible_latency": False, "last_passed": None,
        "superseded_by": None, "source_url": None, "gpu": "NVIDIA H100 PCIe", "floor_ns": None,
        "floor_why_not": "no cost was counted for its workload", "roofline_ns": None,
        "roofline_why_not": "no cost was counted for its workload", "sol": None, "below_floor": False,
        "verdict": None, "reviews": [],
    }]
    assert board["history"] == []
    assert board["reference"] == SEED_RUN and board["warnings"] == []
    index = project.api("index.json")
    assert index == {
        "apiVersion": "kindex-site/v1", "runs": 1,
        "problems": [{"slug": "level2-84-gemm-batchnorm-scaling-softmax", "title": "Gemm BatchNorm Scaling Softmax",
                      "url": f"/{SEED_PAGE}/", "api": "/api/v1/problems/level2-84-gemm-batchnorm-scaling-softmax.json",
                      "runs": 1, "level": 2, "number": 84}],
        "suite": {"2": 1, "all": 1},
        "hosts": [{"name": "kernelbench-h100-pcie-lambdalabs", "title": "KernelBench host · H100 PCIe (Lambda Labs)",
                   "url": "/hosts/kernelbench-h100-pcie-lambdalabs/",
                   "api": "/api/v1/hosts/kernelbench-h100-pcie-lambdalabs.json"}],
    }


def test_two_hosts_never_share_a_table(project):
    project.write("content/runs.json", [
        seed_problem_run("gpu-a", "PyTorch eager", 2_000_000),
        seed_problem_run("gpu-a", "Triton kernel", 1_000_000),
        seed_problem_run("gpu-b", "PyTorch eager", 500_000),
    ])
    project.built()
    html = project.page(SEED_PAGE)
    found = latency_tables(html)
    assert len(found) == 2
    by_caption = {("gpu-a" if "Host gpu-a" in t["caption"] else "gpu-b"): t["rows"][1:] for t in found}
    assert [(r[0], r[1], r[3]) for r in by_caption["gpu-a"]] == [("1", "Triton kernel", "1.00"),
                                                                  ("2", "PyTorch eager reference", "2.00")]
    # gpu-b's eager run is faster than everything on gpu-a, yet it ranks only in its own table.
    assert [(r[0], r[1], r[3]) for r in by_caption["gpu-b"]] == [("1", "PyTorch eager reference", "0.500")]
    boards = project.api("problems/level2-84-gemm-batchnorm-scaling-softmax.json")["boards"]
    assert [(b["host"], [e["rank"] for e in b["entries"]]) for b in boards] == [("gpu-a", [1, 2]), ("gpu-b", [1])]


def test_different_workload_or_protocol_is_a_separate_board(project):
    other_workload = seed_problem_run("gpu-a", "Triton kernel", 1_000_000)
    other_workload["run"]["spec"]["workloadDigest"] = "sha256:" + "1" * 64
    project.write("content/runs.json", [seed_problem_run("gpu-a", "PyTorch eager", 2_000_000), other_workload])
    project.built()
    boards = project.api("problems/level2-84-gemm-batchnorm-scaling-softmax.json")["boards"]
    assert len(boards) == 2 and all(e["rank"] == 1 for b in boards for e in b["entries"])
    html = project.page(SEED_PAGE)
    ids = re.findall(r'<section class="board" id="([^"]+)"', html)
    assert len(ids) == len(set(ids)) == 2


def test_failed_run_listed_after_ranked_runs_and_unranked(project):
    failed = seed_problem_run("gpu-a", "CUDA kernel", 1, status="failed")
    del failed["run"]["spec"]["timing"]
    failed["run"]["spec"]["measurements"] = []
    project.write("content/a.json", [seed_problem_run("gpu-a", "PyTorch eager", 3_000_000), failed])
    project.built()
    [table] = latency_tables(project.page(SEED_PAGE))
    assert table["rows"][1][:4] == ["1", "PyTorch eager reference", "passed", "3.00"]
    assert table["rows"][2] == ["—", "CUDA kernel", "failed"] + ["—"] * 9 + ["2026-03-05"]
    entries = project.api("problems/level2-84-gemm-batchnorm-scaling-softmax.json")["boards"][0]["entries"]
    assert entries[1]["status"] == "failed" and entries[1]["rank"] is None and entries[1]["mean_ns"] is None


def test_equal_means_share_a_rank_and_ties_break_stably(project):
    project.write("content/a.json", [
        seed_problem_run("h", "B impl", 2_000_000), seed_problem_run("h", "A impl", 2_000_000),
        seed_problem_run("h", "C impl", 1_000_000),
    ])
    project.built()
    rows = latency_tables(project.page(SEED_PAGE))[0]["rows"][1:]
    assert [(r[0], r[1]) for r in rows] == [("1", "C impl"), ("=2", "A impl"), ("=2", "B impl")]


def test_script_in_titles_is_shown_as_text(project):
    evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
    doc = bundle({"run.metadata.title": f"Evil {evil} · {evil} · x",
                  "environment.metadata.title": evil, "protocol.spec.comparability.notes": evil,
                  "run.spec.sourceNative": {"source": "other", "note": evil}})
    project.write("content/evil.json", doc)
    project.built()
    for page in (project.root / "site").rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>" not in html and "<img src=x" not in html, page
    problem = next(p for p in (project.root / "site/problems").iterdir() if p.is_dir())  # (not its index)
    html = (problem / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert evil in visible_text(html)


def test_unknown_fields_are_kept_and_shown_on_the_run_page(project):
    doc = bundle({"run.spec.extraField": {"nested": "kept-value"}, "run.metadata.labels": {"team": "blue"},
                  "run.spec.sourceNative.hardware": "NVIDIA H100 PCIe"})
    project.write("content/seed.json", doc)
    project.built()
    text = visible_text(project.page(f"runs/{SEED_RUN}"))
    for expected in ("extraField", "kept-value", "labels", "team", "blue", "NVIDIA H100 PCIe",
                     "mean_ms", "4.94", "externalId", "H100_PCIe_LambdaLabs/torch/level2/84_Gemm_BatchNorm_Scaling_Softmax.py",
                     SEED["run"]["spec"]["implementationDigest"], SEED["run"]["spec"]["workloadDigest"]):
        assert expected in text, expected


def test_run_page_links_to_its_board_host_protocol_and_implementation(project):
    project.write("content/seed.json", SEED)
    project.built()
    html = project.page(f"runs/{SEED_RUN}")
    for href in (f"/{SEED_PAGE}/#board-kernelbench-h100-pcie-lambdalabs", "/hosts/kernelbench-h100-pcie-lambdalabs/",
                 "/protocols/kernelbench-timing-v1/", "/implementations/pytorch-eager/"):
        assert f'href="{href}"' in html


def test_every_run_is_reachable(project):
    runs = [seed_problem_run(f"h{i % 3}", f"Impl {i}", 1000 + i) for i in range(9)]
    failed = bundle(name="broken-one", title="Other problem · Impl X · y", status="timeout",
                    changes={"run.spec.sourceNative": {"source": "elsewhere"}})
    del failed["run"]["spec"]["timing"]
    project.write("content/many.json", runs)
    project.write("content/sub/dir/one.jsonl", json.dumps(failed) + "\n")
    project.built()
    names = {b["run"]["metadata"]["name"] for b in runs} | {"broken-one"}
    index = project.api("index.json")
    assert index["runs"] == 10
    seen = []
    for problem in index["problems"]:
        doc = project.api(f"problems/{problem['slug']}.json")
        seen += [e["run"] for b in doc["boards"] for e in b["entries"]]
    assert sorted(seen) == sorted(names)
    for name in names:
        assert (project.root / "site/runs" / name / "index.html").is_file()
    assert "/runs/broken-one/" in project.page("problems/other-problem")


def test_home_page_counts_and_levels(project):
    level1 = bundle(name="l1-run", title="Square matmul · PyTorch eager · x",
                    changes={"run.spec.sourceNative.externalId": "H/torch/level1/1_Square_matrix_multiplication_.py"})
    other = bundle(name="other-run", title="Fused attention · My kernel · lab",
                   changes={"run.spec.sourceNative": {"source": "mine"}})
    project.write("content/a.json", [SEED, level1, other])
    project.built()
    html = project.page("")
    text = visible_text(html)
    assert "3 problems" in text and "1 timing host " in text and "3 runs" in text and "2 implementations" in text
    # A line per level on the home page, each leading to the level's page of problems.
    levels = re.search(r'<ul class="levels">.*?</ul>', html, re.S).group(0)
    assert [visible_text(li) for li in re.findall(r"<li>.*?</li>", levels)] == [
        "Level 1 — 1 problem", "Level 2 — 1 problem", "Other problems — 1 problem"]
    assert re.findall(r'href="([^"]+)"', levels) == ["/levels/1/", "/levels/2/", "/levels/other/"]
    assert "<title>Kernel Index</title>" in html
    assert 'href="/problems/level1-1-square-matrix-multiplication/"' in project.page("levels/1")
    assert 'href="/problems/fused-attention/"' in project.page("levels/other")
    assert "<title>Other problems · Kernel Index</title>" in project.page("levels/other")


def test_host_implementation_and_protocol_pages(project):
    project.write("content/a.json", [seed_problem_run("gpu-a", "PyTorch eager", 2_000_000),
                                     seed_problem_run("gpu-b", "PyTorch eager", 1_500_000)])
    project.built()
    host = visible_text(project.page("hosts/gpu-a"))
    assert "NVIDIA H100" in host and "sm_90" in host and "Level 2: 1 problem, 1 latency table" in host
    assert "Gemm BatchNorm Scaling Softmax" in visible_text(project.page("hosts/gpu-a/levels/2"))
    impl = project.page("implementations/pytorch-eager")
    [matrix] = tables(impl)
    assert matrix["rows"][0] == ["Problem", "Host gpu-a", "Host gpu-b"]
    assert matrix["rows"][1] == ["Gemm BatchNorm Scaling Softmax", "2.00", "1.50"]
    protocol = project.page("protocols/kernelbench-timing-v1")
    assert 'href="https://github.com/ScalingIntelligence/KernelBench"' in protocol
    assert "kernelbench_baseline_timing" in visible_text(protocol)


def test_harness_link_only_for_safe_schemes(project):
    project.write("content/a.json", bundle({"protocol.spec.harness.repository": "javascript:alert(1)"}))
    project.built()
    html = project.page("protocols/kernelbench-timing-v1")
    assert 'href="javascript:' not in html
    assert "javascript:alert(1)" in visible_text(html)


def test_markdown_pages_are_sanitised(project):
    project.write("content/seed.json", SEED)
    project.write("content/pages/about.md", "# About us\n\n<script>alert(1)</script>\n\n"
                  "[bad](javascript:alert(1)) [data](data:text/html,x) [good](https://example.org) [rel](../hosts/)\n")
    project.built()
    html = project.page("about")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript:' not in html and 'href="data:' not in html
    assert 'href="https://example.org"' in html and 'href="../hosts/"' in html
    assert "<title>About us · Kernel Index</title>" in html
    assert 'href="/about/">About us</a>' in project.page("")  # in the nav of every page


def test_config_file_and_flags(project):
    project.write("content/seed.json", SEED)
    project.write("kindex.toml", 'title = "GPU <Board>"\noutput_dir = "public"\nbase_url = "https://x.github.io/board"\n')
    project.built()
    html = (project.root / "public/index.html").read_text()
    assert "<title>GPU &lt;Board&gt;</title>" in html
    assert 'href="/board/levels/2/"' in html
    assert 'href="/board/problems/level2-84-gemm-batchnorm-scaling-softmax/"' in (
        project.root / "public/levels/2/index.html").read_text()
    assert 'href="/board/static/style.css"' in html
    project.built("--out", "other", "--base-url", "/")
    assert 'href="/problems/' in (project.root / "other/levels/2/index.html").read_text()


def test_check_validates_without_writing(project):
    project.write("content/seed.json", SEED)
    code, out, _ = project.run("check")
    assert code == 0 and "1 run" in out
    assert not (project.root / "site").exists()


def test_version_and_help(project, capsys):
    import pytest

    with pytest.raises(SystemExit) as done:
        project.run("--version")
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("kindex-site ")
    with pytest.raises(SystemExit):
        project.run("build", "--help")
    assert "example:" in capsys.readouterr().out


def test_rebuild_removes_pages_of_deleted_runs(project):
    project.write("content/a.json", seed_problem_run("h", "Old impl", 1000))
    project.built()
    assert (project.root / "site/runs/run-h-old-impl/index.html").exists()
    project.write("content/a.json", seed_problem_run("h", "New impl", 1000))
    project.built()
    assert not (project.root / "site/runs/run-h-old-impl").exists()
    assert (project.root / "site/runs/run-h-new-impl/index.html").exists()


def test_missing_optional_fields_render(project):
    doc = bundle({"run.spec.timing.latencyNs.confidence95": DELETE, "run.spec.observedAt": DELETE,
                  "run.spec.measurements": []})
    project.write("content/a.json", doc)
    project.built()
    row = latency_tables(project.page(SEED_PAGE))[0]["rows"][1]
    assert row == ["1 no CI", "PyTorch eager reference", "passed", "4.94", "—", "1.00", "—", "—",
                   "4.78", "4.97", "—", "100", "—"]


def test_parallel_writers_give_the_same_site_as_one(project, monkeypatch):
    from kindex_site import build as build_module

    project.write("content/a.json", [seed_problem_run(f"h{i % 4}", f"Impl {i}", 1000 + i) for i in range(40)])
    monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 10**9)
    project.built()
    serial = project.snapshot()
    monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 0)
    monkeypatch.setattr(build_module, "CHUNK", 7)
    monkeypatch.setattr(build_module, "_workers", lambda: 2)
    forked = []  # the parallel path compiles the templates once, in this process, before forking
    load_all = build_module._Renderer.load_all
    monkeypatch.setattr(build_module._Renderer, "load_all", lambda self: forked.append(1) or load_all(self))
    project.built("--clean")  # (every file made again: an unchanged site would write nothing)
    assert forked, "the build did not take the parallel path"
    assert project.snapshot() == serial


def test_a_file_is_written_whole_when_the_system_writes_it_piece_by_piece(tmp_path, monkeypatch):
    from kindex_site import build as build_module

    # (build.py's own view of os, not os itself: pytest writes its output with os.write meanwhile)
    short_writes = types.SimpleNamespace(**vars(os))
    short_writes.write = lambda fd, data: os.write(fd, bytes(data)[:3])
    monkeypatch.setattr(build_module, "os", short_writes)
    target = tmp_path / "page.html"
    build_module._write_file(str(target), "αβγ <table>".encode() * 50)
    assert target.read_bytes() == "αβγ <table>".encode() * 50
    build_module._write_file(target, b"")  # an existing file, emptied
    assert target.read_bytes() == b""


def test_a_long_build_says_what_it_is_doing_on_a_terminal_and_nothing_elsewhere(project, monkeypatch,
                                                                                  always_incremental):
    import sys

    from kindex_site import build as build_module

    project.write("content/a.json", [seed_problem_run("h", f"Impl {i}", 1000 + i) for i in range(3)])
    project.write("content/b.json", SEED)
    code, out, err = project.build()  # not a terminal (a log, CI): no progress line, whatever the time
    assert code == 0 and "\r" not in err and "\033" not in err and "writing" not in err

    monkeypatch.setattr(build_module, "PROGRESS_AFTER", 0.0)  # as if each build had run for a second
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = project.build("--clean")
    assert code == 0 and out.startswith("Built ")
    shown = [part.removeprefix("\033[K") for part in err.split("\r")]
    assert "reading content: 2 of 2 files" in shown
    assert "grouping and ranking…" in shown and "planning pages…" in shown
    files = sum(1 for p in (project.root / "site").rglob("*") if p.is_file()) - 1  # (less the marker)
    assert f"writing: {files} of {files} files" in shown
    # The line is cleared before anything else is said: no progress text is left on the terminal.
    assert all(line.startswith("note: ") for line in err.rsplit("\r\033[K", 1)[1].splitlines())

    project.write("content/b.json", bundle(mean=5_120_000))  # an incremental build says so too
    code, out, err = project.build()
    changed = int(re.search(r", (\d+) files changed", out).group(1))  # (none removed: all written)
    assert f"writing: {changed} of {changed} files" in [part.removeprefix("\033[K") for part in err.split("\r")]


def test_a_problems_outputs_are_named_as_before_when_a_path_clashes():
    """A problem's outputs keep no description each (a million run pages): one that clashes is named from its path."""
    from kindex_site.planning import problem_claim as _problem_claim

    assert _problem_claim("runs/r-1/index.html") == "page /runs/r-1/"
    assert _problem_claim("problems/p/index.html") == "page /problems/p/"
    assert _problem_claim("api/v1/problems/p.json") == "API document /api/v1/problems/p.json"
    assert _problem_claim("problems/p/board-gpu-a.csv") == "CSV of a table of p"


def test_a_path_claimed_as_a_file_and_as_a_folder_is_refused(project):
    """A project's static folder named like a bundled static file: one path would be a file and a
    folder at once. Refused before anything is written, naming both claims."""
    project.write("content/a.json", SEED)
    project.write("static/style.css/extra.txt", "more")
    code, _, err = project.build()
    assert code == 1
    assert re.search(r"static/style\.css: claimed as a file by static file \S+style\.css and as a folder by "
                     r"static file static/style\.css/extra\.txt", err), err
    assert not (project.root / "site").exists()


def test_a_projects_run_template_gets_the_fields_each_file_gives(project):
    """docs/building.md: a replaced run.html's `document` holds the fields the file gives, nothing
    filled in; a field a file may leave out is tested with `is defined` (else the build says which)."""
    failed = seed_problem_run("h1", "Broken kernel", 1, status="failed")
    del failed["run"]["spec"]["timing"]
    project.write("content/a.json", [seed_problem_run("h1", "Impl A", 1_000_000), failed])
    project.write("templates/run.html", '{% extends "base.html" %}{% block main %}{% set spec = document["spec"] %}'
                  '<p id="t">{% if spec.timing %}{{ spec.timing.samples }}{% endif %}</p>{% endblock %}\n')
    code, _, err = project.build()
    assert code == 1 and "templates/run.html: UndefinedError: 'dict object' has no attribute 'timing'" in err, err
    project.write("templates/run.html", '{% extends "base.html" %}{% block main %}{% set spec = document["spec"] %}'
                  '<p id="t">{% if spec["timing"] is defined and spec["timing"] %}{{ spec["timing"]["samples"] }}'
                  '{% else %}no timing{% endif %}</p>{% endblock %}\n')
    project.built()
    assert '<p id="t">no timing</p>' in project.page("runs/run-h1-broken-kernel")
    assert '<p id="t">100</p>' in project.page("runs/run-h1-impl-a")
