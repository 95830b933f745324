"""What the site holds, but a problem's pages (problem_pages.py) and the API (api.py): every other page, in
order (`site_pages`). Nothing here renders or writes; `build.py` does that."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from . import paging
from .charts import Box, format_sol, quartiles
from .entry_rows import result_sol
from .home_pages import best_entry, home_pages, overview_hosts, tied_with
from .leaderboard import ALL_LEVELS, Board, Entry, Leaderboard, Problem, Summary, group_order, group_title, level_group
from .models import HELD_VERDICTS
from .paging import Page, Pager, ProblemRow, paged
from .physics import Limits
from .search import page_context
from .tables import SUMMARY, TABLES
from .urls import Urls


def site_pages(lb: Leaderboard, urls: Urls, markdown_html: Callable[[str], str], problem_row: ProblemRow) -> list[Page]:
    """Every page but the problems' own (`problem_page`, `run_page`): home, search, hosts, implementations,
    protocols, former problem names and the Markdown pages, in that order."""
    return (home_pages(lb, urls, problem_row) + [search_page(lb, urls)] + host_pages(lb, urls, problem_row)
            + implementation_pages(lb, urls, problem_row) + protocol_pages(lb) + redirect_pages(lb, urls)
            + markdown_pages(lb, markdown_html))


def host_pages(lb: Leaderboard, urls: Urls, problem_row: ProblemRow) -> list[Page]:
    """The list of timing hosts, then each host's page and, per level, pages of that level's
    summaries and problems, at most TABLES_PER_HOST_PAGE tables each."""
    boards_of_host = boards_by_host(lb)
    hosts = overview_hosts(lb)  # (by title)
    pages = [Page("hosts/", "hosts.html", "Timing hosts", {
        "hosts": [{"environment": e, "boards": len(boards_of_host.get(e.metadata.name, [])),
                   "runs": sum(len(b.runs) for b in boards_of_host.get(e.metadata.name, []))}
                  for e in hosts],
    })]
    for e in hosts:
        name = e.metadata.name
        levels = _host_levels(boards_of_host.get(name, []))
        pages.append(Page(f"hosts/{name}/", "host.html", e.metadata.title,
                          partial(_host_context, lb, urls, e, boards_of_host.get(name, []), levels)))
        if levels:  # (trimming a level page's URL lands on a page too)
            pages.append(Page(f"hosts/{name}/levels/", "folder.html", f"{e.metadata.title}: levels", {
                "folder": "host-levels", "host_url": urls.host(name), "problems": sum(map(len, levels.values())),
                "levels": _host_level_links(urls, name, levels, {})}))
        for group, problems in levels.items():
            title = f"{e.metadata.title} · {group_title(group)}"
            pages += paged(urls, f"hosts/{name}/levels/{group}/", "host.html", title, len(problems),
                           partial(_host_level_context, lb, urls, problem_row, e, group, problems),
                           weights=[len(bs) for bs in problems], limit=paging.TABLES_PER_HOST_PAGE)
    return pages


def boards_by_host(lb: Leaderboard) -> dict[str, list[Board]]:
    """Each host's boards, in page order."""
    found: dict[str, list[Board]] = {}
    for p in lb.problems:
        for b in lb.boards[p.slug]:
            found.setdefault(b.host, []).append(b)
    return found


def counted(n: int, noun: str) -> str:
    return f"{n:,} {noun if n == 1 else noun + 's'}"


def _host_levels(boards: list[Board]) -> dict[str, list[list[Board]]]:
    """A host's boards by the suite's group (level) of their problem, then by problem, in page order."""
    found: dict[str, dict[str, list[Board]]] = {}
    for b in boards:
        found.setdefault(level_group(b.problem), {}).setdefault(b.problem.slug, []).append(b)
    return {g: list(found[g].values()) for g in sorted(found, key=group_order)}


def _host_rows(problem_row: ProblemRow, name: str, problem: Problem, boards: list[Board]) -> str:
    return problem_row("host_row.html", problem, (name, ()), lambda: {"boards": [
        {"board": b, "best": best_entry(b), "tied_with": tied_with(b), "runs": len(b.runs), "several": len(boards) > 1,
         "implementations": len({e.implementation_slug for e in b.entries})} for b in boards]})


def _host_context(lb: Leaderboard, urls: Urls, e, boards: list[Board], levels: dict[str, list[list[Board]]]) -> dict:
    name = e.metadata.name
    summaries = lb.summaries[name]
    tallies = summaries[0].tallies if summaries else {}
    return {
        "environment": e, "summaries": summaries, "reference": lb.reference, "level": None,
        "held_why": held_out_reasons(lb, summaries), "physics": host_physics(boards),
        "off_by": off_by(lb.off_hosts.get(name)),
        "everything": tallies[ALL_LEVELS] if tallies else None,
        "levels": _host_level_links(urls, name, levels, tallies),
        "levels_urls": {g: urls(f"hosts/{name}/levels/{g}/") for g in levels},
        "compared": lb.compared_boards.get(name, 0), "api_url": urls.api_host(name), "summary_columns": SUMMARY,
    }


