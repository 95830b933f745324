"""Hostile and broken content: shown as text, never escaping site/, never crashing the build."""

from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from xml.etree import ElementTree

import pytest

from conftest import SEED, bundle, visible_text

PAYLOADS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "</title><b>x</b>",
            "</script><script>alert(2)</script>", "<!-- open comment", "' onmouseover='alert(3)"]
EVIL = " ".join(PAYLOADS)


class _Injected(HTMLParser):
    """Finds what would run or render as markup if content had leaked: as a browser parses it."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("img", "b") or (tag == "script" and not dict(attrs).get("src")):
            self.found.append(f"<{tag}>")
        self.found += [f"<{tag} {name}=…>" for name, _ in attrs if name.startswith("on")]

    def handle_comment(self, data):
        self.found.append(f"<!--{data[:20]}")


def injected(text: str) -> list[str]:
    parser = _Injected()
    parser.feed(text)
    return parser.found


def evil_bundle() -> dict:
    return bundle({
        "run.metadata.title": f"Evil {EVIL} · Impl {EVIL} · where {EVIL}",
        "run.spec.sourceNative": {"source": "evil", "value": EVIL, EVIL: "key"},
        "run.spec.status": "passed",
        "protocol.metadata.title": f"Protocol {EVIL}",
        "protocol.spec.harness.name": f"Harness {EVIL}",
        "protocol.spec.comparability.notes": f"Notes {EVIL}",
        "protocol.spec.comparability.family": f"family {EVIL}",
        "environment.metadata.title": f"Host {EVIL}",
        "environment.spec.hardware.product": f"GPU {EVIL}",
        "environment.spec.software": {EVIL: EVIL},
    })


def test_markup_in_every_field_is_shown_as_text_everywhere(project):
    second = evil_bundle()  # two ranked runs on one board: its chart (SVG) shows their labels too
    second["run"]["metadata"]["name"] = "second-evil"
    second["run"]["metadata"]["title"] = f"Evil {EVIL} · Other {EVIL} · where"
    project.write("content/evil.json", [evil_bundle(), second])
    project.write("content/pages/notes.md", f"# Notes {EVIL}\n\n{EVIL}\n\n[x]({EVIL})\n")
    project.built("--base-url", "https://example.org/board/")
    site = project.root / "site"
    checked = 0
    for path in site.rglob("*"):
        if path.suffix in (".html", ".xml"):  # CSV and JSON carry the raw strings, as data should
            text = path.read_text(encoding="utf-8")
            assert not injected(text), f"{path.relative_to(site)}: {injected(text)}"
            checked += 1
        if path.suffix == ".xml":
            ElementTree.parse(path)  # well-formed whatever the titles hold
    assert checked > 8
    problem = next(p for p in (site / "problems").iterdir() if p.is_dir()) / "index.html"
    assert "<svg" in problem.read_text(encoding="utf-8")
    text = visible_text(problem.read_text(encoding="utf-8"))
    for payload in PAYLOADS:
        assert payload in text  # shown, as text
    # JSON keeps the values exactly; a JSON reader gets the very string.
    index = json.loads((site / "api/v1/index.json").read_text(encoding="utf-8"))
    assert index["problems"][0]["title"] == f"Evil {EVIL}"


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)",
                                 "vbscript:msgbox(1)", "data:text/html,<script>alert(1)</script>",
                                 "java&#x09;script:alert(1)"])
def test_unsafe_urls_never_become_links(project, url):
    project.write("content/a.json", bundle({"protocol.spec.harness.repository": url}))
    project.write("content/pages/links.md", f"# Links\n\n[click]({url}) <{url}>\n")
    project.built()
    for page in ("protocols/kernelbench-timing-v1", "links"):
        hrefs = re.findall(r'href="([^"]*)"', project.page(page))
        assert not [h for h in hrefs if re.match(r"\s*(javascript|vbscript|data):", h, re.I)
                    or "script" in h.lower()], hrefs


@pytest.mark.parametrize("name", ["../escape", "a/b", "a\\b", "%2e%2e", "a\x00b", ".hidden", "con",
                                  "nul.txt", "Run-A", "a..b", "x" * 201, ""])
def test_names_that_would_be_unsafe_paths_are_errors(project, name):
    project.write("content/bad.json", bundle(name=name))
    code, _, err = project.build()
    assert code == 1 and "Traceback" not in err
    assert err.startswith("content/bad.json: run.metadata.name: ")
    assert not (project.root / "site").exists()


@pytest.mark.parametrize("where, value", [("environment.metadata.name", "../x"), ("protocol.metadata.name", "a/b")])
def test_environment_and_protocol_names_are_checked_too(project, where, value):
    project.write("content/bad.json", bundle({where: value}))
    code, _, err = project.build()
    assert code == 1 and f"content/bad.json: {where}: " in err


def test_problem_title_naming_a_windows_device_is_an_error(project):
    project.write("content/a.json", bundle({"run.spec.sourceNative": {"source": "x"},
                                            "run.metadata.title": "CON · eager · x"}))
    code, _, err = project.build()
    assert code == 1
    assert "content/a.json: run.metadata.title: problem 'CON' would be the folder 'con', a reserved device name" in err


def test_markdown_page_names_are_checked(project):
    project.write("content/seed.json", SEED)
    project.write("content/pages/Upper.md", "# x")
    project.write("content/pages/runs.md", "# x")
    code, _, err = project.build()
    assert code == 1
    assert "content/pages/Upper.md: page name must be lowercase" in err
    assert "content/pages/runs.md: page name 'runs' is reserved" in err


def test_symlinks_leaving_content_are_not_followed(project, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.json").write_text(json.dumps(bundle(name="secret-run")))
    (outside / "dir").mkdir()
    (outside / "dir" / "more.json").write_text(json.dumps(bundle(name="more-run")))
    project.write("content/seed.json", SEED)
    os.symlink(outside / "secret.json", project.root / "content/secret.json")
    os.symlink(outside / "dir", project.root / "content/linked")
    code, _, err = project.build()
    assert code == 0
    assert "warning: content/secret.json: symlink to a file outside the content folder not followed" in err
    assert "warning: content/linked: symlinked folder not followed" in err
    assert not (project.root / "site/runs/secret-run").exists()
    assert not [p for p in (project.root / "site").rglob("*") if p.is_symlink()]


def test_hundred_megabyte_file_is_refused_without_reading_it(project):
    project.write("content/seed.json", SEED)
    project.built()
    with open(project.root / "content/huge.json", "wb") as f:
        f.truncate(100 * 2**20)  # sparse: costs no disk, reads as 100 MiB of NULs
    code, _, err = project.build()
    assert code == 1
    assert "content/huge.json: 100 MiB is more than a .json file may hold (64 MiB)" in err


def test_million_line_jsonl_fails_fast_with_line_numbers(project):
    project.write("content/seed.json", SEED)
    project.built()
    before = project.snapshot()
    (project.root / "content/broken.jsonl").write_bytes(b"{\n" * 1_000_000)
    code, _, err = project.build()
    assert code == 1
    lines = err.splitlines()
    assert lines[0].startswith("content/broken.jsonl:1: invalid JSON")
    assert "content/broken.jsonl: stopped reading after 50 problems in this file" in lines
    assert lines[-1] == "error: 50 problems in 1 file; nothing was written"
    assert project.snapshot() == before


def test_overlong_jsonl_line_is_an_error_naming_the_line(project):
    project.write("content/a.jsonl", json.dumps(SEED) + "\n" + "[" + " " * (2**20 + 10) + "]\n")
    code, _, err = project.build()
    assert code == 1 and "content/a.jsonl:2: line longer than 1024 KiB; not a bundle" in err


@pytest.mark.parametrize("text, message", [
    ('"just a string"', "expected a bundle object {run, protocol, environment}, not string"),
    ("[null]", "expected a bundle object {run, protocol, environment}, not null"),
    ('{"run": 1e400}', "number 1e400 is out of range"),
    ('{"run": -Infinity}', "-Infinity is not a JSON number"),
])
def test_more_malformed_json(project, text, message):
    project.write("content/bad.json", text)
    code, _, err = project.build()
    assert code == 1 and message in err and "Traceback" not in err


def test_zero_latency_is_rejected(project):
    project.write("content/bad.json", bundle({"run.spec.timing.latencyNs.minimum": 0}))
    code, _, err = project.build()
    assert code == 1 and "run.spec.timing.latencyNs.minimum: Input should be greater than 0" in err


def test_check_strict_treats_warnings_as_errors(project):
    project.write("content/seed.json", SEED)
    project.write("content/notes.txt", "stray")
    code, _, err = project.run("check")
    assert code == 0 and "warning: content/notes.txt: ignored" in err
    code, _, err = project.run("check", "--strict")
    assert code == 1
    assert ("content/notes.txt: ignored (only *.json, *.jsonl, pages/*.md and the source files runs refer to are read)"
            in err.splitlines())
    assert err.splitlines()[-1].startswith("error: 1 problem")


def test_hidden_characters_in_names_show_as_code_points_on_every_page(project):
    """A name that reverses the text after it, or holds a control character, is shown as its code
    points wherever it is printed: tables, charts, titles, every listing."""
    reversed_name = "Fast kernel \u202e01× \u2066· NUL\x00 ESC\x1b"
    first = bundle({"run.metadata.title": f"Gemm · {reversed_name} · Lab",
                    "environment.metadata.title": "Host \u202ereversed"})
    second = bundle({"run.metadata.title": "Gemm · Other · Lab", "environment.metadata.title": "Host \u202ereversed"})
    second["run"]["metadata"]["name"] = "second-run"
    project.write("content/a.json", [first, second])
    project.write("content/pages/notes.md", "# Notes \u202e here\n\n[link \u2066](https://example.org/ \"t\u202e\")\n")
    project.built("--base-url", "https://example.org/board/")
    site = project.root / "site"
    pages = 0
    for path in site.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        for ch in "\u202e\u2066\x00\x1b":
            assert ch not in text, (path.relative_to(site), hex(ord(ch)))
        pages += 1
    assert pages > 8
    problem = next(p for p in (site / "problems").iterdir() if p.is_dir()) / "index.html"
    text = problem.read_text(encoding="utf-8")
    assert "Fast kernel [U+202E]01× [U+2066]· NUL[U+0000] ESC[U+001B]" in visible_text(text)
    assert "<svg" in text and "[U+202E]" in text.split("<svg", 1)[1].split("</svg>", 1)[0]
    notes = (site / "notes/index.html").read_text(encoding="utf-8")
    assert "Notes [U+202E] here" in visible_text(notes) and 'title="t[U+202E]"' in notes
    # What the search box lists and feed readers show: as the pages show it (XML forbids NUL and ESC anyway).
    feed, index = (site / "feed.xml").read_text(encoding="utf-8"), (site / "search/index.json").read_text(encoding="utf-8")
    listed = "".join(str(value) for item in json.loads(index)["items"] for value in item)
    for ch in "\u202e\u2066\x00\x1b":
        assert ch not in feed and ch not in listed, hex(ord(ch))
    assert "Fast kernel [U+202E]01×" in feed and "Host [U+202E]reversed" in index


def test_names_in_other_scripts_get_pages_of_their_own(project):
    """Names whose letters have no ASCII form are shown as written, each on a page of its own: two that
    differ only in those letters never share one, and a title of such letters alone names a problem."""
    runs = [bundle({"run.metadata.title": f"{problem} · {label} · Lab", "run.spec.workloadDigest": f"sha256:{n:064x}",
                    "run.spec.sourceNative": {"source": "lab"}}, name=f"run-{n}")  # (titles name the problems)
            for n, (problem, label) in enumerate([("矩阵乘法", "Qwen-中文"), ("矩阵乘法", "Qwen-日本"),
                                                  ("Gemm", "Ångström kernel"), ("Gemm", "Straße Ørsted")], start=1)]
    runs[1]["run"]["spec"]["workloadDigest"] = runs[0]["run"]["spec"]["workloadDigest"]  # (one problem each)
    runs[3]["run"]["spec"]["workloadDigest"] = runs[2]["run"]["spec"]["workloadDigest"]
    project.write("content/a.json", runs)
    project.built()
    site = project.root / "site"
    implementations = sorted(p.name for p in (site / "implementations").iterdir() if p.is_dir())
    assert "angstrom-kernel" in implementations and "strasse-orsted" in implementations
    qwen = [name for name in implementations if name.startswith("qwen-")]
    assert len(qwen) == 2
    shown = {visible_text((site / "implementations" / name / "index.html").read_text(encoding="utf-8")) for name in qwen}
    assert any("Qwen-中文" in text for text in shown) and any("Qwen-日本" in text for text in shown)
    problems = [p for p in (site / "problems").iterdir() if p.is_dir()]
    assert len(problems) == 2 and any("矩阵乘法" in visible_text((p / "index.html").read_text(encoding="utf-8"))
                                      for p in problems)
