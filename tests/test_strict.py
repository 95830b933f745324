"""Strict means strict: a field the format does not know that is a near miss of one it knows is an
error naming that one (its value would be left out); other unknown fields and statuses are warned
about; `check --strict` fails on them; the warnings are the same whatever the build's caches hold."""

from __future__ import annotations

import json

import pytest

from conftest import DELETE, SEED, bundle

NEAR_MISSES = {
    "confidence_95": ({"run.spec.timing.latencyNs.confidence_95": [4931062, 4948938]},
                      "content/x.json: run.spec.timing.latencyNs.confidence_95: unknown field "
                      "(did you mean 'confidence95'?)"),
    "minimun": ({"run.spec.timing.latencyNs.minimun": 4780000},
                "content/x.json: run.spec.timing.latencyNs.minimun: unknown field (did you mean 'minimum'?)"),
    "confidense95": ({"run.spec.timing.latencyNs.confidense95": [4931062, 4948938]},
                     "content/x.json: run.spec.timing.latencyNs.confidense95: unknown field "
                     "(did you mean 'confidence95'?)"),
    "run-spec": ({"run.spec.observedAT": "2026-03-05T08:38:15Z"},
                 "content/x.json: run.spec.observedAT: unknown field (did you mean 'observedAt'?)"),
    "measurement-item": ({"run.spec.measurements.0.units": "ns"},
                         "content/x.json: run.spec.measurements[0].units: unknown field (did you mean 'unit'?)"),
    "protocol": ({"protocol.spec.measurement.primaryStatistc": "mean"},
                 "content/x.json: protocol.spec.measurement.primaryStatistc: unknown field "
                 "(did you mean 'primaryStatistic'?)"),
    "resolution": ({"protocol.spec.measurement.resolution": {"significantFigures": 3, "stepNS": 10}},
                   "content/x.json: protocol.spec.measurement.resolution.stepNS: unknown field "
                   "(did you mean 'stepNs'?)"),
    "hardware": ({"environment.spec.hardware.formfactor": "PCIe"},
                 "content/x.json: environment.spec.hardware.formfactor: unknown field (did you mean 'formFactor'?)"),
    "hardware-known-optional": ({"environment.spec.hardware.memroy": "80GB"},
                                "content/x.json: environment.spec.hardware.memroy: unknown field "
                                "(did you mean 'memory'?)"),
    "case": ({"run.spec.timing.SAMPLES": 100},
             "content/x.json: run.spec.timing.SAMPLES: unknown field (did you mean 'samples'?)"),
}


