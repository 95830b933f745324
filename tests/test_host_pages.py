"""Host pages a reader finishes: every page of a timing host, its overview and each page of each level,
stays under 8,000 px tall at 1280 px and under 25,000 px on a 360 px phone, measured in Chromium, for
the bundled site and for a host with many problems of several tables each and long names."""

from __future__ import annotations

import json
import re

import pytest

from browser_support import _served, browser, bundled  # noqa: F401 (fixtures)
from conftest import seed_problem_run

LIMITS = {1280: 8_000, 360: 25_000}
LONG = "Conv3d GroupNorm HardSwish Softmax Mean with an unusually long descriptive problem name as some sources give"


# A page's width and height as laid out, and the links a crawl follows from it, in one round trip.
MEASURE = """() => ({width: document.documentElement.clientWidth, height: document.documentElement.scrollHeight,
  levels: Array.from(document.querySelectorAll('ul.levels a'), a => a.href),
  pages: Array.from(document.querySelectorAll('nav.pager a'), a => a.href)})"""


def heights(browser, base: str) -> dict[tuple[int, str], int]:  # noqa: F811
    """Every page of every host (each host's page, each level page linked from it and their further
    pages), each loaded once and measured at each width of LIMITS: the script reads no width, so a
    page resized is laid out as one loaded at that width. Each page is measured first at the width
    it loaded at, so that it is laid out again once, not twice."""
    context = browser.new_context(viewport={"width": max(LIMITS), "height": 900})
    page = context.new_page()
    measured: dict[tuple[int, str], int] = {}
    widths = list(LIMITS)

    def measure(url: str) -> dict:
        nonlocal widths
        page.goto(url, wait_until="load")
        for i, width in enumerate(widths):
            if i:
                page.set_viewport_size({"width": width, "height": 900})
            found = page.evaluate(MEASURE)
            assert found["width"] == width
            measured[width, url] = found["height"]
        widths = widths[::-1]  # (the next page loads at the width this one was left at)
        return found

    hosts = json.loads(page.goto(base + "api/v1/index.json").text())["hosts"]
    for host in hosts:
        for level in measure(base + host["url"].split("/kindex/", 1)[1])["levels"]:
            for url in measure(level)["pages"]:
                if (max(LIMITS), url) not in measured:
                    measure(url)
    context.close()
    return measured


def test_every_page_of_the_bundled_hosts_is_short_enough(browser, bundled):  # noqa: F811
    measured = heights(browser, bundled)
    assert len({url for _, url in measured}) >= 5 + 5 * 3  # five hosts, each with its three levels at least
    too_tall = {key: h for key, h in measured.items() if h >= LIMITS[key[0]]}
    assert not too_tall, too_tall


@pytest.fixture(scope="module")
def crowded(tmp_path_factory):
    """A host with 150 problems, each timed at three workloads by four implementations, with long names."""
    root = tmp_path_factory.mktemp("crowded")
    runs = []
    for n in range(1, 151):
        for workload in range(3):
            for impl, mean in (("PyTorch eager", 2_000_000), ("torch.compile (inductor, max-autotune-no-cudagraphs)", 1_500_000),
                               ("claude-3.5-sonnet (generated CUDA)", 900_000), ("gpt-o1 (generated CUDA)", 1_100_000)):
                doc = seed_problem_run("crowded-host", impl, mean + n)
                spec = doc["run"]["spec"]
                doc["run"]["metadata"]["name"] = f"r-{n}-{workload}-{re.sub(r'[^a-z0-9]+', '-', impl.lower()).strip('-')}"
                spec["sourceNative"]["externalId"] = f"H/t/level2/{n}_{LONG.replace(' ', '_')}_{n}.py"
                spec["workloadDigest"] = f"sha256:{n:032x}{workload:032x}"
                spec["observedAt"] = f"2025-0{workload + 1}-01T00:00:00Z"
                runs.append(doc)
    (root / "content").mkdir()
    (root / "content" / "runs.json").write_text(json.dumps(runs), encoding="utf-8")
    base, httpd = _served(root, [])
    try:
        yield base
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_crowded_host_is_split_into_pages_each_short_enough(browser, crowded):  # noqa: F811
    measured = heights(browser, crowded)
    urls = {url for _, url in measured}
    assert len(urls) >= 1 + 8  # its page, and level 2's 450 tables over 8 pages at least
    too_tall = {key: h for key, h in measured.items() if h >= LIMITS[key[0]]}
    assert not too_tall, too_tall