def _host_level_links(urls: Urls, name: str, levels: dict[str, list[list[Board]]], tallies: dict) -> list[dict]:
    return [{"group": g, "title": group_title(g), "url": urls(f"hosts/{name}/levels/{g}/"), "problems": len(problems),
             "tables": sum(len(bs) for bs in problems), "suite": tallies[g].suite if g in tallies else None}
            for g, problems in levels.items()]


def _host_level_context(lb: Leaderboard, urls: Urls, problem_row: ProblemRow, e, group: str,
                        problems: list[list[Board]], pager: Pager | None) -> dict:
    name = e.metadata.name
    summaries = [s for s in lb.summaries[name] if group in s.tallies] if pager is None or pager.number == 1 else []
    return {
        "environment": e, "summaries": summaries, "reference": lb.reference, "level": group,
        "level_title": group_title(group), "suite": summaries[0].tallies[group].suite if summaries else None,
        "held_why": held_out_reasons(lb, summaries), "host_url": urls.host(name), "api_url": urls.api_host(name),
        "tables": sum(len(bs) for bs in problems), "problems": len(problems), "pager": pager,
        "rows": [_host_rows(problem_row, name, bs[0].problem, bs) for bs in (pager.part(problems) if pager else problems)],
        "columns": TABLES, "summary_columns": SUMMARY,
    }


def implementation_pages(lb: Leaderboard, urls: Urls, problem_row: ProblemRow) -> list[Page]:
    """The list of implementations, then each one's page: its summaries and a row per problem it timed."""
    pages = [Page("implementations/", "implementations.html", "Implementations", {
        "implementations": lb.implementations,
    })]
    made = _Implementations(lb, urls, problem_row)
    for impl in lb.implementations:
        pages += paged(urls, f"implementations/{impl.slug}/", "implementation.html", impl.label,
                       len(lb.problems_of_implementation[impl.slug]), partial(made.context, impl))
    return pages


@dataclass(frozen=True)
class _Implementations:
    """What the implementation pages' contexts are made from, with this build's lookups by
    implementation (a scan per page would be quadratic)."""

    lb: Leaderboard
    urls: Urls
    problem_row: ProblemRow
    summaries: dict[str, dict[str, list[Summary]]] = field(default_factory=dict)  # host → implementation slug → its
    entries: dict[str, dict[str, list[tuple[Board, Entry]]]] = field(default_factory=dict)  # problem slug → same

    def context(self, impl, pager: Pager | None) -> dict:
        lb = self.lb
        envs = lb.content.environments
        host_names = tuple(sorted(impl.hosts, key=lambda n: (envs[n].metadata.title.casefold(), n)))
        timed = lb.problems_of_implementation[impl.slug]
        problems = [p for p in lb.problems if p.slug in timed]
        first = pager is None or pager.number == 1
        summaries = [s for n in host_names for s in _by_implementation(
            self.summaries, n, lb.summaries[n], lambda s: [(s.implementation_slug, s)]).get(impl.slug, ())]
        groups = sorted({g for s in summaries for g in s.tallies}, key=group_order)
        return {
            "groups": groups, "group_titles": {g: group_title(g) for g in groups},
            "implementation": impl, "hosts": [envs[n] for n in host_names], "problems": problems,
            "pager": pager, "first": first,
            "rows": [self.problem_row("implementation_row.html", p, (impl.slug, host_names),
                                      lambda p=p: {"problem": p, "lines": self.cells(impl.slug, p, host_names)})
                     for p in (pager.part(problems) if pager else problems)],
            "summaries": summaries if first else [], "reference": lb.reference, "environments": envs,
            "held_why": held_out_reasons(lb, summaries) if first else {}, "summary_columns": SUMMARY,
        }

    def cells(self, impl_slug: str, problem: Problem, host_names: tuple[str, ...]) -> list[dict]:
        """An implementation's current runs of one problem: a line per workload, each with rows per host."""
        workloads = self.lb.workloads[problem.slug]
        mine = _by_implementation(self.entries, problem.slug, self.lb.boards[problem.slug],
                                  lambda b: [(e.implementation_slug, (b, e)) for e in b.entries]).get(impl_slug, ())
        lines = []
        for number, workload in enumerate(workloads, start=1):
            cells: dict[str, list[dict]] = {}
            for b, e in mine:
                if b.workload == workload.digest:
                    cells.setdefault(e.run.environment, []).append(_cell(e, self.urls))
            if cells:
                lines.append({"workload": workload, "number": number, "of": len(workloads),
                              "cells": [sorted(cells.get(name, []), key=lambda row: row["run"]) for name in host_names]})
        return lines


def _by_implementation(made: dict, key: str, items: list, parts: Callable) -> dict[str, list]:
    """`items`' parts (a summary; a board's entries) by implementation slug, in order: made once per `key`."""
    found = made.get(key)
    if found is None:
        found = made[key] = {}
        for item in items:
            for slug, part in parts(item):
                found.setdefault(slug, []).append(part)
    return found


