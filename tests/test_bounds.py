"""Bounded output and work (docs/security.md, "Bounds"): kindex.toml's caps on a page, the site and a
table, enforced by `check` and `build` alike; readers and rendering linear in their input; templates'
resource limits; and no site written inside a .git folder."""

from __future__ import annotations

import json
import random
import re
import subprocess

import pytest

from conftest import SEED, bundle, release, seed_problem_run
from kindex_site import build, highlight, jsonread
from kindex_site.leaderboard import Entry
from kindex_site.safetext import CODE_POINT_HTML, HIDDEN, shown_hidden

PROBLEM = "Gemm BatchNorm Scaling Softmax"


def runs_with_sources(project, count: int, text: str, folder: str = "content/lab", prefix: str = "src") -> None:
    """`count` runs, each its own implementation and naming a source file of its own holding `text`."""
    docs = []
    for i in range(count):
        doc = bundle(name=f"{prefix}-{i}", title=f"{PROBLEM} · {prefix} {i} · Lab", mean=1_000_000 + i)
        doc["run"]["spec"]["implementationSource"] = {"path": f"src/k{i}.py"}
        docs.append(doc)
        project.write(f"{folder}/src/k{i}.py", text)
    project.write(f"{folder}/runs.json", docs)


def built_site(project) -> dict[str, bytes]:
    """A clean site built from the seed alone: what a refused build must leave as it was."""
    project.write("content/seed.json", SEED)
    project.built()
    return project.snapshot()


# --- max_page_bytes: a page, its source included --------------------------------------------------


def test_sources_of_control_characters_fail_check_and_build_naming_each_file_and_field(project):
    """The issue's attack, scaled: runs naming sources of U+0001 (each shown as a 31-byte code point)
    pass their cap only on their page; `check` says so without rendering, naming the bundle, the field
    and the source, and `build` refuses to write anything."""
    before = built_site(project)
    size = 2**20 if release() else 2**14  # (the 1 MiB each, 36 of them, in a release run)
    count = 36 if release() else 3
    cap = 16 * 2**20 if release() else 300_000
    project.write("kindex.toml", f"max_page_bytes = {cap}\nmax_site_bytes = {cap * count * 2}\n")
    runs_with_sources(project, count, "\x01" * size)
    code, _, err = project.run("check", "--strict")
    assert code == 1 and "Traceback" not in err, err
    for i in range(count):
        assert re.search(rf"^content/lab/runs\.json\[{i}\]: run\.spec\.implementationSource: the page of run src-{i} "
                         rf"would be [\d.]+ [kM]B with this source \(content/lab/src/k{i}\.py\), over max_page_bytes "
                         rf"\({build._bytes(cap)}\) in kindex\.toml$", err, re.M), err
    assert err.rstrip().endswith(f"error: {count} problems in 1 file; nothing was written"), err
    code, _, err = project.build()
    assert code == 1 and "run.spec.implementationSource: the page of run src-0 would be" in err, err
    assert project.snapshot() == before


def test_a_source_too_big_to_highlight_within_its_share_is_shown_as_plain_text(project):
    """A source is highlighted when, so shown, it stays within half of max_page_bytes by its bound;
    else it is plain text (escaped, with line numbers), and the page is within the cap."""
    kernel = "import torch\n" + "x = torch.relu(x)  # a line\n" * 400
    runs_with_sources(project, 1, kernel)
    project.built()
    assert '<span class="kn">import</span>' in project.page("runs/src-0")
    bound = highlight.shown_sizes(kernel)
    project.write("kindex.toml", f"max_page_bytes = {bound.highlighted + 1_000}\n")  # (half of it is too little)
    code, _, err = project.run("check", "--strict")
    assert code == 0, err
    project.built()
    page = project.page("runs/src-0")
    assert '<span class="kn">' not in page and "x = torch.relu(x)  # a line" in page
    assert len(page.encode()) <= bound.highlighted + 1_000


