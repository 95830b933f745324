"""axe-core on the bundled site's list and index pages (search, hosts, implementations, protocols, levels,
problems, runs, a host's levels and a page of one level, the 404): no serious or critical violation, at
desktop and phone width, light and dark (tests/test_browser_axe.py says how)."""

from __future__ import annotations

import pytest

from browser_support import BUNDLED_MORE, browser, bundled, visit  # noqa: F401 (fixtures)
from test_browser_axe import axe_violations, need_axe


@pytest.mark.release
def test_axe_finds_no_serious_violation_on_the_bundled_lists(visit, bundled):
    need_axe()
    found: list[str] = []
    for name, url in BUNDLED_MORE.items():
        axe_violations(visit().goto(bundled + url), name, found, "axe:bundled")
    assert not found, "\n".join(found)
