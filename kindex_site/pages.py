"""What the site holds: every page's URL and the data it shows, and the JSON API documents.

Nothing here renders or writes; `build.py` does that. URLs are made in one place (`Urls`) so the
site works under a sub-path (GitHub project pages) as well as at the root.
"""

from __future__ import annotations

from dataclasses import dataclass

from .leaderboard import Board, Entry, Leaderboard

API_VERSION = "kindex-site/v1"


@dataclass(frozen=True)
class Page:
    url: str  # relative to the site root, '' for home, always ending in '/' otherwise
    template: str
    title: str
    context: dict

    @property
    def output_path(self) -> str:
        return self.url + "index.html"


@dataclass(frozen=True)
class Urls:
    base_path: str  # '/' or '/sub/path/'

    def __call__(self, relative: str) -> str:
        return self.base_path + relative

    def problem(self, slug: str) -> str:
        return self(f"problems/{slug}/")

    def board(self, board: Board) -> str:
        return self(f"problems/{board.problem.slug}/#{board.anchor}")

    def host(self, name: str) -> str:
        return self(f"hosts/{name}/")

    def implementation(self, slug: str) -> str:
        return self(f"implementations/{slug}/")

    def run(self, name: str) -> str:
        return self(f"runs/{name}/")

    def protocol(self, name: str) -> str:
        return self(f"protocols/{name}/")

    def api_problem(self, slug: str) -> str:
        return self(f"api/v1/problems/{slug}.json")


def std_ns(entry: Entry) -> int | float | None:
    """The latency standard deviation the run reports in nanoseconds, if it does."""
    for m in entry.run.doc.spec.measurements:
        if m.metric == "latency" and m.statistic == "std" and m.unit == "ns":
            return m.value
    return None


def entry_row(entry: Entry, urls: Urls) -> dict:
    """One table row and one API entry: the input's own nanoseconds, None where absent."""
    spec = entry.run.doc.spec
    lat = spec.timing.latencyNs if spec.timing else None
    return {
        "run": entry.run.name,
        "implementation": entry.implementation,
        "status": spec.status,
        "rank": entry.rank,
        "mean_ns": lat.mean if lat else None,
        "ci95_ns": list(lat.confidence95) if lat and lat.confidence95 else None,
        "min_ns": lat.minimum if lat else None,
        "max_ns": lat.maximum if lat else None,
        "std_ns": std_ns(entry),
        "samples": spec.timing.samples if spec.timing else None,
        "observed_at": spec.observedAt,
        "url": urls.run(entry.run.name),
    }


def board_view(board: Board, lb: Leaderboard, urls: Urls) -> dict:
    protocol = lb.content.protocols[board.protocol]
    return {
        "board": board,
        "environment": lb.content.environments[board.host],
        "protocol": protocol,
        "rows": [entry_row(e, urls) for e in board.entries],
        "implementation_urls": {e.run.name: urls.implementation(e.implementation_slug) for e in board.entries},
    }


