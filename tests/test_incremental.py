"""Rebuilds that do only what changed must give exactly the site a clean build gives."""

from __future__ import annotations

import json
import os
from functools import partial

import pytest

from conftest import DELETE, SEED, bundle, sample, seed_problem_run


def snapshot(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def corpus(project) -> None:
    runs = [seed_problem_run(f"h{i % 3}", f"Impl {i % 4}", 1_000_000 + 7919 * i) for i in range(12)]
    for i, doc in enumerate(runs):  # four problems, so a change to one leaves others alone
        doc["run"]["metadata"]["name"] = f"run-{i}"
        doc["run"]["spec"]["sourceNative"]["externalId"] = f"H/t/level1/{i % 4 + 1}_Problem_{i % 4 + 1}.py"
        doc["run"]["spec"]["workloadDigest"] = f"sha256:{i % 4 + 1:064x}"  # (a problem is its workload)
    project.write("content/a.json", runs[:8])
    project.write("content/b.jsonl", "".join(json.dumps(d) + "\n" for d in runs[8:]))
    failed = bundle(name="failed-one", title="Other problem · Impl 0 · x", status="failed",
                    changes={"run.spec.sourceNative": {"source": "elsewhere"}})
    del failed["run"]["spec"]["timing"]
    project.write("content/c.json", failed)
    project.write("content/pages/about.md", "# About\n\nHow to read it.\n")


def rebuild_matches_clean(project) -> str:
    code, out, err = project.build()
    assert code == 0, err
    code, _, err = project.build("--out", "clean", "--clean")
    assert code == 0, err
    assert snapshot(project.root / "site") == snapshot(project.root / "clean")
    return out


def test_a_manifest_in_parts_from_parallel_writers_serves_the_next_build(project, monkeypatch):
    """The manifest and the plans are written in parts (cache.DICT_PART items each), the manifest
    with the sizes the parallel writers sent back in the order of their paths: it tells each file's
    size, and the next command-line build rewrites what changed, giving the clean build's site."""
    from kindex_site import build as build_module
    from kindex_site.state import files as cache

    corpus(project)
    monkeypatch.setattr(cache, "DICT_PART", 3)
    monkeypatch.setattr(cache, "PLANS_PART", 2)
    monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 0)
    monkeypatch.setattr(build_module, "CHUNK", 5)
    monkeypatch.setattr(build_module, "_workers", lambda: 2)
    project.built("--clean")
    files = snapshot(project.root / "site")
    manifest = cache.read_manifest(project.root / "site")
    assert {path: made[1] for path, made in manifest.outputs.items()} == {
        path: len(data) for path, data in files.items() if path != cache.MARKER}
    assert "no input changed" in project.build()[1]
    CHANGES["a-mean-reorders-a-board"](project)
    rebuild_matches_clean(project)


def edit_json(project, rel, change) -> None:
    path = project.root / rel
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=1))


CHANGES = {
    "a-mean-reorders-a-board": lambda p: edit_json(
        p, "content/a.json", lambda d: d[0]["run"]["spec"]["timing"]["latencyNs"].update(
            mean=900_000, minimum=900_000, maximum=900_000, confidence95=[900_000, 900_000])),
    "a-jsonl-line": lambda p: (p.root / "content/b.jsonl").write_text(
        (p.root / "content/b.jsonl").read_text().replace('"status": "passed"', '"status": "timeout"', 1)
        .replace('"timing": {', '"timingWas": {', 1)),
    "a-file-deleted": lambda p: (p.root / "content/c.json").unlink(),
    "a-run-renamed": lambda p: edit_json(p, "content/a.json", lambda d: d[1]["run"]["metadata"].update(name="renamed")),
    "a-new-host": lambda p: p.write("content/d.json", seed_problem_run("h9", "Impl 1", 5_000_000)),
    "protocol-notes-everywhere": lambda p: [edit_json(p, f, lambda d: [
        b["protocol"]["spec"]["comparability"].update(notes="New notes.") for b in (d if isinstance(d, list) else [d])])
        for f in ("content/a.json", "content/c.json")] and (p.root / "content/b.jsonl").write_text(
        (p.root / "content/b.jsonl").read_text().replace(SEED["protocol"]["spec"]["comparability"]["notes"], "New notes.")),
    "a-markdown-title": lambda p: p.write("content/pages/about.md", "# About us\n\nNew words.\n"),
    "the-site-title": lambda p: p.write("kindex.toml", 'title = "Another title"\n'),
    "a-template": lambda p: _override_template(p),
    "a-file-moved": lambda p: os.replace(p.root / "content/c.json", p.root / "content/sub-c.json"),
    # A re-run: the earlier run goes to the board's history, with a trend.
    "a-rerun-added": lambda p: p.write("content/rerun.json", _rerun()),
    # Another name for problem 2's workload: the problems merge, the old page becomes a redirect.
    "two-problems-merge": lambda p: p.write("content/merge.json", _merging_run()),
    # Reviews are content: one run found clean, another a reward hack (unranked, held out of summaries).
    "a-reviewed-run": lambda p: p.write("content/reviews/checked.json", [
        _review("run-1", "clean", "profiled on the host: the kernel does the work"),
        _review("run-2", "reward-hack", "returns its inputs without computing")]),
}


def _review(run: str, verdict: str, reason: str) -> dict:
    return {"apiVersion": "kindex-site.dev/v1", "kind": "RunReview",
            "metadata": {"name": f"review-{run}", "title": f"Review of {run}"},
            "spec": {"run": run, "verdict": verdict, "reason": reason, "date": "2026-03-01",
                     "evidence": f"https://example.org/reviews/{run}"}}


def _rerun() -> dict:
    doc = seed_problem_run("h0", "Impl 0", 800_000)
    doc["run"]["metadata"]["name"] = "run-0-again"
    doc["run"]["spec"]["observedAt"] = "2026-04-01T00:00:00Z"
    doc["run"]["spec"]["sourceNative"]["externalId"] = "H/t/level1/1_Problem_1.py"
    doc["run"]["spec"]["workloadDigest"] = f"sha256:{1:064x}"
    return doc


def _merging_run() -> dict:
    doc = bundle(name="merging", title="Other problem · Impl 3 · x", changes={
        "run.spec.sourceNative": {"source": "elsewhere"}, "run.spec.workloadDigest": f"sha256:{2:064x}"})
    return doc


def _override_template(project) -> None:
    from kindex_site.config import bundled

    for src in bundled("templates").iterdir():
        text = src.read_text()
        if src.name == "base.html":
            text = text.replace("<body>", "<body class=\"custom\">")
        project.write(f"templates/{src.name}", text)


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_rebuild_after_a_change_equals_a_clean_build(project, change, always_incremental):
    corpus(project)
    project.built()
    change(project)
    rebuild_matches_clean(project)


def test_a_template_edited_in_place_is_compiled_again(project):
    """Compiled templates are kept in .kindex-cache between builds: an edit must never be served stale."""
    corpus(project)
    _override_template(project)
    project.built()
    assert any((project.root / ".kindex-cache" / "site.templates").iterdir())
    base = project.root / "templates" / "base.html"
    base.write_text(base.read_text().replace('<body class="custom">', '<body class="edited">'))
    rebuild_matches_clean(project)
    assert '<body class="edited">' in (project.root / "site" / "index.html").read_text()


