"""axe-core (the copy inside the axe-playwright-python package) on both sites of tests/browser_support.py,
served under /kindex/ and driven by Playwright in Debian's Chromium: no serious or critical violation on
any page kind, at desktop and phone width, light and dark.

Without Playwright, axe-playwright-python or Chromium these tests skip, unless KINDEX_REQUIRE_BROWSER=1
(set by `bash scripts/test`), where they fail instead.
"""

from __future__ import annotations

import pytest

from browser_support import BUNDLED, PAGES, browser, bundled, site, tabs, unavailable, visit  # noqa: F401 (fixtures)
from conftest import sample

SERIOUS = ("serious", "critical")


# Each page is checked at both widths, light and dark, in a release run; the default run checks each page
# in one of the four, a fixed-seed draw for each page (docs/testing.md).
LOOKS = [(1280, "light"), (1280, "dark"), (360, "dark"), (360, "light")]
LOOKS_SHARE = 0.25


def axe_violations(page, name: str, found: list[str], series: str) -> None:
    """axe-core's serious and critical violations on a page, in each look of `series`' sample of LOOKS
    (all of them in a release run). Rows after a table's 40th are removed first: they repeat the markup
    of the first 40 (the bundled host page has 500), and axe reads the whole page even for what it is
    told to leave out (the implementation page's 4,800 elements take it three times as long)."""
    from axe_playwright_python.base import AXE_SCRIPT  # axe.min.js, shipped inside the package

    page.evaluate("document.querySelectorAll('tbody tr:nth-child(n+41)').forEach(row => row.remove())")
    page.evaluate(AXE_SCRIPT)
    for width, scheme in sample(LOOKS, LOOKS_SHARE, f"{series}:{name}"):
        page.set_viewport_size({"width": width, "height": 900})
        page.emulate_media(color_scheme=scheme)
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        for v in result["violations"]:
            if v["impact"] in SERIOUS:
                targets = "; ".join(str(n["target"][0]) for n in v["nodes"][:5])
                found.append(f"{name} {width}px {scheme}: {v['id']} ({v['impact']}): {v['help']}: {targets}")


def need_axe() -> None:
    try:
        import axe_playwright_python.base  # noqa: F401
    except ImportError:
        unavailable("the axe-playwright-python package is not installed (pip install -e '.[test]')")


@pytest.mark.release
def test_axe_finds_no_serious_violation(visit, site):
    """axe-core on each page at desktop and phone width, light and dark, with the script's additions shown."""
    need_axe()
    found: list[str] = []
    for name, url in {**PAGES, "search": "search/?q=kernel"}.items():
        page = visit().goto(site + url)
        if name == "home":  # the search list open too
            page.get_by_role("combobox").fill("soft")
            page.get_by_role("listbox").wait_for()
        if name == "problem":  # the extra columns shown
            page.locator("details.more summary").first.click()
        axe_violations(page, name, found, "axe:representative")
    assert not found, "\n".join(found)


@pytest.mark.release
def test_axe_finds_no_serious_violation_on_the_bundled_site(visit, bundled):
    """The bundled site's main page kinds, the about page's formula blocks among them (the others:
    tests/test_browser_axe_lists.py, a file of its own so that another worker runs it)."""
    need_axe()
    found: list[str] = []
    for name, url in BUNDLED.items():
        axe_violations(visit().goto(bundled + url), name, found, "axe:bundled")
    assert not found, "\n".join(found)
