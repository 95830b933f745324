"""Bad input: one clear line per problem naming file and field, exit 1, no traceback, old site untouched."""

from __future__ import annotations

import json

import pytest

from conftest import DELETE, SEED, bundle


def _fails_cleanly(project, *expected_lines: str) -> str:
    """Build once with good content, break it, and check the failure is clean and harmless."""
    before = project.snapshot()
    code, out, err = project.build()
    assert code == 1, out
    assert "Traceback" not in err
    for line in expected_lines:
        assert line in err.splitlines(), f"{line!r} not in:\n{err}"
    assert err.rstrip().splitlines()[-1].startswith("error: ")
    assert project.snapshot() == before
    assert not [p for p in project.root.iterdir() if p.name.startswith(".site")], "temporary folder left behind"
    return err


@pytest.fixture
def built_project(project):
    project.write("content/good.json", SEED)
    project.built()
    assert project.snapshot()
    return project


BAD_TIME = ("run.spec.observedAt: must be an ISO 8601 date-time such as 2026-03-05T08:38:15Z "
            "(YYYY-MM-DDTHH:MM[:SS[.fraction]] and a time zone: Z or ±HH:MM)")

FIELD_CASES = {
    "samples-zero": ({"run.spec.timing.samples": 0},
                     "run.spec.timing.samples: Input should be greater than or equal to 1"),
    "latency-string": ({"run.spec.timing.latencyNs.mean": "4940000"},
                       "run.spec.timing.latencyNs.mean: Input should be a valid integer, not the string '4940000': "
                       "write it without quotes"),
    "latency-word": ({"run.spec.timing.latencyNs.mean": "fast"},
                     "run.spec.timing.latencyNs.mean: Input should be a valid integer"),
    "measurement-string": ({"run.spec.measurements": [{"metric": "latency", "statistic": "std", "unit": "ns",
                                                       "value": "1.5"}]},
                           "run.spec.measurements[0].value: Input should be a number, not the string '1.5': "
                           "write it without quotes"),
    "latency-float": ({"run.spec.timing.latencyNs.mean": 4940000.5},
                      "run.spec.timing.latencyNs.mean: Input should be a valid integer"),
    "latency-negative": ({"run.spec.timing.latencyNs.minimum": -5},
                         "run.spec.timing.latencyNs.minimum: Input should be greater than 0"),
    "latency-huge": ({"run.spec.timing.latencyNs.maximum": 10**30},
                     "run.spec.timing.latencyNs.maximum: Input should be less than or equal to 9007199254740991"),
    "latency-bool": ({"run.spec.timing.samples": True},
                     "run.spec.timing.samples: Input should be a valid integer"),
    "min-above-mean": ({"run.spec.timing.latencyNs.minimum": 5000000},
                       "run.spec.timing.latencyNs: must satisfy minimum ≤ mean ≤ maximum (got 5000000, 4940000, 4970000)"),
    "ci-excludes-mean": ({"run.spec.timing.latencyNs.confidence95": [4950000, 4960000]},
                         "run.spec.timing.latencyNs: confidence95 [4950000, 4960000] must contain the mean 4940000"),
    "ci-one-value": ({"run.spec.timing.latencyNs.confidence95": [4931062]},
                     "run.spec.timing.latencyNs.confidence95[1]: Field required"),
    "passed-without-timing": ({"run.spec.timing": DELETE},
                              "run.spec: a run with status 'passed' must have timing"),
    "api-version": ({"run.apiVersion": "kernelindex.dev/v2"},
                    "run.apiVersion: Input should be 'kernelindex.dev/v1alpha1'"),
    "kind-in-wrong-slot": ({"environment.kind": "BenchmarkProtocol"},
                           "environment.kind: Input should be 'ExecutionEnvironment'"),
    "missing-digest": ({"run.spec.workloadDigest": DELETE}, "run.spec.workloadDigest: Field required"),
    "bad-digest": ({"run.spec.workloadDigest": "md5:abc"},
                   "run.spec.workloadDigest: String should match pattern '^sha256:[0-9a-f]{64}$'"),
    "path-in-name": ({"run.metadata.name": "../../etc/passwd"},
                     "run.metadata.name: must be lowercase letters, digits, '.', '-' or '_', "
                     "starting and ending with a letter or digit"),
    "bad-observed-at": ({"run.spec.observedAt": "yesterday"},
                        BAD_TIME),
    # ISO 8601 forms Python reads but JSON readers and JavaScript's Date do not.
    "week-date-observed-at": ({"run.spec.observedAt": "2026-W10-4T08:38:15Z"},
                              BAD_TIME),
    "basic-format-observed-at": ({"run.spec.observedAt": "20260305T083815Z"},
                                 BAD_TIME),
    "unknown-bundle-key": ({"extra": 1}, "extra: unknown field: a bundle holds run, protocol and environment"),
    "misspelt-bundle-key": ({"enviroment": SEED["environment"], "environment": DELETE},
                            "enviroment: unknown field (did you mean 'environment'?): a bundle holds run, protocol "
                            "and environment"),
    "missing-environment": ({"environment": DELETE}, "environment: Field required"),
}


