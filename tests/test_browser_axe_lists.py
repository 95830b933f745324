"""axe-core on the bundled site's list and index pages (search, hosts, implementations, protocols, levels,
problems, runs, a host's levels and a page of one level, the 404): no serious or critical violation, at
desktop and phone width, light and dark (tests/test_browser_axe.py says how)."""

from __future__ import annotations

import pytest

from browser_support import BUNDLED_MORE, browser, bundled, tabs, visit  # noqa: F401 (fixtures)
from conftest import sample
from test_browser_axe import axe_violations, need_axe


LISTS_SHARE = 0.5  # of the list pages outside a release run, drawn with the fixed seed


@pytest.mark.release
def test_axe_finds_no_serious_violation_on_the_bundled_lists(visit, bundled):
    need_axe()
    found: list[str] = []
    for name, url in sample(BUNDLED_MORE.items(), LISTS_SHARE, "axe:lists"):
        axe_violations(visit().goto(bundled + url), name, found, "axe:bundled")
    assert not found, "\n".join(found)