def test_one_run_changed_rewrites_only_what_shows_it(project, always_incremental):
    corpus(project)
    project.built()
    total = len(snapshot(project.root / "site"))
    CHANGES["a-jsonl-line"](project)
    out = rebuild_matches_clean(project)
    changed = int(out.split(", ")[1].split(" ")[0])
    assert 0 < changed < total / 2, out  # a tiny corpus: most pages show that problem or host


def test_an_edit_on_one_host_leaves_another_hosts_pages_unwritten(project, always_incremental):
    """A run of h2 changed: h0's page, its levels' index and its level pages show nothing of it."""
    corpus(project)
    project.built()
    pages = {p: p.stat().st_mtime_ns for p in (project.root / "site/hosts/h0").rglob("*.html")}
    assert (project.root / "site/hosts/h0/levels/index.html") in pages and len(pages) >= 3, sorted(pages)
    CHANGES["a-jsonl-line"](project)
    rebuild_matches_clean(project)
    assert {p: p.stat().st_mtime_ns for p in pages} == pages


def test_no_op_rebuild_touches_nothing(project):
    corpus(project)
    project.built()
    before = {p: p.stat().st_mtime_ns for p in (project.root / "site").rglob("*")}
    code, out, _ = project.build()
    assert code == 0 and out.startswith("Up to date: ") and "from 13 runs, no input changed → site/" in out
    assert {p: p.stat().st_mtime_ns for p in (project.root / "site").rglob("*")} == before


def test_deleted_site_is_rebuilt_in_full(project):
    corpus(project)
    project.built()
    expected = snapshot(project.root / "site")
    import shutil

    shutil.rmtree(project.root / "site")
    code, out, _ = project.build()
    assert code == 0 and out.startswith("Built ")
    assert snapshot(project.root / "site") == expected


def test_bad_content_after_a_good_build_leaves_site_and_cache(project):
    corpus(project)
    project.built()
    before = snapshot(project.root / "site")
    project.write("content/bad.json", bundle({"run.spec.timing.samples": 0}, name="bad-run"))
    code, _, err = project.build()
    assert code == 1 and "content/bad.json: run.spec.timing.samples" in err
    assert snapshot(project.root / "site") == before
    (project.root / "content/bad.json").unlink()
    CHANGES["a-mean-reorders-a-board"](project)
    rebuild_matches_clean(project)


def test_interrupted_incremental_build_leaves_the_previous_site(project, monkeypatch, always_incremental):
    from kindex_site import build as build_module

    corpus(project)
    project.built()
    before = snapshot(project.root / "site")
    CHANGES["a-mean-reorders-a-board"](project)
    calls = []

    def interrupted(path, data):
        calls.append(path)
        raise KeyboardInterrupt

    write_file = build_module._write_file
    monkeypatch.setattr(build_module, "_write_file", interrupted)
    code, _, err = project.build()
    assert code == 130 and calls
    assert snapshot(project.root / "site") == before
    assert not [p for p in project.root.iterdir() if p.name.startswith(".site.")]
    monkeypatch.setattr(build_module, "_write_file", write_file)
    rebuild_matches_clean(project)


def restore(project) -> None:
    """The corpus as it was: added files removed, the original ones written back."""
    import shutil

    shutil.rmtree(project.root / "content")
    corpus(project)


def test_rebuilds_sharing_a_memo_equal_clean_builds(project, monkeypatch, always_incremental):
    """`serve` keeps one Memo across rebuilds (files, ranked problems, planned pages): every change
    in turn, and its undoing, must still give exactly the clean build's site."""
    from kindex_site.build import build
    from pathlib import Path

    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config

    monkeypatch.chdir(project.root)
    memo = Reuse(Path("site").absolute())
    corpus(project)
    build(load_config(None, {}), memo)
    # (A third of the changes outside a release run; test_resident_states drives every kind of edit in turn.)
    for name, change in sample(CHANGES.items(), 1 / 3, "memo-rebuilds"):
        for step in (change, restore):
            step(project)
            result = build(load_config(None, {}), memo)
            code, _, err = project.build("--out", "clean", "--clean")
            assert code == 0, err
            assert snapshot(project.root / "site") == snapshot(project.root / "clean"), (name, step.__name__)
            assert result.changed > 0 or step is restore, name


def test_a_resident_builder_writes_its_manifest_once_it_has_said_the_site_is_rebuilt(project, monkeypatch,
                                                                                     always_incremental):
    """`build --watch` and `serve` report a rebuild as soon as the site is in place, then write the
    manifest that describes it (Reuse.save). Until then the file on disk is the last build's,
    which a command-line build does not take for this site's (it builds all again, the same site);
    once written, that build finds nothing to do. A manifest that cannot be written is a warning."""
    from kindex_site.state import files as cache
    from kindex_site.build import build
    from pathlib import Path

    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config

    monkeypatch.chdir(project.root)
    corpus(project)
    memo = Reuse(Path("site").absolute())
    build(load_config(None, {}), memo)
    assert memo.save() == []
    CHANGES["a-mean-reorders-a-board"](project)
    build(load_config(None, {}), memo)
    manifest = cache.path(project.root / "site", "manifest")
    before = manifest.read_bytes()
    assert not cache.describes(cache.read_manifest(project.root / "site"), project.root / "site")
    with monkeypatch.context() as failing:
        failing.setattr(cache, "write_manifest", lambda out, m: (_ for _ in ()).throw(PermissionError(13, "no")))
        [warning] = memo.save()
    assert warning.startswith("cannot write the build's cache (") and manifest.read_bytes() == before
    assert memo.save() == [] and manifest.read_bytes() != before
    assert memo.save() == []  # (nothing left to write)
    code, out, err = project.build()
    assert code == 0 and "no input changed" in out, out + err
    code, _, err = project.build("--out", "clean", "--clean")
    assert code == 0, err
    assert snapshot(project.root / "site") == snapshot(project.root / "clean")


def test_a_file_rewritten_within_the_clock_tick_is_read_again(project, monkeypatch, always_incremental):
    """An edit that keeps the size and lands in the same file-time tick as the build that read the
    file (a fast editor, a script) is still seen: such a file is compared by its bytes."""
    from kindex_site.build import build
    from pathlib import Path

    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config

    from kindex_site import listing as cache

    monkeypatch.chdir(project.root)
    # Within one tick of the kernel's file clock the change time does not move either: leave it out
    # of the stat key (the one the snapshot takes, and the listing with it).
    stat_key = cache.stat_key
    monkeypatch.setattr(cache, "stat_key", lambda st: stat_key(st)[:2])
    monkeypatch.setattr(cache, "RACY_NS", 10**15)  # (a tick of days: read in it however slow the machine)
    corpus(project)
    path = project.root / "content/a.json"
    memo = Reuse(Path("site").absolute())
    build(load_config(None, {}), memo)
    before = path.stat()
    text = path.read_text()
    edited = text.replace("08:38:15", "08:38:16", 1)  # one run observed a second later: the same length
    assert edited != text and len(edited) == len(text)
    path.write_text(edited)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the same size and time as when read
    build(load_config(None, {}), memo)
    code, _, err = project.build("--out", "clean", "--clean")
    assert code == 0, err
    assert snapshot(project.root / "site") == snapshot(project.root / "clean")
    assert "08:38:16" in (project.root / "site/api/v1/problems/level1-1-problem-1.json").read_text()
    for _ in range(2):  # and later rebuilds still work with what that comparison remembered
        assert build(load_config(None, {}), memo).changed == 0