def protocol_pages(lb: Leaderboard) -> list[Page]:
    """The list of protocols, then each one's page with the hosts timed under it."""
    envs = lb.content.environments
    protocols = sorted(lb.content.protocols.values(), key=lambda d: (d.metadata.title.casefold(), d.metadata.name))
    hosts_of_protocol: dict[str, set[str]] = {}
    for boards in lb.boards.values():
        for b in boards:
            hosts_of_protocol.setdefault(b.protocol, set()).add(b.host)
    pages = [Page("protocols/", "protocols.html", "Protocols", {"protocols": protocols})]
    for d in protocols:
        used_by = sorted(hosts_of_protocol.get(d.metadata.name, ()), key=lambda n: (envs[n].metadata.title.casefold(), n))
        pages.append(Page(f"protocols/{d.metadata.name}/", "protocol.html", d.metadata.title, {
            "protocol": d, "hosts": [envs[n] for n in used_by],
        }))
    return pages


def redirect_pages(lb: Leaderboard, urls: Urls) -> list[Page]:
    """A former name's URL keeps answering: a page that leads to the problem as it is named now."""
    pages = []
    for old_slug, problem in sorted(lb.redirects.items()):
        former = next(a for a in problem.aliases if a.slug == old_slug)
        pages.append(Page(f"problems/{old_slug}/", "redirect.html", former.title, {
            "former": former, "problem": problem, "target": urls.problem(problem.slug)}))
    return pages


def markdown_pages(lb: Leaderboard, markdown_html: Callable[[str], str]) -> list[Page]:
    """content/pages/*.md, their HTML made only when the page is."""
    return [Page(f"{md.slug}/", "page.html", md.title,
                 lambda md=md: {"html": markdown_html(md.markdown), "source": md.source})
            for md in lb.content.pages]


def search_page(lb: Leaderboard, urls: Urls) -> Page:
    return Page("search/", "search.html", "Search", page_context(lb, urls))


def off_by(factor: float | None) -> str | None:
    """How far a host off in units is from the others, in words: "1,360× above" (3 figures)."""
    if not factor:
        return None
    ratio, way = (factor, "above") if factor >= 1 else (1 / factor, "below")
    return f"{float(f'{ratio:.3g}'):,.0f}× {way}" if ratio >= 100 else f"{ratio:.3g}× {way}"


def held_out_why(e: Entry) -> str:
    """Why a run is held out of the summaries, in a few words each reason."""
    why = []
    if e.below_floor:
        why.append("faster than the hardware allows")
    if e.verdict in HELD_VERDICTS:
        why.append(f"reviewed: {e.verdict}")
    if e.implausible:
        why.append("implausible speedup")
    if e.implausible_latency:
        why.append("its host is off in units")
    return "; ".join(why)


def held_out_reasons(lb: Leaderboard, summaries: list[Summary]) -> dict[str, str]:
    """Run name → why it is held out, for every run the summaries hold out."""
    names = {name for s in summaries for t in s.tallies.values() for name in t.held_out}
    found = {}
    for name in sorted(names):
        board = lb.board_of_run.get(name)
        if board is not None:
            found[name] = held_out_why(board.runs_by_name[name])
    return found


def _no_floor_kind(x: Limits | None) -> str:
    """Why no floor judges a run: "cost" (none counted), "gpu" (its figures unknown) or "cache"."""
    if x is None or x.moved_bytes is None:
        return "cost"
    return "gpu" if not x.bandwidth else "cache"


def host_physics(boards: list[Board]) -> dict:
    """A host page's physics: per implementation, its fractions of the speed of light (box_chart); the
    ranked runs with a speedup, those the 10× rule judges by why; its runs held out as off in units."""
    sols: dict[str, list[float]] = {}
    judged = {"cost": 0, "gpu": 0, "cache": 0}
    compared = off = 0
    for b in boards:
        for e in b.entries:
            off += e.implausible_latency
            if e.rank is not None and e.speedup is not None and not e.is_reference:
                compared += 1
                if e.judged_by_speedup:
                    judged[_no_floor_kind(e.limits)] += 1
            sol = result_sol(e, b.statistic)
            if sol:
                sols.setdefault(e.implementation, []).append(sol)
    boxes = []
    for label, values in sorted(sols.items(), key=lambda kv: kv[0].casefold()):
        values.sort()
        boxes.append(Box(label, values, f"{counted(len(values), 'table')}, median {format_sol(quartiles(values)[1])}"))
    return {"boxes": boxes, "compared": compared, "judged": judged, "by_speedup": sum(judged.values()), "off_units": off}


def _cell(e: Entry, urls: Urls) -> dict:
    """What an implementation page's cell shows of a run: the table row's fields it uses, no others."""
    facts = e.run.facts
    return {"run": e.run.name, "url": urls.run(e.run.name), "status": facts.status, "mean_ns": facts.mean,
            "implausible": e.implausible, "below_floor": e.below_floor, "verdict": e.verdict}