@pytest.mark.parametrize("changes, line", NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
def test_a_near_miss_of_a_known_field_is_an_error_naming_it(project, changes, line):
    """Before: a warning, and the build published the run, ranked, with the misspelt value left out."""
    project.write("content/x.json", bundle())
    project.built()
    before = project.snapshot()
    project.write("content/x.json", bundle(changes))
    for command in (("check",), ("check", "--strict"), ("build",)):
        code, _, err = project.run(*command)
        assert code == 1 and line in err.splitlines(), (command, err)
        assert f"warning: {line}" not in err and "Traceback" not in err
        assert err.splitlines()[-1] == "error: 1 problem in 1 file; nothing was written"
    assert project.snapshot() == before
    code, out, _ = project.run("check", "--format", "github")
    file, message = line.split(": ", 1)
    assert code == 1 and out.startswith(f"::error file={file},line=") and out.rstrip().endswith(f"::{message}")


UNKNOWN = {
    "pased": ({"run.spec.status": "pased"},
              "content/x.json: run.spec.status: unknown status 'pased' (did you mean 'passed'?)"),
    "no-near-name": ({"run.metadata.labels": {"team": "blue"}}, "content/x.json: run.metadata.labels: unknown field"),
    # Near a known name, but no typo of it: a field of its own (a statistic, a shortening, a suffix).
    "another-statistic": ({"run.spec.timing.latencyNs.median": 4940000},
                          "content/x.json: run.spec.timing.latencyNs.median: unknown field (did you mean 'mean'?)"),
    "a-shortening": ({"protocol.spec.harness.repo": "x"},
                     "content/x.json: protocol.spec.harness.repo: unknown field (did you mean 'repository'?)"),
    "a-suffix": ({"run.spec.timingWas": {"samples": 1}},
                 "content/x.json: run.spec.timingWas: unknown field (did you mean 'timing'?)"),
    "a-short-name's-neighbour": ({"environment.spec.hardware.gpu": "H100"},
                                 "content/x.json: environment.spec.hardware.gpu: unknown field (did you mean 'cpu'?)"),
    "no-near-name-in-a-definition": ({"protocol.spec.harness.commit": "abc123"},
                                     "content/x.json: protocol.spec.harness.commit: unknown field"),
}


@pytest.mark.parametrize("changes, line", UNKNOWN.values(), ids=UNKNOWN.keys())
def test_an_unknown_field_near_no_known_one_or_an_unknown_status_is_a_warning_and_fails_check_strict(
        project, changes, line):
    project.write("content/x.json", bundle(changes))
    code, out, err = project.run("check")
    assert code == 0 and out.startswith("OK: ")
    assert f"warning: {line}" in err.splitlines(), err
    code, _, err = project.run("check", "--strict")
    assert code == 1 and line in err.splitlines(), err
    code, _, err = project.build()
    assert code == 0 and f"warning: {line}" in err.splitlines(), err


def test_a_near_miss_in_a_definition_is_said_once_per_file(project):
    runs = [bundle({"protocol.spec.comparability.familly": "x"}, name=f"run-{i}") for i in range(3)]
    project.write("content/many.json", runs)
    project.write("content/one.jsonl", json.dumps(bundle({"protocol.spec.comparability.familly": "x"},
                                                         name="line-run")) + "\n")
    code, _, err = project.run("check")
    assert code == 1
    assert [line for line in err.splitlines() if "familly" in line] == [
        "content/many.json[0]: protocol.spec.comparability.familly: unknown field (did you mean 'family'?)",
        "content/one.jsonl:1: protocol.spec.comparability.familly: unknown field (did you mean 'family'?)"]
    assert err.splitlines()[-1] == "error: 2 problems in 2 files; nothing was written"


def test_the_unknown_field_is_still_kept_and_shown(project):
    project.write("content/x.json", bundle({"run.spec.timing.latencyNs.p99": [123454321, 123454322]}))
    project.built()
    name = SEED["run"]["metadata"]["name"]
    assert "p99" in project.page(f"runs/{name}") and "123454321" in project.page(f"runs/{name}")


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning: ")]


def test_warnings_do_not_depend_on_the_caches(project):
    def run(name, **more):  # (one protocol, everywhere; each run observed at its own time: a history)
        day = {"typo-run": 1, "other-run": 2, "plain-run": 3}[name]
        return bundle({"protocol.spec.harness.commit": "x", "run.spec.observedAt": f"2026-03-0{day}T08:00:00Z"},
                      name=name, **more)

    typo = run("typo-run")
    typo["run"]["spec"]["timing"]["latencyNs"]["p99"] = 4980000
    project.write("content/a.json", [typo, run("other-run", status="pased")])
    project.write("content/b.json", run("plain-run"))
    code, _, err = project.build("--clean")
    assert code == 0
    expected = _warnings(err)
    assert expected == [
        "warning: content/a.json[0]: run.spec.timing.latencyNs.p99: unknown field",
        "warning: content/a.json[0]: protocol.spec.harness.commit: unknown field",
        "warning: content/a.json[1]: run.spec.status: unknown status 'pased' (did you mean 'passed'?)",
        "warning: content/b.json: protocol.spec.harness.commit: unknown field",
    ]
    code, out, err = project.build()  # nothing changed: answered from the manifest
    assert code == 0 and out.startswith("Up to date") and _warnings(err) == expected
    project.write("content/b.json", run("plain-run", mean=5_000_000))  # a.json's runs come from the cache
    code, out, err = project.build()
    assert code == 0 and not out.startswith("Up to date") and _warnings(err) == expected
    code, _, err = project.run("check")
    assert code == 0 and _warnings(err) == expected


def test_a_resident_builder_keeps_the_warnings_of_documents_it_does_not_read_again(project, monkeypatch):
    from kindex_site.build import build
    from pathlib import Path

    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config

    monkeypatch.chdir(project.root)
    project.write("content/a.json", [bundle({"run.spec.timing.latencyNs.p99": 4980000}, name="typo-run"),
                                     bundle({"run.spec.observedAt": "2026-03-06T08:00:00Z"}, name="other-run")])
    memo = Reuse(Path("site").absolute())
    first = build(load_config(None, {}), memo).warnings
    data = json.loads((project.root / "content/a.json").read_text())
    data[1]["run"]["spec"]["timing"]["samples"] = 99  # [0] is kept, not validated again
    project.write("content/a.json", data)
    assert build(load_config(None, {}), memo).warnings == first
    assert first == ["content/a.json[0]: run.spec.timing.latencyNs.p99: unknown field"]


def test_free_form_places_and_known_statuses_are_never_warned(project):
    definitions = {"environment.spec.software": {"torch": "2.5", "cuda_version": "12.4"},
                   "environment.spec.hardware.memory": "80GB", "environment.spec.hardware.count": 1,
                   "environment.spec.hardware.cpu": "EPYC",
                   "protocol.spec.measurement.resolution": {"significantFigures": 3, "stepNs": 1000}}
    project.write("content/x.json", [
        bundle({**definitions, "run.spec.sourceNative.anything_goes": {"confidence_95": 1}}),
        *(bundle({**definitions, "run.spec.timing": DELETE, "run.spec.observedAt": f"2026-03-0{day}T08:00:00Z"},
                 name=f"run-{status}", status=status)  # (earlier runs of the same implementation: its history)
          for day, status in enumerate(("failed", "error", "timeout", "incorrect", "incomplete-timing",
                                        "invalid-timing"), start=1)),
    ])
    code, _, err = project.run("check", "--strict")
    assert code == 0, err
    assert "warning" not in err


def test_a_definition_is_warned_once_per_file_and_a_file_says_at_most_twenty_lines(project):
    runs = [bundle({"run.spec.timing.latencyNs.p99": 4980000, "protocol.spec.comparability.owner": "x"},
                   name=f"run-{i}") for i in range(30)]
    project.write("content/many.json", runs)
    project.write("content/more.jsonl", json.dumps(bundle({"protocol.spec.comparability.owner": "x"},
                                                          name="line-run")) + "\n")
    code, _, err = project.run("check")
    assert code == 0
    # On a terminal, the 19 lines of one unknown run field are one, with their count and the first.
    assert "warning: 19 × run.spec.timing.latencyNs.p99: unknown field (e.g. content/many.json[0]: " \
           "run.spec.timing.latencyNs.p99: unknown field); --verbose lists each" in _warnings(err)
    code, _, err = project.run("check", "--verbose")
    assert code == 0
    lines = _warnings(err)
    protocol = [line for line in lines if "owner" in line]
    assert protocol == [
        "warning: content/many.json[0]: protocol.spec.comparability.owner: unknown field",
        "warning: content/more.jsonl:1: protocol.spec.comparability.owner: unknown field"]
    many = [line for line in lines if line.startswith("warning: content/many.json")]
    assert len(many) == 21  # 20, then a count of the rest: 31 in all
    assert many[-1] == "warning: content/many.json: and 11 more unknown fields or statuses like these"


RESOLUTIONS = {
    "zero-figures": ({"significantFigures": 0},
                     "protocol.spec.measurement.resolution.significantFigures: Input should be greater than or equal to 1"),
    "too-many-figures": ({"significantFigures": 18},
                         "protocol.spec.measurement.resolution.significantFigures: Input should be less than or equal "
                         "to 17"),
    "figures-as-text": ({"significantFigures": "3"},
                        "protocol.spec.measurement.resolution.significantFigures: Input should be a valid integer, "
                        "not the string '3': write it without quotes"),
    "empty": ({}, "protocol.spec.measurement.resolution: must give significantFigures, stepNs or both"),
    "zero-step": ({"stepNs": 0}, "protocol.spec.measurement.resolution.stepNs: Input should be greater than 0"),
    "float-step": ({"stepNs": 0.5}, "protocol.spec.measurement.resolution.stepNs: Input should be a valid integer"),
    "not-an-object": (3, "protocol.spec.measurement.resolution: Input should be a valid dictionary or instance "
                         "of Resolution"),
}


@pytest.mark.parametrize("resolution, message", RESOLUTIONS.values(), ids=RESOLUTIONS.keys())
def test_a_bad_resolution_is_an_error_naming_it(project, resolution, message):
    project.write("content/x.json", bundle({"protocol.spec.measurement.resolution": resolution}))
    code, _, err = project.run("check")
    assert code == 1 and f"content/x.json: {message}" in err.splitlines(), err


@pytest.mark.parametrize("resolution", [{"significantFigures": 3}, {"stepNs": 1000},
                                        {"significantFigures": 17, "stepNs": 2**53 - 1}])
def test_a_resolution_validates(project, resolution):
    project.write("content/x.json", bundle({"protocol.spec.measurement.resolution": resolution}))
    code, _, err = project.run("check", "--strict")
    assert code == 0, err


def test_rounding_step():
    from kindex_site.stats import rounding_step

    assert rounding_step(4_940_000, 3) == 10_000  # 4.94 ms
    assert rounding_step(26_600_000, 3) == 100_000  # 26.6 ms
    assert rounding_step(999, 3) == 1
    assert rounding_step(1_000, 3) == 10
    assert rounding_step(25, 3) == pytest.approx(0.1)  # finer than a nanosecond: a fraction
    assert rounding_step(4_940_000, None, 1_000) == 1_000
    assert rounding_step(4_940_000, 3, 50_000) == 50_000  # the larger
    assert rounding_step(4_940_000, 3, 5) == 10_000
    assert rounding_step(4_940_000) == 0


def test_the_schema_documents_resolution_and_statuses():
    from kindex_site import publish

    defs = json.loads(publish.json_schema_bytes())["$defs"]
    assert "resolution" in defs["MeasurementMethod"]["properties"]
    assert {"significantFigures", "stepNs"} <= defs["Resolution"]["properties"].keys()
    status = defs["RunSpec"]["properties"]["status"]
    assert "enum" not in status  # other statuses still validate
    for name in ("passed", "failed", "error", "timeout", "incorrect", "incomplete-timing", "invalid-timing"):
        assert name in status["description"]
