"""Publishing: a site that works under a sub-path, with its sitemap, feed, 404 page, CSV downloads and
JSON Schema; a safe output folder; and builds that are atomic even when interrupted."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from conftest import SEED, bundle, seed_problem_run
from kindex_site import build as build_module
from kindex_site import publish, publish_swap

ROOT = Path(__file__).parent.parent
SCHEMA_FILE = ROOT / "schema" / "kernelindex.dev-v1alpha1.json"
SEED_SLUG = "level2-84-gemm-batchnorm-scaling-softmax"
ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def rich_content(project) -> None:
    """A small site touching every page kind: hosts, ties, failures, two workloads, a Markdown page."""
    other_workload = seed_problem_run("gpu-a", "Triton kernel", 900_000)
    other_workload["run"]["metadata"]["name"] = "run-gpu-a-triton-w2"
    other_workload["run"]["spec"]["workloadDigest"] = "sha256:" + "1" * 64
    failed = seed_problem_run("gpu-b", "CUDA kernel", 1, status="failed")
    del failed["run"]["spec"]["timing"]
    failed["run"]["spec"]["measurements"] = []
    project.write("content/a.json", [
        seed_problem_run("gpu-a", "PyTorch eager", 2_000_000),
        seed_problem_run("gpu-a", "Triton kernel", 1_000_000),
        seed_problem_run("gpu-b", "PyTorch eager", 1_500_000),
        failed, other_workload,
        bundle(name="other-run", title="Fused attention · My kernel · lab",
               changes={"run.spec.sourceNative": {"source": "mine"}}),
    ])
    project.write("content/pages/about.md",
                  "# About\n\n[hosts](../hosts/) [a board](../problems/" + SEED_SLUG + "/#board-gpu-b) "
                  "[home](../) [ext](https://elsewhere.example/x) [mail](mailto:a@b.c)\n")


# --- crawling ---------------------------------------------------------------------------------


class _Links(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []  # (attribute, value)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "name" in a:
            self.ids.add(a["name"])
        for attr in ("href", "src"):
            if a.get(attr) is not None:
                self.links.append((f"<{tag} {attr}>", a[attr]))
        if tag == "meta" and a.get("property") == "og:url":
            self.links.append(("<meta og:url>", a["content"]))


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _json_urls(value, found: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("url", "api") and isinstance(item, str):
                found.append(item)
            else:
                _json_urls(item, found)
    elif isinstance(value, list):
        for item in value:
            _json_urls(item, found)


def crawl(site: Path, base_url: str) -> int:
    """Resolve every internal link of every HTML page, API document, the sitemap and the feed.

    Each must name a file that exists in site/ (a folder URL names its index.html) and each
    #fragment an id on that page. Returns the number of links checked.
    """
    base = urlsplit(base_url)
    base_path = base.path
    origin = f"{base.scheme}://{base.netloc}" if base.netloc else None
    parsed: dict[Path, _Links] = {}
    broken: list[str] = []
    checked = 0

    def url_of(file: Path) -> str:
        rel = file.relative_to(site).as_posix()
        return base_path + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)

    def check(source: Path, what: str, link: str) -> None:
        nonlocal checked
        target = urljoin(url_of(source), link)
        parts = urlsplit(target)
        if parts.scheme in ("mailto",):
            return
        if parts.netloc:
            if origin is None or f"{parts.scheme}://{parts.netloc}" != origin:
                return  # another site
        checked += 1
        where = f"{source.relative_to(site)}: {what} {link!r}"
        path = unquote(parts.path)
        if not path.startswith(base_path):
            broken.append(f"{where}: outside the site's path {base_path}")
            return
        rel = path[len(base_path):]
        file = site / (rel + "index.html" if rel == "" or rel.endswith("/") else rel)
        if not file.is_file():
            broken.append(f"{where}: no file {file.relative_to(site)}")
            return
        if parts.fragment:
            if file.suffix != ".html":
                broken.append(f"{where}: fragment on a non-HTML file")
                return
            if file not in parsed:
                parsed[file] = _parse(file)
            if parts.fragment not in parsed[file].ids:
                broken.append(f"{where}: no id {parts.fragment!r} on {file.relative_to(site)}")

    for file in sorted(site.rglob("*")):
        if file.suffix == ".html":
            parsed.setdefault(file, _parse(file))
            for what, link in parsed[file].links:
                check(file, what, link)
        elif file.suffix == ".json" and file.parent.name != "schema":
            found: list[str] = []
            _json_urls(json.loads(file.read_text(encoding="utf-8")), found)
            for link in found:
                check(file, "API url", link)
        elif file.name in ("sitemap.xml", "feed.xml"):
            root = ET.parse(file).getroot()
            for el in root.iter():
                if el.tag in (f"{SITEMAP}loc",):
                    check(file, "loc", el.text)
                if el.tag == f"{ATOM}link" and el.get("rel") == "alternate":
                    check(file, "link", el.get("href"))
        elif file.name == "robots.txt":
            for line in file.read_text().splitlines():
                if line.startswith("Sitemap: "):
                    check(file, "Sitemap", line.removeprefix("Sitemap: "))
        elif file.suffix == ".csv":
            for row in csv.DictReader(io.StringIO(file.read_text(encoding="utf-8"))):
                check(file, "url column", row["url"])
    assert not broken, "\n".join(broken)
    return checked


@pytest.mark.parametrize("base_url", ["https://example.org/kindex/", "/", "https://example.org/", "/deep/sub/path/"])
def test_no_broken_internal_link_or_fragment(project, base_url):
    rich_content(project)
    project.built("--base-url", base_url)
    site = project.root / "site"
    assert crawl(site, base_url) > 200
    # The 404 page is served for missing paths at any depth: it may only use absolute paths.
    for _, link in _parse(site / "404.html").links:
        assert link.startswith(("/", "https://", "#")), link


def test_links_carry_the_sub_path(project):
    rich_content(project)
    project.built("--base-url", "https://example.org/kindex")  # the trailing slash is optional
    home = project.page("")
    assert 'href="/kindex/static/style.css"' in home and 'href="/kindex/levels/2/"' in home
    level = project.page("levels/2")
    assert 'href="/kindex/problems/' + SEED_SLUG + '/"' in level
    hrefs = re.findall(r'(?:href|src)="([^"]+)"', home + level)
    assert all(h.startswith(("/kindex/", "https://", "#")) for h in hrefs), hrefs
    assert project.api("index.json")["problems"][0]["url"].startswith("/kindex/problems/")


def test_configure_pages_base_url_without_path_or_slash(project):
    project.write("content/seed.json", SEED)
    project.built("--base-url", "https://owner.github.io")  # what configure-pages gives a user site
    assert '<link rel="canonical" href="https://owner.github.io/">' in project.page("")
    project.built("--base-url", "https://owner.github.io/repo")
    assert '<link rel="canonical" href="https://owner.github.io/repo/">' in project.page("")


# --- 404, sitemap, robots, feed, canonical ------------------------------------------------------


def test_404_page(project):
    rich_content(project)
    project.built("--base-url", "https://example.org/kindex/")
    html = (project.root / "site/404.html").read_text(encoding="utf-8")
    assert "<title>Page not found · Kernel Index</title>" in html
    assert '<meta name="robots" content="noindex">' in html
    assert 'rel="canonical"' not in html
    assert 'href="/kindex/static/style.css"' in html and 'href="/kindex/#problems"' in html


def test_sitemap_lists_every_html_page_with_absolute_urls(project):
    rich_content(project)
    project.built("--base-url", "https://example.org/kindex/")
    site = project.root / "site"
    root = ET.parse(site / "sitemap.xml").getroot()
    assert root.tag == f"{SITEMAP}urlset"
    locs = [el.text for el in root.iter(f"{SITEMAP}loc")]
    assert locs == sorted(locs) and len(locs) == len(set(locs))
    pages = {"https://example.org/kindex/" + p.relative_to(site).as_posix().removesuffix("index.html")
             for p in site.rglob("index.html")}
    assert set(locs) == pages
    assert (site / "robots.txt").read_text() == (
        "User-agent: *\nAllow: /\nSitemap: https://example.org/kindex/sitemap.xml\n")


def test_path_only_base_url_leaves_out_what_needs_a_host_and_says_so(project, monkeypatch):
    rich_content(project)
    monkeypatch.delenv("CI", raising=False)
    code, _, err = project.build()
    assert code == 0 and "note:" not in err, err  # (a local preview needs none of them: said where it matters)
    code, _, err = project.build("--clean", "--verbose")
    assert code == 0
    assert re.search(r"^note: base_url '/' is a path, not an absolute URL: sitemap\.xml, feed\.xml and "
                     r"canonical links need one", err, re.M), err
    site = project.root / "site"
    assert not (site / "sitemap.xml").exists() and not (site / "feed.xml").exists()
    assert (site / "robots.txt").read_text() == "User-agent: *\nAllow: /\n"
    assert (site / "404.html").is_file()
    home = project.page("")
    assert 'rel="canonical"' not in home and "og:url" not in home and "feed.xml" not in home
    assert '<meta property="og:title" content="Kernel Index">' in home


def test_canonical_and_open_graph(project):
    project.write("content/seed.json", SEED)
    project.write("kindex.toml", 'title = "GPU <Board> & co"\ndescription = "Fast \\"kernels\\""\n')
    project.built("--base-url", "https://example.org/kindex/")
    home = project.page("")
    assert '<link rel="canonical" href="https://example.org/kindex/">' in home
    assert '<meta property="og:url" content="https://example.org/kindex/">' in home
    assert '<meta property="og:title" content="GPU &lt;Board&gt; &amp; co">' in home
    assert '<meta property="og:description" content="Fast &#34;kernels&#34;">' in home
    problem = project.page(f"problems/{SEED_SLUG}")
    assert f'<link rel="canonical" href="https://example.org/kindex/problems/{SEED_SLUG}/">' in problem
    assert '<meta property="og:title" content="Gemm BatchNorm Scaling Softmax">' in problem
    assert ('<meta property="og:description" content="Latency of implementations of Gemm BatchNorm Scaling '
            'Softmax, per timing host.">') in problem
    assert '<link rel="alternate" type="application/atom+xml"' in problem
    assert f'<link rel="alternate" type="application/json" href="/kindex/api/v1/problems/{SEED_SLUG}.json">' in problem


EVIL = 'Evil <b>&amp; "quotes" ]]> \x01\x08\x0b\x1f\ufffe \u202e RTL 🚀 --> <![CDATA[x]]>'


def test_feed_is_well_formed_whatever_the_titles_hold(project, monkeypatch):
    monkeypatch.setattr(publish, "FEED_ENTRIES", 3)
    runs = [seed_problem_run("h", f"Impl {i}", 1_000_000 + i) for i in range(5)]
    for i, doc in enumerate(runs):  # observed one day apart, in assorted time zones
        doc["run"]["spec"]["observedAt"] = f"2026-03-0{i + 1}T10:00:00+0{i}:00"
    del runs[4]["run"]["spec"]["observedAt"]  # no date: not in the feed
    runs[3]["run"]["metadata"]["title"] = f"{EVIL} · Evil impl · x"
    runs[3]["environment"] = runs[0]["environment"]
    project.write("content/a.json", runs)
    project.write("kindex.toml", 'title = "Evil <b>&amp; \\"q\\" ]]> 🚀"\n')
    project.built("--base-url", "https://example.org/kindex/")
    feed = ET.parse(project.root / "site/feed.xml").getroot()  # parses: well-formed
    entries = feed.findall(f"{ATOM}entry")
    assert [e.findtext(f"{ATOM}updated") for e in entries] == [
        "2026-03-04T07:00:00Z", "2026-03-03T08:00:00Z", "2026-03-02T09:00:00Z"]
    assert feed.findtext(f"{ATOM}updated") == "2026-03-04T07:00:00Z"  # the newest observedAt, not the clock
    newest = entries[0]
    assert newest.findtext(f"{ATOM}title") == publish.xml_text(f"{EVIL} · Evil impl · x")
    assert "\ufffd" in newest.findtext(f"{ATOM}title") and "]]>" in newest.findtext(f"{ATOM}title")
    name = runs[3]["run"]["metadata"]["name"]
    assert newest.findtext(f"{ATOM}id") == f"https://example.org/kindex/runs/{name}/"
    assert newest.find(f"{ATOM}link").get("href") == f"https://example.org/kindex/runs/{name}/"
    assert "rank 4 of 5 ranked" in newest.findtext(f"{ATOM}summary")
    assert feed.find(f"{ATOM}link[@rel='self']").get("href") == "https://example.org/kindex/feed.xml"
    assert feed.findtext(f"{ATOM}author/{ATOM}name") == 'Evil <b>&amp; "q" ]]> 🚀'
    assert feed.findtext(f"{ATOM}title") == 'Evil <b>&amp; "q" ]]> 🚀: newest runs'


def test_feed_updated_comes_from_source_date_epoch(project, monkeypatch):
    project.write("content/seed.json", SEED)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    project.built("--base-url", "https://example.org/")
    feed = ET.parse(project.root / "site/feed.xml").getroot()
    assert feed.findtext(f"{ATOM}updated") == "2026-01-01T00:00:00Z"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    code, _, err = project.build("--base-url", "https://example.org/")
    assert code == 1 and "SOURCE_DATE_EPOCH='yesterday' is not a whole number of seconds" in err


def test_no_clock_time_in_the_output(project):
    project.write("content/seed.json", SEED)
    project.built("--base-url", "https://example.org/")
    first = project.snapshot()
    os.utime(project.root / "content/seed.json")  # a newer file time changes nothing either
    project.built("--base-url", "https://example.org/")
    assert project.snapshot() == first


# --- exports ----------------------------------------------------------------------------------


def _csv(project, anchor: str) -> list[list[str]]:
    text = (project.root / "site/problems" / SEED_SLUG / f"{anchor}.csv").read_text(encoding="utf-8")
    return list(csv.reader(io.StringIO(text)))


def test_board_csv_has_the_tables_columns_in_raw_nanoseconds(project):
    rich_content(project)
    project.built()
    html = project.page(f"problems/{SEED_SLUG}")
    links = re.findall(r'href="(/problems/[^"]+\.csv)"', html)
    boards = project.api(f"problems/{SEED_SLUG}.json")["boards"]
    assert len(links) == len(boards) == 3
    for link in links:
        assert (project.root / "site" / link.lstrip("/")).is_file()
    rows = _csv(project, "gpu-b")
    header = rows[0]
    for column in ("run", "implementation", "status", "rank", "mean_ns", "ci95_lo_ns", "ci95_hi_ns",
                   "min_ns", "max_ns", "std_ns", "samples", "observed_at", "url"):
        assert column in header
    [board] = [b for b in boards if b["host"] == "gpu-b"]
    assert len(rows) == 1 + len(board["entries"])
    for line, entry in zip(rows[1:], board["entries"]):
        got = dict(zip(header, line))
        assert got["run"] == entry["run"] and got["implementation"] == entry["implementation"]
        assert got["mean_ns"] == ("" if entry["mean_ns"] is None else str(entry["mean_ns"]))
        assert got["rank"] == ("" if entry["rank"] is None else str(entry["rank"]))
        lo_hi = [got["ci95_lo_ns"], got["ci95_hi_ns"]]
        assert lo_hi == (["", ""] if entry["ci95_ns"] is None else [str(v) for v in entry["ci95_ns"]])
    assert rows[1][header.index("mean_ns")] == "1500000"  # nanoseconds, not milliseconds
    assert rows[2][header.index("status")] == "failed"


def test_board_csv_flattens_new_keys_and_keeps_numbers_numbers():
    rows = [
        {"run": "a", "rank": None, "ci95_ns": None, "speedup": None, "tied": False, "note": "=SUM(A1)"},
        {"run": "b", "rank": 1, "ci95_ns": [5, 9], "speedup": {"value": 1.25, "ci95": [1.1, 1.4]},
         "tied": True, "note": "-1+2", "delta": -3, "extra": {"x": 1}},
        {"run": "+c", "rank": 2, "ci95_ns": [7, 8], "speedup": {"value": 0.5, "ci95": None},
         "tied": False, "note": "@here", "delta": -0.5},
    ]
    data = publish.board_csv(rows)
    assert data.endswith(b"\r\n")
    got = list(csv.reader(io.StringIO(data.decode())))
    assert got[0] == ["run", "rank", "ci95_lo_ns", "ci95_hi_ns", "speedup", "speedup_ci95_lo", "speedup_ci95_hi",
                      "tied", "note", "delta", "extra_x"]
    assert got[1] == ["a", "", "", "", "", "", "", "false", "'=SUM(A1)", "", ""]
    assert got[2] == ["b", "1", "5", "9", "1.25", "1.1", "1.4", "true", "'-1+2", "-3", "1"]
    assert got[3] == ["'+c", "2", "7", "8", "0.5", "", "", "false", "'@here", "-0.5", ""]


def test_csv_cells_from_content_cannot_become_formulas(project):
    project.write("content/a.json", [
        bundle(name="r1", title='Gemm BatchNorm Scaling Softmax · =HYPERLINK("http://x") · y', host="h", mean=1_000_000),
        bundle(name="r2", title="Gemm BatchNorm Scaling Softmax · +cmd · y", host="h", mean=2_000_000),
    ])
    project.built()
    rows = _csv(project, "h")
    labels = [r[rows[0].index("implementation")] for r in rows[1:]]
    assert labels == ["'=HYPERLINK(\"http://x\")", "'+cmd"]


def test_json_schema_is_committed_published_and_current(project):
    generated = publish.json_schema_bytes()
    assert SCHEMA_FILE.read_bytes() == generated, (
        "schema/kernelindex.dev-v1alpha1.json is stale; regenerate it with\n"
        "  python -m kindex_site.publish > schema/kernelindex.dev-v1alpha1.json")
    project.write("content/seed.json", SEED)
    project.built()
    assert (project.root / "site/schema/kernelindex.dev-v1alpha1.json").read_bytes() == generated
    schema = json.loads(generated)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for kind in ("Bundle", "BenchmarkRun", "BenchmarkProtocol", "ExecutionEnvironment"):
        assert kind in schema["$defs"]
    assert schema["anyOf"][0] == {"$ref": "#/$defs/Bundle"}
    assert schema["anyOf"][1]["items"] == {"$ref": "#/$defs/Bundle"}
    assert set(schema["$defs"]["Bundle"]["required"]) == {"run", "protocol", "environment"}
    assert 'href="/schema/kernelindex.dev-v1alpha1.json"' in project.page("")


# --- size -------------------------------------------------------------------------------------


def test_warns_when_the_site_or_a_file_nears_github_limits(project, monkeypatch):
    project.write("content/seed.json", SEED)
    code, _, err = project.build()
    assert code == 0 and "near" not in err
    monkeypatch.setattr(publish, "FILE_LIMIT_BYTES", 10_000)
    code, _, err = project.build("--clean")  # no input changed: only a clean build looks again
    assert code == 0
    assert re.search(r"^warning: site/schema/kernelindex\.dev-v1alpha1\.json is 1\d kB, over the 10 kB GitHub "
                     r"warns about for one file", err, re.M), err
    total = sum(p.stat().st_size for p in (project.root / "site").rglob("*") if p.is_file())
    project.write("kindex.toml", f"max_site_bytes = {int(total / 0.9)}\n")  # (the cap is the one rule)
    code, _, err = project.build("--clean")
    assert code == 0 and re.search(r"^warning: site/ holds \d+ kB, near max_site_bytes", err, re.M), err
    assert re.search(r"^warning: run pages take [\d.]+ kB of that: `run_pages = false`", err, re.M), err
    # Over it, a refusal (tests/test_bounds.py) saying what would help.
    project.write("kindex.toml", "run_pages = false\nmax_site_bytes = 20000\n")
    code, _, err = project.build("--clean")
    assert code == 1 and "over max_site_bytes (20 kB)" in err and "`run_pages = false`" not in err, err
    assert "`board_csvs = false`" in err, err


# --- the output folder ------------------------------------------------------------------------


def test_every_unsafe_output_folder_is_refused(project, monkeypatch):
    project.write("content/seed.json", SEED)
    (project.root / "content/sub").mkdir()
    (project.root / "data/inner").mkdir(parents=True)
    project.write("data/inner/x.json", SEED)
    home = project.root / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (project.root / "repo/.git").mkdir(parents=True)
    project.write("afile", "x")
    project.write("mine/notes.txt", "precious")
    project.write("static/style.css", "body{}")
    cases = [
        (["--out", "content"], "is inside the content folder"),
        (["--out", "content/sub"], "is inside the content folder"),
        (["--content", "data/inner", "--out", "data"], "contains the content folder"),
        (["--out", "."], "is the project folder"),
        (["--out", str(home)], "is your home folder"),
        (["--out", "/"], "is the file system root"),
        (["--out", "repo"], "holds a .git folder"),
        (["--out", "afile"], "is a file"),
        (["--out", "mine"], "is a non-empty folder kindex-site did not create"),
        (["--out", "static/site"], "is the static folder, or inside it"),
        (["--out", "templates"], "is the templates folder, or inside it"),  # (made or not: a site there would become it)
    ]
    for argv, reason in cases:
        before = {p: p.stat().st_mtime_ns for p in project.root.rglob("*")}
        code, _, err = project.build(*argv)
        assert code == 1, argv
        assert f"refusing to write the site there: it {reason}" in err, (argv, err)
        assert err.rstrip().endswith("nothing was written")
        assert {p: p.stat().st_mtime_ns for p in project.root.rglob("*")} == before, argv
    assert (project.root / "mine/notes.txt").read_text() == "precious"


def test_a_site_is_never_written_where_the_next_build_would_read_it_as_static_files(project):
    project.write("content/seed.json", SEED)
    code, _, err = project.build("--out", "static")  # no static/ of its own yet: it would become it
    assert code == 1 and "refusing to write the site there: it is the static folder, or inside it" in err
    assert not (project.root / "static").exists()


def test_project_folder_comes_from_the_config_file(project):
    project.write("proj/content/seed.json", SEED)
    project.write("proj/kindex.toml", 'output_dir = "."\n')
    code, _, err = project.build("--config", "proj/kindex.toml")
    assert code == 1 and "it is the project folder" in err


def test_output_folder_it_made_or_an_empty_one_is_replaced(project):
    project.write("content/seed.json", SEED)
    (project.root / "empty").mkdir()
    project.built("--out", "empty")
    assert (project.root / "empty/index.html").is_file()
    project.built("--out", "empty")  # marked now, so it is replaced again
    assert (project.root / "empty/.kindex-site").is_file()


def test_output_holds_no_symlinks_and_needs_no_dotfiles(project):
    rich_content(project)
    project.write("static/.DS_Store", "junk")
    project.write("static/.well-known/x", "junk")
    project.write("static/style.css", "body{}")  # the project's own; kindex.js and favicon.svg come bundled
    os.symlink(project.root / "static/style.css", project.root / "static/linked.css")
    project.built("--base-url", "https://example.org/kindex/")
    site = project.root / "site"
    assert not [p for p in site.rglob("*") if p.is_symlink()]
    dotted = [p.relative_to(site).as_posix() for p in site.rglob("*")
              if any(part.startswith(".") for part in p.relative_to(site).parts)]
    assert dotted == [".kindex-site"]  # the marker only, which the site never links to
    (site / ".kindex-site").unlink()  # what upload-pages-artifact publishes: no dotfiles
    crawl(site, "https://example.org/kindex/")
    assert (site / "static/style.css").read_text() == "body{}"  # the project's file wins over the bundled one
    assert (site / "static/kindex.js").stat().st_size > 1000


def test_symlinked_output_folder_is_written_where_it_points(project):
    project.write("content/seed.json", SEED)
    (project.root / "real").mkdir()
    os.symlink(project.root / "real", project.root / "site")
    project.built()
    assert (project.root / "site").is_symlink()
    assert (project.root / "real/index.html").is_file()
    assert not [p for p in project.root.iterdir() if p.name.startswith((".site.", ".real."))]


def test_renamed_run_leaves_no_stale_page_or_download(project):
    project.write("content/a.json", seed_problem_run("h", "Old impl", 1000))
    project.built("--base-url", "https://example.org/")
    project.write("content/a.json", seed_problem_run("h", "New impl", 1000))
    project.built("--base-url", "https://example.org/")
    site = project.root / "site"
    assert not (site / "runs/run-h-old-impl").exists()
    for file in site.rglob("*"):
        if file.is_file():
            assert b"old-impl" not in file.read_bytes(), file
    crawl(site, "https://example.org/")


def test_a_page_may_not_take_a_published_files_name(project):
    project.write("content/seed.json", SEED)
    project.write("content/pages/robots.txt.md", "# Robots\n")
    code, _, err = project.build()
    assert code == 1
    assert "content/pages/robots.txt.md: page name 'robots.txt' is reserved for the site's own /robots.txt/ section" in err
    assert not (project.root / "site").exists()


# --- atomic builds ----------------------------------------------------------------------------


def _leftovers(project) -> list[str]:
    return sorted(p.name for p in project.root.iterdir() if p.name.startswith(".site."))


def _previous_site(project):
    project.write("content/a.json", [seed_problem_run("h", "Old impl", 1000)])
    project.built()
    before = project.snapshot()
    project.write("content/a.json", [seed_problem_run("h", f"Impl {i}", 1000 + i) for i in range(5)])
    return before


def test_ctrl_c_while_writing_leaves_the_previous_site(project, monkeypatch):
    before = _previous_site(project)
    written = []

    def interrupted(path, data):
        if len(written) == 7:
            raise KeyboardInterrupt
        written.append(path)
        Path(path).write_bytes(data)

    monkeypatch.setattr(build_module, "_write_file", interrupted)
    code, _, err = project.build()
    assert code == 130 and "interrupted; nothing was written" in err
    assert len(written) == 7
    assert project.snapshot() == before
    assert _leftovers(project) == []


def test_error_while_writing_leaves_the_previous_site(project, monkeypatch):
    before = _previous_site(project)
    real_write, calls = os.write, []

    def disk_full(fd, data):
        calls.append(fd)
        if len(calls) == 5:  # (an error of os.write names no file: the build names it)
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    with monkeypatch.context() as patched:
        patched.setattr(build_module.os, "write", disk_full)
        code, _, err = project.build()
    assert code == 1 and "Traceback" not in err
    assert re.search(r"^site: cannot write: site/\S+: No space left on device$", err, re.M), err
    assert project.snapshot() == before
    assert _leftovers(project) == []


def _new_site(project) -> dict[str, bytes]:
    """What the content now in the project builds into, by a clean build elsewhere."""
    code, _, err = project.build("--out", "clean", "--clean")
    assert code == 0, err
    clean = project.root / "clean"
    return {p.relative_to(clean).as_posix(): p.read_bytes() for p in sorted(clean.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("failing_call", [1, 2])
def test_failure_during_the_swap_leaves_the_previous_site(project, monkeypatch, failing_call):
    """Where two renames swap the site in (no atomic exchange), either failing leaves the old site."""
    before = _previous_site(project)
    real_replace, calls = os.replace, []

    def replace(src, dst):
        calls.append((src, dst))
        if len(calls) == failing_call:
            raise OSError(16, "Device or resource busy", str(dst))
        real_replace(src, dst)

    with monkeypatch.context() as patched:
        patched.setattr(publish_swap, "_exchange", lambda a, b: False)
        patched.setattr(build_module.os, "replace", replace)
        code, _, err = project.build()
    assert code == 1 and "Traceback" not in err
    assert "site: cannot write: " in err and "Device or resource busy" in err
    assert project.snapshot() == before
    assert _leftovers(project) == []


def test_failure_of_the_atomic_exchange_leaves_the_previous_site(project, monkeypatch):
    before = _previous_site(project)

    def busy(a, b):
        raise OSError(16, "Device or resource busy", str(b))

    monkeypatch.setattr(publish_swap, "_exchange", busy)
    code, _, err = project.build()
    assert code == 1 and "site: cannot write: site: Device or resource busy" in err
    assert project.snapshot() == before
    assert _leftovers(project) == []


@pytest.mark.parametrize("during_call", [1, 2])
def test_ctrl_c_during_the_swap_is_held_then_stops_the_build_with_the_new_site(project, monkeypatch, during_call):
    """The swap is the commit point: Ctrl-C during it waits for it (and for the build's caches), then
    stops the build, exit 130, saying the new site is in place."""
    _previous_site(project)
    after = _new_site(project)
    real_replace, calls = os.replace, []

    def replace(src, dst):
        if ".kindex-cache" in str(dst):  # the cache's own files (os is one module): not the swap
            return real_replace(src, dst)
        calls.append((src, dst))
        real_replace(src, dst)
        if len(calls) == during_call:
            signal.raise_signal(signal.SIGINT)  # a real Ctrl-C, right after this rename

    with monkeypatch.context() as patched:
        patched.setattr(publish_swap, "_exchange", lambda a, b: False)
        patched.setattr(build_module.os, "replace", replace)
        code, _, err = project.build()
    assert code == 130 and "interrupted once the new site was in place: site/ is the new site, whole" in err
    assert len(calls) == 2  # old site out, new in
    assert project.snapshot() == after
    assert _leftovers(project) == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    code, out, _ = project.build()
    assert code == 0 and out.startswith("Up to date")  # (its caches were written)


def test_ctrl_c_once_the_first_site_is_in_place_keeps_it(project, monkeypatch):
    project.write("content/seed.json", SEED)
    real_replace = os.replace

    def replace(src, dst):
        real_replace(src, dst)
        if Path(dst).name == "site":
            signal.raise_signal(signal.SIGINT)  # right after the new folder became site/

    with monkeypatch.context() as patched:
        patched.setattr(build_module.os, "replace", replace)
        code, _, err = project.build()
    assert code == 130 and "interrupted once the new site was in place" in err
    assert project.snapshot() == _new_site(project) and _leftovers(project) == []


def test_a_big_old_site_is_removed_by_a_detached_process(project, monkeypatch):
    _previous_site(project)
    monkeypatch.setattr(publish_swap, "BACKGROUND_REMOVE_MIN", 1)  # as if the old site were big
    project.built("--clean")  # a full build: the old site is swapped out whole
    remover = publish_swap._removers[-1]
    assert remover.wait(timeout=60) == 0
    assert _leftovers(project) == []
    html = (project.root / "site/runs/run-h-impl-4/index.html").read_text()
    assert "Impl 4" in html and not (project.root / "site/runs/run-h-old-impl").exists()


def test_the_background_remover_and_a_sweep_share_a_folder_without_harm(project):
    """The next build's sweep may meet the folder while the remover works: both finish, nothing is left."""
    dead = 2**22 + 12345  # above Linux's default pid_max: no such process
    old = project.root / f".site.trash-{dead}-0a1b"
    for i in range(300):
        project.write(f"{old.name}/runs/r{i}/index.html", "old page")
    project.write(f"{old.name}/.kindex-site", "marker")
    publish_swap._remove(old, publish_swap.BACKGROUND_REMOVE_MIN)
    remover = publish_swap._removers[-1]
    publish_swap.sweep(project.root / "site")  # (the folder, by whichever name it has by then)
    assert remover.wait(timeout=60) == 0
    publish_swap.sweep(project.root / "site")
    assert _leftovers(project) == []


def test_leftovers_of_a_killed_build_are_swept(project):
    project.write("content/seed.json", SEED)
    project.built()
    dead = 2**22 + 12345  # above Linux's default pid_max: no such process
    for name in (f".site.new-{dead}-abc", f".site.old-{dead}-0011"):
        project.write(f"{name}/.kindex-site", "marker")
        project.write(f"{name}/index.html", "half")
    project.write(f".site.new-{dead}-nomarker/x", "not ours")  # no marker: left alone
    project.write(f".site.new-{os.getppid()}-xyz/.kindex-site", "marker")  # a live process's: left alone
    project.built("--clean")  # a killed build leaves no clean manifest, so the next build is a full one
    assert _leftovers(project) == sorted([f".site.new-{dead}-nomarker", f".site.new-{os.getppid()}-xyz"])


# --- the GitHub workflow ----------------------------------------------------------------------


def test_pages_workflow_builds_as_the_readme_says():
    from test_project import quick_start_commands

    workflow = (ROOT / ".github/workflows/pages.yml").read_text(encoding="utf-8")
    install_and_build = quick_start_commands()[0]
    assert re.search(re.escape(install_and_build) + r' --base-url "\$BASE_URL"\n', workflow)
    assert "BASE_URL: ${{ steps.pages.outputs.base_url }}" in workflow
    for action in ("actions/checkout@", "actions/configure-pages@", "actions/upload-pages-artifact@",
                   "actions/deploy-pages@"):
        assert f"uses: {action}" in workflow, action
    assert re.search(r"uses: actions/upload-pages-artifact@v\d+\n\s+with:\n\s+path: site\n", workflow)
    assert "include-hidden-files" not in workflow  # the site needs no dotfiles
    for permission in ("pages: write", "id-token: write"):
        assert permission in workflow
    import yaml  # a test extra: the workflow must parse as the YAML GitHub reads
    jobs = yaml.safe_load(workflow)["jobs"]
    steps = jobs["build"]["steps"]
    cached = next(i for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/cache@"))
    built = next(i for i, s in enumerate(steps) if "kindex-site build" in s.get("run", ""))
    assert cached < built and steps[cached]["with"]["path"] == ".kindex-cache"  # restored before the build
    assert jobs["deploy"]["needs"] == "build"
    assert jobs["deploy"]["environment"]["name"] == "github-pages"


def test_without_run_pages_every_run_is_still_reachable(project):
    rich_content(project)
    project.write("kindex.toml", 'run_pages = false\n')
    project.built("--base-url", "https://example.org/kindex/")
    site = project.root / "site"
    assert not (site / "runs").exists()
    assert crawl(site, "https://example.org/kindex/") > 0  # no link leads to a missing page or fragment
    index = project.api("index.json")
    for problem in index["problems"]:
        for board in project.api(f"problems/{problem['slug']}.json")["boards"]:
            for entry in board["entries"]:
                assert entry["url"].startswith(f"/kindex/problems/{problem['slug']}/#")
                # (its row in that table has no link: it would lead to the table itself; test_scale.py)
                assert f'id="{entry["url"].partition("#")[2]}"' in project.page(f"problems/{problem['slug']}")


def test_big_site_suggests_leaving_run_pages_out(project):
    rich_content(project)
    project.write("kindex.toml", "max_site_bytes = 50000\n")
    code, _, err = project.build()
    assert code == 1 and "`run_pages = false` in kindex.toml" in err


def test_a_resident_builders_size_warnings_are_a_clean_builds(project, monkeypatch, always_incremental):
    """`build --watch` and `serve` bring the site's sizes up to date with the files a rebuild rewrote
    or removed: after a page grows, a run goes and one comes, they warn as a clean build does."""
    from test_incremental import corpus, edit_json

    from kindex_site.build import build
    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config

    monkeypatch.chdir(project.root)
    monkeypatch.setattr(publish, "FILE_LIMIT_BYTES", 12_000)
    corpus(project)
    memo = Reuse(Path("site").absolute())
    build(load_config(None, {}), memo)
    edits = [
        lambda: edit_json(project, "content/a.json", lambda d: d[0]["run"]["spec"]["sourceNative"].update(
            note="x" * 20_000)),  # its run page grows past the limit
        lambda: (project.root / "content/c.json").unlink(),
        lambda: edit_json(project, "content/a.json", lambda d: d[0]["run"]["spec"]["sourceNative"].pop("note")),
    ]
    for edit in edits:
        edit()
        total = sum(p.stat().st_size for p in (project.root / "site").rglob("*") if p.is_file())
        monkeypatch.setattr(publish, "SITE_LIMIT_BYTES", total)  # (near it, whichever way the site moves)
        result = build(load_config(None, {}), memo)
        code, _, err = project.build("--out", "clean", "--clean", "--verbose")
        assert code == 0, err
        said = [w.replace("clean/", "site/") for w in err.splitlines() if w.startswith("warning:")]
        assert [f"warning: {w}" for w in result.warnings] == said
        grown = any(w.startswith("warning: site/runs/") and "the 12 kB GitHub warns about" in w for w in said)
        assert grown == (edit is not edits[2]), said
