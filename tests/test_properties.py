"""Property-based: any mutation of a valid bundle builds or fails cleanly; valid corpora lose no number."""

from __future__ import annotations

import copy
import io
import json
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SEED
from kindex_site.cli import main

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=30),
)
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)), max_leaves=8)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, prefix + (i,))


SEED_PATHS = [p for p in _paths(SEED) if p]


def _mutate(doc, path, action, value):
    node = doc
    for key in path[:-1]:
        node = node[key]
    if action == "delete":
        if isinstance(node, dict):
            del node[path[-1]]
        else:
            node.pop(path[-1])
    else:
        node[path[-1]] = value
    return doc


def build(folder: Path, bundles_text: str | list) -> tuple[int, str]:
    content = folder / "content"
    content.mkdir(exist_ok=True)
    (content / "runs.json").write_text(bundles_text if isinstance(bundles_text, str) else json.dumps(bundles_text),
                                       encoding="utf-8")
    config = folder / "kindex.toml"
    config.write_text("")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["build", "--config", str(config)])
    return code, err.getvalue()


@SETTINGS
@given(mutations=st.lists(st.tuples(st.sampled_from(SEED_PATHS), st.sampled_from(["set", "delete"]), json_values),
                          min_size=1, max_size=3))
def test_any_mutation_builds_or_fails_cleanly(mutations):
    doc = copy.deepcopy(SEED)
    for path, action, value in mutations:
        try:
            doc = _mutate(doc, path, action, value)
        except (KeyError, IndexError, TypeError, AttributeError):
            continue  # an earlier mutation removed or replaced this path (say, with null or a string)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        code, err = build(folder, [doc])
        assert "Traceback" not in err
        if code == 0:
            assert (folder / "site/index.html").is_file()
        else:
            assert code == 1
            lines = err.strip().splitlines()
            assert lines[-1].startswith("error: ") and lines[-1].endswith("nothing was written")
            assert all(": " in line for line in lines), lines
            assert not (folder / "site").exists()  # no partial site
            assert sorted(p.name for p in folder.iterdir()) == ["content", "kindex.toml"]  # no temp folder


@SETTINGS
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_arbitrary_bytes_never_crash(raw):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "content").mkdir()
        (folder / "content/x.json").write_bytes(raw)
        (folder / "content/y.jsonl").write_bytes(raw)
        code, err = build(folder, "[]")
        assert code in (0, 1) and "Traceback" not in err


@st.composite
def runs(draw):
    n = draw(st.integers(min_value=1, max_value=8))
    bundles = []
    for i in range(n):
        doc = copy.deepcopy(SEED)
        spec = doc["run"]["spec"]
        doc["run"]["metadata"]["name"] = f"run-{i}"
        problem = draw(st.integers(0, 2))
        doc["run"]["metadata"]["title"] = f"Problem {problem} · Impl {i % 3} · lab"
        spec["workloadDigest"] = f"sha256:{problem:064x}"  # (a problem is its workload)
        spec["sourceNative"] = {"source": "generated"}
        host = draw(st.integers(0, 1))
        doc["environment"]["metadata"]["name"] = f"host-{host}"
        doc["environment"]["metadata"]["title"] = f"Host {host}"
        if draw(st.booleans()) and i:
            spec["status"] = draw(st.sampled_from(["failed", "timeout", "incorrect"]))
            del spec["timing"]
        else:
            mean = draw(st.integers(1, 10**12))
            lo = draw(st.integers(1, mean))
            hi = draw(st.integers(mean, 2 * 10**12))
            latency = {"mean": mean, "minimum": draw(st.integers(1, mean)), "maximum": draw(st.integers(mean, 3 * 10**12))}
            if draw(st.booleans()):
                latency["confidence95"] = [lo, hi]
            spec["timing"] = {"samples": draw(st.integers(1, 10**6)), "latencyNs": latency, "primaryStatistic": "mean"}
        bundles.append(doc)
    return bundles


@SETTINGS
@given(bundles=runs())
def test_every_valid_run_appears_in_the_api_with_its_numbers(bundles):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        code, err = build(folder, bundles)
        assert code == 0, err
        api = folder / "site/api/v1"
        index = json.loads((api / "index.json").read_text())
        assert index["runs"] == len(bundles)
        seen = {}
        for problem in index["problems"]:
            doc = json.loads((api / f"problems/{problem['slug']}.json").read_text())
            for board in doc["boards"]:
                for entry in board["entries"] + board["history"]:  # every run exactly once
                    assert entry["run"] not in seen
                    seen[entry["run"]] = entry
        assert set(seen) == {b["run"]["metadata"]["name"] for b in bundles}
        for b in bundles:
            entry, spec = seen[b["run"]["metadata"]["name"]], b["run"]["spec"]
            assert entry["status"] == spec["status"]
            timing = spec.get("timing")
            if timing:
                lat = timing["latencyNs"]
                assert (entry["mean_ns"], entry["min_ns"], entry["max_ns"], entry["samples"]) == \
                    (lat["mean"], lat["minimum"], lat["maximum"], timing["samples"])
                assert entry["ci95_ns"] == lat.get("confidence95")
            else:
                assert entry["mean_ns"] is None and entry["rank"] is None
