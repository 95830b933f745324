"""Submitting results: `check --format github` annotations, `digest`, `new-run` and the check workflow."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from conftest import DELETE, SEED, bundle, latency_tables, seed_problem_run, visible_text

ROOT = Path(__file__).parent.parent
PROBLEM = "level2-84-gemm-batchnorm-scaling-softmax"  # the seed's
HOST = "kernelbench-h100-pcie-lambdalabs"
TITLE = "title=kindex-site check"


def _line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line of the occurrence-th line containing needle."""
    hits = [n for n, line in enumerate(text.splitlines(), 1) if needle in line]
    return hits[occurrence - 1]


# --- check --format github ---------------------------------------------------------------------


def test_github_format_annotates_a_broken_jsonl_line(project):
    lines = [json.dumps(bundle(name=f"run-{i}", title=f"Gemm BatchNorm Scaling Softmax · impl {i} · Lab"))
             for i in range(3)]
    lines[1] = json.dumps(bundle({"run.spec.status": DELETE}, name="run-1"))
    project.write("content/runs.jsonl", "\n".join(lines) + "\n")
    code, out, err = project.run("check", "--format", "github")
    assert code == 1
    assert out.splitlines() == [
        f"::error file=content/runs.jsonl,line=2,{TITLE}::run.spec.status: Field required"]
    assert err.splitlines() == ["error: 1 problem in 1 file; nothing was written"]


def test_github_format_annotates_the_third_element_of_a_json_array(project):
    docs = [bundle(name=f"run-{i}", title=f"Gemm BatchNorm Scaling Softmax · impl {i} · Lab") for i in range(4)]
    docs[2]["run"]["spec"]["timing"]["samples"] = 0
    text = json.dumps(docs, indent=1, ensure_ascii=False)
    project.write("content/big.json", text)
    code, out, _ = project.run("check", "--format", "github")
    assert code == 1
    # The line of the field, inside the third bundle (the third "samples" of the file).
    line = _line_of(text, '"samples"', 3)
    assert out.splitlines() == [
        f"::error file=content/big.json,line={line},{TITLE}::"
        "run.spec.timing.samples: Input should be greater than or equal to 1"]

    # A problem of the element as a whole: the line where the element starts.
    docs[2] = 42
    text = json.dumps(docs, indent=1)
    project.write("content/big.json", text)
    code, out, _ = project.run("check", "--format", "github")
    assert code == 1
    assert out.splitlines() == [
        f"::error file=content/big.json,line={_line_of(text, ' 42,')},{TITLE}::"
        "expected a bundle object {run, protocol, environment}, not int"]


def test_github_format_gives_the_line_and_column_of_invalid_json(project):
    project.write("content/x.json", '{\n  "run": {\n    "a": 1,,\n  }\n}\n')
    code, out, _ = project.run("check", "--format", "github")
    assert code == 1
    assert out.startswith(f"::error file=content/x.json,line=3,col=12,{TITLE}::invalid JSON at line 3 column 12:")


def test_github_format_exit_codes_and_warnings_as_in_text_mode(project):
    project.write("content/good.json", SEED)
    project.write("content/notes.txt", "not content")
    for fmt in ("text", "github"):
        code, out, err = project.run("check", "--format", fmt)
        assert code == 0, err
        assert "OK: 1 run" in out
    warning = f"::warning file=content/notes.txt,line=1,{TITLE}::ignored ("
    assert out.startswith(warning)

    code, out, _ = project.run("check", "--strict", "--format", "github")
    assert code == 1  # as `check --strict`: warnings count
    assert out.startswith(warning.replace("::warning", "::error"))
    assert project.run("check", "--strict")[0] == 1


def test_github_format_escapes_properties_and_messages(project):
    project.write("content/50%, the rest: x.json", bundle({"run.spec.timing.samples": 0}))
    code, out, _ = project.run("check", "--format", "github")
    assert code == 1
    assert out.startswith("::error file=content/50%25%2C the rest%3A x.json,line=")

    from kindex_site.submit import github_annotations

    # A line naming no file (settings, a folder): an annotation without one; data escaped.
    assert github_annotations(["settings: title: 50% off\r\nnext"], "warning") == [
        f"::warning {TITLE}::settings: title: 50%25 off%0D%0Anext"]


