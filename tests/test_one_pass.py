"""One pass says everything: however the content is read (here, in reading processes, by a resident
builder that patches its last load), a failing check or build gives the same lines."""

from __future__ import annotations

import json

import pytest

from conftest import bundle

from kindex_site import reading


def _broken(i: int) -> dict:
    """A run with four mistakes and a field of its own."""
    return bundle({"run.spec.timing.samples": "12", "run.spec.timing.latencyNs.maximun": 4_970_000,
                   "run.spec.implementationSource": {"path": f"kernel-{i}.py"},
                   "run.spec.observedAt": "2026-13-01T00:00:00Z", "run.metadata.labels": {"i": i}},
                  name=f"broken-{i}", title=f"Gemm BatchNorm Scaling Softmax · Impl {i} · Lab")


def _write(project, files: int = 10) -> None:
    for i in range(files):
        project.write(f"content/r{i}.json", [bundle(name=f"fine-{i}", title=f"Gemm BatchNorm Scaling Softmax · "
                                                                         f"Fine {i} · Lab"), _broken(i)])
    project.write("content/lines.jsonl", json.dumps(_broken(99)) + "\n")


def _expected(where: str, i: int) -> list[str]:
    return [
        f"{where}: run.spec.timing.samples: Input should be a valid integer, not the string '12': write it without "
        "quotes",
        f"{where}: run.spec.observedAt: must be an ISO 8601 date-time such as 2026-03-05T08:38:15Z "
        "(YYYY-MM-DDTHH:MM[:SS[.fraction]] and a time zone: Z or ±HH:MM)",
        f"{where}: run.spec.timing.latencyNs.maximun: unknown field (did you mean 'maximum'?)",
        f"{where}: run.spec.implementationSource.path: 'kernel-{i}.py': no such source file under the content folder "
        "(bundles and pages are not source files)",
        f"warning: {where}: run.metadata.labels: unknown field",
    ]


def test_reading_processes_say_what_reading_here_says(project, monkeypatch):
    _write(project)
    with monkeypatch.context() as patched:  # (each file in a reading process: reading.py's own thresholds lowered)
        patched.setattr(reading, "PARALLEL_MIN_FILES", 1)
        patched.setattr(reading, "PARALLEL_MIN_BYTES", 0)
        patched.setattr(reading, "CHUNK_BYTES", (1, 1))
        patched.setattr(reading, "cores", lambda: 3)
        code, _, in_processes = project.run("check", "--verbose")  # (each warning, not grouped by cause)
    assert code == 1
    with monkeypatch.context() as patched:
        patched.setattr(reading, "PARALLEL_MIN_FILES", 10**9)
        code, _, here = project.run("check", "--verbose")
    assert code == 1 and in_processes == here
    lines = here.splitlines()
    for i in range(10):
        for line in _expected(f"content/r{i}.json[1]", i):
            assert line in lines, line
    for line in _expected("content/lines.jsonl:1", 99):
        assert line in lines, line
    assert lines[-1] == "error: 44 problems in 11 files, and 11 warnings; nothing was written"


def test_a_resident_builder_says_what_check_says(project, monkeypatch):
    from kindex_site.build import build
    from pathlib import Path

    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config
    from kindex_site.errors import KindexError

    monkeypatch.chdir(project.root)
    project.write("content/a.json", bundle(name="fine"))
    memo = Reuse(Path("site").absolute())
    build(load_config(None, {}), memo)
    project.write("content/b.json", _broken(1))
    with pytest.raises(KindexError) as failed:
        build(load_config(None, {}), memo)
    _, _, err = project.run("check")
    assert failed.value.problems == err.splitlines()[:-1] == _expected("content/b.json", 1)
    project.write("content/kernel-1.py", "x = 1\n")  # (one mistake fewer: the source file is there)
    with pytest.raises(KindexError) as failed:
        build(load_config(None, {}), memo)
    assert len(failed.value.problems) == 4 and not any("kernel-1.py" in line for line in failed.value.problems)


def test_a_source_file_named_by_a_bundle_that_is_refused_is_not_said_to_be_ignored(project):
    """Its bundle's problems are what is wrong: the file it names is not one nobody names."""
    project.write("content/nan/kernel.py", "x = 1\n")
    project.write("content/bounds/kernel.py", "x = 2\n")
    nan = bundle({"run.spec.implementationSource": {"path": "kernel.py"}}, name="nan-run")
    text = json.dumps([bundle(name="fine-run"), nan], indent=1)
    at = text.rindex('"maximum": 4970000')
    project.write("content/nan/runs.json", text[:at] + '"maximum": NaN' + text[at + len('"maximum": 4970000'):])
    project.write("content/bounds/run.json", bundle({"run.spec.implementationSource": {"path": "kernel.py"},
                                                     "run.spec.sourceNative.big": 2**60}, name="big-run"))
    code, _, err = project.run("check")
    assert code == 1
    assert err.splitlines() == [
        "content/bounds/run.json: run.spec.sourceNative.big: integer 1152921504606846976 is beyond ±9007199254740991 "
        "(2⁵³−1, the largest a JavaScript reader holds exactly)",
        "content/nan/runs.json[1]: run.spec.timing.latencyNs.maximum: NaN is not a JSON number",
        "error: 2 problems in 2 files; nothing was written"]