def test_a_kept_document_shows_its_own_definitions(project, monkeypatch, always_incremental):
    """Documents of one file share a protocol or environment written alike (12 and 12.0 are alike to
    Python): a document kept as it was when its file changed must show what a fresh read shows."""
    from kindex_site.build import build
    from pathlib import Path

    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config

    def bundles(first_host: str) -> list:
        first = seed_problem_run(first_host, "Impl A", 1_000_000)
        first["run"]["metadata"]["name"] = "run-0"
        first["environment"]["spec"]["software"] = {"cuda": 12}
        second = seed_problem_run("h1", "Impl B", 1_100_000)
        second["run"]["metadata"]["name"] = "run-1"
        second["environment"]["spec"]["software"] = {"cuda": 12.0}
        return [first, second]

    monkeypatch.chdir(project.root)
    memo = Reuse(Path("site").absolute())
    project.write("content/a.json", bundles("h1"))  # the second is read with the first's environment
    build(load_config(None, {}), memo)
    project.write("content/a.json", bundles("h2"))  # the first moves: the second, unchanged, is kept
    build(load_config(None, {}), memo)
    code, _, err = project.build("--out", "clean", "--clean")
    assert code == 0, err
    assert snapshot(project.root / "site") == snapshot(project.root / "clean")
    assert '"software":{"cuda":12.0}' in (project.root / "site/api/v1/hosts/h1.json").read_text()


def test_a_definition_edited_under_a_resident_builder_is_checked_against_the_kept_files(project, monkeypatch,
                                                                                       always_incremental):
    """Files kept from the last build share their protocols and environments with the files read
    again; an edit that makes one file's environment differ from another's is still an error naming
    both, and undoing it gives the clean build's site."""
    from kindex_site.build import build
    from pathlib import Path

    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config
    from kindex_site.errors import KindexError

    monkeypatch.chdir(project.root)
    corpus(project)
    memo = Reuse(Path("site").absolute())
    build(load_config(None, {}), memo)
    path = project.root / "content/b.jsonl"
    text = path.read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[1]["environment"]["metadata"]["name"] == "h0"
    lines[1]["environment"]["spec"]["software"] = {"cuda": "13.0"}
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(KindexError) as raised:
        build(load_config(None, {}), memo)
    assert ("content/b.jsonl:2: environment: ExecutionEnvironment 'h0' differs from its definition in "
            "content/a.json[0]") in str(raised.value)
    path.write_text(text)
    assert build(load_config(None, {}), memo).changed == 0
    code, _, err = project.build("--out", "clean", "--clean")
    assert code == 0, err
    assert snapshot(project.root / "site") == snapshot(project.root / "clean")


def test_ctrl_c_while_files_move_in_lets_them_finish_then_stops(project, monkeypatch, always_incremental):
    """The moves are past the commit point: they finish (no half-replaced site), and so does the
    build's cache; then the build stops (exit 130), and the next one finds the site up to date."""
    import signal

    from kindex_site import build as build_module

    corpus(project)
    project.built()
    CHANGES["a-mean-reorders-a-board"](project)
    real_replace, sent = os.replace, []

    def replace(src, dst):
        if not sent and "/site/" in str(dst):
            sent.append(dst)
            os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C during the first move
        return real_replace(src, dst)

    monkeypatch.setattr(build_module.os, "replace", replace)
    code, _, err = project.build()
    monkeypatch.setattr(build_module.os, "replace", real_replace)
    assert sent and code == 130 and "interrupted once the new site was in place" in err
    code, out, err = project.build()
    assert code == 0 and out.startswith("Up to date"), err
    rebuild_matches_clean(project)


def test_a_run_kept_from_the_last_build_shows_its_whole_document(project, always_incremental):
    """A command-line rebuild takes an unchanged file's runs from .kindex-cache/ (their facts only);
    a run page made again for such a run reads the whole document from its file."""
    a = seed_problem_run("h1", "Impl A", 1_000_000)
    a["run"]["spec"]["sourceNative"]["note"] = "only in a.json"
    project.write("content/a.json", a)
    project.write("content/b.json", seed_problem_run("h1", "Impl B", 2_000_000))
    project.built()
    assert (project.root / ".kindex-cache/site.runs").is_file()
    page = project.root / "site/runs/run-h1-impl-a/index.html"
    before = page.read_text()
    project.write("content/b.json", seed_problem_run("h1", "Impl B", 500_000))  # now the faster: a's rank changes
    rebuild_matches_clean(project)
    after = page.read_text()
    assert after != before and "only in a.json" in after


def test_runs_restored_from_the_cache_keep_every_fact(project):
    """What a command-line rebuild ranks and shows of an unchanged file is what validating it gave."""
    from kindex_site.state import files as cache
    from kindex_site.load import Kept, load_content
    from kindex_site.state.records import restore_files, runs_format
    from kindex_site.runs import Facts

    no_ci = bundle({"run.spec.timing.latencyNs.confidence95": DELETE})
    project.write("content/a.json", [seed_problem_run("h1", "Impl A", 1_000_000), no_ci])
    project.built()
    fresh = {r.name: r for r in load_content(project.root / "content").runs}
    restored = {r.name: r for r in load_content(project.root / "content", reuse=Kept(restore_files(
        cache.read_runs(project.root / "site", runs_format()), project.root / "content"))).runs}
    assert restored.keys() == fresh.keys() and len(fresh) == 2
    for name, run in restored.items():
        assert run._doc is None  # (taken from the cache, not read again)
        assert {s: getattr(run.facts, s) for s in Facts.__slots__} == \
            {s: getattr(fresh[name].facts, s) for s in Facts.__slots__}