@pytest.mark.parametrize("changes, message", FIELD_CASES.values(), ids=FIELD_CASES.keys())
def test_invalid_field(built_project, changes, message):
    built_project.write("content/bad.json", bundle(changes, name="another-run"))
    _fails_cleanly(built_project, f"content/bad.json: {message}")


RAW_CASES = {
    "nan": ('{"run": NaN}', "content/bad.json: run: NaN is not a JSON number"),
    "infinity": ('{"run": Infinity}', "content/bad.json: run: Infinity is not a JSON number"),
    "overflowing-float": ('{"run": 1e400}', "content/bad.json: run: number 1e400 is out of range"),
    "duplicate-key": ('{"run": 1, "run": 2}', "content/bad.json: duplicate key 'run'"),
    "truncated": ('{"run": {', "content/bad.json: invalid JSON at line 1 column 10: Expecting property name enclosed in double quotes"),
    "empty": ("", "content/bad.json: file is empty"),
    "top-level-null": ("null", "content/bad.json: expected a bundle object {run, protocol, environment}, not null"),
    "top-level-number": ("3", "content/bad.json: expected a bundle object {run, protocol, environment}, not int"),
    "deep-nesting": ("[" * 100_000 + "]" * 100_000, "content/bad.json: JSON nested too deeply"),
}


@pytest.mark.parametrize("text, line", RAW_CASES.values(), ids=RAW_CASES.keys())
def test_malformed_file(built_project, text, line):
    built_project.write("content/bad.json", text)
    _fails_cleanly(built_project, line)


def test_bom_and_non_utf8(built_project):
    built_project.write("content/bom.json", b"\xef\xbb\xbf" + json.dumps(SEED).encode())
    built_project.write("content/latin1.json", '{"run": "caf\xe9"}'.encode("latin-1"))
    _fails_cleanly(built_project,
                   "content/bom.json: starts with a byte-order mark; save it as UTF-8 without BOM",
                   "content/latin1.json: not UTF-8 (byte 12: b'\\xe9')")


def test_array_index_and_jsonl_line_are_named(built_project):
    bad = bundle({"run.spec.timing.samples": 0}, name="in-array")
    built_project.write("content/arr.json", [bundle(name="fine-one"), bad])
    good_line = json.dumps(bundle(name="line-one"))
    bad_line = json.dumps(bundle({"run.spec.timing.samples": -1}, name="line-three"))
    built_project.write("content/more.jsonl", f"{good_line}\n\n{bad_line}\n")
    _fails_cleanly(built_project,
                   "content/arr.json[1]: run.spec.timing.samples: Input should be greater than or equal to 1",
                   "content/more.jsonl:3: run.spec.timing.samples: Input should be greater than or equal to 1")


def test_every_problem_reported_at_once_with_a_count(built_project):
    built_project.write("content/a.json", bundle({"run.spec.timing.samples": 0,
                                                  "run.spec.timing.latencyNs.mean": "x"}, name="a1"))
    built_project.write("content/b.json", "[1,")
    err = _fails_cleanly(built_project,
                         "content/a.json: run.spec.timing.samples: Input should be greater than or equal to 1",
                         "content/a.json: run.spec.timing.latencyNs.mean: Input should be a valid integer")
    assert "content/b.json: invalid JSON" in err
    assert err.splitlines()[-1] == "error: 3 problems in 2 files; nothing was written"


def test_two_runs_with_one_name_name_both_files(built_project):
    built_project.write("content/z/copy.json", SEED)
    name = SEED["run"]["metadata"]["name"]
    _fails_cleanly(built_project,
                   f"content/z/copy.json: run.metadata.name: {name!r} is also the name of the run in content/good.json")


def test_differing_protocol_definitions_name_both_files(built_project):
    built_project.write("content/other.json",
                        bundle({"protocol.spec.comparability.notes": "Different notes."}, name="other-run"))
    _fails_cleanly(built_project,
                   "content/other.json: protocol: BenchmarkProtocol 'kernelbench-timing-v1' differs from its "
                   "definition in content/good.json")


def test_repeated_identical_definitions_are_fine(project):
    project.write("content/a.json", [bundle(name="r1"), bundle(name="r2")])
    project.write("content/b.jsonl", json.dumps(bundle(name="r3")) + "\n")
    code, out, err = project.build()
    assert code == 0, err
    assert "from 3 runs" in out


def test_kernelbench_run_without_parsable_external_id(built_project):
    built_project.write("content/bad.json",
                        bundle({"run.spec.sourceNative.externalId": "whatever"}, name="odd"))
    _fails_cleanly(built_project,
                   "content/bad.json: run.spec.sourceNative.externalId: ends in 'whatever', not in "
                   "levelN/M_Name.py as KernelBench ids do")


