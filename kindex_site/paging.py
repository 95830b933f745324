"""A page (`Page`: its URL, template and what it is given), and lists of problems split into pages
(`paged`, `Pager`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from .leaderboard import Problem
from .urls import Urls


@dataclass(frozen=True, slots=True)  # (slots: a big site plans a page per run)
class Page:
    url: str  # relative to the site root, '' for home, always ending in '/' otherwise
    template: str
    title: str
    # What the template is given; or a function making it, never called while the key is unchanged.
    context: dict | Callable[[], dict]
    # The content file its context reads again when it is made: build.py makes those pages together.
    reads: object = None

    def values(self) -> dict:
        return self.context() if callable(self.context) else self.context

    @property
    def output_path(self) -> str:
        return self.url + "index.html"


# (template, problem, variant, a function giving the context) → the HTML of a problem's row on a page
# that lists problems; build.py keeps the rows, so a rebuild re-renders only changed problems' rows.
ProblemRow = Callable[[str, Problem, tuple, Callable[[], dict]], str]


# Longer lists of problems are split into pages of this many, each linking to the others.
PROBLEMS_PER_PAGE = 500


# A host's page of one level lists at most this many latency tables (tests/test_host_pages.py).
TABLES_PER_HOST_PAGE = 60


@dataclass(frozen=True)
class Pager:
    """Which page of a list split into pages this is (numbers from 1), and every page's URL."""

    number: int
    urls: tuple[str, ...]
    items: int  # problems in the whole list
    first_item: int  # (numbers from 1, as shown)
    last_item: int

    def part(self, items: list) -> list:
        return items[self.first_item - 1:self.last_item]


def page_bounds(weights: list[int], limit: int) -> list[tuple[int, int]]:
    """The (first, last) item of each page (numbers from 1), in order: as many items as fit in `limit`,
    each weighing its weight (one that weighs more than `limit` has a page of its own)."""
    bounds: list[tuple[int, int]] = []
    first, load = 1, 0
    for n, w in enumerate(weights, start=1):
        if load and load + w > limit:
            bounds.append((first, n - 1))
            first, load = n, 0
        load += w
    return bounds + [(first, len(weights))] if weights else [(1, 0)]


def paged(urls: Urls, url: str, template: str, title: str, items: int,
          context: Callable[[Pager | None], dict], later_title: str | None = None,
          weights: list[int] | None = None, limit: int | None = None) -> list[Page]:
    """A page listing `items` problems, or, past PROBLEMS_PER_PAGE (or `limit` of their `weights`), its
    first page at `url` and the others at url/page/<n>/, titled `later_title`. The pages' keys are the
    first's, which covers every problem listed on any of them."""
    bounds = page_bounds(weights if weights is not None else [1] * items, limit or PROBLEMS_PER_PAGE)
    count = len(bounds)
    if count <= 1:
        return [Page(url, template, title, partial(context, None))]
    page_urls = [url] + [f"{url}page/{n}/" for n in range(2, count + 1)]
    absolute = tuple(urls(u) for u in page_urls)
    return [Page(u, template, title if n == 1 else f"{later_title or title} (page {n} of {count})",
                 partial(context, Pager(n, absolute, items, *bounds[n - 1])))
            for n, u in enumerate(page_urls, start=1)] + [
        # (url/page/, a trimmed page's URL, leads to the first page)
        Page(f"{url}page/", "redirect.html", title, {"former": None, "target": absolute[0], "list_title": title})]