def test_the_build_measures_every_page_it_writes(project):
    """What `check` cannot weigh (a project's own template saying a title a thousand times) is
    measured as it is made: the run's file is named and nothing is written."""
    before = built_site(project)
    project.write("templates/run.html", '{% extends "base.html" %}{% block main %}'
                  '{% for i in range(1000) %}{{ run.facts.title }}{% endfor %}{% endblock %}\n')
    project.write("kindex.toml", "max_page_bytes = 60000\n")
    code, _, err = project.run("check")
    assert code == 0, err  # (the bundled templates' weights: within the cap)
    code, _, err = project.build()
    assert code == 1 and "Traceback" not in err, err
    assert ("content/seed.json: the page of run kernelbench-h100-pcie-lambdalabs-torch-l2-84-gemm-batchnorm-scaling-"
            "softmax would be more than max_page_bytes (60 kB) in kindex.toml; made by templates/run.html") in err, err
    assert project.snapshot() == before


def test_a_title_full_of_hidden_characters_counts_as_what_it_shows(project):
    """Titles are bounded (10,000 characters), but a bidirectional control shows as a 31-byte code
    point, four times on its run page: `check` weighs it as shown."""
    title = f"{PROBLEM} · {chr(0x202E) * 4_000} · Lab"
    project.write("content/a.json", bundle(name="bidi", title=title))
    project.built()
    shown = len((project.root / "site/runs/bidi/index.html").read_bytes())
    assert shown > 200_000
    project.write("kindex.toml", "max_page_bytes = 200000\n")
    code, _, err = project.run("check")
    assert code == 1, err
    said = re.search(r"^content/a\.json: run\.metadata\.title: the page of run bidi would be ([\d.]+) kB with this "
                     r"title, over max_page_bytes \(200 kB\) in kindex\.toml$", err, re.M)
    assert said and 200_000 < float(said[1]) * 1000 <= shown, err


@pytest.mark.parametrize("text", ["\x01" * 3000, "a+" * 2000, "x\n" * 2000, '"<&>\'' * 800, "\u202e\r\n\t é💥" * 500,
                                  "/* " + "*" * 3000, 'r"""' + "\\N{" * 1000])
def test_a_sources_html_is_within_its_bound(monkeypatch, text):
    """The bound `check` weighs a source by (highlight.shown_sizes) holds for what the build shows:
    highlighted in each language, and as plain text."""
    bound = highlight.shown_sizes(text)
    for language in ("python", "cuda", "c", "cpp", "text"):
        html = highlight.highlighted(lambda: text, f"{language}-{hash(text)}", "k.py", language).html
        assert len(str(html).encode()) <= (bound.plain if language == "text" else bound.highlighted), language


def test_random_texts_stay_within_their_bound():
    from pygments import highlight as pygmentize

    rng = random.Random(7)
    alphabet = ["a", "+", "\n", "\r", "\x01", "\u202e", '"', "'", "&", "<", ">", " ", "\t", "é", "💥", "#", "\\", "\x85"]
    for _ in range(300 if release() else 60):
        text = "".join(rng.choice(alphabet) for _ in range(rng.choice([1, 7, 60, 400])))
        bound = highlight.shown_sizes(text)
        for name in ("text", "python", "c", "cpp", "cuda"):
            html = pygmentize(text, highlight._lexer(name), highlight._formatter())
            html = shown_hidden(html, CODE_POINT_HTML) if HIDDEN.search(html) else html
            assert len(html.encode()) <= (bound.plain if name == "text" else bound.highlighted), (name, text)


# --- max_site_bytes --------------------------------------------------------------------------------


