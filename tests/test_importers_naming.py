"""The registry of how sources name problems (kindex_site/naming.py) gives what the core
names: the same problem (slug, title, level, number) or the same message, for every externalId in the
bundled content and for the edge cases, and nothing for a source it does not know."""

from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from kindex_site import leaderboard
from kindex_site import naming
from kindex_site.importers import kernelbench, kernelbench_leaderboard
from kindex_site.naming import KERNELBENCH, NamedProblem, problem_naming
from kindex_site.runs import Facts
from kindex_site.models import BenchmarkRun

REPO = Path(__file__).resolve().parent.parent
CONTENT = REPO / "content"


def _content_runs() -> list[dict]:
    """One run document of each (source, problem id, former id) in the bundled content."""
    seen: dict[tuple, dict] = {}
    for path in sorted(CONTENT.rglob("*.json")):
        value = json.loads(path.read_bytes())
        for bundle in value if isinstance(value, list) else [value]:
            if not isinstance(bundle, dict) or "run" not in bundle:
                continue
            native = bundle["run"]["spec"].get("sourceNative", {})
            ids = (native.get("source"), *("/".join(str(native.get(k)).split("/")[-2:])
                                           for k in ("externalId", "formerExternalId")))
            seen.setdefault(ids, bundle["run"])
    return list(seen.values())


RUNS = _content_runs()


def _core(run: dict) -> leaderboard.Problem | str:
    """What the core names the run's problem: its facts, then `problem_of`."""
    facts = Facts(BenchmarkRun.model_validate(run))
    return leaderboard.problem_of(SimpleNamespace(grouping=None, facts=facts))


def _registry(run: dict) -> leaderboard.Problem | str:
    native = run["spec"]["sourceNative"]
    found = problem_naming(native.get("source"))
    assert found is not None, native.get("source")
    text = found.problem_text(native)
    if text is None:
        return found.missing
    named = found.problem(text, leaderboard.slugify)
    return named if isinstance(named, str) else leaderboard.Problem(*named)


def _with_ids(external=..., former=..., source="kernelbench") -> dict:
    run = copy.deepcopy(RUNS[0])
    native = run["spec"]["sourceNative"]
    native["source"] = source
    for key, value in (("externalId", external), ("formerExternalId", former)):
        native.pop(key, None)
        if value is not ...:
            native[key] = value
    return run


def _same(core, registry) -> None:
    assert type(core) is type(registry)
    if isinstance(core, str):
        assert registry == core
    else:
        assert (registry.slug, registry.title, registry.level, registry.number) == \
               (core.slug, core.title, core.level, core.number)


def test_the_content_holds_runs_of_both_importers():
    sources = {r["spec"]["sourceNative"]["source"] for r in RUNS}
    assert {"kernelbench", "kernelbench-leaderboard"} <= sources
    assert len(RUNS) > 300  # one run of each problem id each source gives
    assert any("formerExternalId" in r["spec"]["sourceNative"] for r in RUNS)


def test_the_registry_names_every_content_run_as_the_core_does():
    for run in RUNS:
        _same(_core(run), _registry(run))


def test_a_run_title_starts_with_the_problem_title_the_registry_gives():
    """Both importers title a run by the problem's newest name, as the site titles its problem."""
    differing = [r["metadata"]["name"] for r in RUNS if r["metadata"]["title"].split(" · ")[0] != _registry(r).title]
    assert not differing


def test_the_former_ids_name_the_problems_the_core_redirects_from():
    renamed = [r for r in RUNS if "formerExternalId" in r["spec"]["sourceNative"]]
    assert renamed
    for run in renamed:
        native = run["spec"]["sourceNative"]
        facts = Facts(BenchmarkRun.model_validate(run))
        assert KERNELBENCH.former_text(native) == facts.former_problem_text
        former = KERNELBENCH.problem(facts.former_problem_text, leaderboard.slugify)
        assert isinstance(former, NamedProblem)
        assert former.slug != _registry(run).slug
    lstm = KERNELBENCH.problem("level3/35_LTSM.py", leaderboard.slugify)
    assert lstm == NamedProblem("level3-35-ltsm", "LTSM", 3, 35)


EDGE_IDS = [
    "H100/torch/level1/1_Square_matrix_multiplication_.py",
    "level2/84_Gemm_BatchNorm_Scaling_Softmax.py",  # the problem alone
    "model/level3/35_LSTM",  # without .py
    "a/b/c/level1/007_x.py",  # more parts; a number with leading zeros
    "h/i/level1/1_.py",  # ".py" is the name
    "h/i/level1/1_a.py.py",
    "h/i/level1/1_  Spaced__out_ .py",
    "h/i/level1/1_Ångström_Straße_kernel.py",  # slugs without marks
    "h/i/level1/1_中文.py",  # a slug ending in a digest
    "h/i/level1/1_---.py",  # no letters: the slug is the level and number
    "h/i/level1/1_x.PY",
    "h/i/level999999999999999/1_x.py",  # 15 digits
    "h/i/level9999999999999999/1_x.py",  # 16: refused
    "h/i/level1/1_a\nb.py",
    "h/i/level1/x_1.py",
    "h/i/levelone/1_x.py",
    "h/i/level1/1_x.py/",
    "level1",
    "",
    "////",
]


@pytest.mark.parametrize("external", EDGE_IDS)
@pytest.mark.parametrize("source", ["kernelbench", "kernelbench-leaderboard", "kernelbench-", "kernelbench-x*"])
def test_the_registry_names_edge_ids_as_the_core_does(external, source):
    run = _with_ids(external, source=source)
    _same(_core(run), _registry(run))


@pytest.mark.parametrize("external", [..., None, 5, ["level1/1_x.py"]])
def test_a_run_without_a_string_id_gets_the_cores_message(external):
    run = _with_ids(external)
    _same(_core(run), _registry(run))
    assert _registry(run) == KERNELBENCH.missing


@pytest.mark.parametrize("source", [None, 5, "", "KernelBench", "kernelbench_x", "kernelbenchx", "triton-bench",
                                    "kernel", "*", "kernelbench*"])
def test_an_unknown_source_has_no_naming_and_the_core_names_its_runs_by_title(source):
    assert problem_naming(source) is None
    run = _with_ids("H100/torch/level1/1_Square_matrix_multiplication_.py", source=source)
    if source is None:
        del run["spec"]["sourceNative"]["source"]
    problem = _core(run)
    assert problem.title == run["metadata"]["title"].split(" · ")[0].strip() and problem.level is None


def test_each_importer_registers_its_source():
    for module in (kernelbench, kernelbench_leaderboard):
        assert problem_naming(module.SOURCE) is KERNELBENCH


def test_the_registry_imports_the_standard_library_only():
    """The core asks it for every run it loads: no argument parsing, git or validation comes with it."""
    tree = ast.parse(Path(naming.__file__).read_text(encoding="utf-8"))
    imported = {n.module if isinstance(n, ast.ImportFrom) else a.name
                for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    assert imported <= {"__future__", "re", "collections.abc", "typing"}, imported
    code = ("import sys; import kindex_site.naming; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "{'argparse', 'subprocess', 'pydantic', 'json', 'decimal'} or m.startswith('kindex_site.') "
            "and m != 'kindex_site.naming'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