def site_pages(lb: Leaderboard, urls: Urls, markdown_html: dict[str, str]) -> list[Page]:
    content = lb.content
    envs = content.environments
    pages: list[Page] = []
    runs_of_problem = {slug: sum(len(b.entries) for b in boards) for slug, boards in lb.boards.items()}

    levels: dict[str, list] = {}
    for p in lb.problems:
        heading = f"Level {p.level}" if p.level is not None else "Other problems"
        levels.setdefault(heading, []).append(
            {"problem": p, "runs": runs_of_problem[p.slug],
             "hosts": len({b.host for b in lb.boards[p.slug]})}
        )
    pages.append(Page("", "home.html", "Home", {
        "levels": levels,
        "counts": {
            "problems": len(lb.problems),
            "hosts": len(envs),
            "implementations": len(lb.implementations),
            "runs": len(content.runs),
        },
    }))

    for p in lb.problems:
        boards = [board_view(b, lb, urls) for b in lb.boards[p.slug]]
        pages.append(Page(f"problems/{p.slug}/", "problem.html", p.title, {
            "problem": p, "boards": boards, "api_url": urls.api_problem(p.slug),
        }))

    boards_of_host: dict[str, list[Board]] = {}
    for p in lb.problems:
        for b in lb.boards[p.slug]:
            boards_of_host.setdefault(b.host, []).append(b)
    hosts = sorted(envs.values(), key=lambda e: (e.metadata.title.casefold(), e.metadata.name))
    pages.append(Page("hosts/", "hosts.html", "Timing hosts", {
        "hosts": [{"environment": e, "boards": len(boards_of_host.get(e.metadata.name, [])),
                   "runs": sum(len(b.entries) for b in boards_of_host.get(e.metadata.name, []))}
                  for e in hosts],
    }))
    for e in hosts:
        name = e.metadata.name
        pages.append(Page(f"hosts/{name}/", "host.html", e.metadata.title, {
            "environment": e,
            "boards": [{"board": b, "best": _best(b), "runs": len(b.entries),
                        "implementations": len({x.implementation_slug for x in b.entries})}
                       for b in boards_of_host.get(name, [])],
        }))

    pages.append(Page("implementations/", "implementations.html", "Implementations", {
        "implementations": lb.implementations,
    }))
    for impl in lb.implementations:
        host_names = sorted({e.run.environment for e in impl.entries},
                            key=lambda n: (envs[n].metadata.title.casefold(), n))
        cells: dict[str, dict[str, list[dict]]] = {}
        for e in impl.entries:
            board = lb.board_of_run[e.run.name]
            cells.setdefault(board.problem.slug, {}).setdefault(e.run.environment, []).append(entry_row(e, urls))
        problems = [p for p in lb.problems if p.slug in cells]
        pages.append(Page(f"implementations/{impl.slug}/", "implementation.html", impl.label, {
            "implementation": impl, "hosts": [envs[n] for n in host_names],
            "problems": problems, "cells": cells,
        }))

    protocols = sorted(content.protocols.values(), key=lambda d: (d.metadata.title.casefold(), d.metadata.name))
    hosts_of_protocol: dict[str, set[str]] = {}
    for r in content.runs:
        hosts_of_protocol.setdefault(r.protocol, set()).add(r.environment)
    pages.append(Page("protocols/", "protocols.html", "Protocols", {"protocols": protocols}))
    for d in protocols:
        used_by = sorted(hosts_of_protocol.get(d.metadata.name, ()), key=lambda n: (envs[n].metadata.title.casefold(), n))
        pages.append(Page(f"protocols/{d.metadata.name}/", "protocol.html", d.metadata.title, {
            "protocol": d, "hosts": [envs[n] for n in used_by],
        }))

    for r in sorted(content.runs, key=lambda r: r.name):
        board = lb.board_of_run[r.name]
        entry = lb.entry_of_run[r.name]
        pages.append(Page(f"runs/{r.name}/", "run.html", r.doc.metadata.title, {
            "run": r, "entry": entry, "row": entry_row(entry, urls), "board": board,
            "environment": envs[r.environment], "protocol": content.protocols[r.protocol],
            "document": r.doc.model_dump(mode="json", exclude_unset=True),
        }))

    for md in content.pages:
        pages.append(Page(f"{md.slug}/", "page.html", md.title, {"html": markdown_html[md.slug], "source": md.source}))
    return pages


def _best(board: Board) -> Entry | None:
    return board.entries[0] if board.entries and board.entries[0].rank is not None else None


def api_documents(lb: Leaderboard, urls: Urls) -> dict[str, dict]:
    """Output path → JSON document. Values are the input's, in nanoseconds; None where absent."""
    docs: dict[str, dict] = {}
    docs["api/v1/index.json"] = {
        "apiVersion": API_VERSION,
        "runs": len(lb.content.runs),
        "problems": [
            {"slug": p.slug, "title": p.title, "url": urls.problem(p.slug), "api": urls.api_problem(p.slug),
             "runs": sum(len(b.entries) for b in lb.boards[p.slug])}
            for p in lb.problems
        ],
        "hosts": [
            {"name": name, "title": e.metadata.title, "url": urls.host(name)}
            for name, e in sorted(lb.content.environments.items())
        ],
    }
    for p in lb.problems:
        docs[f"api/v1/problems/{p.slug}.json"] = {
            "apiVersion": API_VERSION,
            "slug": p.slug,
            "title": p.title,
            "boards": [
                {
                    "host": b.host,
                    "workload": b.workload,
                    "protocol": b.protocol,
                    "comparability": {
                        "family": lb.content.protocols[b.protocol].spec.comparability.family,
                        "notes": lb.content.protocols[b.protocol].spec.comparability.notes,
                    },
                    "entries": [entry_row(e, urls) for e in b.entries],
                }
                for b in lb.boards[p.slug]
            ],
        }
    return docs
