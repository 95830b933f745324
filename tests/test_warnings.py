"""Warnings a publisher acts on (docs/building.md, "Warnings"): grouped by cause on a terminal, each
with --verbose, with --strict and in GitHub annotations; a host off in units has a line of its own;
a workload overlap is said only where it changes a result; a newcomer's first build says nothing."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import SEED, bundle, seed_problem_run
from kindex_site.cli import main
from kindex_site.errors import GROUPED_OVER, NEVER_GROUPED, warning_cause, warning_lines
from kindex_site.leaderboard import UNITS, WORKLOAD_OVERLAP


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning: ")]


def _thirty_unknown_fields(project) -> list[str]:
    """30 runs, each in its own file, each with a field the format does not know: their files."""
    files = []
    for i in range(30):
        doc = seed_problem_run("h", f"Impl {i}", 1000 + i)
        doc["run"]["spec"]["colour"] = "red"
        files.append(f"content/somewhere/r{i:02}.json")
        project.write(files[-1], doc)
    return files


def test_thirty_warnings_of_one_cause_are_one_line_with_their_count_and_an_example(project):
    files = _thirty_unknown_fields(project)
    for command in ("check", "build"):
        code, out, err = project.run(command)
        assert code == 0, err
        [line] = _warnings(err)
        assert line.startswith("warning: 30 × run.spec.colour: unknown field (e.g. content/somewhere/r00.json: ")
        assert line.endswith("; --verbose lists each")
        code, out, err = project.run(command, "--verbose")
        assert code == 0 and _warnings(err) == [f"warning: {f}: run.spec.colour: unknown field" for f in files], err
    code, out, err = project.build()  # nothing changed: the manifest's warnings, grouped alike
    assert code == 0 and out.startswith("Up to date") and len(_warnings(err)) == 1 and "30 × " in err


def test_strict_fails_naming_each_warning_and_annotations_stay_per_file(project):
    files = _thirty_unknown_fields(project)
    code, out, err = project.run("check", "--strict")
    assert code == 1 and err.splitlines()[-1] == "error: 30 problems in 30 files; nothing was written"
    for f in files:
        assert f"{f}: run.spec.colour: unknown field" in err.splitlines()
    code, out, err = project.run("check", "--format", "github")
    assert code == 0 and len([line for line in out.splitlines() if line.startswith("::warning file=")]) == 30


def test_two_causes_are_two_lines_and_a_failure_groups_its_warnings_too(project):
    _thirty_unknown_fields(project)
    for i in range(5):
        project.write(f"content/notes{i}.txt", "not a bundle")
    code, out, err = project.run("check")
    lines = _warnings(err)
    assert code == 0 and len(lines) == 2, err
    assert lines[0].startswith("warning: 30 × run.spec.colour: unknown field")
    assert lines[1].startswith("warning: 5 × ignored (e.g. content/notes0.txt: ignored (only *.json")

    project.write("content/broken.json", "{")
    code, out, err = project.build()
    assert code == 1 and "content/broken.json" in err and len(_warnings(err)) == 2, err
    assert err.splitlines()[-1].endswith("and 35 warnings; nothing was written")
    code, out, err = project.build("--verbose")
    assert code == 1 and len(_warnings(err)) == 35


def test_a_few_warnings_of_one_cause_are_each_said():
    said = [f"content/n{i}.txt: ignored (only *.json …)" for i in range(GROUPED_OVER)]
    assert warning_lines(said) == [f"warning: {w}" for w in said]
    assert len(warning_lines([*said, "content/m.txt: ignored (only *.json …)"])) == 1
    # A host off in units is a finding of its own, however many there are.
    units = [f"content/{h}.json: host {h}: {UNITS}: its latencies are 1,000× above …" for h in "abcde"]
    assert warning_lines(units) == [f"warning: {w}" for w in units]
    # What varies between warnings of one cause (places, names, numbers, digests) is no part of it.
    assert warning_cause("content/a.json[3]: run.spec.status: unknown status 'pased' (did you mean 'passed'?)") \
        == warning_cause("content/b.jsonl:7: run.spec.status: unknown status 'fialed' (did you mean 'failed'?)")
    assert warning_cause("content/a.json and content/b.json: problem 'X' on host h: unordered-runs: Runs …") \
        == "unordered-runs"


def test_the_rule_is_the_one_the_docs_state():
    building = " ".join((Path(__file__).parent.parent / "docs/building.md").read_text(encoding="utf-8").split())
    assert f"A cause said more than {GROUPED_OVER} times is one line" in building
    assert UNITS in NEVER_GROUPED and f"| `{UNITS}` |" in building and f"| `{WORKLOAD_OVERLAP}` |" in building


def _on_problem(n: int, host: str, mean: int) -> dict:
    """PyTorch eager on `host` for level 1 problem `n`, its own workload."""
    doc = bundle(name=f"p{n}-{host}", title=f"Problem {n} · PyTorch eager · Lambda Labs", host=host, mean=mean)
    doc["run"]["spec"]["sourceNative"]["externalId"] = f"H/t/level1/{n}_Problem_{n}.py"
    doc["run"]["spec"]["workloadDigest"] = f"sha256:{n:064x}"
    return doc


def test_a_host_off_in_units_has_a_line_of_its_own_naming_it_and_its_factor(project):
    project.write("content/a.json", [_on_problem(n, host, mean) for n in (1, 2, 3)
                                     for host, mean in (("h1", 4_000_000), ("h2", 4_000_000),
                                                        ("h3", 4_004_000_000))])
    code, out, err = project.run("check")
    [line] = _warnings(err)
    assert code == 0 and f": host h3: {UNITS}: its latencies are 1,000× above the other hosts'" in line, err
    assert line.startswith("warning: content/a.json: ") and "Its 3 passed runs not reviewed clean are ranked" in line
    assert "h1" not in line and "h2" not in line
    code, out, err = project.run("check", "--strict")
    assert code == 1 and "host h3" in err


def _kernelbench(name: str, host: str, workload: str, observed: str, title: str | None = None) -> dict:
    """A run of the seed's problem (KernelBench level 2 number 84, or `title` alone) on `host`."""
    doc = bundle(name=name, host=host, changes={"run.spec.workloadDigest": f"sha256:{workload * 64}",
                                                "run.spec.observedAt": observed})
    if title is not None:
        doc["run"]["metadata"]["title"] = f"{title} · PyTorch eager · Lambda Labs"
        doc["run"]["spec"]["sourceNative"] = {"source": "mylab"}
    return doc