def test_github_format_without_a_file(project):
    code, out, _ = project.run("check", "--content", "missing", "--format", "github")
    assert code == 1
    assert out.splitlines() == [f"::error {TITLE}::missing: content folder not found"]


# --- digest ------------------------------------------------------------------------------------


def test_digest_of_files(project):
    project.write("kernel.py", b"hello\n")
    project.write("other.cu", b"")
    code, out, _ = project.run("digest", "kernel.py", "other.cu")
    assert code == 0
    assert out.splitlines() == [
        "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  kernel.py",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  other.cu"]


def test_digest_of_a_json_value_is_of_its_canonical_form(project):
    project.write("value.json", '{\n  "b": [1, 2.5],\n  "a": "é"\n}\n')
    code, out, _ = project.run("digest", "--json", "value.json")
    assert code == 0
    canonical = '{"a":"é","b":[1,2.5]}'.encode("utf-8")  # sorted keys, no spaces, UTF-8
    assert out == f"sha256:{hashlib.sha256(canonical).hexdigest()}  value.json\n"


def test_digest_of_a_missing_file_fails(project):
    project.write("kernel.py", b"x")
    code, out, err = project.run("digest", "kernel.py", "nope.py")
    assert code == 1
    assert out.startswith("sha256:")  # what could be read is printed
    assert "nope.py: file not found" in err.splitlines()
    code, _, err = project.run("digest", "--json", "kernel.py")
    assert code == 1
    assert "kernel.py: invalid JSON at line 1 column 1: Expecting value" in err.splitlines()


# --- new-run -----------------------------------------------------------------------------------


@pytest.fixture
def site(project):
    """The seed (PyTorch eager, the reference) and torch.compile on its host."""
    project.write("content/seed.json", SEED)
    project.write("content/compiled.json", seed_problem_run(HOST, "torch.compile", 4_860_000) | {
        "environment": SEED["environment"]})
    assert project.run("check", "--strict")[0] == 0
    return project


def _new_run(project, *more: str) -> tuple[int, str, str]:
    return project.run("new-run", "--problem", PROBLEM, "--host", HOST, "--implementation", "Fused Triton",
                       "--lab", "Example Lab", *more)


def test_new_run_with_its_numbers_filled_in_is_ranked_on_the_problems_table(site):
    code, out, err = _new_run(site)
    assert code == 0, err
    path = site.root / "content/example-lab" / f"fused-triton-{PROBLEM}-{HOST}.json"
    assert f"Wrote {path.relative_to(site.root).as_posix()}" in out

    # Until its numbers are given, check fails naming each of them.
    code, _, err = site.run("check", "--strict")
    assert code == 1
    for place in ("run.spec.timing.latencyNs.mean", "run.spec.timing.latencyNs.confidence95[0]",
                  "run.spec.timing.samples", "run.spec.implementationDigest"):
        assert place in err
        assert place.split("[")[0] in out  # new-run said so too

    site.write("kernel.py", "def kernel(): ...\n")
    kernel_digest = site.run("digest", "kernel.py")[1].split()[0]
    doc = json.loads(path.read_text(encoding="utf-8"))
    spec = doc["run"]["spec"]
    spec["timing"]["latencyNs"].update(mean=1_234_000, confidence95=[1_230_000, 1_238_000])
    spec["timing"]["samples"] = 100
    spec["implementationDigest"] = kernel_digest
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    code, out, err = site.run("check", "--strict")
    assert code == 0, err

    site.built()
    board = next(b for b in site.api(f"problems/{PROBLEM}.json")["boards"] if b["host"] == HOST)
    entry = board["entries"][0]
    assert (entry["implementation"], entry["rank"], entry["mean_ns"]) == ("Fused Triton", 1, 1_234_000)
    assert entry["run"] == f"fused-triton-{PROBLEM}-{HOST}"
    assert entry["speedup"]["value"] == pytest.approx(4_940_000 / 1_234_000, rel=1e-3)
    rows = latency_tables(site.page(f"problems/{PROBLEM}"))[0]["rows"]
    assert rows[1][:2] == ["1", "Fused Triton · Example Lab"]  # (its lab: not the table's only one)
    assert [r[1].split(" · ")[0] for r in rows[1:]] == ["Fused Triton", "torch.compile", "PyTorch eager"]
    assert rows[-1][1].endswith("reference")


def test_new_run_converts_milliseconds_exactly_and_digests_the_source(site):
    site.write("kernel.cu", b"__global__ void k() {}\n")
    code, out, err = _new_run(site, "--out", "content/mine.json", "--mean-ms", "1.234",
                              "--ci-ms", "1.2301234", "1.2378766", "--samples", "50", "--source", "kernel.cu")
    assert code == 0, err
    assert "TODO" not in out
    spec = json.loads((site.root / "content/mine.json").read_text(encoding="utf-8"))["run"]["spec"]
    assert spec["timing"]["latencyNs"] == {"mean": 1_234_000, "confidence95": [1_230_123, 1_237_877]}  # outwards
    assert spec["timing"]["samples"] == 50
    assert spec["implementationDigest"] == "sha256:" + hashlib.sha256(b"__global__ void k() {}\n").hexdigest()
    assert (spec["workloadDigest"], spec["protocolDigest"]) == (
        SEED["run"]["spec"]["workloadDigest"], SEED["run"]["spec"]["protocolDigest"])
    assert spec["sourceNative"] == {"source": "Example Lab"}
    assert site.run("check", "--strict")[0] == 0

    # Another gets a name of its own.
    code, out, _ = _new_run(site)
    assert code == 0
    assert f"Wrote content/example-lab/fused-triton-{PROBLEM}-{HOST}-2.json" in out
    # While a bundle it wrote still holds TODO values, the content fails, and new-run says so.
    code, _, err = _new_run(site)
    assert code == 1
    assert "content: new-run reads it to find the problem and host: fix the problems above first" in err


def test_new_run_shows_a_source_beside_the_bundle_on_the_run_page(site):
    site.write("content/example-lab/fused_triton.py", "import triton  # fused\n")
    code, out, err = _new_run(site, "--mean-ms", "1.234", "--ci-ms", "1.23", "1.24", "--samples", "10",
                              "--source", "content/example-lab/fused_triton.py")
    assert code == 0, err
    spec = json.loads(next((site.root / "content/example-lab").glob("*.json")).read_text(encoding="utf-8"))["run"]["spec"]
    assert spec["implementationSource"] == {"path": "fused_triton.py"}  # (from the bundle's folder)
    assert spec["implementationDigest"] == "sha256:" + hashlib.sha256(b"import triton  # fused\n").hexdigest()
    assert site.run("check", "--strict")[0] == 0  # (the source is a file a run refers to, not an ignored one)
    site.built()
    assert "fused_triton.py" in site.page(f"runs/fused-triton-{PROBLEM}-{HOST}")



def test_new_run_copies_a_source_from_elsewhere_beside_the_bundle_and_names_it(site):
    site.write("kernel.py", "import triton  # the lab's fused kernel\n")
    code, out, err = _new_run(site, "--mean-ms", "1.234", "--ci-ms", "1.23", "1.24", "--samples", "10",
                              "--source", "kernel.py")
    assert code == 0, err
    name = f"fused-triton-{PROBLEM}-{HOST}"
    copy = site.root / f"content/example-lab/{name}.py"
    assert (f"Copied kernel.py to content/example-lab/{name}.py, named as the run's implementationSource: its page "
            "shows it.") in out
    assert copy.read_bytes() == (site.root / "kernel.py").read_bytes()
    spec = json.loads((site.root / f"content/example-lab/{name}.json").read_text(encoding="utf-8"))["run"]["spec"]
    assert spec["implementationSource"] == {"path": f"{name}.py"}
    assert spec["implementationDigest"] == "sha256:" + hashlib.sha256(copy.read_bytes()).hexdigest()
    code, _, err = site.run("check", "--strict")
    assert code == 0, err
    site.built()
    assert "fused kernel" in visible_text(site.page(f"runs/{name}"))

    # Another run of it is numbered past both files; a bundle written elsewhere says to move its copy too.
    code, out, err = _new_run(site, "--out", "drafts/mine.json", "--source", "kernel.py")
    assert code == 0, err
    assert (site.root / "drafts/mine.py").is_file()
    assert "Move it and drafts/mine.py under content/ to have it checked and built." in out
    site.write(f"content/example-lab/{name}-2.py", "taken\n")
    code, out, err = _new_run(site, "--mean-ms", "1.2", "--ci-ms", "1.1", "1.3", "--samples", "10",
                              "--source", "kernel.py")
    assert code == 0, err
    assert f"content/example-lab/{name}-3.py" in out


@pytest.mark.parametrize("name, data, said", [
    ("kernel.json", b"{}", "kernel.json: a .json file under content/ is read as bundles, not shown as a source; "
                           "rename it after its language (kernel.py, kernel.cu, …)"),
    ("kernel.bin", b"\xff\xfe", "kernel.bin: not UTF-8 text (byte 0); a run names only text sources"),
])
def test_new_run_refuses_a_source_it_could_not_show_and_writes_nothing(site, name, data, said):
    site.write(name, data)
    before = sorted(site.root.rglob("*"))
    code, out, err = _new_run(site, "--source", name)
    assert code == 1 and out == ""
    assert err.splitlines()[0] == f"--source: {said}"
    assert sorted(site.root.rglob("*")) == before


def test_a_copied_source_is_removed_when_its_bundle_cannot_be_written(site):
    site.write("kernel.py", "x = 1\n")
    site.write("elsewhere/mine.json", "keep")
    code, _, err = _new_run(site, "--out", "elsewhere/mine.json", "--source", "kernel.py")
    assert code == 1 and "elsewhere/mine.json: already exists" in err
    assert not (site.root / "elsewhere/mine.py").exists()


def test_new_run_refuses_to_overwrite(site):
    site.write("elsewhere/mine.json", "keep")
    code, _, err = _new_run(site, "--out", "elsewhere/mine.json")
    assert code == 1
    assert "elsewhere/mine.json: already exists; new-run never overwrites a file (give another --out)" in err
    assert (site.root / "elsewhere/mine.json").read_text() == "keep"


def test_new_run_unknown_problem_or_host_suggests_close_names(site):
    code, _, err = site.run("new-run", "--problem", "gemm-batchnorm-scaling-softmax", "--host", HOST,
                            "--implementation", "X", "--lab", "Y")
    assert code == 1
    assert err.splitlines()[0] == (
        "--problem: no problem 'gemm-batchnorm-scaling-softmax' in the content (the slug in /problems/<slug>/); "
        f"did you mean {PROBLEM}?")
    code, _, err = site.run("new-run", "--problem", PROBLEM, "--host", "kernelbench-h100",
                            "--implementation", "X", "--lab", "Y")
    assert code == 1
    assert f"did you mean {HOST}?" in err.splitlines()[0]
    assert not (site.root / "content/y").exists()


# --- the workflow ------------------------------------------------------------------------------


def test_readme_submit_section_commands_parse():
    """Every kindex-site command the README's "Submit your results" shows is one the CLI takes."""
    import re
    import shlex

    from kindex_site.cli import make_parser

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Submit your results"):readme.index("## Publishing")]
    blocks = "\n".join(re.findall(r"```sh\n(.*?)```", section, re.S)).replace("\\\n", " ")
    commands = [part.strip() for line in blocks.splitlines() for part in line.split("&&")
                if part.strip().startswith("kindex-site ")]
    assert {c.split()[1] for c in commands} == {"new-run", "digest", "check", "build"}
    for command in commands:
        argv = shlex.split(command)[1:]
        make_parser(argv).parse_args(argv)  # (exits on an option it does not know)
    assert "`kindex-site check --strict --format github --base`" in section


# --- one check says every mistake ---------------------------------------------------------------


def _annotations(out: str) -> list[tuple[str, str, int, str]]:
    """(level, file, line, message) of each annotation `check --format github` printed."""
    import re

    found = []
    for line in out.splitlines():
        m = re.fullmatch(r"::(error|warning) file=([^,]+),line=(\d+),title=[^:]+::(.*)", line)
        assert m, line
        found.append((m[1], m[2], int(m[3]), m[4]))
    return found


def test_one_check_names_every_mistake_of_a_bundle_at_its_line(site):
    """Before: a misspelt field, a number as a string and a missing source took three rounds of the check."""
    site.built()
    before = site.snapshot()
    code, _, err = _new_run(site)
    assert code == 0, err
    path = next((site.root / "content/example-lab").glob("*.json"))
    rel = path.relative_to(site.root).as_posix()
    doc = json.loads(path.read_text(encoding="utf-8"))
    spec = doc["run"]["spec"]
    spec["timing"]["latencyNs"] = {"mean": 1_234_000, "confidense95": [1_230_000, 1_238_000]}  # misspelt
    spec["timing"]["samples"] = "100"  # a number as a string
    spec["implementationSource"] = {"path": "kernel.py"}  # never copied there
    spec["observedAt"] = "last Tuesday"  # a bad date
    doc["run"]["metadata"]["labels"] = {"team": "blue"}  # a field of the lab's own
    # (and the implementationDigest new-run left as a TODO)
    text = json.dumps(doc, indent=2)
    path.write_text(text, encoding="utf-8")

    code, out, err = site.run("check", "--strict", "--format", "github")
    assert code == 1 and "Traceback" not in err
    assert sorted(_annotations(out)) == sorted([
        ("error", rel, _line_of(text, '"samples"'),
         "run.spec.timing.samples: Input should be a valid integer, not the string '100': write it without quotes"),
        ("error", rel, _line_of(text, '"confidense95"'),
         "run.spec.timing.latencyNs.confidense95: unknown field (did you mean 'confidence95'?)"),
        ("error", rel, _line_of(text, '"implementationDigest"'),
         "run.spec.implementationDigest: still the new-run placeholder 'TODO: …': give your kernel source's digest, "
         "the sha256:… that `kindex-site digest YOUR_KERNEL_SOURCE` prints"),
        ("error", rel, _line_of(text, '"path"'),
         "run.spec.implementationSource.path: 'kernel.py': no such source file under the content folder "
         "(bundles and pages are not source files)"),
        ("error", rel, _line_of(text, '"observedAt"'),
         "run.spec.observedAt: must be an ISO 8601 date-time such as 2026-03-05T08:38:15Z "
         "(YYYY-MM-DDTHH:MM[:SS[.fraction]] and a time zone: Z or ±HH:MM)"),
        ("warning", rel, _line_of(text, '"labels"'), "run.metadata.labels: unknown field"),
    ])
    assert err.splitlines() == ["error: 5 problems in 1 file, and 1 warning; nothing was written"]

    # In text, the same lines, each naming file and field; a build says them too and writes nothing.
    for command in (("check",), ("build",)):
        code, _, err = site.run(*command)
        assert code == 1 and "Traceback" not in err
        lines = err.splitlines()
        assert f"{rel}: run.spec.timing.samples: Input should be a valid integer, not the string '100': write it " \
               "without quotes" in lines
        assert f"{rel}: run.spec.timing.latencyNs.confidense95: unknown field (did you mean 'confidence95'?)" in lines
        assert f"warning: {rel}: run.metadata.labels: unknown field" in lines
        assert len(lines) == 7 and lines[-1] == "error: 5 problems in 1 file, and 1 warning; nothing was written"
    assert site.snapshot() == before


def test_every_bundle_of_an_array_and_every_line_is_looked_at_in_one_pass(project):
    """An array with a NaN in one bundle still has its other bundles checked; so have a .jsonl file's lines."""
    good = bundle(name="good-run")
    misspelt = bundle({"run.spec.timing.latencyNs.minimun": 4_780_000}, name="misspelt-run")
    no_source = bundle({"run.spec.implementationSource": {"path": "kernel.cu"}, "run.spec.timing.samples": 0},
                       name="no-source-run")
    text = json.dumps([good, misspelt, no_source, bundle(name="nan-run")], indent=1)
    text = text.replace('"maximum": 4970000', '"maximum": NaN', 1)  # (in good-run: a NaN and a duplicate key)
    text = text.replace('"source": "kernelbench"', '"source": "kernelbench", "source": "mine"', 1)
    project.write("content/runs.json", text)
    lines = [json.dumps(bundle({"run.spec.timing.samples": "7"}, name="line-one")),
             json.dumps(bundle({"run.spec.observedAt": "soon", "run.spec.measurements": [{"units": "ns"}]},
                               name="line-two"))]
    project.write("content/more.jsonl", "\n".join(lines) + "\n")
    project.write("content/copy.json", bundle(name="nan-run"))  # (a name taken in runs.json)
    code, _, err = project.run("check")
    assert code == 1 and "Traceback" not in err
    said = err.splitlines()
    for line in (
        "content/runs.json[0]: run.spec.timing.latencyNs.maximum: NaN is not a JSON number",
        "content/runs.json[0]: run.spec.sourceNative: duplicate key 'source'",
        "content/runs.json[1]: run.spec.timing.latencyNs.minimun: unknown field (did you mean 'minimum'?)",
        "content/runs.json[2]: run.spec.timing.samples: Input should be greater than or equal to 1",
        "content/runs.json[2]: run.spec.implementationSource.path: 'kernel.cu': no such source file under the "
        "content folder (bundles and pages are not source files)",
        "content/more.jsonl:1: run.spec.timing.samples: Input should be a valid integer, not the string '7': "
        "write it without quotes",
        "content/more.jsonl:2: run.spec.observedAt: must be an ISO 8601 date-time such as 2026-03-05T08:38:15Z "
        "(YYYY-MM-DDTHH:MM[:SS[.fraction]] and a time zone: Z or ±HH:MM)",
        "content/more.jsonl:2: run.spec.measurements[0].units: unknown field (did you mean 'unit'?)",
        "content/more.jsonl:2: run.spec.measurements[0].metric: Field required",
        "content/runs.json[3]: run.metadata.name: 'nan-run' is also the name of the run in content/copy.json",
    ):
        assert line in said, (line, err)
    assert said[-1] == "error: 13 problems in 2 files; nothing was written"  # (copy.json is fine itself)


def test_the_check_says_what_to_put_in_place_of_each_todo(site):
    code, _, _ = _new_run(site)
    assert code == 0
    rel = next((site.root / "content/example-lab").glob("*.json")).relative_to(site.root).as_posix()
    code, _, err = site.run("check")
    assert code == 1
    todo = "still the new-run placeholder 'TODO: …': give"
    assert err.splitlines() == [
        f"{rel}: run.spec.timing.samples: {todo} the number of timed samples the mean is over (an integer)",
        f"{rel}: run.spec.timing.latencyNs.mean: {todo} the mean latency in whole nanoseconds "
        "(an integer: 4.94 ms is 4940000)",
        f"{rel}: run.spec.timing.latencyNs.confidence95[0]: {todo} the lower end of the mean's 95% confidence "
        "interval, in whole nanoseconds (an integer)",
        f"{rel}: run.spec.timing.latencyNs.confidence95[1]: {todo} the upper end of the mean's 95% confidence "
        "interval, in whole nanoseconds (an integer)",
        f"{rel}: run.spec.implementationDigest: {todo} your kernel source's digest, the sha256:… that "
        "`kindex-site digest YOUR_KERNEL_SOURCE` prints",
        "error: 5 problems in 1 file; nothing was written"]


def test_new_run_names_the_source_copied_beside_the_bundle_as_the_readme_says(site):
    """The README's "numbers at once": the kernel copied into content/<lab>/ is named, so check --strict passes."""
    site.write("content/example-lab/kernel.py", "def kernel(): ...\n")
    code, out, err = _new_run(site, "--mean-ms", "1.234", "--ci-ms", "1.230", "1.238", "--samples", "100",
                              "--source", "content/example-lab/kernel.py")
    assert code == 0, err
    assert "Named content/example-lab/kernel.py as the run's implementationSource: its page shows it." in out
    spec = json.loads(next((site.root / "content/example-lab").glob("*.json")).read_text(encoding="utf-8"))["run"]["spec"]
    assert spec["implementationSource"] == {"path": "kernel.py"}
    code, _, err = site.run("check", "--strict")
    assert code == 0, err

    # A source under content/ that no run names, outside the bundle's folder: refused, nothing written.
    site.write("content/kernels/other.py", "x = 1\n")
    code, out, err = _new_run(site, "--source", "content/kernels/other.py")
    assert code == 1 and out == ""
    assert err.splitlines()[0] == (
        "--source: content/kernels/other.py is under content/ but not in content/example-lab/, where the bundle goes, "
        "and no run names it: new-run would name a copy of it, and a file under content/ that no run names fails "
        "check --strict; put it in content/example-lab/, or keep it outside content/")
    assert len(list((site.root / "content/example-lab").glob("*.json"))) == 1
    # One a run names already is copied: both stay named.
    code, out, err = _new_run(site, "--out", "content/other-lab/run.json", "--source", "content/example-lab/kernel.py")
    assert code == 0, err
    assert (site.root / "content/other-lab/run.py").read_text() == "def kernel(): ...\n"