def test_a_site_over_max_site_bytes_fails_check_and_build_naming_its_heaviest_files(project):
    before = built_site(project)
    runs_with_sources(project, 4, "\x01" * 4_000)  # about 130 kB a run page
    runs_with_sources(project, 1, "k = 1\n", folder="content/lab/more", prefix="more")
    project.write("kindex.toml", "max_site_bytes = 400000\n")
    code, _, err = project.run("check")
    assert code == 1, err
    assert re.search(r"^content/lab/runs\.json: the site would be at least [\d.]+ kB, over max_site_bytes \(400 kB\) "
                     r"in kindex\.toml; the content files whose runs weigh most: content/lab/runs\.json \(5\d\d kB\), "
                     r"content/lab/more/runs\.json \([\d.]+ kB\), content/seed\.json", err, re.M), err
    assert "run pages take" in err and "`run_pages = false` in kindex.toml" in err, err
    code, _, err = project.build()
    assert code == 1 and "over max_site_bytes (400 kB)" in err, err
    assert project.snapshot() == before


def test_the_build_measures_the_whole_site_too(project):
    """A site `check` weighs under the cap but the build finds over it (the static files, the schema,
    what the templates add) is refused before it is put in place."""
    before = built_site(project)
    total = sum(len(data) for data in before.values())
    project.write("kindex.toml", f"max_site_bytes = {total - 1_000}\n")
    code, _, err = project.run("check")
    assert code == 0, err
    code, _, err = project.build("--clean")
    assert code == 1 and f"over max_site_bytes ({build._bytes(total - 1_000)}) in kindex.toml" in err, err
    assert "content/seed.json: the site would be" in err and "the content files whose run pages weigh most: " \
        "content/seed.json" in err, err
    assert project.snapshot() == before


# --- max_runs_per_table ------------------------------------------------------------------------------


def test_a_table_of_more_runs_than_max_runs_per_table_fails_check_and_build(project):
    """Its history included: three implementations with two runs each are six runs on one table."""
    before = built_site(project)
    docs = []
    for impl in ("Kernel A", "Kernel B", "Kernel C"):
        for day in (1, 2):
            doc = seed_problem_run("gpu-a", impl, 1_000_000 + day)
            doc["run"]["metadata"]["name"] += f"-{day}"
            doc["run"]["spec"]["observedAt"] = f"2026-03-0{day}T00:00:00Z"
            docs.append(doc)
    project.write("content/a.json", docs[:4])
    project.write("content/b.json", docs[4:])
    project.write("kindex.toml", "max_runs_per_table = 6\n")
    assert project.run("check")[0] == 0
    project.write("kindex.toml", "max_runs_per_table = 5\n")
    code, _, err = project.run("check")
    assert code == 1, err
    assert ("content/a.json: the table of problem level2-84-gemm-batchnorm-scaling-softmax on host gpu-a (protocol "
            "kernelbench-timing-v1, workload sha256:0b0a76c380b4) holds 6 runs, its history included, over "
            "max_runs_per_table (5) in kindex.toml; its runs are in content/a.json (4), content/b.json (2)") in err, err
    code, _, err = project.build()
    assert code == 1 and "over max_runs_per_table (5)" in err
    assert project.snapshot() == before


# --- readers and rendering: linear in their input --------------------------------------------------


def test_blank_lines_of_a_jsonl_file_are_stepped_over_not_read_one_by_one(project, monkeypatch):
    """10 MiB of blank lines took 20 s: each was decoded, hashed and given a place. Now a run of them
    costs one match: the decoder sees the lines that hold something, and they keep their numbers."""
    decoded = []
    real = jsonread._decode
    monkeypatch.setattr(jsonread, "_decode", lambda data, *args, **kwargs: decoded.append(data) or real(data, *args, **kwargs))
    line = json.dumps(SEED)
    broken = line.replace('"status": "passed"', '"status": 7')
    project.write("content/a.jsonl", line + "\n" + " \t\r\n" * 100_000 + "\n" * 100_000 + broken + "\n\n")
    code, _, err = project.run("check")
    assert code == 1 and "content/a.jsonl:200002: run.spec.status" in err, err
    assert len(decoded) == 2


