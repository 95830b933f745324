"""Content laid out in every way a repository holds it (benchmarks/make_corpus.py's layouts: arrays,
.jsonl, one file per run, one folder per submission with its kernel) builds the same site whether
its files are read here or by forked reading processes (reading._ReadingProcesses), and says the same
lines about the same problems. Speed is measured in benchmarks/, not here.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from conftest import bundle, seed_problem_run

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from make_corpus import LAYOUTS, write_corpus  # noqa: E402

from kindex_site import bundles, load, reading  # noqa: E402
from kindex_site import listing as cache  # noqa: E402
from kindex_site.state import records as stored  # noqa: E402


@pytest.fixture
def in_processes(monkeypatch):
    """Read every load's files in reading processes (two), in chunks of a file or two."""
    monkeypatch.setattr(reading, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(reading, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(reading, "CHUNK_BYTES", (1, 1))
    monkeypatch.setattr(reading, "cores", lambda: 3)


def read_here(monkeypatch) -> None:
    monkeypatch.setattr(reading, "PARALLEL_MIN_FILES", 10**9)


def built_both_ways(project, monkeypatch, *argv: str) -> tuple[dict, dict]:
    """The site built with the files read in processes (as the fixture set), then read here."""
    in_processes = project.built("--clean", *argv).snapshot()
    with monkeypatch.context() as patched:
        read_here(patched)
        here = project.built("--clean", *argv).snapshot()
    return in_processes, here


# Runs enough for many chunks over two reading processes (a chunk is a file or two); speed is benchmarks/'.
RUNS = 60


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_builds_the_same_site_read_here_or_in_processes(project, monkeypatch, in_processes, layout):
    write_corpus(RUNS, project.root / "content", layout=layout)
    processes, here = built_both_ways(project, monkeypatch)
    assert processes == here
    assert sum(1 for path in here if path.startswith("runs/") and path != "runs/index.html") == RUNS  # (and its index)
    if layout == "folders":
        page = next(data for path, data in here.items() if path.startswith("runs/") and path.endswith("/index.html")
                    and path != "runs/index.html")
        assert b"kernel.py" in page and b"generated kernel" in page


def test_a_run_page_shows_each_value_alike_read_here_or_in_processes(project, monkeypatch, in_processes):
    """A reading process hands each document on as the run page shows it (as JSON), so the page
    need not validate it again: values whose printed form could drift on the way (floats, offsets,
    escapes, unknown fields, a failed run without timing) are shown exactly as one process shows them."""
    odd = seed_problem_run("h1", "Impl A", 1_000_000)
    spec = odd["run"]["spec"]
    spec["observedAt"] = "2026-03-01T23:30:00.123456+14:00"
    spec["sourceNative"] = {"floats": [0.1, 1e-07, 1e21, -0.0, 123456789.12345679, 5e-324, 2.5],
                            "ints": [2**53 - 1, -(2**53 - 1), 0], "text": "Ångström \u2028 <b>&amp;</b> \"q\"",
                            "nested": {"z": [], "a": {}, "m": [None, True, False]}}
    spec["madeUpField"] = {"kept": 1.0}
    failed = seed_problem_run("h1", "Impl B", 2_000_000, status="failed")
    del failed["run"]["spec"]["timing"]
    project.write("content/a.json", odd)
    project.write("content/b.json", failed)
    project.write("content/c.json", seed_problem_run("h1", "Impl C", 3_000_000))
    processes, here = built_both_ways(project, monkeypatch)
    assert processes == here
    page = here["runs/run-h1-impl-a/index.html"].decode()
    for shown in ("<code>1e-07</code>", "<code>1e+21</code>", "<code>-0.0</code>", "<code>5e-324</code>",
                  "<code>9007199254740991</code>", "&lt;b&gt;&amp;amp;&lt;/b&gt;", "madeUpField", "+14:00"):
        assert shown in page, shown
    assert "<dt>Mean latency</dt>" not in here["runs/run-h1-impl-b/index.html"].decode()


@pytest.mark.parametrize("layout", ["one-file-per-run", "jsonl"])
def test_without_run_pages_and_with_documents_read_again(project, monkeypatch, in_processes, layout):
    write_corpus(RUNS // 2, project.root / "content", layout=layout)
    processes, here = built_both_ways(project, monkeypatch)
    monkeypatch.setattr(load, "KEEP_DOCUMENTS_MAX_BYTES", 0)  # (run pages read their files again)
    assert built_both_ways(project, monkeypatch) == (processes, here) and processes == here
    project.write("kindex.toml", "run_pages = false\n")
    processes, here = built_both_ways(project, monkeypatch)
    assert processes == here and not any(path.startswith("runs/") for path in here)


def hostile_files(project) -> None:
    """Refusals of every kind, each in a file of its own, between good files."""
    good = [seed_problem_run(f"h{i}", "Impl A", 1_000_000 + i) for i in range(6)]
    for i, doc in enumerate(good):
        project.write(f"content/good-{i}.json", doc)
    text = json.dumps(seed_problem_run("h9", "Impl B", 2_000_000))
    bad = {
        "duplicate-key.json": text.replace('"status": "passed"', '"status": "passed", "status": "failed"'),
        "nan.json": text.replace('"samples": 100', '"samples": NaN'),
        "huge-float.json": text.replace('"samples": 100', '"samples": 1e400'),
        "big-int.json": text.replace('"samples": 100', '"samples": 123456789012345678901234'),
        "surrogate.json": text.replace('"source": "kernelbench"', '"source": "\\ud800"'),
        "deep.json": text.replace('"sourceNative": {', '"sourceNative": {"x": ' + "[" * 40 + "]" * 40 + ", "),
        "not-json.json": text[:-5],
        "schema.json": json.dumps(bundle({"run.spec.timing.latencyNs.mean": "fast"})),
        "twice.json": json.dumps(seed_problem_run("h0", "Impl A", 3_000_000)),  # the name of good-0's run
        "lines.jsonl": text + "\n" + text.replace('"mean": 2000000', '"mean": -1') + "\n{\n",
        "other-protocol.json": json.dumps(bundle({"protocol.spec.harness.name": "another", "run.metadata.name": "x-1"})),
    }
    assert all(value != text for value in bad.values())
    for name, value in bad.items():
        project.write(f"content/{name}", value)


def test_refusals_are_the_same_lines_read_in_processes(project, monkeypatch, in_processes):
    hostile_files(project)
    for command in (("check",), ("check", "--strict"), ("build",)):
        code, out, processes = project.run(*command)
        assert code == 1 and "Traceback" not in processes
        with monkeypatch.context() as patched:
            read_here(patched)
            assert project.run(*command) == (code, out, processes)
    lines = processes.splitlines()
    assert len(lines) == 13 and lines[-1] == "error: 12 problems in 11 files; nothing was written"
    for expected in ("content/duplicate-key.json: run.spec: duplicate key 'status'",
                     "content/nan.json: run.spec.timing.samples: NaN is not a JSON number",
                     "content/huge-float.json: run.spec.timing.samples: number 1e400 is out of range",
                     "content/lines.jsonl:3: invalid JSON at column 1: Expecting property name enclosed in double quotes",
                     "content/twice.json: run.metadata.name: 'run-h0-impl-a' is also the name of the run in "
                     "content/good-0.json"):
        assert expected in lines, (expected, processes)


@pytest.mark.parametrize("how", ["killed", "failing"])
def test_a_reading_process_that_dies_leaves_its_files_to_the_build(project, monkeypatch, in_processes, how):
    """Killed (by the OOM killer, say) or failing on its third file: the build reads its chunks itself."""
    write_corpus(RUNS // 2, project.root / "content", layout="one-file-per-run")
    parent, reading_file, calls = os.getpid(), reading._read_file, []

    def dying(*args, **kwargs):
        if os.getpid() != parent:
            calls.append(1)  # (each process counts its own: a copy of the list since its fork)
            if len(calls) == 3 and how == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
            if len(calls) == 3:
                raise RuntimeError("a bug in a reading process")
        return reading_file(*args, **kwargs)

    monkeypatch.setattr(reading, "_read_file", dying)
    processes, here = built_both_ways(project, monkeypatch)
    assert processes == here


def test_runs_read_in_processes_hold_their_documents_as_they_were_validated(tmp_path, monkeypatch, in_processes):
    write_corpus(40, tmp_path / "content", layout="jsonl")
    runs = load.load_content(tmp_path / "content").runs
    held = [run for run in runs if type(run._doc) is bytes]
    assert held and all(run.document_file is None for run in runs)
    with monkeypatch.context() as patched:
        read_here(patched)
        validated = {run.name: run for run in load.load_content(tmp_path / "content").runs}
    for run in held:
        assert run.doc == validated[run.name].doc and run.doc is not run.doc  # (made anew when asked: not kept)


def test_definitions_repeated_across_files_are_shared_and_told_apart_by_type(tmp_path):
    """One file per run repeats its protocol and environment: validated once, one model for all.
    An environment that differs only by 1 against 1.0 is validated on its own (pages show it as written)."""
    for i in range(3):
        (tmp_path / f"a-{i}.json").write_text(json.dumps(seed_problem_run("h1", f"Impl {i}", 1_000_000 + i)))
    one = seed_problem_run("h2", "Impl 9", 2_000_000)
    one["environment"]["spec"]["hardware"]["count"] = 1
    other = seed_problem_run("h2", "Impl 8", 2_000_000)
    other["environment"]["spec"]["hardware"]["count"] = 1.0
    (tmp_path / "b-1.json").write_text(json.dumps(one))
    (tmp_path / "b-2.json").write_text(json.dumps(other))
    runs = {run.source.file.rsplit("/", 1)[-1]: run for run in load.load_content(tmp_path).runs}
    first = runs["a-0.json"].definitions
    assert all(runs[f"a-{i}.json"].definitions[k] is first[k] for i in range(3) for k in (0, 1))
    assert runs["b-1.json"].definitions[0] is first[0]  # (the same protocol)
    one_model, other_model = runs["b-1.json"].definitions[1], runs["b-2.json"].definitions[1]
    assert one_model is not other_model
    assert type(one_model.spec.hardware.count) is int and type(other_model.spec.hardware.count) is float


def test_a_file_rewritten_within_the_clock_tick_is_read_again_though_listed_in_one_pass(project, monkeypatch):
    """The listing's own stat (one per file) keys the memo: an edit of the same size within the
    tick the file was read in, its times put back, is still seen (the racily-clean rule)."""
    from kindex_site.build import build
    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config

    monkeypatch.chdir(project.root)
    key_of = cache.stat_key  # (the snapshot's, which the listing takes)
    monkeypatch.setattr(cache, "stat_key", lambda st: key_of(st)[:2])  # (within a tick, ctime stays too)
    monkeypatch.setattr(cache, "RACY_NS", 10**15)  # (a tick of days: read in it however slow the machine)
    path = project.write("content/a.json", [seed_problem_run("h1", "Impl A", 1_000_000)])
    memo = Reuse(Path("site").absolute())
    build(load_config(None, {}), memo)
    before = path.stat()
    text = path.read_text()
    edited = text.replace("08:38:15", "08:38:16", 1)  # one run observed a second later: the same length
    assert edited != text and len(edited) == len(text)
    path.write_text(edited)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    build(load_config(None, {}), memo)
    assert any("08:38:16" in p.read_text() for p in (project.root / "site/api").rglob("*.json"))


def test_definitions_restored_from_the_cache_are_shared_with_a_file_read_again(tmp_path):
    """A command-line build takes unchanged files' runs from the runs cache and reads an edited file
    again: a protocol and environment it repeats word for word are the restored ones (so the checks
    across files stay identity tests), and 1 against 1.0 is still told apart."""
    def write(name: str, impl: str, mean: int, count=None) -> None:
        doc = seed_problem_run("h1", impl, mean)
        if count is not None:
            doc["environment"]["metadata"]["name"] = "h2"
            doc["environment"]["spec"]["hardware"]["count"] = count
        (tmp_path / name).write_text(json.dumps(doc))

    for i in range(3):
        write(f"a-{i}.json", f"Impl {i}", 1_000_000 + i)
    write("b-1.json", "Impl 8", 2_000_000, count=1)
    write("b-2.json", "Impl 9", 2_000_000, count=1.0)
    known, memo = bundles.Definitions(), {}
    content = load.load_content(tmp_path, reuse=load.Kept(memo, definitions=known))
    records = list(stored.file_records(memo, content.digests, known))

    known = bundles.Definitions()  # the next build's
    restored = stored.restore_files(records, tmp_path, known)
    write("a-0.json", "Impl 0", 1_500_000)  # edited: read again
    runs = {run.source.file.rsplit("/", 1)[-1]: run
            for run in load.load_content(tmp_path, reuse=load.Kept(restored, definitions=known)).runs}
    assert runs["a-0.json"].facts.mean == 1_500_000
    assert all(runs["a-0.json"].definitions[k] is runs["a-1.json"].definitions[k] for k in (0, 1))
    one, other = runs["b-1.json"].definitions[1], runs["b-2.json"].definitions[1]
    assert one is not other
    assert type(one.spec.hardware.count) is int and type(other.spec.hardware.count) is float