def _overlap_lines(project) -> list[str]:
    code, out, err = project.run("check")
    assert code == 0, err
    return [line for line in _warnings(err) if WORKLOAD_OVERLAP in line]


def test_overlapping_workloads_that_change_nothing_say_nothing(project):
    # KernelBench's resize: the hosts timed the old and the new workload over overlapping periods, each
    # host one of them: the benchmark's own id names one problem, and each host's newest is plain.
    project.write("content/a.json", [
        _kernelbench("old-h1", "h1", "a", "2025-01-01T00:00:00Z"), _kernelbench("old-h1b", "h1", "a", "2025-06-01T00:00:00Z"),
        _kernelbench("new-h2", "h2", "b", "2025-03-01T00:00:00Z"), _kernelbench("new-h2b", "h2", "b", "2025-09-01T00:00:00Z"),
    ])
    assert _overlap_lines(project) == []
    code, out, err = project.run("check", "--strict")
    assert code == 0, err
    # One host timing the old workload, then the new one: its newest is the new one, plainly.
    project.write("content/b.json", _kernelbench("new-h1", "h1", "b", "2025-07-01T00:00:00Z"))
    assert _overlap_lines(project) == []
    # Two older workloads one host timed at once, then a newer one: its summaries take the newer, plainly.
    project.write("content/b.json", [_kernelbench("new-h1", "h1", "b", "2025-05-01T00:00:00Z"),
                                     _kernelbench("newest-h1", "h1", "c", "2025-10-01T00:00:00Z")])
    assert _overlap_lines(project) == []
    # A title alone names both, but one host timed them one after the other: a resize, not two problems.
    project.write("content/a.json", [_kernelbench("t-h1", "h1", "a", "2025-01-01T00:00:00Z", "Mine"),
                                     _kernelbench("t-h1b", "h1", "b", "2025-05-01T00:00:00Z", "Mine"),
                                     _kernelbench("t-h2", "h2", "b", "2025-04-01T00:00:00Z", "Mine")])
    project.write("content/b.json", [])
    assert _overlap_lines(project) == []


def test_an_overlap_on_one_host_is_said_with_which_workload_its_summaries_take(project):
    project.write("content/a.json", [
        _kernelbench("old-h1", "h1", "a", "2025-01-01T00:00:00Z"), _kernelbench("old-h1b", "h1", "a", "2025-06-01T00:00:00Z"),
        _kernelbench("new-h1", "h1", "b", "2025-03-01T00:00:00Z"), _kernelbench("new-h2", "h2", "b", "2025-04-01T00:00:00Z"),
    ])
    [line] = _overlap_lines(project)
    assert line.startswith(f"warning: content/a.json[0] and content/a.json[2]: {WORKLOAD_OVERLAP}: problem "
                           "'Gemm BatchNorm Scaling Softmax': h1 timed its workloads aaaaaaaaaaaa and bbbbbbbbbbbb "
                           "over overlapping periods"), line
    assert "the summaries there take bbbbbbbbbbbb" in line and "h2" not in line


def test_a_title_naming_two_workloads_timed_at_once_on_different_hosts_is_said(project):
    project.write("content/a.json", [_kernelbench("t-h1", "h1", "a", "2025-01-01T00:00:00Z", "Mine"),
                                     _kernelbench("t-h1b", "h1", "a", "2025-06-01T00:00:00Z", "Mine"),
                                     _kernelbench("t-h2", "h2", "b", "2025-03-01T00:00:00Z", "Mine")])
    [line] = _overlap_lines(project)
    assert "problem 'Mine' names two workloads (aaaaaaaaaaaa, bbbbbbbbbbbb)" in line
    assert "two problems sharing a name?" in line


def test_a_new_project_builds_saying_nothing_a_newcomer_cannot_act_on(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("CI", raising=False)
    assert main(["new", str(tmp_path / "board"), "--title", "Board"]) == 0
    monkeypatch.chdir(tmp_path / "board")
    capsys.readouterr()
    for argv in (["build"], ["build"], ["check", "--strict"]):  # (the second: up to date)
        assert main(argv) == 0
        out, err = capsys.readouterr()
        assert err == "", (argv, err)
    # The note on what a path-only base_url leaves out: with --verbose, and in CI (where sites are published).
    note = re.compile(r"^note: base_url '/' is a path, not an absolute URL: sitemap\.xml, feed\.xml", re.M)
    assert main(["build", "--verbose"]) == 0 and note.search(capsys.readouterr().err)
    monkeypatch.setenv("CI", "true")
    assert main(["build"]) == 0 and note.search(capsys.readouterr().err)
    assert main(["build", "--base-url", "https://me.github.io/board/"]) == 0
    assert "note:" not in capsys.readouterr().err