def test_check_reports_the_same_errors(project):
    project.write("content/bad.json", bundle({"run.spec.timing.samples": 0}))
    code, _, err = project.run("check")
    assert code == 1
    assert "content/bad.json: run.spec.timing.samples: Input should be greater than or equal to 1" in err


def test_unsafe_output_folders_are_refused(project):
    project.write("content/seed.json", SEED)
    for out, reason in (("content", "is inside the content folder"), (".", "is the project folder"),
                        ("/", "is the file system root")):
        code, _, err = project.build("--out", out)
        assert code == 1 and f"refusing to write the site there: it {reason}" in err, err
    (project.root / "mine").mkdir()
    (project.root / "mine/notes.txt").write_text("precious")
    code, _, err = project.build("--out", "mine")
    assert code == 1 and "non-empty folder kindex-site did not create" in err
    assert (project.root / "mine/notes.txt").read_text() == "precious"


def test_bad_config_names_file_and_key(project):
    project.write("content/seed.json", SEED)
    project.write("kindex.toml", 'titel = "typo"\n')
    code, _, err = project.build()
    assert code == 1 and "kindex.toml: titel: Extra inputs are not permitted" in err


def test_template_error_is_reported_without_traceback(project):
    project.write("content/seed.json", SEED)
    project.built()
    before = project.snapshot()
    templates = project.root / "templates"
    from kindex_site.config import bundled

    for src in bundled("templates").iterdir():
        (templates / src.name).parent.mkdir(exist_ok=True)
        (templates / src.name).write_text(src.read_text())
    (templates / "home.html").write_text("{% extends 'base.html' %}{% block main %}{{ nope.missing }}{% endblock %}")
    code, _, err = project.build()
    assert code == 1 and "Traceback" not in err and "templates/home.html" in err and "nope" in err
    assert project.snapshot() == before


def test_the_command_says_everything_then_exits_and_a_closed_pipe_is_no_traceback(project):
    """`kindex-site` leaves without the interpreter's teardown (cli.run): its output must still all arrive."""
    import os
    import subprocess
    import sys

    project.write("content/good.json", SEED)
    command = [sys.executable, "-m", "kindex_site", "build", "--timings"]
    done = subprocess.run(command, cwd=project.root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Built 16 pages from 1 run in ") and done.stdout.endswith(" → site/\n")
    assert "render and write" in done.stderr and "save the manifest" in done.stderr
    assert (project.root / "site/index.html").is_file()

    # Nobody reads the output any more (`kindex-site build | head -c 0`): no traceback, status 1.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        gone = subprocess.run(command[:-1] + ["--clean"], cwd=project.root, stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    finally:
        os.close(write_end)
    assert gone.returncode == 1 and "Traceback" not in gone.stderr, gone.stderr
    assert (project.root / "site/index.html").is_file()  # the build itself was done

    # Started with its output closed (`kindex-site build >&-`): nothing to say it to, no failure.
    closed = subprocess.run(command[:-1] + ["--clean"], cwd=project.root, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, timeout=120,
                            preexec_fn=lambda: os.close(1))
    assert closed.returncode == 0 and "Traceback" not in closed.stderr, closed.stderr


def test_a_file_holding_an_empty_array_is_warned_about_naming_it(project):
    project.write("content/seed.json", SEED)
    project.write("content/nothing.json", "[]\n")
    for command in ("check", "build"):
        code, _, err = project.run(command)
        assert code == 0 and "warning: content/nothing.json: holds an empty array: no bundle" in err, err
    code, _, err = project.run("check", "--strict")
    assert code == 1 and "content/nothing.json: holds an empty array: no bundle" in err


@pytest.mark.parametrize("where", ["run.spec.sourceNative", "protocol.spec.comparability", "environment.spec.software"])
def test_a_document_bigger_than_a_page_shows_is_refused_naming_its_field(project, where):
    """A valid bundle whose document would make a page of megabytes (a 1 MB string in a free-form
    field) is refused by check and build alike, naming the field, and nothing is written."""
    doc = json.loads(json.dumps(SEED))
    node = doc
    for key in where.split("."):
        node = node[key]
    node["note"] = "x" * 1_000_000
    project.write("content/big.json", doc)
    for command in ("check", "build"):
        code, _, err = project.run(command)
        assert code == 1, command
        assert f"content/big.json: {where}.note: the {where.split('.')[0]} document is" in err, err
        assert "more than the 64 KiB a page shows of one document" in err
    assert not (project.root / "site").exists()


def test_documents_up_to_the_bound_build(project):
    doc = bundle(name="big-but-not-too-big", host="h1")
    doc["run"]["spec"]["sourceNative"]["note"] = "x" * 60_000  # (under 64 KiB with the rest of the run)
    project.write("content/a.json", [SEED, doc, bundle(name="another", host="h2")])  # over 64 KiB: measured
    assert (project.root / "content/a.json").stat().st_size > 64 * 2**10
    code, _, err = project.run("check", "--strict")
    assert code == 0, err