def test_a_tables_pages_look_at_each_of_its_runs_a_bounded_number_of_times(project, monkeypatch):
    """One table's run and implementation pages each looked its run up among all of the table's (and
    counted its ranked runs, and its implementation's among them): quadratic in the table's rows (5,000
    runs built in 6 s, 20,000 in 146 s). Counted here: every read of an entry's fields, for a table
    of N and of 2N runs, each its own implementation; twice the runs, about twice the reads."""
    reads = [0]
    for name in ("run", "rank", "implementation_slug", "implementation"):
        field = Entry.__dict__[name]

        def get(entry, field=field):
            reads[0] += 1
            return field.__get__(entry, Entry)

        monkeypatch.setattr(Entry, name, property(get, field.__set__))
    monkeypatch.setattr(build, "PARALLEL_MIN_OUTPUTS", 10**9)  # (every page made in this process, and counted)
    counted = []
    for n in (60, 120):
        project.write("content/runs.json", [seed_problem_run("gpu-a", f"Kernel {i}", 1_000_000 + 37 * i)
                                            for i in range(n)])
        reads[0] = 0
        project.built("--clean")
        counted.append(reads[0])
    assert counted[1] < 2.3 * counted[0], counted


# --- templates: resource limits ----------------------------------------------------------------------


@pytest.mark.parametrize("body, said", [
    ("{% for i in range(10**9) %}x{% endfor %}",
     "templates/run.html: SecurityError: range of 1,000,000,000 items: a template may loop over 100,000 at most (line 1)"),
    ("{{ [0] * (2**24 + 1) }}", "templates/run.html: SecurityError: a list of 1 times 16,777,217 would make"),
    ('{{ "x" * 20000000 }}', "templates/run.html: SecurityError: a str of 1 times 20,000,000 would make"),
    ('{% set ns = namespace(s="x") %}{% for i in range(25) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}',
     "templates/run.html: SecurityError: joining with ~ would make 33,554,432 items"),
    ('{{ "%20000000d" % 1 }}', "templates/run.html: SecurityError: the format '%20000000' would make"),
    ('{{ "x" | center(20000000) }}', "templates/run.html: SecurityError: center would make 20,000,000 items"),
    ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "templates/run.html: RecursionError: maximum recursion depth"),
    ("{% for i in range(100000) %}{% for j in range(3) %}{{ run.name }}{% endfor %}{% endfor %}",
     "would be more than max_page_bytes (16.8 MB) in kindex.toml; made by templates/run.html"),
])
def test_a_templates_resource_limit_names_the_template_and_writes_nothing(project, body, said):
    before = built_site(project)
    project.write("templates/run.html", body + "\n")
    code, out, err = project.build()
    assert code == 1 and said in err, err
    assert "Traceback" not in err + out
    assert project.snapshot() == before


def test_an_error_in_a_macro_names_the_macros_template_and_its_line(project):
    project.write("content/seed.json", SEED)
    project.write("templates/run.html", '{% from "helpers.html" import broken %}{{ broken() }}\n')
    project.write("templates/helpers.html", "{% macro broken() %}\n{{ 1 // 0 }}\n{% endmacro %}\n")
    code, _, err = project.build()
    assert code == 1 and "templates/helpers.html: ZeroDivisionError: integer division or modulo by zero " \
        "(line 2, rendering run.html)" in err, err


# --- --out inside a .git folder ------------------------------------------------------------------------


def test_a_site_is_never_written_inside_a_git_folder(project):
    project.write("content/seed.json", SEED)
    subprocess.run(["git", "init", "-q", str(project.root)], check=True)
    subprocess.run(["git", "-C", str(project.root), "add", "content"], check=True)
    subprocess.run(["git", "-C", str(project.root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"],
                   check=True)
    (project.root / "link").symlink_to(project.root / ".git" / "refs")
    for out in (".git/refs/x", ".git", "link/x", str(project.root / ".git" / "objects" / "site")):
        code, _, err = project.build("--out", out)
        assert code == 1 and "refusing to write the site there: it is inside a .git folder" in err, (out, err)
    assert not (project.root / ".git/refs/x").exists() and not (project.root / ".git/objects/site").exists()
    fsck = subprocess.run(["git", "-C", str(project.root), "fsck", "--strict"], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr
