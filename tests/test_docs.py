"""The documentation: a README that is a short user's guide leading to every doc, links that lead
somewhere, and stated numbers that are the code's.

The statistical rules have one source, the site's about page (content/pages/about.md): docs/statistics.md
points to it and restates none of its formulas, and the built about page carries them. Wherever a doc
states a number the code holds as a constant (a threshold, a cap, a budget), the number is read from
the doc's text and compared with the constant, so that changing one without the other fails here.
"""

from __future__ import annotations

import importlib.util
import re
from fractions import Fraction
from pathlib import Path
from statistics import NormalDist

import pytest

from conftest import visible_text

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
ABOUT = ROOT / "content/pages/about.md"
README = ROOT / "README.md"
README_MAX_LINES = 200


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def flat(path: Path) -> str:
    """A doc's text with every run of white space one space: sentences wrapped over lines read whole."""
    return " ".join(read(path).split())


def docs() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


# --- The README leads to every doc ---------------------------------------------------------------


def _prose(text: str) -> str:
    """Markdown without fenced code blocks and code spans (where a `](` is not a link)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def links(path: Path) -> list[str]:
    """The targets of a Markdown file's inline links and images, outside code."""
    return re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", _prose(read(path)))


def test_the_readme_is_a_short_guide_that_links_every_doc():
    lines = read(README).splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move a topic into docs/"
    targets = {(ROOT / t.split("#")[0]).resolve() for t in links(README) if not _external(t)}
    missing = [d.name for d in docs() if d.resolve() not in targets]
    assert not missing, f"docs not linked from README.md: {missing}"
    assert any(t.startswith("docs/screenshots/") and t.endswith(".png") for t in links(README))


def _external(target: str) -> bool:
    return re.match(r"[a-z][a-z0-9+.-]*:", target) is not None


def github_anchor(heading: str) -> str:
    """The id GitHub gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {github_anchor(h) for h in re.findall(r"^#{1,6} (.+)$", _fenced_out(read(path)), re.M)}


def _fenced_out(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


@pytest.mark.parametrize("path", [README, *docs()], ids=lambda p: p.name)
def test_relative_links_lead_to_files_and_headings(path):
    broken = []
    for target in links(path):
        if _external(target):
            continue
        file, _, fragment = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            broken.append(target)
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            broken.append(target)
    assert not broken, f"{path.name}: links to nothing: {broken}"


def test_github_anchors():
    assert github_anchor("Rebuild on change: `build --watch`") == "rebuild-on-change-build---watch"
    assert github_anchor("kindex.toml") == "kindextoml"
    assert github_anchor("The home page") == "the-home-page"


# --- The statistical rules: one source ------------------------------------------------------------


def formulas() -> list[str]:
    """The about page's formulas: its indented code lines (`ratio = a / b`, …)."""
    return [line.strip() for line in read(ABOUT).splitlines() if line.startswith("    ") and "=" in line]


def test_the_rules_have_one_source_the_about_page():
    lines = formulas()
    assert len(lines) >= 6
    statistics = read(DOCS / "statistics.md")
    assert "(../content/pages/about.md)" in statistics
    # Restated nowhere else: no doc and not the README copies a formula.
    for path in [README, *docs()]:
        text = read(path)
        copied = [f for f in lines if f in text]
        assert not copied, f"{path.name} restates the about page's {copied}; link to it instead"


def test_the_built_about_page_states_the_rules(bundled_site):
    text = visible_text((bundled_site / "about" / "index.html").read_text(encoding="utf-8"))
    for formula in formulas():
        assert " ".join(formula.split()) in text, formula
    for sentence in [
        "A is faster than B beyond noise (or beyond rounding) when high of a / b is below 1.",
        "rank(i) = 1 + the number of runs in faster(k) for any run k whose mean is at most i's",
        "fast_p = (number of problems of the suite it passed with speedup > p) / (number of problems of the suite)",
        "a verdict drawn from it says \"beyond rounding\"",
        "1× (as fast as the reference) is marked by a dashed line.",
        "hollow when its interval crosses 1× (within noise)",
        "A cell is coloured only when some implementation in that table beats the reference beyond noise",
    ]:
        assert sentence in text, sentence


# --- Stated numbers are the code's constants ---------------------------------------------------------

_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
_WORDS = {"twice": 2, "three times": 3, "four times": 4}


def number(text: str) -> Fraction:
    """'1.96' → 1.96, '76,000' → 76000, '256 KiB' → 262144, '2⁵³−1' → 2**53 − 1, '1e300', 'twice' → 2."""
    text = text.strip()
    if text in _WORDS:
        return Fraction(_WORDS[text])
    if m := re.fullmatch(r"(\d+)([⁰¹²³⁴⁵⁶⁷⁸⁹]+)([−-]1)?", text):
        return Fraction(int(m[1]) ** int(m[2].translate(_SUPERSCRIPT)) - (1 if m[3] else 0))
    if m := re.fullmatch(r"([\d.,]+) ?(B|KB|MB|GB|KiB|MiB|GiB)", text):
        return number(m[1]) * _UNITS[m[2]]
    return Fraction(text.replace(",", "").replace("_", ""))


def stated(path: Path, pattern: str) -> list[Fraction]:
    """Every number the pattern's groups capture in a doc (read flat), at least one."""
    found = re.findall(pattern, flat(path))
    assert found, f"{path.relative_to(ROOT)} no longer states {pattern!r}"
    return [number(g) for m in found for g in (m if isinstance(m, tuple) else (m,))]


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _constants() -> dict[str, object]:
    from kindex_site import (bundles, config, home_pages, jsonread, leaderboard, listing, load, models, paging, problem_pages,
                             publish, publish_swap, stats, strictjson)
    from kindex_site.importers import kernelbench

    import test_page_weight as page_weight

    weight = read(Path(page_weight.__file__))
    return {
        "z95": Fraction(str(stats.Z95)),
        "z95_importer": Fraction(str(kernelbench.Z95)),
        "ci_percent": Fraction(round(100 * (2 * NormalDist().cdf(stats.Z95) - 1))),
        "fast_p": [Fraction(str(p)) for p in leaderboard.FAST_P],
        "implausible": Fraction(str(config.FIELDS["implausible_speedup"][0])),
        "implausible_latency": Fraction(str(config.FIELDS["implausible_latency"][0])),
        "reference": config.FIELDS["reference"][0],
        "high_variance_percent": Fraction(str(leaderboard.HIGH_VARIANCE)) * 100,
        "outlier_factor": Fraction(leaderboard.OUTLIER_FACTOR),
        "bands": sorted(Fraction(str(low)) for _, low, _ in home_pages.SPEEDUP_BANDS if low > 0),
        "matrix_columns": problem_pages.MATRIX_COLUMNS,
        "per_page": paging.PROBLEMS_PER_PAGE,
        "json_bytes": jsonread.MAX_JSON_BYTES,
        "line_bytes": jsonread.MAX_LINE_BYTES,
        "page_bytes": load.MAX_PAGE_BYTES,
        "document_bytes": bundles.MAX_DOCUMENT_BYTES,
        "problems_per_file": jsonread.MAX_PROBLEMS_PER_FILE,
        "keep_documents": load.KEEP_DOCUMENTS_MAX_BYTES,
        "racy_seconds": Fraction(listing.RACY_NS, 10**9),
        "source_bytes": models.MAX_SOURCE_BYTES,
        "format_warnings": models.MAX_FORMAT_WARNINGS_PER_FILE,
        "depth": strictjson.MAX_DEPTH,
        "max_integer": strictjson.MAX_INTEGER,
        "max_float": Fraction(repr(strictjson.MAX_FLOAT)),
        "site_limit": publish.SITE_LIMIT_BYTES,
        "file_limit": publish.FILE_LIMIT_BYTES,
        "near_percent": Fraction(str(publish.NEAR)) * 100,
        "feed_entries": publish.FEED_ENTRIES,
        "background_remove": publish_swap.BACKGROUND_REMOVE_MIN,
        "page_limit": page_weight.LIMIT,
        "page_gzip_limit": number(re.search(r"gzip\.compress\([^\n]*\)\) < ([\d_]+)", weight)[1]),
        "rss_target": Fraction(_module(ROOT / "benchmarks/scale.py").RSS_LIMIT_KIB * 2**10),
    }


# (doc, pattern whose groups are numbers, constant)
STATED = [
    # the one comparison: 1.96, a 95% interval
    ("content/pages/about.md", r"\(a \+ h_a\) / \(b − h_b\) × exp\(\+([\d.]+) × sd\)", "z95"),
    ("content/pages/about.md", r"s = \(hi − lo\) / 2 / ([\d.]+) / mean", "z95"),
    ("content/pages/about.md", r"\(a − h_a\) / \(b \+ h_b\) × exp\(−([\d.]+) × sd\)", "z95"),
    ("content/pages/about.md", r"mean ± ([\d.]+) × std / √samples", "z95_importer"),
    ("content/pages/about.md", r"\b(\d+)% (?:CI|confidence interval|interval)\b", "ci_percent"),
    ("README.md", r"\b(\d+)% (?:CI|confidence interval|interval)\b", "ci_percent"),
    ("docs/pages.md", r"\b(\d+)% (?:CI|confidence interval|interval)\b", "ci_percent"),
    # speedups, summaries and warnings
    ("content/pages/about.md", r"for p = (\d+(?:\.\d+)?), (\d+(?:\.\d+)?), (\d+(?:\.\d+)?) and (\d+(?:\.\d+)?)\)", "fast_p"),
    ("content/pages/about.md", r"A speedup of (\d+)× or more \(`implausible_speedup`", "implausible"),
    ("docs/building.md", r"\| `implausible_speedup` \| `([\d.]+)` \|", "implausible"),
    ("docs/building.md", r"\| `implausible_latency` \| `([\d.]+)` \|", "implausible_latency"),
    ("content/pages/about.md", r"more than ([\d,]+) times above or below", "implausible_latency"),
    ("content/pages/about.md", r"the standard deviation is above (\d+)% of the mean", "high_variance_percent"),
    ("content/pages/about.md", r"the slowest sample is above (twice|three times|four times|\d+ times) the mean", "outlier_factor"),
    ("content/pages/about.md", r"the colour then tells the fastest speedup: under ([\d.]+)×, [\d.]+× to ([\d.]+)×, "
                               r"[\d.]+× to ([\d.]+)×, [\d.]+× to ([\d.]+)×, or [\d.]+× or more", "bands"),
    ("docs/pages.md", r"A speedup table of more than (\d+) implementations", "matrix_columns"),
    # the content format's caps and bounds
    ("docs/content-format.md", r"A `\.json` file may hold up to (\d+ [KMG]iB)", "json_bytes"),
    ("docs/content-format.md", r"a `\.jsonl` line (\d+ [KMG]iB)", "line_bytes"),
    ("docs/content-format.md", r"a Markdown page (\d+ [KMG]iB)", "page_bytes"),
    ("docs/content-format.md", r"a source file (\d+ [KMG]iB)", "source_bytes"),
    ("docs/content-format.md", r"may be up to (\d+ [KMG]iB) of JSON", "document_bytes"),
    ("docs/content-format.md", r"UTF-8 text and hold at most (\d+ [KMG]iB)", "source_bytes"),
    ("docs/content-format.md", r"a file stops being read after (\d+) problems", "problems_per_file"),
    ("docs/content-format.md", r"at most (\d+) lines per file", "format_warnings"),
    ("docs/content-format.md", r"nest at most (\d+) levels deep", "depth"),
    ("docs/security.md", r"nesting past (\d+) levels", "depth"),
    ("docs/content-format.md", r"positive JSON integers up to (2⁵³−1)", "max_integer"),
    ("docs/content-format.md", r"integers within ±\((2⁵³−1)\)", "max_integer"),
    ("docs/content-format.md", r"other numbers finite and within ±(1e\d+)", "max_float"),
    # rebuilds, publishing and size
    ("docs/building.md", r"a file written within ([\d.]+) s of being read", "racy_seconds"),
    ("docs/serve.md", r"a file written within ([\d.]+) s of being read", "racy_seconds"),
    ("docs/publishing.md", r"reaches (\d+)% of GitHub Pages' \d+ GB limit, or one file reaches (\d+)%", "near_percent"),
    ("docs/publishing.md", r"of GitHub Pages' (\d+ GB) limit", "site_limit"),
    ("docs/publishing.md", r"reaches \d+% of (\d+ MB), the size at which GitHub warns", "file_limit"),
    ("docs/publishing.md", r"an Atom feed of the (\d+) newest runs", "feed_entries"),
    ("docs/publishing.md", r"From ([\d,]+) files on, a detached process removes it", "background_remove"),
    ("docs/scale.md", r"A list of more than (\d+) problems is split into pages of (\d+)", "per_page"),
    ("docs/pages.md", r"over (\d+) problems: the first (\d+) here", "per_page"),
    # budgets
    ("docs/performance.md", r"\| HTML \| (\d+ KB) \(([\d,]+) bytes\) \|", "page_limit"),
    ("docs/performance.md", r"\| gzip'd \| (\d+ KB) \(([\d,]+) bytes\) \|", "page_gzip_limit"),
    ("docs/pages.md", r"weighs under (\d+ KB)", "page_limit"),
    ("docs/performance.md", r"peak RSS \(target (\d+ GiB)\)", "rss_target"),
    ("docs/performance.md", r"Below `load\.KEEP_DOCUMENTS_MAX_BYTES` \((\d+ MiB)", "keep_documents"),
]


