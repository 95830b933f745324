"""Output keys: each output's key is a hash of exactly the inputs it shows (settings, templates,
code, the runs' keys and what physics, the reviews and the hosts' units made of them), so an
output whose key the last build wrote is unchanged.
"""

from __future__ import annotations

import hashlib
import json


def _digest(*parts: str) -> str:
    return _hashed(parts).hexdigest()


def _hashed(parts) -> hashlib._Hash:
    h = hashlib.sha1()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h


class ProblemKeys:
    """The keys of what one problem shows, made from its runs' keys (bundle bytes and place)."""

    __slots__ = ("problem", "board", "host", "implementation")

    def __init__(self, problem: str, board: dict[str, str], host: dict[str, str], implementation: dict[str, str]):
        self.problem = problem  # its page and its API document
        self.board = board  # board anchor → key: the board's CSV; with the run's own key, its run pages
        self.host = host  # host name → what the host's page and API document show of this problem
        self.implementation = implementation  # implementation slug → what its page shows of this problem


def problem_keys(base: str, slug: str, boards) -> ProblemKeys:
    board: dict[str, str] = {}
    hosts: dict[str, list[str]] = {}
    shown: dict[str, list[str]] = {}
    said: dict[int, str] = {}  # (a board's runs share a few Limits: each said once)
    for b in boards:
        runs = b.runs
        run_keys = [e.run.key for e in runs]  # (made when asked: once here)
        verdicts = [_verdict(e, said) for e in runs]  # what physics and the reviews made of each run
        board[b.anchor] = _digest(base, slug, b.anchor, *run_keys, *verdicts)
        hosts.setdefault(b.host, []).append(board[b.anchor])
        for e, run_key, verdict in zip(runs, run_keys, verdicts):
            # Its rows' ranks, speedups and trends depend on the rest of the board: part of the key.
            s, t = e.speedup, e.trend
            shown.setdefault(e.implementation_slug, []).append(
                f"{b.anchor}|{run_key}|{e.implementation}|{e.rank}|{e.tied}|{e.mixed_hardware}|{e.is_reference}|"
                f"{e.current}|{e.implausible}|{e.last_passed}|{b.workload}|{verdict}|"
                + ("-" if s is None else f"{s.value!r},{s.ci_low!r},{s.ci_high!r}")
                + ("|-" if t is None else f"|{t.verdict}"))
    return ProblemKeys(
        problem=_digest(base, slug, *board.values()),
        board=board,
        host={name: _digest(*keys) for name, keys in hosts.items()},
        implementation={impl: _digest(*dict.fromkeys(b.workload for b in boards), *parts) for impl, parts in shown.items()},
    )


def _verdict(e, said: dict[int, str]) -> str:
    """What physics and the reviews made of a run: pages show it, and none of it is in its bundle."""
    x = e.limits
    limits = said.get(id(x))
    if limits is None:
        limits = said[id(x)] = "-" if x is None else repr((x.gpu, x.floor_ns, x.floor_why_not, x.roofline_ns,
                                                            x.roofline_why_not, x.moved_bytes, x.bandwidth))
    return f"{limits}|{e.below_floor}|{e.verdict}|{e.implausible_latency}"


def run_key(keys: ProblemKeys, anchor: str, run) -> bytes:
    """A run page shows its run and its board. Its 20 bytes, not their hex: a big site has a million."""
    return _hashed((keys.board[anchor], run.key)).digest()


def list_key(base: str, items: list[str]) -> str:
    return _digest(base, *items)


def base_key(settings: str, content) -> str:
    """What every output depends on: settings, templates, code, the nav, and the publisher's documents
    (the workloads' costs and the runs' reviews, which change seldom)."""
    h = _hashed((settings, json.dumps([(p.slug, p.title) for p in content.pages])))
    for _, cost in sorted(content.costs.items()):
        h.update(cost.__pydantic_serializer__.to_json(cost))
    for _, reviews in sorted(content.reviews.items()):
        for review in reviews:
            h.update(review.__pydantic_serializer__.to_json(review))
    return h.hexdigest()


class OutputKeys:
    """The key of each output: a hash of the settings and of the content that output shows; pages that
    gather problems combine what each shows them, so an edit on one host re-makes that host's page only."""

    def __init__(self, lb, base: str, problems: dict[str, ProblemKeys], pages_markdown: dict[str, str]):
        self.base = base
        order = [p.slug for p in lb.problems]
        # Summaries count problems a page does not list: their pages are keyed by the summaries too.
        summaries_of: dict[str, list] = {}
        for name, summaries in lb.summaries.items():
            for s in summaries:
                summaries_of.setdefault(s.implementation_slug, []).append(s)
        self.host: dict[str, str] = {}
        for name in lb.content.environments:
            self.host[name] = _digest(base, name, repr(lb.summaries.get(name)),
                                      *(f"{slug}:{problems[slug].host[name]}" for slug in order
                                        if name in problems[slug].host))
        self.implementation = {
            impl.slug: _digest(base, impl.slug, impl.label, repr(summaries_of.get(impl.slug)), *(
                f"{slug}:{problems[slug].implementation[impl.slug]}" for slug in order
                if impl.slug in problems[slug].implementation))
            for impl in lb.implementations}
        self.markdown = {slug: _digest(base, slug, text) for slug, text in pages_markdown.items()}
        self.everything = _digest(base, *(problems[slug].problem for slug in order), *sorted(self.markdown.values()))

    def of_page(self, page) -> str:
        parts = page.url.split("/")
        if parts[0] == "hosts" and len(parts) > 2:  # a host's pages, its levels' index too, show that host alone
            return self.host.get(parts[1], self.everything)
        if page.template == "implementation.html":
            return self.implementation[page.url.split("/")[1]]
        if page.template == "page.html" and page.url.rstrip("/") in self.markdown:
            return self.markdown[page.url.rstrip("/")]
        if page.template == "404.html":
            return self.base
        return self.everything  # pages that summarise everything: home, indexes, search

    def of_file(self, path: str) -> str:
        parts = path.split("/")
        if parts[:3] == ["api", "v1", "hosts"]:
            return self.host.get(parts[3].removesuffix(".json"), self.everything)
        if parts[0] in ("static", "schema") or path == "robots.txt":
            return self.base  # settings and code alone shape these
        return self.everything