@pytest.mark.parametrize("damage", [b"", b"\x00\xffnot marshal", None])
def test_a_damaged_cache_of_runs_is_read_around(project, always_incremental, damage):
    corpus(project)
    project.built()
    stored = project.root / ".kindex-cache/site.runs"
    header, _, body = stored.read_bytes().partition(b"\n")
    # Garbage after the right header, a file cut short, or another version's header.
    stored.write_bytes(header + b"\n" + damage if damage is not None else b"kindex-site runs 0\n" + body)
    if damage == b"":
        stored.write_bytes(header + b"\n" + body[: len(body) // 2])
    CHANGES["a-mean-reorders-a-board"](project)
    rebuild_matches_clean(project)


def _every_kind_of_entry() -> list[dict]:
    """One board (the seed's problem on host h) holding each kind of entry a ranking keeps: the
    reference, a tie, a run on another GPU, an implausible speedup, a re-run (history, a trend), a
    current run that failed after one that passed, and warnings."""
    def run(name, implementation, mean, ci=None, observed="2026-01-01T00:00:00Z", **spec):
        doc = seed_problem_run("h", implementation, mean)
        doc["run"]["metadata"]["name"] = name
        doc["run"]["spec"]["observedAt"] = observed
        latency = doc["run"]["spec"]["timing"]["latencyNs"]
        if ci is None:
            del latency["confidence95"]
        else:
            latency["confidence95"] = list(ci)
        for path, value in spec.items():
            *parents, last = path.split(".")
            node = doc["run"]["spec"]
            for key in parents:
                node = node[key]
            node[last] = value
        return doc

    failed = run("flaky-2", "Flaky kernel", 1, observed="2026-03-01T00:00:00Z", status="failed")
    del failed["run"]["spec"]["timing"]
    return [
        run("eager", "PyTorch eager", 2_000_000, (1_990_000, 2_010_000), **{"sourceNative.hardware": "NVIDIA H100 PCIe"}),
        run("triton", "Triton kernel", 1_000_000, (990_000, 1_010_000)),
        run("tied", "Tied kernel", 1_001_000, (991_000, 1_011_000)),
        run("other-gpu", "Other GPU kernel", 900_000, (890_000, 910_000), **{"sourceNative.hardware": "NVIDIA H200"}),
        run("too-good", "Too good kernel", 100_000, (99_000, 101_000)),
        run("steady-1", "Steady kernel", 1_500_000, (1_490_000, 1_510_000)),
        run("steady-2", "Steady kernel", 1_400_000, (1_390_000, 1_410_000), observed="2026-02-01T00:00:00Z"),
        run("flaky-1", "Flaky kernel", 1_200_000, (1_190_000, 1_210_000)),
        failed,
        run("quiet", "Quiet kernel", 3_000_000),
    ]


def _as_values(boards) -> list:
    """Every field of every board and entry, with entries and runs by name (to compare two rankings)."""
    from dataclasses import fields

    from kindex_site.leaderboard import Entry, Trend
    from kindex_site.runs import Run

    def value(v):
        if isinstance(v, Run):
            return v.name
        if isinstance(v, Entry):
            return {f.name: value(getattr(v, f.name)) for f in fields(v)} if v is not None else None
        if isinstance(v, Trend):
            return (v.previous.run.name, v.change, v.verdict)
        if isinstance(v, list):
            return [value(x) for x in v]
        return v

    return [{f.name: value(getattr(b, f.name)) for f in fields(b)} for b in boards]


def test_a_stored_ranking_gives_back_every_field(project):
    from kindex_site.leaderboard import build_leaderboard, ranking_bytes, restored_ranking
    from kindex_site.load import load_content

    project.write("content/rich.json", _every_kind_of_entry())
    corpus(project)
    lb = build_leaderboard(load_content(project.root / "content"))
    seen = set()
    for slug, boards in lb.boards.items():
        runs = [e.run for b in boards for e in b.runs][::-1]  # (any order: runs are found by name)
        again, workloads = restored_ranking(ranking_bytes(boards, lb.workloads[slug]), boards[0].problem, runs)
        assert _as_values(again) == _as_values(boards) and workloads == lb.workloads[slug]
        assert all(b.problem is boards[0].problem for b in again)
        for b in again:
            assert b.reference is None or b.reference in b.entries
            seen |= {k for e in b.runs for k in ("tied", "mixed_hardware", "implausible", "trend", "last_passed",
                                                  "superseded_by") if getattr(e, k)}
            seen |= {"warnings"} if b.warnings else set()
    # (the corpus has each kind, or the comparison above would not cover it)
    assert seen == {"tied", "mixed_hardware", "implausible", "trend", "last_passed", "superseded_by", "warnings"}


def test_a_command_line_rebuild_ranks_only_the_changed_problem(project, monkeypatch, always_incremental):
    from kindex_site import leaderboard

    project.write("content/rich.json", _every_kind_of_entry())
    corpus(project)
    project.built()
    assert (project.root / ".kindex-cache/site.rankings").is_file()
    ranked = []
    real = leaderboard.problem_boards
    monkeypatch.setattr(leaderboard, "problem_boards",
                        lambda problem, *rest: ranked.append(problem.slug) or real(problem, *rest))
    CHANGES["a-mean-reorders-a-board"](project)  # one run of problem 1
    code, out, err = project.build()
    assert code == 0 and "changed" in out, err
    assert ranked == ["level1-1-problem-1"]  # the others, the rich one too, as the last build stored them
    monkeypatch.setattr(leaderboard, "problem_boards", real)
    rebuild_matches_clean(project)


@pytest.mark.parametrize("damage", [b"", b"\x00\xffnot marshal", b"kindex-site rankings 0\n", b"swap"])
def test_damaged_rankings_are_read_around(project, always_incremental, damage):
    project.write("content/rich.json", _every_kind_of_entry())
    corpus(project)
    project.built()
    rankings = project.root / ".kindex-cache/site.rankings"
    data = rankings.read_bytes()
    header = data[:data.index(b"\n") + 1]
    if damage == b"swap":  # intact records, each under another problem's slug and key
        from kindex_site.state import files as cache
        from kindex_site.leaderboard import rankings_format
        stored = cache.read_rankings(project.root / "site", rankings_format())
        slugs = list(stored)
        cache.write_rankings(project.root / "site", rankings_format(), [
            (slug, stored[slug][0], stored[slugs[(i + 1) % len(slugs)]][1]) for i, slug in enumerate(slugs)])
    else:
        rankings.write_bytes(header + data[len(header):len(header) + 40] + damage if damage[:1] == b"\x00"
                             else damage + data[len(header):] if damage else data[:len(data) // 2])
    CHANGES["a-mean-reorders-a-board"](project)
    rebuild_matches_clean(project)


def test_a_command_line_rebuild_renders_only_the_changed_problems_rows(project, monkeypatch, always_incremental):
    """The pages listing every problem (levels, hosts, implementations) take the rows of unchanged
    problems as the last builds rendered them, even when those were rendered by writing workers."""
    from kindex_site import build as build_module

    monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 1)  # (the first build's rows: by workers)
    corpus(project)
    project.built()
    rendered = []
    real = build_module._Renderer.fragment
    monkeypatch.setattr(build_module._Renderer, "fragment",
                        lambda self, name, context: rendered.append(name) or real(self, name, context))
    monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 10**6)
    CHANGES["a-mean-reorders-a-board"](project)  # one run of problem 1, on host h0 as Impl 0
    code, out, err = project.build()
    assert code == 0 and "changed" in out, err
    # Its row on its level's page, on h0's page and on Impl 0's page; no other problem's.
    assert sorted(rendered) == ["home_row.html", "host_row.html", "implementation_row.html"]
    rendered.clear()
    monkeypatch.setattr(build_module._Renderer, "fragment", real)
    rebuild_matches_clean(project)


@pytest.mark.parametrize("damage", ["cut short", "garbage", "another format"])
def test_damaged_rows_are_read_around(project, always_incremental, damage):
    corpus(project)
    project.built()
    CHANGES["a-mean-reorders-a-board"](project)
    project.built()
    [*files] = (project.root / ".kindex-cache/site.rows").glob("*.rows")
    assert files
    for path in files:
        data = path.read_bytes()
        if damage == "cut short":
            path.write_bytes(data[:len(data) // 2])
        elif damage == "garbage":
            path.write_bytes(data[:40] + b"\x00\xff" * 50 + data[40:])
        else:
            path.write_bytes(b"kindex-site rows 0\n" + data[data.index(b"\n") + 1:])
    CHANGES["a-jsonl-line"](project)
    rebuild_matches_clean(project)


def test_rows_out_of_use_are_dropped(project, monkeypatch, always_incremental):
    from kindex_site import build as build_module
    from kindex_site.state import records as cache

    corpus(project)
    project.built()
    rows = project.root / ".kindex-cache/site.rows"
    rendered = []
    real = build_module._Renderer.fragment
    monkeypatch.setattr(build_module._Renderer, "fragment",
                        lambda self, name, context: rendered.append(name) or real(self, name, context))
    for i in range(cache.ROWS_FILES_MAX + 2):  # each build renders the changed problem's rows anew
        edit_json(project, "content/a.json", lambda d: d[0]["run"]["spec"]["timing"]["latencyNs"].update(
            mean=900_000 + i, minimum=900_000 + i, maximum=900_000 + i, confidence95=[900_000 + i, 900_000 + i]))
        rendered.clear()
        project.built()
        assert len(rendered) == 3  # (its rows on the home page, its host's and its implementation's)
        assert len(list(rows.glob("*.rows"))) <= cache.ROWS_FILES_MAX
        stored = cache.StoredRows(project.root / "site").rows
        shown = len({key[:3] for key in stored})  # (a problem's row on a page, as some build rendered it)
        assert len(stored) <= 2 * shown + 3  # (+ the rows this build rendered)
    monkeypatch.setattr(build_module._Renderer, "fragment", real)
    rebuild_matches_clean(project)


def test_rows_of_another_look_are_dropped(project, always_incremental):
    from kindex_site.state import records as cache

    corpus(project)
    project.built()
    project.write("kindex.toml", 'title = "Another title"\n')  # every row is made again
    project.built()
    rows = project.root / ".kindex-cache/site.rows"
    assert len(list(rows.glob("*.rows"))) == 1
    stored = cache.StoredRows(project.root / "site").rows
    assert stored and len({key[3] for key in stored if key[0] == "level1-1-problem-1"}) == 1  # the new look's alone
    rebuild_matches_clean(project)


def test_the_runs_cache_is_written_again_once_enough_runs_were_read_anew(project, always_incremental):
    """One run read anew of many leaves the runs cache as it was (the next build reads its file
    again); more than RUNS_CACHE_STALE_SHARE of the runs rewrite it."""
    from kindex_site.state.reuse import RUNS_CACHE_STALE_SHARE

    runs = int(1 / RUNS_CACHE_STALE_SHARE) + 1  # (one run read anew is less than that share of them, two more)

    def edit(i: int, mean: int) -> None:
        project.write(f"content/runs/{i}.json", seed_problem_run(f"h{i}", "Impl 0", mean))

    for i in range(runs):
        edit(i, 1_000_000 + i)
        os.utime(project.root / f"content/runs/{i}.json", (1e9, 1e9))  # (not written just before it is read)
    project.built()
    runs_cache = project.root / ".kindex-cache/site.runs"
    stored = runs_cache.read_bytes()
    edit(0, 900_000)  # 1 run of them
    rebuild_matches_clean(project)
    assert runs_cache.read_bytes() == stored
    edit(1, 900_000)  # 2: file 0 read again too
    rebuild_matches_clean(project)
    assert runs_cache.read_bytes() != stored


def test_a_command_line_rebuild_plans_only_the_changed_problem(project, monkeypatch, always_incremental):
    from kindex_site import planning as build_module

    corpus(project)
    project.built()
    assert (project.root / ".kindex-cache/site.plans").is_file()
    planned = []
    real = build_module.problem_outputs
    monkeypatch.setattr(build_module, "problem_outputs",
                        lambda lb, problem, *rest: planned.append(problem.slug) or real(lb, problem, *rest))
    CHANGES["a-mean-reorders-a-board"](project)  # one run of one problem
    code, out, err = project.build()
    assert code == 0 and "changed" in out, err
    assert len(planned) == 1  # the others' paths and keys came from the last build's plans
    monkeypatch.setattr(build_module, "problem_outputs", real)
    rebuild_matches_clean(project)


def test_plans_that_do_not_fit_the_site_are_made_for_real(project, always_incremental):
    """Plans stored by one build, a site written by another: what must be written is made, not assumed."""
    corpus(project)
    project.write("kindex.toml", 'title = "First"\n')
    project.built()
    plans = project.root / ".kindex-cache/site.plans"
    first_plans = plans.read_bytes()
    project.write("kindex.toml", 'title = "Second"\n')
    project.built()  # every page re-made: its title is in each
    plans.write_bytes(first_plans)  # plans that fit "First", a site and manifest of "Second"
    project.write("kindex.toml", 'title = "First"\n')
    rebuild_matches_clean(project)
    assert "<title>Kernel" not in project.page("/") and "First" in project.page("/")


@pytest.mark.parametrize("damage", [b"", b"\x00\xffnot marshal", b"kindex-site plans 0\n"])
def test_damaged_plans_are_read_around(project, always_incremental, damage):
    corpus(project)
    project.built()
    plans = project.root / ".kindex-cache/site.plans"
    plans.write_bytes(plans.read_bytes()[:30] + damage if damage.startswith(b"\x00") else damage)
    CHANGES["a-mean-reorders-a-board"](project)
    rebuild_matches_clean(project)


def _saved(project):
    """content/a.json written again, its first run observed at another time."""
    def observed_again(runs):
        spec = runs[0]["run"]["spec"]
        spec["observedAt"] = "2026-02-03T00:00:00Z" if spec.get("observedAt") != "2026-02-03T00:00:00Z" else \
            "2026-02-04T00:00:00Z"

    edit_json(project, "content/a.json", observed_again)
    return project.root / "content/a.json"


def _moved(project, old: str, new: str) -> list:
    (project.root / old).rename(project.root / new)
    return [project.root / old, project.root / new]


# Each changes content/ and returns the paths a watcher names for it (the rebuild stats only those).
WATCHED_CHANGES = {
    "an-edit": lambda p: [p.write("content/a.json", json.loads((p.root / "content/a.json").read_text())[:5])],
    "a-file-in-a-new-folder": lambda p: [p.write("content/more/deeper/d.json",
                                                 seed_problem_run("h8", "Impl 2", 3 * 10**6))],
    "a-new-folder-named-alone": lambda p: p.write("content/new/e.json", seed_problem_run("h7", "Impl 1", 4 * 10**6))
    and [p.root / "content/new"],
    "a-file-deleted": lambda p: (p.root / "content/c.json").unlink() or [p.root / "content/c.json"],
    "a-folder-renamed": lambda p: _moved(p, "content/more", "content/moved"),
    # (with a file saved in the same batch: a rebuild without one first asks whether anything changed at all)
    "a-folder-renamed-and-a-file-saved": lambda p: _moved(p, "content/moved", "content/more") + [_saved(p)],
    "a-folder-deleted-and-a-file-saved": lambda p: __import__("shutil").rmtree(p.root / "content/more")
    or [p.root / "content/more", _saved(p)],
    "a-file-deleted-and-a-file-saved": lambda p: (p.root / "content/new/e.json").unlink()
    or [p.root / "content/new/e.json", _saved(p)],
    "a-symlinked-folder": lambda p: os.symlink(p.root / "elsewhere", p.root / "content/linked")
    or [p.root / "content/linked"],
    "a-name-not-in-ascii": lambda p: [p.write("content/café.json", seed_problem_run("h6", "Impl 3", 5 * 10**6))],
    "a-dotfile-and-a-template": lambda p: [p.write("content/.draft.json", "{"), p.write("templates/notes.txt", "x")],
}


def test_a_resident_builder_told_the_changed_paths_equals_a_clean_build(project, always_incremental):
    """`serve` and `build --watch` re-stat only the paths their watcher names: after each change the
    site is exactly what a clean build of the content gives."""
    from kindex_site.config import load_config
    from kindex_site.watch import Builder

    corpus(project)
    project.write("elsewhere/x.json", seed_problem_run("h5", "Impl 0", 6 * 10**6))
    out = (project.root / "site").absolute()
    builder = Builder(None, {"output_dir": "site"}, load_config(None, {}), out, serving=False)
    builder.rebuild([], first=True)
    for name, change in WATCHED_CHANGES.items():
        paths = [str(p) for p in change(project)]
        builder.rebuild(paths)
        assert not builder.errors, (name, builder.errors)
        code, _, err = project.build("--out", "clean", "--clean")
        assert code == 0, err
        assert snapshot(project.root / "site") == snapshot(project.root / "clean"), name
    assert builder.shown_warnings == ["content/linked: symlinked folder not followed"]
    code, out_text, _ = project.build()  # and the manifest it left says what the content is
    assert code == 0 and out_text.startswith("Up to date:")


def test_a_symlinked_folder_added_since_the_last_build_is_said_again(project):
    """A no-op build repeats the last build's warnings: a symlinked folder added since is not a no-op."""
    project.write("content/a.json", SEED)
    project.write("elsewhere/x.json", seed_problem_run("h5", "Impl 0", 6 * 10**6))
    code, out, err = project.build()
    assert code == 0 and "symlinked" not in err
    os.symlink(project.root / "elsewhere", project.root / "content/linked")
    code, out, err = project.build()
    assert code == 0 and out.startswith("Built") and "content/linked: symlinked folder not followed" in err
    code, out, err = project.build()
    assert out.startswith("Up to date:") and "content/linked: symlinked folder not followed" in err


def test_the_watcher_sees_every_content_file_the_build_reads(tmp_path):
    """Names watchfiles' default filter drops (editor backups, __pycache__ …) are content the build
    lists: a rebuild must hear of them, as it stats only what it is told of."""
    from watchfiles import Change

    from kindex_site.watch import _Filter

    content, templates = tmp_path / "content", tmp_path / "templates"
    seen = _Filter((str(content), str(templates)), content)
    for name in ("a.json", "__pycache__/b.json", "node_modules/c.json", "d.json~", "e.pyc"):
        assert seen(Change.modified, str(content / name)), name
    assert not seen(Change.modified, str(content / ".hidden.json"))
    assert not seen(Change.modified, str(content / ".git/x.json"))
    assert not seen(Change.modified, str(templates / "page.html~"))
    assert seen(Change.modified, str(templates / "page.html"))


def test_a_symlinked_content_folder_whose_files_the_watcher_names_by_their_target(tmp_path, monkeypatch, capsys):
    """content/ is a link to the folder that holds the files: an edit named by the target's path is seen."""
    from conftest import Project

    from kindex_site.config import load_config
    from kindex_site.watch import Builder

    monkeypatch.chdir(tmp_path)
    project = Project(tmp_path, capsys)
    (tmp_path / "content").rmdir()
    path = project.write("real/a.json", [seed_problem_run("h1", "Impl A", 1_000_000)])
    os.utime(path, (path.stat().st_mtime - 3600,) * 2)  # (written long before it is read: its stat alone is compared)
    os.symlink(tmp_path / "real", tmp_path / "content")
    builder = Builder(None, {"output_dir": "site"}, load_config(None, {}), (tmp_path / "site").absolute(),
                      serving=False)
    builder.rebuild([], first=True)
    path.write_text(json.dumps([seed_problem_run("h1", "Impl A", 2_000_000)]))
    builder.rebuild([str(path.resolve())])
    code, _, err = project.build("--out", "clean", "--clean")
    assert code == 0 and not builder.errors, err
    assert snapshot(tmp_path / "site") == snapshot(tmp_path / "clean")


def _one_file_a_run(project) -> None:
    """Six runs in a file each on two hosts; h1's environment written `12` in one file, `12.0` in
    another (alike to Python, not on the page)."""
    for i, letter in enumerate("abcdef"):
        doc = seed_problem_run(f"h{i % 2}", f"Impl {i}", 1_000_000 + 50_000 * i)
        doc["run"]["metadata"]["name"] = f"run-{letter}"
        if i % 2:
            doc["environment"]["spec"]["software"] = {"cuda": 12 if letter == "b" else 12.0}
        project.write(f"content/runs/{letter}.json", doc)


def _edit_run(project, letter: str, change) -> None:
    edit_json(project, f"content/runs/{letter}.json", change)


def _software(value):
    return lambda d: d["environment"]["spec"].update(software={"cuda": value})


# Edits a resident builder's load makes by patching its last one (each after the ones before it).
PATCHED_EDITS = {
    "a-mean": lambda p: _edit_run(p, "c", lambda d: d["run"]["spec"]["timing"]["latencyNs"].update(
        mean=700_000, minimum=700_000, maximum=700_000, confidence95=[700_000, 700_000])),
    "the-first-file-of-a-host-writes-its-environment-otherwise": lambda p: _edit_run(p, "b", _software(12.0)),
    "a-file-first-in-path-order-added": lambda p: p.write(
        "content/runs/0.json", _renamed(seed_problem_run("h1", "Impl 9", 900_000, ), "run-0", software={"cuda": 12})),
    "the-first-file-of-a-host-removed": lambda p: (p.root / "content/runs/0.json").unlink(),
    "two-runs-swap-names": lambda p: [_edit_run(p, "c", lambda d: d["run"]["metadata"].update(name="run-e")),
                                      _edit_run(p, "e", lambda d: d["run"]["metadata"].update(name="run-c"))],
    "a-file-with-an-unknown-field": lambda p: _edit_run(p, "d", lambda d: d["run"]["spec"].update(colour="red")),
    "a-page-added": lambda p: p.write("content/pages/notes.md", "# Notes\n\nRead them.\n"),
    "the-unknown-field-gone": lambda p: _edit_run(p, "d", lambda d: d["run"]["spec"].pop("colour")),
}


def _renamed(doc: dict, name: str, software: dict | None = None) -> dict:
    doc["run"]["metadata"]["name"] = name
    if software is not None:
        doc["environment"]["spec"]["software"] = software
    return doc


def test_a_resident_builder_reads_and_checks_only_the_changed_files(project, monkeypatch, always_incremental):
    """A rebuild under `serve` or `build --watch` reads and checks only the files changed since the
    last one (not a pass over every file), and still gives exactly what a clean build gives: each
    host as the first file in path order writes it, the warnings of a clean build."""
    from kindex_site import listing, load
    from kindex_site.build import build
    from pathlib import Path

    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config

    monkeypatch.chdir(project.root)
    # Each edit here comes a build after the last read, many clock ticks later: no file needs its
    # bytes compared again (which would have the patch re-read it, and hide what it must find itself).
    monkeypatch.setattr(listing, "RACY_NS", 0)
    _one_file_a_run(project)
    memo = Reuse(Path("site").absolute())
    build(load_config(None, {}), memo)
    passes = []
    add = load._CrossFile.add
    monkeypatch.setattr(load._CrossFile, "add", lambda self, *a: passes.append(1) or add(self, *a))
    for name, edit in PATCHED_EDITS.items():
        passes.clear()
        edit(project)
        result = build(load_config(None, {}), memo)
        assert not passes, f"{name}: a pass over every file"
        code, _, err = project.build("--out", "clean", "--clean")
        assert code == 0, err
        assert snapshot(project.root / "site") == snapshot(project.root / "clean"), name
        assert [f"warning: {w}" for w in result.warnings] == [line for line in err.splitlines()
                                                               if line.startswith("warning:")], name
    assert '"software":{"cuda":12.0}' in (project.root / "site/api/v1/hosts/h1.json").read_text()  # (b's, first again)


def test_a_resident_builder_says_what_a_clean_build_says_of_an_edit_it_cannot_patch(project, monkeypatch,
                                                                                    always_incremental):
    """A duplicate run name, a host defined two ways, a new host: the rebuild's problems and site are
    a clean build's, and so is the site once the edit is undone."""
    from kindex_site.build import build
    from pathlib import Path

    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config
    from kindex_site.errors import KindexError

    monkeypatch.chdir(project.root)
    _one_file_a_run(project)
    memo = Reuse(Path("site").absolute())
    build(load_config(None, {}), memo)
    bad = {
        "a-duplicate-name": (lambda d: d["run"]["metadata"].update(name="run-a"),
                             "content/runs/c.json: run.metadata.name: 'run-a' is also the name of the run in "
                             "content/runs/a.json"),
        "a-host-defined-two-ways": (_software("13.0"), "content/runs/d.json: environment: ExecutionEnvironment 'h1' "
                                                       "differs from its definition in content/runs/b.json"),
    }
    for name, (change, said) in bad.items():
        letter = "c" if name == "a-duplicate-name" else "d"
        before = (project.root / f"content/runs/{letter}.json").read_text()
        _edit_run(project, letter, change)
        with pytest.raises(KindexError) as raised:
            build(load_config(None, {}), memo)
        code, _, err = project.build("--out", "clean", "--clean")
        assert code == 1 and said in err and said in str(raised.value), name
        (project.root / f"content/runs/{letter}.json").write_text(before)
        build(load_config(None, {}), memo)
        code, _, err = project.build("--out", "clean", "--clean")
        assert code == 0, err
        assert snapshot(project.root / "site") == snapshot(project.root / "clean"), name
    project.write("content/runs/g.json", _renamed(seed_problem_run("h7", "Impl 1", 3_000_000), "run-g"))
    build(load_config(None, {}), memo)
    code, _, err = project.build("--out", "clean", "--clean")
    assert code == 0, err
    assert snapshot(project.root / "site") == snapshot(project.root / "clean")
    assert json.loads((project.root / "site/api/v1/hosts/h7.json").read_text())["name"] == "h7"


def test_a_patched_load_equals_a_whole_pass(project, monkeypatch):
    """What load_content makes by patching its last load (LoadState) is what a whole pass makes:
    runs, protocols and environments in the same order and as the same files write them, digests,
    warnings, pages."""
    from kindex_site import listing

    monkeypatch.setattr(listing, "RACY_NS", 0)  # (as above: each edit comes long after the last read)

    def seen(content) -> tuple:
        return ([r.name for r in content.runs], [(n, d.model_dump_json()) for n, d in content.protocols.items()],
                [(n, d.model_dump_json()) for n, d in content.environments.items()], content.warnings,
                list(content.digests.items()), [(p.slug, p.markdown) for p in content.pages], content.files)

    _one_file_a_run(project)
    _each_patched_load_equals_a_whole_pass(project, PATCHED_EDITS, seen, most_read=2)


def _each_patched_load_equals_a_whole_pass(project, edits: dict, seen, most_read: int):
    """Load the content, then after each edit patch the last load: each patch reads at most
    `most_read` files (the changed ones) and gives what a whole pass gives, as `seen` tells them.
    Returns the last patched load."""
    from kindex_site import load, sources
    from kindex_site import listing as cache
    from kindex_site.state import loadstate

    content_dir = project.root / "content"
    memo, last, known = {}, loadstate.LoadState(), sources.SourceChecks()

    def patched():
        return load.load_content(content_dir, reuse=load.Kept(memo, cache.snapshot(content_dir), known, None, last))

    patched()
    for name, edit in edits.items():
        edit(project)
        content = patched()
        assert content.read <= most_read, name
        assert seen(content) == seen(load.load_content(content_dir)), name
    return content


def _kernel_run(letter: str, kernel: str, host: str = "h0") -> dict:
    doc = _renamed(seed_problem_run(host, f"Impl {letter}", 1_000_000 + ord(letter) * 1000), f"run-{letter}")
    doc["run"]["spec"]["implementationSource"] = {"path": kernel}
    return doc


# Edits of runs that refer to source files, and of those files (each after the ones before it).
SOURCE_EDITS = {
    "a-run-edited": lambda p: edit_json(p, "content/s/a.json", lambda d: d["run"]["spec"]["timing"][
        "latencyNs"].update(mean=800_000, minimum=800_000, maximum=800_000, confidence95=[800_000, 800_000])),
    "a-kernel-edited": lambda p: p.write("content/s/k/b.py", "def b(): return 2\n"),
    "a-run-now-refers-to-another-runs-kernel": lambda p: edit_json(
        p, "content/s/c.json", lambda d: d["run"]["spec"].update(implementationSource={"path": "k/a.py"})),
    "a-run-added-for-a-new-kernel": lambda p: [p.write("content/s/k/0.py", "def zero(): pass\n"),
                                               p.write("content/s/0.json", _kernel_run("z", "k/0.py"))],
    "a-run-gone-its-kernel-left": lambda p: (p.root / "content/s/b.json").unlink(),
    "the-run-back": lambda p: p.write("content/s/b.json", _kernel_run("b", "k/b.py")),
    "a-run-back-to-its-own-kernel": lambda p: edit_json(
        p, "content/s/c.json", lambda d: d["run"]["spec"].update(implementationSource={"path": "k/c.py"})),
}


def test_a_patched_load_attaches_source_files_as_a_whole_pass(project, monkeypatch):
    """Runs that refer to source files (one folder per submission): a patched load gives each run
    the files a whole pass gives it, lists the same source files, and warns of the same unread ones."""
    from kindex_site import listing

    monkeypatch.setattr(listing, "RACY_NS", 0)  # (each edit comes long after the last read)

    def seen(content) -> tuple:
        return ([(r.name, {k: (f.rel, f.digest) for k, f in r.files.items()}) for r in content.runs],
                [(rel, f.digest, f.shown) for rel, f in content.sources.items()], content.warnings)

    for letter in "abc":
        project.write(f"content/s/k/{letter}.py", f"def {letter}(): return 1\n")
        project.write(f"content/s/{letter}.json", _kernel_run(letter, f"k/{letter}.py"))
    patched = _each_patched_load_equals_a_whole_pass(project, SOURCE_EDITS, seen, most_read=1)
    assert "s/k/c.py" in patched.sources and "s/k/b.py" in patched.sources


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the runs cache is written aside only where processes fork")
def test_the_runs_cache_written_aside_is_put_in_place_only_by_a_build_that_succeeds(project, monkeypatch):
    """A command-line build of many runs has a worker write the runs cache while it ranks and plans,
    put in place where the build would have written it: a build that fails leaves the last build's;
    a worker that fails leaves the writing to the build."""
    from kindex_site import workers
    from kindex_site.state import files as cache
    from kindex_site.state import reuse as reuse_module

    monkeypatch.setattr(reuse_module, "RUNS_ASIDE_MIN", 1)  # (a few runs stand for many)
    monkeypatch.setattr(workers, "cores", lambda: 2)
    writers, real_write_runs, me = project.root / "writers", cache.write_runs, os.getpid()

    def write_runs(out, header, entries, put=lambda: True, fail=()):
        with open(writers, "a") as f:
            f.write(f"{'this' if os.getpid() == me else 'forked'}\n")
        if ("forked" if os.getpid() != me else "this") in fail:
            raise OSError(28, "No space left on device")
        real_write_runs(out, header, entries, put)

    def built(*, fail=()) -> tuple[int, str]:
        writers.unlink(missing_ok=True)
        monkeypatch.setattr(cache, "write_runs", partial(write_runs, fail=fail))
        code, _, err = project.build()
        return code, err

    stored = project.root / ".kindex-cache/site.runs"
    corpus(project)
    code, err = built()
    assert code == 0 and "cannot write" not in err and writers.read_text() == "forked\n"
    first = stored.read_bytes()

    project.write("content/d.json", seed_problem_run("h9", "Impl 9", 3_000_000))
    project.write("templates/run.html", "{{ no_such_thing.here }}")
    code, err = built()
    assert code == 1 and "no_such_thing" in err and writers.read_text() == "forked\n"
    assert stored.read_bytes() == first
    assert not [n for n in os.listdir(stored.parent) if n.endswith(".tmp")]

    (project.root / "templates/run.html").unlink()
    code, err = built(fail=("forked",))
    assert code == 0 and "cannot write" not in err and writers.read_text() == "forked\nthis\n"
    assert stored.read_bytes() != first
    assert not [n for n in os.listdir(stored.parent) if n.endswith(".tmp")]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the runs cache is written aside only where processes fork")
def test_a_build_that_cannot_fork_writes_the_runs_cache_itself(project, monkeypatch):
    """Processes made only to get ahead (the runs cache writer, the templates' compiler) are not needed:
    at a process limit, the build does their work itself."""
    from kindex_site import workers
    from kindex_site.state import reuse as reuse_module

    monkeypatch.setattr(reuse_module, "RUNS_ASIDE_MIN", 1)
    monkeypatch.setattr(workers, "cores", lambda: 2)
    forks = []

    def fork():
        forks.append(1)
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", fork)
    corpus(project)
    project.built()
    assert len(forks) == 2  # (both were tried)
    assert (project.root / ".kindex-cache/site.runs").is_file()
    assert not [n for n in os.listdir(project.root / ".kindex-cache") if n.endswith(".tmp")]


def test_the_runs_cache_is_stored_only_by_a_build_that_succeeds(project, monkeypatch):
    """A command-line build stores the runs it validated for the next one: a build that fails leaves
    the last build's; one that cannot write it says so, and the site is built all the same."""
    from kindex_site.state import files as cache
    from kindex_site.load import Kept, load_content
    from kindex_site.state.records import restore_files, runs_format

    real_write_runs = cache.write_runs

    def write_runs(out, header, entries, put=lambda: True, fail=False):
        if fail:
            raise OSError(28, "No space left on device")
        real_write_runs(out, header, entries, put)

    def restored() -> list[str]:
        memo = restore_files(cache.read_runs(project.root / "site", runs_format()), project.root / "content")
        return sorted(r.name for r in load_content(project.root / "content", reuse=Kept(memo)).runs)

    def built(*, fail=False) -> tuple[int, str]:
        monkeypatch.setattr(cache, "write_runs", partial(write_runs, fail=fail))
        code, _, err = project.build()
        return code, err

    stored = project.root / ".kindex-cache/site.runs"
    corpus(project)
    code, err = built()
    assert code == 0 and "cannot write" not in err
    assert restored() == sorted(r.name for r in load_content(project.root / "content").runs)
    first = stored.read_bytes()

    project.write("content/d.json", seed_problem_run("h9", "Impl 9", 3_000_000))
    project.write("templates/run.html", "{{ no_such_thing.here }}")
    code, err = built()
    assert code == 1 and "no_such_thing" in err
    assert stored.read_bytes() == first
    assert not [n for n in os.listdir(stored.parent) if n.endswith(".tmp")]

    (project.root / "templates/run.html").unlink()
    code, err = built()
    assert code == 0 and "cannot write" not in err
    assert "run-h9-impl-9" in restored() and stored.read_bytes() != first

    project.write("content/d.json", seed_problem_run("h9", "Impl 9", 2_000_000))
    code, err = built(fail=True)
    assert code == 0 and "cannot write the build's cache (No space left on device)" in err, err
    assert not [n for n in os.listdir(stored.parent) if n.endswith(".tmp")]




def test_a_resident_builder_whose_writers_run_in_parallel_rebuilds_after_an_edit(project, monkeypatch, always_incremental):
    """A rebuild that writes enough files to hand them to worker processes gets their sizes back in
    path order (not a table by path); a resident builder folds them into the last site's sizes."""
    from kindex_site import build as build_module
    from kindex_site.config import load_config
    from kindex_site.watch import Builder

    monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 0)
    monkeypatch.setattr(build_module, "_workers", lambda: 2)
    corpus(project)
    out = (project.root / "site").absolute()
    builder = Builder(None, {"output_dir": "site"}, load_config(None, {}), out, serving=False)
    builder.rebuild([], first=True)
    for mean in (2_000_000, 3_000_000):  # (twice: the second folds into sizes the first left)
        docs = json.loads((project.root / "content/a.json").read_text())
        docs[0]["run"]["spec"]["timing"]["latencyNs"] = {"mean": mean, "minimum": mean, "maximum": mean,
                                                         "confidence95": [mean, mean]}
        changed = project.write("content/a.json", docs)
        builder.rebuild([str(changed)])
        assert not builder.errors, builder.errors
        code, _, err = project.build("--out", "clean", "--clean")
        assert code == 0, err
        assert snapshot(project.root / "site") == snapshot(project.root / "clean")