@pytest.fixture(scope="module")
def constants() -> dict[str, object]:
    return _constants()


@pytest.mark.parametrize("doc, pattern, name", STATED, ids=[f"{d.split('/')[-1]}:{n}" for d, _, n in STATED])
def test_a_stated_number_is_the_codes(constants, doc, pattern, name):
    values = stated(ROOT / doc, pattern)
    want = constants[name]
    if isinstance(want, list):  # a list stated in one sentence, in order
        assert values == want, f"{doc} states {[float(v) for v in values]}; the code has {[float(w) for w in want]}"
    else:
        wrong = [float(v) for v in values if v != want]
        assert not wrong, f"{doc} states {wrong} where the code has {float(want)} ({name})"


def test_the_reference_named_is_the_default(constants):
    assert f"The reference implementation is {constants['reference']}" in flat(ABOUT)
    assert f"| `reference` | `{constants['reference']}` |" in flat(DOCS / "building.md")


# --- DEVELOPERS.md: the architecture names every module, and only what exists --------------------


DEVELOPERS = ROOT / "DEVELOPERS.md"


def test_developers_md_says_what_every_module_owns():
    text = read(DEVELOPERS)
    modules = sorted(p.name for p in (ROOT / "kindex_site").glob("*.py") if not p.name.startswith("__"))
    unnamed = [m for m in modules if f"`{m}`" not in text]
    assert not unnamed, f"DEVELOPERS.md does not say what these modules own: {unnamed}"
    assert "`importers/`" in text


def test_developers_md_names_only_code_that_exists():
    """Every `module.py` and `module.name` (a function, class or constant, dotted further for a
    method) that DEVELOPERS.md names is in the package, so the page cannot drift from the code."""
    text = read(DEVELOPERS)
    package = ROOT / "kindex_site"
    for name in re.findall(r"`(\w+\.py)`", text):
        assert (package / name).exists() or (package / "importers" / name).exists(), name
    for module, attrs in re.findall(r"`(\w+)\.((?:\w+\.)*\w+)(?:\(\))?`", text):
        path = package / f"{module}.py"
        if module in {"kindex", "content"} or attrs == "py" or not path.exists():
            continue
        source = read(path)
        for attr in attrs.split("."):
            assert re.search(rf"\b(def|class) {attr}\b|^{attr}\b|\b{attr}\s*[:=]|def {attr}\(", source, re.M), \
                f"DEVELOPERS.md names {module}.{attrs}, which kindex_site/{module}.py does not define"
