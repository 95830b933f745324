"""Property-based: any content builds or fails cleanly, check and build agree, valid corpora lose no number.

Each property runs from a fixed seed (derandomize). A release run (`--release`, scripts/release-test)
takes each property's whole budget; any other run a tenth of it, a few seconds each. To try still more
examples: `KINDEX_HYPOTHESIS_EXAMPLES=2000 pytest tests/test_properties.py`.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import re
import tempfile
from contextlib import chdir, redirect_stderr, redirect_stdout
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SEED, release
from kindex_site.cli import main

# The budget: each property's own in a release run, a tenth of it otherwise, or this many examples for
# every one.
EXAMPLES = int(os.environ.get("KINDEX_HYPOTHESIS_EXAMPLES") or 0)
pytestmark = pytest.mark.release


def budget(examples: int) -> settings:
    return settings(max_examples=EXAMPLES or (examples if release() else max(1, examples // 10)), deadline=None,
                    derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


SETTINGS = budget(160)

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


@budget(48)
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


# --- The whole pipeline: load → leaderboard → render → write, over every field ------------------------
# Generated content goes through `check` and through a real `build` (with an absolute base URL, so the
# feed and sitemap are written too). Whatever it holds: check exits 0 exactly when build does; a
# failure is `file: … : message` lines (the same from both) and no traceback, and writes nothing; a
# success writes HTML, JSON, XML and CSV that parse, with every run on its page and in the API.

# Characters that have broken, or could break, a reader or a writer: lone surrogates (JSON's \ud800
# escapes; no UTF-8 file holds them), bidi controls, NUL and other controls, astral characters,
# combining marks, byte-order and line-separator marks, markup and template syntax, the title separator.
LONE_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff"]
EDGE_CHARS = ["\u202e", "\u202d", "\u2066", "\u2069", "\u200f", "\u061c", "\x00", "\x01", "\x1b", "\x7f", "\x85",
              "\u2028", "\ufeff", "\ufffe", "\U0001F600", "\U00010000", "\U0010FFFF", "\u0301", "e\u0301", "\u0361",
              "\u00e9", "<", ">", "&", '"', "'", "\\", "/", " · ", "..", "\t", "\n", "\r", "{{", "}}", "{%", "=", "+",
              "@", "\u00a0", " "]
_writable_text = st.lists(st.sampled_from(EDGE_CHARS) | st.characters(), max_size=8).map("".join)
_unwritable_text = st.lists(st.sampled_from(EDGE_CHARS + LONE_SURROGATES * 4) | st.characters(), min_size=1,
                            max_size=8).map("".join)
edge_text = st.one_of(_writable_text, _writable_text, _writable_text, _unwritable_text)  # (a quarter refused)


class BigInt:
    """An integer of thousands of digits: json.dumps cannot write it (Python refuses int → str past
    4,300 digits), so it is spliced into the text."""

    def __init__(self, digits: int, negative: bool):
        self.text = ("-" if negative else "") + "9" * digits


_bounded_numbers = st.one_of(
    st.sampled_from([0, -0.0, 1, -1, 0.5, 3, 4940000, 2**53 - 1, -(2**53 - 1), 10**15, 1e300, -1e300, 5e-324,
                     1e-300, 1.5e16, 123.456]),
    st.integers(-(2**53 - 1), 2**53 - 1), st.floats(min_value=-1e300, max_value=1e300))
_unbounded_numbers = st.one_of(
    st.sampled_from([2**53, -(2**53), 2**63, 10**17, 1e301, 1.7976931348623157e308, -1e308]),
    st.integers(-(2**64), 2**64), st.floats(allow_nan=False, allow_infinity=False),
    st.builds(BigInt, st.integers(4000, 5000), st.booleans()))
edge_numbers = st.one_of(_bounded_numbers, _bounded_numbers, _bounded_numbers, _unbounded_numbers)


# Valid ISO 8601, at the ends of what datetime holds (the first two leave it when told in UTC).
TIMESTAMPS = ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59Z",
              "0001-01-01T00:00:00Z", "2026-03-05T08:38:15.123456+05:30", "2024-02-29T00:00:00-00:30"]


def nested(depth: int, leaf: object = 1) -> object:
    """`depth` levels of objects and arrays, alternating, around `leaf`."""
    value = leaf
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    return value


deep_values = st.builds(nested, st.integers(20, 34), st.none() | st.integers() | edge_text)
scalars = st.one_of(edge_text, edge_numbers, st.booleans(), st.none())
_containers = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(edge_text, inner, max_size=3)), max_leaves=6)
any_values = st.one_of(_containers, _containers, _containers, deep_values)

# Places where a field can be added: free-form objects, and the format's own (an unknown field there
# is a warning, what it holds is checked as anywhere).
NEW_FIELD_PARENTS = [("run", "spec", "sourceNative"), ("environment", "spec", "software"), ("run", "spec"),
                     ("run", "metadata"), ("run", "spec", "timing"), ("run", "spec", "timing", "latencyNs"),
                     ("run", "spec", "measurements", 0), ("protocol", "spec", "harness"),
                     ("protocol", "spec", "measurement"), ("environment", "spec", "hardware"), ("run",)]


@st.composite
def edited_value(draw, current):
    """A new value for a field now holding `current`: mostly one of its kind, often still valid (a
    string with an odd character put in keeps most fields valid, and goes on to every page)."""
    if isinstance(current, str) and draw(st.integers(0, 3)):
        at = draw(st.integers(0, len(current)))
        return current[:at] + draw(edge_text) + current[at:]
    if isinstance(current, (int, float)) and not isinstance(current, bool) and draw(st.integers(0, 3)):
        return draw(edge_numbers)
    return draw(any_values)


@st.composite
def edits(draw):
    """A copy of the seed with a few fields edited, added or removed; anything may be anywhere."""
    doc = copy.deepcopy(SEED)
    doc["run"]["spec"]["measurements"] = [{"metric": "latency", "statistic": "std", "unit": "ns", "value": 45600}]
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 3)) == 0:
            parent_path, key = draw(st.sampled_from(NEW_FIELD_PARENTS)), draw(edge_text | st.sampled_from(["x", "memory"]))
            try:
                parent = _at(doc, parent_path)
                if isinstance(parent, dict):
                    parent[key] = draw(any_values)
            except (KeyError, IndexError, TypeError):
                pass
            continue
        path = draw(st.sampled_from(SEED_PATHS + [("run", "spec", "measurements", 0, "value")]))
        try:
            parent, current = _at(doc, path[:-1]), _at(doc, path)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit removed or replaced this path
        if draw(st.integers(0, 5)) == 0:
            if isinstance(parent, dict):
                del parent[path[-1]]
            elif isinstance(parent, list):
                parent.pop(path[-1])
        elif path[-1] == "observedAt" and draw(st.booleans()):
            parent[path[-1]] = draw(st.sampled_from(TIMESTAMPS))
        else:
            parent[path[-1]] = draw(edited_value(current))
    return doc


def _at(doc, path):
    node = doc
    for key in path:
        node = node[key]
    return node


def json_text(value, ascii_only: bool) -> str:
    """JSON text, with BigInts spliced in; lone surrogates are written as \\ud800 escapes, as they
    must be (a UTF-8 file cannot hold them raw)."""
    big: list[str] = []

    def swap(node):
        if isinstance(node, BigInt):
            big.append(node.text)
            return f"__big_{len(big) - 1}__"
        if isinstance(node, dict):
            return {k: swap(v) for k, v in node.items()}
        if isinstance(node, list):
            return [swap(v) for v in node]
        return node

    value = swap(value)
    text = json.dumps(value, ensure_ascii=ascii_only)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True)
    return re.sub(r'"__big_(\d+)__"', lambda m: big[int(m.group(1))], text)


def run_cli(folder: Path, *argv: str) -> tuple[int, str, str]:
    """The command run in `folder`, as a user there would (so files are named content/…)."""
    out, err = io.StringIO(), io.StringIO()
    with chdir(folder), redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def write_content(folder: Path, docs: list, layout: str, ascii_only: bool) -> None:
    content = folder / "content"
    content.mkdir()
    (folder / "kindex.toml").write_text("")
    if layout == "jsonl":
        (content / "runs.jsonl").write_text("".join(json_text(d, ascii_only) + "\n" for d in docs), encoding="utf-8")
    elif layout == "files":
        for i, doc in enumerate(docs):
            (content / f"run-{i}.json").write_text(json_text(doc, ascii_only), encoding="utf-8")
    else:
        (content / "runs.json").write_text("[" + ", ".join(json_text(d, ascii_only) for d in docs) + "]",
                                           encoding="utf-8")


def problem_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if not line.startswith(("warning: ", "note: "))]


def assert_clean_failure(err: str) -> list[str]:
    assert "Traceback" not in err, err
    lines = problem_lines(err)
    assert lines[-1].startswith("error: "), err
    for line in lines[:-1]:  # file[index] or file:line, then what is wrong where
        assert re.match(r"content/[^:\[]+(\[\d+\]|:\d+)?: \S", line), line
    return lines[:-1]


def assert_site_reads_back(site: Path, names: set[str]) -> None:
    """Every file written parses as what it claims to be, and every run has its page and its place in the API."""
    for path in site.rglob("*"):
        if path.suffix == ".html":
            HTMLParser().feed(path.read_text(encoding="utf-8"))
        elif path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))
        elif path.suffix == ".xml":
            ElementTree.parse(path)
        elif path.suffix == ".csv":
            list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    api = site / "api/v1"
    seen = set()
    for problem in json.loads((api / "index.json").read_text(encoding="utf-8"))["problems"]:
        for board in json.loads((api / f"problems/{problem['slug']}.json").read_text(encoding="utf-8"))["boards"]:
            seen |= {entry["run"] for entry in board["entries"] + board["history"]}
    assert seen == names
    for name in names:
        assert name in (site / f"runs/{name}/index.html").read_text(encoding="utf-8")


def check_agrees_with_build(docs: list, layout: str, ascii_only: bool, page: str | None = None) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_content(folder, docs, layout, ascii_only)
        if page is not None:
            (folder / "content/pages").mkdir()
            (folder / "content/pages/notes.md").write_bytes(page.encode("utf-8", "surrogatepass"))
        checked, _, check_err = run_cli(folder, "check")
        built, _, build_err = run_cli(folder, "build", "--base-url", "https://example.org/board/")
        assert "Traceback" not in check_err + build_err, check_err + build_err
        assert (checked, built) in ((0, 0), (1, 1)), (checked, check_err, built, build_err)
        if built:
            assert assert_clean_failure(check_err) == assert_clean_failure(build_err)
            assert sorted(p.name for p in folder.iterdir()) == ["content", "kindex.toml"]  # nothing written
        else:
            names = {d["run"]["metadata"]["name"] for d in docs}
            assert_site_reads_back(folder / "site", names)
        return built


def _second_run(edited: dict) -> dict:
    """Another implementation's run of the seed's problem, under the edited bundle's protocol and
    environment (whatever they became): the edited run is ranked against it."""
    doc = copy.deepcopy(SEED)
    doc["run"]["metadata"]["name"] = "second-run"
    doc["run"]["metadata"]["title"] = doc["run"]["metadata"]["title"].replace("PyTorch eager", "Other")
    doc["run"]["spec"]["implementationDigest"] = "sha256:" + "1" * 64
    doc["protocol"], doc["environment"] = edited.get("protocol"), edited.get("environment")
    return doc


@budget(120)
@given(doc=edits(), layout=st.sampled_from(["array", "jsonl", "files"]), ascii_only=st.booleans(),
       page=st.none() | edge_text)
def test_check_passes_exactly_what_build_builds(doc, layout, ascii_only, page):
    check_agrees_with_build([doc, _second_run(doc)], layout, ascii_only, page)


@budget(100)
@given(values=st.lists(st.tuples(st.sampled_from(NEW_FIELD_PARENTS[:2]), edge_text, any_values), min_size=1,
                       max_size=3),
       layout=st.sampled_from(["array", "jsonl"]))
def test_free_form_fields_hold_anything_within_the_bounds(values, layout):
    """sourceNative and software are valid whatever they hold, so what they hold reaches every writer."""
    doc = copy.deepcopy(SEED)
    for parent, key, value in values:
        _at(doc, parent)[key] = value
    check_agrees_with_build([doc, _second_run(doc)], layout, ascii_only=False)
