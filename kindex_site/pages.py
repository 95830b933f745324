"""What the site holds: every page's URL and the data it shows, and the JSON API documents.

Nothing here renders or writes; `build.py` does that. URLs are made in one place (`Urls`) so the
site works under a sub-path (GitHub project pages) as well as at the root.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache, partial
from html import escape as html_escape
from typing import NamedTuple
from urllib.parse import quote

from markupsafe import Markup

from .charts import Box, Strip, format_si, format_sol, quartiles
from .gpus import GpuFigures, GpuTable, load_gpus
from .leaderboard import (ALL_LEVELS, EARLIER, FAST_P, Board, Entry, Leaderboard, Problem, Summary, Tally, Trend, Warning,
                          group_order, group_title, lab_folder, level_group, primary_value, std_ns, utc)
from .models import HELD_VERDICTS
from .physics import NO_COST, NS_PER_S, Limits, duration
from .safetext import CODE_POINT_HTML, escape, shown_hidden
from .search import page_context
from .stats import Speedup

API_VERSION = "kindex-site/v1"


@dataclass(frozen=True, slots=True)  # (slots: a big site plans a page per run)
class Page:
    url: str  # relative to the site root, '' for home, always ending in '/' otherwise
    template: str
    title: str
    # What the template is given; or a function making it, for pages that gather many problems:
    # a rebuild that finds their key unchanged never gathers it.
    context: dict | Callable[[], dict]
    # The content file its context reads again when it is made (a run page whose document was not
    # kept in memory): build.py makes the pages that read one file one after another.
    reads: object = None

    def values(self) -> dict:
        return self.context() if callable(self.context) else self.context

    @property
    def output_path(self) -> str:
        return self.url + "index.html"


@dataclass(frozen=True)
class Urls:
    base_path: str  # '/' or '/sub/path/'
    # Without run pages (run_pages = false), a run's link goes to its row's table instead.
    run_boards: dict[str, str] | None = field(default=None, compare=False)

    def __call__(self, relative: str) -> str:
        return self.base_path + relative

    @property
    def run_pages(self) -> bool:
        """Whether each run has a page of its own (else a run's link is its table's, on its problem's page)."""
        return self.run_boards is None

    def problem(self, slug: str) -> str:
        return self(f"problems/{slug}/")

    def board(self, board: Board) -> str:
        return self(f"problems/{board.problem.slug}/#{board_id(board)}")

    def host(self, name: str) -> str:
        return self(f"hosts/{name}/")

    def implementation(self, slug: str) -> str:
        return self(f"implementations/{slug}/")

    def run(self, name: str) -> str:
        if self.run_boards is not None:
            return self.run_boards[name]
        return self(run_page_url(name))

    def protocol(self, name: str) -> str:
        return self(f"protocols/{name}/")

    def board_csv(self, board: Board) -> str:
        return self(board_csv_path(board))

    def api_problem(self, slug: str) -> str:
        return self(f"api/v1/problems/{slug}.json")

    def api_host(self, name: str) -> str:
        return self(f"api/v1/hosts/{name}.json")

    def source(self, rel: str) -> str:
        return self(quote(source_path(rel)))


def source_path(rel: str) -> str:
    """Where the site serves a source file: its path under content/, under sources/."""
    return f"sources/{rel}"


def run_page_url(name: str) -> str:
    return f"runs/{name}/"


def board_id(board: Board) -> str:
    """A board's id on its problem page: prefixed, as every id made from content is, so that no host
    name (`main`, `site-search`) can take one of the page's own."""
    return f"board-{board.anchor}"


def board_csv_path(board: Board) -> str:
    return f"problems/{board.problem.slug}/{board.anchor}.csv"


def entry_row(entry: Entry, urls: Urls, figures: int | None = None, statistic: str = "mean",
              reviews: Mapping[str, list] | None = None) -> dict:
    """One table row and one API entry: the input's own nanoseconds, None where absent; ratios to
    one significant figure more than the source reports (`figures`, its protocol's resolution), else six;
    what physics and the reviews say of it (`physics_json`; its board's `statistic` is the latency
    judged), and, given the content's `reviews`, the run's reviews.

    Made afresh each time (for a table, a run page, an API document, a CSV): a million rows kept
    would outweigh the runs themselves.
    """
    facts = entry.run.facts
    row = {
        "run": entry.run.name,
        "implementation": entry.implementation,
        "lab": lab_of(facts),
        "status": facts.status,
        "rank": entry.rank,
        "mean_ns": facts.mean,
        "ci95_ns": list(facts.ci95) if facts.ci95 else None,
        "min_ns": facts.minimum,
        "max_ns": facts.maximum,
        "std_ns": std_ns(entry),
        "samples": facts.samples,
        "observed_at": facts.observed_at,
        "url": urls.run(entry.run.name),
        "tied": entry.tied,
        "mixed_hardware": entry.mixed_hardware,
        "reference": entry.is_reference and entry.rank is not None,
        "speedup": speedup_json(entry.speedup, figures),
        "trend": trend_json(entry.trend, figures),
        "implausible": entry.implausible,
        "implausible_latency": entry.implausible_latency,
        "last_passed": entry.last_passed,
        "superseded_by": entry.superseded_by,
        "source_url": urls.source(entry.run.files["implementation"].rel) if "implementation" in entry.run.files else None,
        **physics_json(entry, statistic),
    }
    if reviews is not None:
        row["reviews"] = [review_json(r) for r in reviews.get(entry.run.name, ())]
    return row


def lab_of(facts) -> str | None:
    """Who produced a run: its title's parts after the implementation (problem · implementation · lab,
    by convention), None when the title names no one."""
    parts = facts.title_parts
    return " · ".join(parts[2:]) if len(parts) > 2 else None


def speedup_json(s: Speedup | None, figures: int | None = None) -> dict | None:
    """A speedup as the API carries it: the exact ratio (pages round it once), with its 95% interval
    or, where neither run gave one, the bounds of the sources' rounding (about page, "Comparing two runs")."""
    if s is None:
        return None
    return {"value": s.value, "ci95": list(s.ci95) if s.ci95 else None,
            "rounding_bounds": list(s.rounding_bounds) if s.rounding_bounds else None}


def trend_json(t: Trend | None, figures: int | None = None) -> dict | None:
    if t is None:
        return None
    c = t.change
    return {"previous": t.previous.run.name, "ratio": c.value,
            "ratio_ci95": list(c.ci95) if c.ci95 else None,
            "ratio_rounding_bounds": list(c.rounding_bounds) if c.rounding_bounds else None,
            "verdict": t.verdict}


def warning_json(w: Warning) -> dict:
    return {"code": w.code, "message": w.message, "runs": list(w.runs)}


# --- Physics: floors, speed of light, costs and reviews -------------------------------------------
# What physics.py and the reviews say of each run, as the API carries it and the pages show it (about
# page, "Physics"). The API gives its figures to 3 significant figures: the GPU table's carry about 3.

NOT_TIMED = "the run has no timing"


def sig3(value, whole: bool = True) -> int | float | None:
    """A figure to 3 significant figures for the API: an int when whole (and `whole`), else a float."""
    if value is None:
        return None
    rounded = float(f"{float(value):.3g}")
    return int(rounded) if whole and rounded.is_integer() else rounded


def physics_json(entry: Entry, statistic: str) -> dict:
    """A run's floor, roofline and fraction of the speed of light on its GPU (each None with why),
    whether it is below its floor, and its newest review's verdict. Made once per entry and
    statistic (a run is shown five times); not to be changed by the caller."""
    x = entry.limits
    made = _PHYSICS_MADE.get(id(entry))
    if made is not None and made[0] is entry and made[1] is x and made[2] == statistic:
        return made[3]
    gpu, floor, floor_why_not, roofline, roofline_why_not, _ = _limits_json(x)
    found = {"gpu": gpu, "floor_ns": floor, "floor_why_not": floor_why_not, "roofline_ns": roofline,
             "roofline_why_not": roofline_why_not, "sol": sig3(sol_of(x, primary_value(entry, statistic)), whole=False),
             "below_floor": entry.below_floor, "verdict": entry.verdict}
    if len(_PHYSICS_MADE) >= 1 << 16:
        _PHYSICS_MADE.clear()
    _PHYSICS_MADE[id(entry)] = (entry, x, statistic, found)
    return found


_PHYSICS_MADE: dict[int, tuple] = {}  # id → (the entry, kept so that its id is not reused; its limits, statistic, fields)


def _limits_json(x: Limits | None) -> tuple:
    """A Limits' API fields (and its roofline as a page says it), made once per Limits: a table's
    runs share theirs, and each run is shown five times (its table, run page, API entry, CSV and
    implementation page)."""
    if x is None:
        return None, None, NOT_TIMED, None, NOT_TIMED, None
    made = _LIMITS_MADE.get(id(x))
    if made is None or made[0] is not x:
        if len(_LIMITS_MADE) >= 1 << 14:
            _LIMITS_MADE.clear()
        made = _LIMITS_MADE[id(x)] = (x, (x.gpu, sig3(x.floor_ns), x.floor_why_not, sig3(x.roofline_ns),
                                          x.roofline_why_not, None if x.roofline_ns is None else duration(x.roofline_ns)))
    return made[1]


_LIMITS_MADE: dict[int, tuple] = {}  # id → (the Limits, kept so that its id is not reused; its fields)


def review_json(review) -> dict:
    """One RunReview as the API gives it: from when (`date`) its verdict applies, and why."""
    s = review.spec
    return {"date": s.date, "verdict": s.verdict, "reason": s.reason, "evidence": s.evidence, "reviewer": s.reviewer}


def cost_json(cost) -> dict | None:
    """A workload's cost (its WorkloadCost's spec, the fields the format knows), or None."""
    if cost is None:
        return None
    s = cost.spec
    return {"status": s.status, "reason": s.reason,
            "inputs": [{"shape": list(t.shape), "dtype": t.dtype, "bytes": t.bytes} for t in s.inputs],
            "outputs": [{"shape": list(t.shape), "dtype": t.dtype, "bytes": t.bytes} for t in s.outputs],
            "inputBytes": s.inputBytes, "outputBytes": s.outputBytes, "parameterBytes": s.parameterBytes,
            "flops": dict(s.flops), "counter": {"name": s.counter.name, "version": s.counter.version},
            "source": s.source}


def gpu_table(lb: Leaderboard) -> GpuTable:
    """The GPU table the leaderboard judged its runs by (a site's corrections in)."""
    return lb.gpus if lb.gpus is not None else _package_gpus()


@lru_cache(maxsize=1)
def _package_gpus() -> GpuTable:
    return load_gpus()


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
            found[name] = held_out_why(_board_runs(board)[0][name])
    return found


def dram_bytes(x: Limits | None) -> int | None:
    """The bytes a floor has to move through DRAM: its inputs and outputs but what may stay in the L2."""
    if x is None or x.floor_ns is None or not x.bandwidth:
        return None
    return round(x.floor_ns * Fraction(x.bandwidth) / NS_PER_S)


def board_physics(board: Board) -> dict | None:
    """The floor and roofline a board's line states: its workload's on its host's GPU (its first
    current run's there), as plain values; None when its workload has no cost (its group says so,
    once) or none is timed."""
    x = next((e.limits for e in board.entries if e.limits is not None and not e.mixed_hardware), None)
    if x is None or x.moved_bytes is None:
        return None
    return {"gpu": x.gpu, "floor_ns": x.floor_ns, "floor_why_not": x.floor_why_not, "roofline_ns": x.roofline_ns,
            "roofline_why_not": x.roofline_why_not, "bandwidth": x.bandwidth, "dram_bytes": dram_bytes(x)}


def sol_of(x: Limits | None, value: int | None) -> float | None:
    """Limits.sol, exactly (a quotient of ints is rounded once, as a Fraction's float is), at a
    tenth of its cost: tables, API documents and CSVs ask it of every run."""
    if x is None or x.roofline_ns is None or not value:
        return None
    return x.roofline_ns.numerator / (x.roofline_ns.denominator * value)


def _sol_of(e: Entry, statistic: str) -> float | None:
    """A run's exact fraction of the speed of light (pages round it once), where it is a result."""
    if e.limits is None or e.unrankable or e.mixed_hardware or e.run.facts.status != "passed":
        return None
    return sol_of(e.limits, primary_value(e, statistic))


def sol_strips(boards: list[Board], environments: Mapping) -> list[Strip]:
    """Per implementation (by label), its current runs' fractions of the speed of light on the hosts
    that timed one workload: the one view across GPUs that is fair, each measured against its own.
    None for a workload one host timed: its table says as much."""
    if len({b.host for b in boards}) < 2:
        return []
    found: dict[str, list[tuple[float, str]]] = {}
    for b in boards:
        for e in b.entries:
            sol = _sol_of(e, b.statistic)
            if sol:
                found.setdefault(e.implementation, []).append((sol, environments[b.host].metadata.title))
    strips = []
    for label, values in sorted(found.items(), key=lambda kv: kv[0].casefold()):
        values.sort()
        note = (f"{format_sol(values[0][0])} on {values[0][1]}" if len(values) == 1 else
                f"{len(values)} hosts: {format_sol(values[0][0])} ({values[0][1]}) to "
                f"{format_sol(values[-1][0])} ({values[-1][1]})")
        strips.append(Strip(label, [v for v, _ in values], note))
    return strips


def _no_floor_kind(x: Limits | None) -> str:
    """Why no floor judges a run: "cost" (none counted), "gpu" (its figures unknown) or "cache"."""
    if x is None or x.moved_bytes is None:
        return "cost"
    return "gpu" if not x.bandwidth else "cache"


def host_physics(boards: list[Board]) -> dict:
    """A host page's physics: per implementation, the distribution of its current results' fractions of
    the speed of light (box_chart); the ranked runs with a speedup, and those of them the 10× rule
    judges for want of a floor, by why; and its runs held out as off in units."""
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
            sol = _sol_of(e, b.statistic)
            if sol:
                sols.setdefault(e.implementation, []).append(sol)
    boxes = []
    for label, values in sorted(sols.items(), key=lambda kv: kv[0].casefold()):
        values.sort()
        boxes.append(Box(label, values, f"{_counted(len(values), 'table')}, median {format_sol(quartiles(values)[1])}"))
    return {"boxes": boxes, "compared": compared, "judged": judged, "by_speedup": sum(judged.values()), "off_units": off}


class _GroupTitles(dict):
    """Templates' titles of the suite's groups ("Level 1", "Other problems", "All levels")."""

    def __missing__(self, group: str) -> str:
        return group_title(group)


GROUP_TITLES = _GroupTitles()


def summary_json(s: Summary, urls: Urls, reference: str) -> dict:
    return {
        "implementation": s.implementation,
        "url": urls.implementation(s.implementation_slug),
        "host": s.host,
        "basis": s.basis,
        "observed": {"first": s.observed[0], "last": s.observed[1]} if s.basis == EARLIER else None,
        "why_not_compared": s.why_not_compared(reference) or None,
        "levels": {group: tally_json(tally) for group, tally in s.tallies.items()},
    }


def tally_json(t: Tally) -> dict:
    """A summary over one group of the suite: counts, and shares of the suite (exact quotients)."""
    return {
        "suite": t.suite,
        "attempted": t.attempted,
        "passed": t.passed,
        "held_out_implausible": len(t.held_out),
        "held_out_runs": list(t.held_out),
        "fast_p": {f"{p:g}": t.share(p) for p in FAST_P},
        "fast_p_count": {f"{p:g}": n for p, n in t.fast_p.items()},
        "faster_beyond_noise": t.beyond_noise,
        "geomean_speedup": t.geomean_speedup,
        "geomean_over": t.geomean_over,
        "timed_elsewhere": t.elsewhere,
        "uncompared_runs": t.uncompared, "uncompared_passed": t.uncompared_passed,
        **({"over_levels": list(t.levels), "title": t.title} if t.levels else {}),
    }


# --- Tables' columns ----------------------------------------------------------------------------
# A table whose columns are fixed says each one once, here: its head row, the "more" disclosure's
# words and its rules in the stylesheet (where CSS can only tell a column by its position) are made
# from the list; each row's cells come in the list's order (macros.html, host_row.html).


@dataclass(frozen=True, slots=True)
class Column:
    head: str  # its header; "{reference}" stands for the reference implementation's name
    card: str | None = None  # its name over each value in the card layout (below 40rem): the head's if None, none if ""
    num: bool = False  # a number: right-aligned, on one line
    more: str = ""  # hidden until the disclosure before the table is opened, which names it so
    head_css: str = ""  # declarations for its header
    card_css: str = ""  # declarations for its cells in the card layout
    ranked_card: bool = True  # False: in the card layout, shown in unranked rows only

    def head_for(self, reference) -> str:
        return self.head.replace("{reference}", str(reference))

    @property
    def card_name(self) -> str:
        return self.head if self.card is None else self.card


@dataclass(frozen=True, slots=True)
class Table:
    name: str  # its class, which its rules select by
    columns: tuple[Column, ...]
    scope: bool = False  # its headers say scope="col"
    classed: bool = False  # its number cells carry class "num" (the header too): no rule for them by position

    @property
    def more(self) -> str:
        """The disclosure's words: the hidden columns' names, say "Min, max, std"."""
        words = ", ".join(c.more for c in self.columns if c.more)
        return words[:1].upper() + words[1:]

    def head_row(self, reference=None) -> Markup:
        """Its head row, `{reference}` filled in: made once per reference (a page holds a table per host)."""
        return _head_row(self, reference)


@lru_cache(maxsize=1024)
def _head_row(table: Table, reference) -> Markup:
    scope, num = (' scope="col"' if table.scope else ""), ' class="num"' if table.classed else ""
    # (Without the headers' end tags, which HTML implies: a problem page repeats this row per table.)
    return Markup("<tr>" + "".join(f"<th{scope}{num if c.num else ''}>{escape(c.head_for(reference))}"
                                   for c in table.columns) + "</tr>")


WIDE = "min-width: 6.5rem"  # a long numeric header wraps to a few lines, not a word each
ONE_LINE = "white-space: nowrap"

# A board's runs, on its problem's page: what a reader compares is shown, the rest behind "more".
LATENCY = Table("latency", (
    Column("Rank", card="", num=True, card_css="flex: 0 0 auto; min-width: 2.5rem"),
    Column("Implementation", card=""),  # (the row's header)
    Column("Status", ranked_card=False),  # (a ranked run passed; its rank says so)
    Column("Mean (ms)", num=True, head_css=WIDE),
    Column("95% CI (ms)", num=True, head_css=WIDE),
    Column("Speedup vs {reference} (×)", card="Speedup (×)", num=True, head_css=WIDE),
    Column("Speedup 95% CI (×)", num=True, head_css=WIDE),
    Column("% of speed of light", num=True, head_css=WIDE),
    Column("Min (ms)", num=True, head_css=WIDE, more="min"),
    Column("Max (ms)", num=True, head_css=WIDE, more="max"),
    Column("Std (ms)", num=True, head_css=WIDE, more="std"),
    Column("Samples", num=True, head_css=WIDE, more="samples"),
    Column("Observed (UTC)", more="date"),
))
# A board's earlier runs, under its table.
HISTORY = Table("history", (
    Column("Implementation", card=""),
    Column("Observed (UTC)"),
    Column("Status"),
    Column("Mean (ms)", num=True, head_css=ONE_LINE),
    Column("95% CI (ms)", num=True, head_css=ONE_LINE),
    Column("Vs its previous run (×)", num=True, head_css=ONE_LINE),
    Column("Superseded by"),
))
# A host's boards, on its page: a row per board.
BOARDS = Table("boards", (
    Column("Problem", card=""),
    Column("Implementations", num=True),
    Column("Runs", num=True),
    Column("Fastest"),
    Column("Its mean (ms)", num=True),
), scope=True, classed=True)
TABLES = {t.name: t for t in (LATENCY, HISTORY, BOARDS)}


def board_view(board: Board, lb: Leaderboard, urls: Urls) -> dict:
    protocol = lb.content.protocols[board.protocol]
    figures, statistic, reviews = board.significant_figures, board.statistic, lb.content.reviews
    rows = [entry_row(e, urls, figures, statistic, reviews) for e in board.entries]
    sols = [sol_of(e.limits, primary_value(e, statistic)) for e in board.entries]
    return {
        "board": board,
        "environment": lb.content.environments[board.host],
        "protocol": protocol,
        "rows": rows,
        "history": [entry_row(e, urls, figures, statistic, reviews) for e in board.history],
        # Each row with its exact fraction of the speed of light (the table rounds it once) and its limits.
        "lines": list(zip(rows, sols, (e.limits for e in board.entries))),
        "above_light": any(sol > 1 for sol in sols if sol), "physics": board_physics(board),
        # Who produced the runs: said once above the table when one lab made them all, else on each row.
        "labs": sorted({lab for e in board.runs if (lab := lab_of(e.run.facts))}),
        "figures": figures + 1 if figures else None,  # the most significant figures a value is shown with
        "mean_figures": min(3, figures + 1) if figures else 3,
        "trends": trend_series(board),
        "warnings": board.warnings,
        "reference": board.reference,
    }


def trend_series(board: Board) -> list[tuple[str, list[tuple[str, int, tuple[int, int] | None]]]]:
    """Per implementation with two or more comparable runs on the board (its history and current
    entry): (label, [(observedAt, mean ns, 95% interval)] oldest first), for its trend chart."""
    runs_of: dict[tuple[str, str, str], list[Entry]] = {}  # (one series per lab folder: no lab continues another's)
    for e in board.runs:
        if e.run.facts.status == "passed" and e.run.facts.timed and not e.mixed_hardware and e.run.facts.observed_at:
            runs_of.setdefault((e.implementation, e.run.facts.implementation_digest, lab_folder(e.run)), []).append(e)
    series = []
    for (label, *_), runs in sorted(runs_of.items(), key=lambda kv: (kv[0][0].casefold(), kv[0][1:])):
        if len(runs) > 1:
            runs.sort(key=lambda e: (utc(e.run.facts.observed_at), e.run.name))
            series.append((label, [(e.run.facts.observed_at, e.run.facts.mean, e.ci95) for e in runs]))
    return series


def workload_groups(lb: Leaderboard, slug: str, urls: Urls, source_budget: int | None = None) -> list[dict]:
    """A problem's boards grouped by workload, each group with its host × implementation speedups
    (and its workload's source, `source_budget` bytes for it: `shown_source`)."""
    groups = []
    for workload in lb.workloads[slug]:
        boards = [b for b in lb.boards[slug] if b.workload == workload.digest]
        labels: dict[str, str] = {}
        cells: dict[tuple[str, str], Entry] = {}
        for b in boards:
            for e in b.entries:
                if e.speedup is not None:
                    labels.setdefault(e.implementation_slug, e.implementation)
                    cells.setdefault((b.anchor, e.implementation_slug), e)  # fastest first
        columns = sorted(labels.items(), key=lambda kv: (kv[1].casefold(), kv[0]))
        matrix = [{"board": b, "environment": lb.content.environments[b.host],
                   "cells": [cells.get((b.anchor, slug_)) for slug_, _ in columns]}
                  for b in boards if b.reference is not None]
        with_source = next((e.run for b in boards for e in b.runs if "workload" in e.run.files), None)
        groups.append({"workload": workload, "boards": [board_view(b, lb, urls) for b in boards],
                       "cost": cost_json(lb.content.costs.get(workload.digest)),
                       "sol": sol_strips(boards, lb.content.environments),
                       "source": shown_source(with_source, "workload", urls, source_budget) if with_source else None,
                       "columns": [label for _, label in columns], "matrix": matrix,
                       # Many implementations on few hosts: a row per implementation, so that the table fits.
                       "transposed": len(columns) > MATRIX_COLUMNS and len(matrix) < len(columns)})
    return groups


MATRIX_COLUMNS = 6  # a problem's speedup table with more implementations than this (and fewer hosts) is turned


def problem_page(lb: Leaderboard, problem: Problem, urls: Urls, board_csvs: bool = True,
                 source_budget: int | None = None) -> Page:
    """A problem's page: every table of its runs. With board_csvs, each table links to its CSV
    (written by build.py). Each run's own page (`run_page`) is made when it is written."""
    # Its context is made when the page is rendered (in a worker, for big sites) and then dropped:
    # a site's table rows, all held at once, would be most of a million-run build's memory.
    return Page(f"problems/{problem.slug}/", "problem.html", problem.title, lambda: {
        "problem": problem, "groups": workload_groups(lb, problem.slug, urls, source_budget),
        "api_url": urls.api_problem(problem.slug), "reference": lb.reference, "board_csvs": board_csvs,
        "columns": TABLES,
    })


def run_page_path(name: str) -> str:
    """A run page's output file: a big site plans it by this path and its board, and makes its `Page`
    (`run_page`) only when it is written."""
    return f"runs/{name}/index.html"


def run_of_page(board: Board, path: str) -> Entry:
    """The entry of `board` whose run page is at `path` (run_page_path)."""
    return _board_runs(board)[0][path[5:-11]]  # (runs/<name>/index.html)


class _Indexes:
    """Lookups made once per process from what pages would otherwise scan once each (a board's runs
    by name, a host's summaries by implementation): a scan per page makes a table's or a host's
    pages quadratic in its rows. The latest KEEP are held, each with the object it was made from (so
    that its id stays its own) and that object's size when made (a list grown since is indexed again)."""

    KEEP = 256

    def __init__(self):
        self.held: dict[tuple, tuple] = {}

    def of(self, source, size: int, make: Callable):
        key = (id(source), make)
        held = self.held.get(key)
        if held is None or held[1] != size:
            if len(self.held) >= self.KEEP:
                del self.held[next(iter(self.held))]
            held = self.held[key] = (source, size, make(source))
        return held[2]


_indexes = _Indexes()


def _board_runs(board: Board) -> tuple[dict[str, Entry], int]:
    """A board's entries by run name (current and history), and how many are ranked."""
    return _indexes.of(board, len(board.entries) + len(board.history), _runs_by_name)


def _runs_by_name(board: Board) -> tuple[dict[str, Entry], int]:
    return {e.run.name: e for e in board.runs}, sum(1 for e in board.entries if e.rank is not None)


def run_page(lb: Leaderboard, urls: Urls, board: Board, path: str, source_budget: int | None = None) -> Page:
    """The page at `path` (run_page_path) of a run of `board`: made when written (in a worker, for
    big sites) and dropped, as is its context; a run whose document was not kept in memory has it
    read again from its file then."""
    entry = run_of_page(board, path)
    return Page(run_page_url(entry.run.name), "run.html", entry.run.facts.title,
                partial(_run_context, lb.content, urls, board.problem, entry, board, source_budget, gpu_table(lb)),
                entry.run.document_file)


def _run_context(content, urls: Urls, problem: Problem, entry: Entry, board: Board,
                 source_budget: int | None = None, gpus: GpuTable | None = None) -> dict:
    r = entry.run
    environment, protocol = content.environments[r.environment], content.protocols[r.protocol]
    return {
        "run": r, "entry": entry, "board": board,
        "row": entry_row(entry, urls, board.significant_figures, board.statistic, content.reviews),
        "physics": run_physics(content, entry, board, gpus),
        "figures": board.significant_figures + 1 if board.significant_figures else None,
        "reference": board.reference.implementation if board.reference else None,
        "ranked": _board_runs(board)[1],  # (how many its rank is out of)
        "environment": environment, "protocol": protocol,
        # (What the page names, as plain values: an object's attribute costs a template ten times a dict's item.)
        "names": {"run": r.name, "file": r.source.on_site, "host": environment.metadata.title,
                  "protocol": protocol.metadata.title, "problem": problem.title, "implementation": entry.implementation},
        "document": r.shown, "table_api_url": urls.api_problem(problem.slug),
        # Its links, made here rather than by template calls: ten thousand run pages make them.
        "board_url": urls.board(board), "implementation_url": urls.implementation(entry.implementation_slug),
        "host_url": urls.host(r.environment), "protocol_url": urls.protocol(r.protocol),
        "source": shown_source(r, "implementation", urls, source_budget),
        # Its verdict against the reference, as the speedup's interval says (about page, "Comparing two runs").
        "beyond": None if entry.speedup is None or entry.is_reference else verdict_text(entry.speedup),
    }


def run_physics(content, entry: Entry, board: Board, gpus: GpuTable | None) -> dict:
    """A run page's physics: its exact fraction of the speed of light and its newest reviews, oldest
    first; and its "facts", alike for every run of its workload on its GPU (render.physics_facts keeps
    them by "key"): its limits, its workload's cost, the GPU figures they were made of with their
    sources, and its roofline's compute time per precision."""
    x = entry.limits
    cost = content.costs.get(board.workload)
    gpu = _gpu_named(gpus, x.gpu) if gpus is not None and x is not None and x.gpu else None
    value, reviews = primary_value(entry, board.statistic), content.reviews.get(entry.run.name, [])
    # (Its context made only when it is rendered: once for a workload on a GPU.)
    facts = {"cost": cost, "gpu": gpu, "limits": x, "context": partial(_facts_context, x, cost, gpu)}
    # (Plain values for the template: a dict's item costs it a tenth of an object's attribute.)
    return {"limits": x, "value": value, "sol": sol_of(x, value), "statistic": board.statistic,
            "gpu": None if x is None else x.gpu, "floor_ns": None if x is None else x.floor_ns,
            "dram_bytes": dram_bytes(x) if entry.below_floor else None,  # (its warning's)
            "roofline_text": _limits_json(x)[5],
            "bandwidth": None if x is None else x.bandwidth, "held": entry.verdict in HELD_VERDICTS, "facts": facts,
            "key": None if x is None else (x, board.workload),  # (by value: a restored table's runs have a Limits each)
            "reviews": reviews[-REVIEWS_SHOWN:], "earlier_reviews": max(0, len(reviews) - REVIEWS_SHOWN)}


def _tensors(cost) -> tuple[str, str]:
    """A cost's inputs and outputs as a run page lists them: "float32 [4096×4096]; float32 [4096×4096]"."""
    if cost is None:
        return "", ""
    return tuple("; ".join(f"{t.dtype} [{'×'.join(map(str, t.shape))}]" for t in tensors)
                 for tensors in (cost.spec.inputs, cost.spec.outputs))


@lru_cache(maxsize=256)
def _gpu_named(gpus: GpuTable, name: str) -> GpuFigures | None:
    return gpus.get(name)


def _facts_context(x: Limits | None, cost, gpu: GpuFigures | None) -> dict:
    """What templates/run_physics.html is given, as plain values (a dict's item costs a template a
    tenth of what an object's attribute does): a run's limits, its GPU's figures used, its cost."""
    if x is None:
        return {"timed": False, "why": NOT_TIMED, "cost": cost_json(cost), "figures": [], "tensors": _tensors(cost)}
    dram = dram_bytes(x)
    return {"timed": True, "gpu": x.gpu, "floor_ns": x.floor_ns, "tensors": _tensors(cost),
            "floor_why_not": x.floor_why_not, "roofline_ns": x.roofline_ns, "roofline_why_not": x.roofline_why_not,
            "bandwidth": x.bandwidth, "moved_bytes": x.moved_bytes, "dram_bytes": dram,
            "resident_bytes": None if dram is None else x.moved_bytes - dram, "cost": cost_json(cost),
            "figures": _figures_used(gpu, None if cost is None else cost.spec)}


REVIEWS_SHOWN = 20  # a run page lists its newest reviews (the API, all of them): a page's weight stays bounded


def _figures_used(gpu: GpuFigures | None, cost) -> list[tuple[str, str, str, str | None]]:
    """The GPU figures a floor and a roofline take, as (what, the figure, its source, the time it gives:
    a precision's FLOPs at its peak), those the table lacks said so."""
    if gpu is None:
        return []
    missing = "not in the GPU table"
    found = [("DRAM bandwidth", format_si(gpu.dram_bytes_per_s, "B/s"), gpu.sources.get("dram_bytes_per_s", missing), None),
             ("L2 (what may stay on chip between calls)", "—" if gpu.l2_bytes is None else f"{gpu.l2_bytes:,} bytes",
              gpu.sources.get("l2_bytes", missing), None)]
    counted = cost.flops if cost is not None and cost.status == "counted" else {}
    for precision, count in sorted(counted.items()):
        peak = gpu.peak(precision) if count else None
        key = next((k for k, v in gpu.peaks.items() if k.startswith(precision) and v == peak), None)
        took = None if not peak else duration(count * NS_PER_S / peak)  # (shown to 3 figures: a float's will do)
        found.append((f"{precision.upper()} peak, dense ({format_si(count, 'FLOP')} counted)",
                      format_si(peak, "FLOP/s") if peak else "—", gpu.sources.get(key, missing) if key else missing, took))
    return found


def verdict_text(s: Speedup) -> str:
    """A ratio against 1 in words: beyond noise for a 95% interval, beyond rounding for rounding
    bounds, by the means alone without either."""
    side = "faster" if s.above_1 else "slower" if s.below_1 else None
    if s.kind is None:
        return f"{side or 'as fast'}, by the means alone (no interval)"
    what = "noise" if s.kind == "ci95" else "rounding"
    return f"{side} beyond {what}" if side else f"within {what}"


def shown_source(run, kind: str, urls: Urls, budget: int | None = None) -> dict | None:
    """A run's source file of a kind ("implementation", "workload") as a page shows it, or None:
    highlighted, or as plain text when highlighted it might take more than `budget` bytes
    (highlight.shown_as)."""
    source = run.files.get(kind)
    if source is None:
        return None
    from .highlight import highlighted, shown_as  # (Pygments, only for pages that show a source)

    ref = run.facts.implementation_source if kind == "implementation" else run.facts.workload_source
    language = ref[1] if budget is None else shown_as(source.rel, ref[1], source.sizes, budget)[0]
    shown = highlighted(source.text, source.digest, source.rel, language)
    return {"url": urls.source(source.rel), "name": source.rel.rsplit("/", 1)[-1], "bytes": shown.bytes,
            "lines": shown.lines, "html": shown.html}


def _entries_by_implementation(boards: list[Board]) -> dict[str, list[tuple[Board, Entry]]]:
    """A problem's current entries by implementation slug, in board order."""
    found: dict[str, list[tuple[Board, Entry]]] = {}
    for b in boards:
        for e in b.entries:
            found.setdefault(e.implementation_slug, []).append((b, e))
    return found


def implementation_cells(lb: Leaderboard, impl_slug: str, problem: Problem, host_names: tuple[str, ...],
                         urls: Urls) -> list[dict]:
    """An implementation's current runs of one problem: a line per workload it was timed at (numbers
    of two workloads never share a line), each with a list of rows per host (in host_names' order)."""
    workloads = lb.workloads[problem.slug]
    boards = lb.boards[problem.slug]
    mine = _indexes.of(boards, sum(len(b.entries) for b in boards), _entries_by_implementation).get(impl_slug, ())
    lines = []
    for number, workload in enumerate(workloads, start=1):
        cells: dict[str, list[dict]] = {}
        for b, e in mine:
            if b.workload == workload.digest:
                cells.setdefault(e.run.environment, []).append(_cell(e, urls))
        if cells:
            lines.append({"workload": workload, "number": number, "of": len(workloads),
                          "cells": [sorted(cells.get(name, []), key=lambda row: row["run"]) for name in host_names]})
    return lines


def _cell(e: Entry, urls: Urls) -> dict:
    """What an implementation page's cell shows of a run (implementation_row.html): the table row's
    fields it uses, and no others (a whole row is made five times a run already)."""
    facts = e.run.facts
    return {"run": e.run.name, "url": urls.run(e.run.name), "status": facts.status, "mean_ns": facts.mean,
            "implausible": e.implausible, "below_floor": e.below_floor, "verdict": e.verdict}


# What makes one problem's row on a page that lists problems: (template, problem, variant, a function
# giving the template's context) → HTML, where variant is (which page, what else the row depends on,
# such as the page's columns). build.py renders the template and keeps the row with the problem's
# outputs, so a rebuild re-renders only changed problems' rows.
ProblemRow = Callable[[str, Problem, tuple, Callable[[], dict]], str]


def site_pages(lb: Leaderboard, urls: Urls, markdown_html: Callable[[str], str], problem_row: ProblemRow) -> list[Page]:
    """Every page but the problems' own (`problem_page`, `run_page`): home, search, hosts, implementations,
    protocols, former problem names and the Markdown pages, in that order."""
    return (home_pages(lb, urls, problem_row) + [search_page(lb, urls)] + host_pages(lb, urls, problem_row)
            + implementation_pages(lb, urls, problem_row) + protocol_pages(lb) + redirect_pages(lb, urls)
            + markdown_pages(lb, markdown_html))


def home_pages(lb: Leaderboard, urls: Urls, problem_row: ProblemRow) -> list[Page]:
    """Home: what the site is, the headline, what changed lately and a line per level leading to that
    level's page; then the level pages, each level's problems × timing hosts (`level_pages`)."""
    levels = overview_levels(lb)
    return ([Page("", "home.html", "Home", partial(_home_context, lb, urls, levels))]
            + level_pages(lb, urls, problem_row, levels) + folder_pages(lb, urls, levels))


def folder_pages(lb: Leaderboard, urls: Urls, levels: list[Level]) -> list[Page]:
    """/problems/, /levels/ and /runs/ (with run pages): a reader trimming a problem's, a level's or a run's
    URL lands on a page, not a 404. Bounded whatever the data: a level of more than PROBLEMS_PER_PAGE
    problems is a link to its own pages, and runs are only counted (listed on their problems' tables)."""
    context = {"levels": levels, "per_page": PROBLEMS_PER_PAGE, "runs": len(lb.content.runs),
               "problems": lb.suite.get(ALL_LEVELS, 0)}
    return [Page(f"{folder}/", "folder.html", title, {**context, "folder": folder})
            for folder, title in (("problems", "Problems"), ("levels", "Levels"), ("runs", "Runs"))
            if folder != "runs" or urls.run_pages]


def _home_context(lb: Leaderboard, urls: Urls, levels: list[Level]) -> dict:
    return {
        "headline": headline(lb, urls), "lately": what_changed(lb, urls), "levels": levels,
        "search_url": urls("search/"),
        "api_url": urls("api/v1/index.json"), "reference": lb.reference,
        "counts": {
            "problems": lb.suite.get(ALL_LEVELS, 0),
            "replaced": sum(len(versions) - 1 for level in levels for _, versions in level.replaced),
            "hosts": len(lb.content.environments),
            "implementations": len(lb.implementations),
            "runs": len(lb.content.runs),
        },
    }


@dataclass(frozen=True)
class Level:
    """One page of the problem overview: KernelBench's level n at /levels/<n>/, the problems without a
    level at /levels/other/. (Not under /problems/: a problem titled "Level 1" has the slug level-1.)"""

    key: str  # its URL's part: the level's number, or "other"
    title: str  # "Level 1", "Other problems"
    problems: tuple[Problem, ...]  # in page order
    counted: int = 0  # its problems as the suite counts them: a KernelBench number once (about page, "Summaries")
    # The numbers whose problem was replaced: (number, its problems with their first and last observed, oldest first)
    replaced: tuple[tuple[int, tuple[tuple[Problem, str | None, str | None], ...]], ...] = ()

    @property
    def url(self) -> str:  # (relative to the site root)
        return f"levels/{self.key}/"


def _level_of(p: Problem) -> tuple[str, str]:
    """The level page a problem is listed on: (its key, its title)."""
    return (str(p.level), f"Level {p.level}") if p.level is not None else ("other", "Other problems")


def overview_levels(lb: Leaderboard) -> list[Level]:
    """The overview's pages in page order (KernelBench's levels by number, then the other problems),
    each with its problems in page order."""
    found: dict[tuple[str, str], list[Problem]] = {}
    for p in lb.problems:
        found.setdefault(_level_of(p), []).append(p)
    return [Level(key, title, tuple(problems), lb.suite.get(key, len(problems)), _replaced(lb, problems))
            for (key, title), problems in found.items()]


def _replaced(lb: Leaderboard, problems: list[Problem]) -> tuple:
    """The KernelBench numbers of a level held by more than one problem, each with its versions, oldest first."""
    by_number: dict[int, list[Problem]] = {}
    for p in problems:
        if p.number is not None:
            by_number.setdefault(p.number, []).append(p)
    found = []
    for number, versions in sorted(by_number.items()):
        if len(versions) > 1:
            dated = [(p, *_observed_span(lb.workloads[p.slug])) for p in versions]
            found.append((number, tuple(sorted(dated, key=lambda d: (d[1] is None, utc(d[1]) if d[1] else "", d[0].slug)))))
    return tuple(found)


def _observed_span(workloads: list) -> tuple[str | None, str | None]:
    times = sorted((t for w in workloads for t in (w.first_observed, w.last_observed) if t), key=utc)
    return (times[0], times[-1]) if times else (None, None)


def level_pages(lb: Leaderboard, urls: Urls, problem_row: ProblemRow, levels: list[Level]) -> list[Page]:
    """Each level's page: a row per problem, a cell per timing host (`overview_cells`). A level of more
    than PROBLEMS_PER_PAGE problems is split at /levels/<key>/page/<n>/ (`paged`)."""
    hosts = overview_hosts(lb)
    overview = _Overview(lb, urls, problem_row, hosts, tuple(e.metadata.name for e in hosts), tuple(levels))
    pages: list[Page] = []
    for level in levels:
        pages += paged(urls, level.url, "level.html", level.title, len(level.problems),
                       partial(overview.context, level))
    return pages


@dataclass(frozen=True)
class _Overview:
    """What the level pages' contexts are made from (when each page is rendered)."""

    lb: Leaderboard
    urls: Urls
    problem_row: ProblemRow
    hosts: list
    host_names: tuple[str, ...]
    levels: tuple[Level, ...]

    def row(self, p: Problem) -> str:
        # (A problem is listed on one level page only, so "levels" names the page: kept while the
        # problem and the columns are unchanged.)
        return self.problem_row("home_row.html", p, ("levels", self.host_names), lambda: {
            "problem": p, "cells": overview_cells(self.lb, p, self.host_names, self.urls),
            "reference": self.lb.reference})

    def context(self, level: Level, pager: Pager | None) -> dict:
        lb, urls = self.lb, self.urls
        shown = pager.part(level.problems) if pager else level.problems
        return {
            "level": level, "levels": self.levels, "rows": [self.row(p) for p in shown], "shown": len(shown),
            "pager": pager, "api_url": urls("api/v1/index.json"), "reference": lb.reference,
            "overview_hosts": self.hosts, "bands": SPEEDUP_BANDS,
            "several_workloads": any(len({(b.host, b.workload) for b in lb.boards[p.slug]})
                                     > len({b.host for b in lb.boards[p.slug]}) for p in level.problems),
        }


def host_pages(lb: Leaderboard, urls: Urls, problem_row: ProblemRow) -> list[Page]:
    """The list of timing hosts, then each host's page (what it is, its summaries over all levels, a line per
    level) and, per level, a page of that level's summaries and a row per problem timed there, split into
    pages of at most TABLES_PER_HOST_PAGE tables: a host's page has a bounded length whatever the data."""
    boards_of_host: dict[str, list[Board]] = {}
    for p in lb.problems:
        for b in lb.boards[p.slug]:
            boards_of_host.setdefault(b.host, []).append(b)
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
                           weights=[len(bs) for bs in problems], limit=TABLES_PER_HOST_PAGE)
    return pages


def _host_levels(boards: list[Board]) -> dict[str, list[list[Board]]]:
    """A host's boards by the suite's group (level) of their problem, then by problem, in page order."""
    found: dict[str, dict[str, list[Board]]] = {}
    for b in boards:
        found.setdefault(level_group(b.problem), {}).setdefault(b.problem.slug, []).append(b)
    return {g: list(found[g].values()) for g in sorted(found, key=group_order)}


def _host_rows(problem_row: ProblemRow, name: str, problem: Problem, boards: list[Board]) -> str:
    return problem_row("host_row.html", problem, (name, ()), lambda: {"boards": [
        {"board": b, "best": _best(b), "tied_with": _tied_with(b), "runs": len(b.runs), "several": len(boards) > 1,
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
        "compared": lb.compared_boards.get(name, 0), "api_url": urls.api_host(name),
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
        "columns": TABLES,
    }


def implementation_pages(lb: Leaderboard, urls: Urls, problem_row: ProblemRow) -> list[Page]:
    """The list of implementations, then each one's page: its summaries and a row per problem it timed."""
    pages = [Page("implementations/", "implementations.html", "Implementations", {
        "implementations": lb.implementations,
    })]
    for impl in lb.implementations:
        pages += paged(urls, f"implementations/{impl.slug}/", "implementation.html", impl.label,
                       len(lb.problems_of_implementation[impl.slug]),
                       partial(_implementation_context, lb, urls, problem_row, impl))
    return pages


def _implementation_context(lb: Leaderboard, urls: Urls, problem_row: ProblemRow, impl, pager: Pager | None) -> dict:
    envs = lb.content.environments
    host_names = tuple(sorted(impl.hosts, key=lambda n: (envs[n].metadata.title.casefold(), n)))
    timed = lb.problems_of_implementation[impl.slug]
    problems = [p for p in lb.problems if p.slug in timed]
    first = pager is None or pager.number == 1
    summaries = [s for n in host_names
                 for s in _indexes.of(lb.summaries[n], len(lb.summaries[n]), _by_implementation).get(impl.slug, ())]
    groups = sorted({g for s in summaries for g in s.tallies}, key=group_order)
    return {
        "groups": groups, "group_titles": GROUP_TITLES,
        "implementation": impl, "hosts": [envs[n] for n in host_names], "problems": problems,
        "pager": pager, "first": first,
        "rows": [problem_row("implementation_row.html", p, (impl.slug, host_names),
                             lambda p=p: {"problem": p, "lines": implementation_cells(
                                 lb, impl.slug, p, host_names, urls)})
                 for p in (pager.part(problems) if pager else problems)],
        "summaries": summaries if first else [], "reference": lb.reference, "environments": envs,
        "held_why": held_out_reasons(lb, summaries) if first else {},
    }


def _by_implementation(summaries: list[Summary]) -> dict[str, list[Summary]]:
    found: dict[str, list[Summary]] = {}
    for s in summaries:
        found.setdefault(s.implementation_slug, []).append(s)
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
    """content/pages/*.md. (Their HTML made only when the page is: a rebuild that leaves it
    unchanged never renders its Markdown.)"""
    return [Page(f"{md.slug}/", "page.html", md.title,
                 lambda md=md: {"html": markdown_html(md.markdown), "source": md.source})
            for md in lb.content.pages]


# A level page lists every problem of its level, host and implementation pages every problem timed
# there: a million runs make 10,000 rows (30 MB of HTML on one page, 24 MB on one implementation's).
# Longer lists are split into pages of this many problems, each linking to the others; a site of up
# to this many problems (per level, for the level pages) has each list on one page.
PROBLEMS_PER_PAGE = 500


# A host's page of one level lists at most this many latency tables (a problem's tables on one page): a
# table's row is about 75 px tall at 1280 px and 225 px as a card on a phone, so the page stays under
# 8,000 and 25,000 px with room for long names (tests/test_host_pages.py measures it).
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
    """A page listing `items` problems, or, for more than PROBLEMS_PER_PAGE (or, with `weights`, more than
    `limit` of their weight), its first page at `url` and the others at url/page/<n>/, titled `later_title`
    (default: `title`) and their number. The pages' keys are the first's (keys.OutputKeys.of_page reads the
    host or implementation from the URL; the level pages' is the whole site's), which covers every problem
    listed on any of them."""
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


def _best(board: Board) -> Entry | None:
    return board.entries[0] if board.entries and board.entries[0].rank is not None else None


def api_documents(lb: Leaderboard, urls: Urls) -> dict[str, Callable[[], dict]]:
    """Output path → a function making that JSON document, but the problems' own
    (`problem_document`); made only when needed. Values are the input's, in nanoseconds; None
    where absent."""
    docs: dict[str, Callable[[], dict]] = {"api/v1/index.json": partial(_index_document, lb, urls)}
    for name in sorted(lb.content.environments):
        docs[f"api/v1/hosts/{name}.json"] = partial(_host_document, lb, name, urls)
    return docs


def _index_document(lb: Leaderboard, urls: Urls) -> dict:
    return {
        "apiVersion": API_VERSION,
        "runs": len(lb.content.runs),
        # The suite's problems per group, a KernelBench number once however often its problem was replaced.
        "suite": dict(sorted(lb.suite.items(), key=lambda kv: group_order(kv[0]))),
        "problems": [
            {"slug": p.slug, "title": p.title, "url": urls.problem(p.slug), "api": urls.api_problem(p.slug),
             "runs": sum(len(b.runs) for b in lb.boards[p.slug]),
             **({"level": p.level, "number": p.number} if p.level is not None and p.number is not None else {})}
            for p in lb.problems
        ],
        "hosts": [
            {"name": name, "title": e.metadata.title, "url": urls.host(name), "api": urls.api_host(name)}
            for name, e in sorted(lb.content.environments.items())
        ],
    }


def _host_document(lb: Leaderboard, name: str, urls: Urls) -> dict:
    e = lb.content.environments[name]
    return {
        "apiVersion": API_VERSION,
        "name": name,
        "title": e.metadata.title,
        "url": urls.host(name),
        "hardware": e.spec.hardware.model_dump(mode="json", exclude_unset=True),
        "software": e.spec.software,
        "reference": lb.reference,
        "implementations": [summary_json(s, urls, lb.reference) for s in lb.summaries[name]],
        "boards": [
            {"problem": b.problem.slug, "workload": b.workload, "protocol": b.protocol,
             "url": urls.board(b), "api": urls.api_problem(b.problem.slug), "runs": len(b.runs)}
            for p in lb.problems for b in lb.boards[p.slug] if b.host == name
        ],
    }


# How a problem's API document holds its runs (the `api_entries` setting): "objects", one JSON object
# per entry (kindex-site/v1 as first published); "arrays", one array per entry under the document's
# "columns", about 40% smaller, for sites that must fit GitHub Pages' 1 GB (docs/scale.md).
API_ENTRIES = ("objects", "arrays")


def problem_document(lb: Leaderboard, p: Problem, urls: Urls, entries: str = "objects") -> dict:
    """/api/v1/problems/<slug>.json: every board of the problem with its entries, and each workload's cost."""
    costs = lb.content.costs
    doc = {
        "apiVersion": API_VERSION,
        "slug": p.slug,
        "title": p.title,
        "aliases": [{"slug": a.slug, "title": a.title} for a in p.aliases],
        "workloads": [
            {"digest": w.digest, "first_observed": w.first_observed, "last_observed": w.last_observed,
             "hosts": w.hosts, "cost": cost_json(costs.get(w.digest)),
             "cost_why_not": NO_COST if w.digest not in costs else None}
            for w in lb.workloads[p.slug]
        ],
    }
    boards = lb.boards[p.slug]
    protocols, reviews = lb.content.protocols, lb.content.reviews
    if entries == "objects":
        doc["boards"] = [
            {
                "host": b.host,
                "workload": b.workload,
                "protocol": b.protocol,
                "comparability": _comparability(protocols[b.protocol]),
                "reference": b.reference.run.name if b.reference else None,
                "entries": [entry_row(e, urls, b.significant_figures, b.statistic, reviews) for e in b.entries],
                "history": [entry_row(e, urls, b.significant_figures, b.statistic, reviews) for e in b.history],
                "warnings": [warning_json(w) for w in b.warnings],
            }
            for b in boards
        ]
        return doc
    # Arrays: what boards repeat is said once (the columns, each protocol's comparability, the
    # implementations' labels), a board's runs are named by their row in it, and without run pages
    # an entry's url, its board's, is the board's "url". For sites that must fit in 1 GB.
    labels = list(dict.fromkeys(e.implementation for b in boards for e in b.runs))
    label_index = {label: i for i, label in enumerate(labels)}
    doc["columns"] = list(_flat_entry(boards[0].entries[0], urls, label_index, None, "mean", reviews))
    doc["implementations"] = labels
    doc["protocols"] = {name: _comparability(protocols[name]) for name in dict.fromkeys(b.protocol for b in boards)}
    doc["boards"] = []
    for b in boards:
        row_of = {e.run.name: i for i, e in enumerate(b.runs)}  # (history rows follow the entries')
        doc["boards"].append({
            "host": b.host,
            "workload": b.workload,
            "protocol": b.protocol,
            "url": urls.board(b),
            "reference": row_of[b.reference.run.name] if b.reference else None,
            "rows": [list(_flat_entry(e, urls, label_index, b.significant_figures, b.statistic, reviews).values())
                     for e in b.entries],
            "history": [list(_flat_entry(e, urls, label_index, b.significant_figures, b.statistic, reviews).values())
                        for e in b.history],
            "warnings": [{**warning_json(w), "runs": [row_of[name] for name in w.runs]} for w in b.warnings],
        })
    return doc


def _comparability(protocol) -> dict:
    return {"family": protocol.spec.comparability.family, "notes": protocol.spec.comparability.notes}


def _flat_entry(entry: Entry, urls: Urls, label_index: dict[str, int], figures: int | None = None,
                statistic: str = "mean", reviews: Mapping[str, list] | None = None) -> dict:
    """An API entry as an "arrays" row: speedup → speedup, speedup_ci95, speedup_rounding_bounds; trend →
    trend (its verdict), trend_ratio, trend_ratio_ci95, trend_ratio_rounding_bounds, trend_previous; the
    implementation by its index in the document's list; url only where runs have pages of their own."""
    row = entry_row(entry, urls, figures, statistic, reviews)
    speedup = row.pop("speedup")
    row["speedup"], row["speedup_ci95"], row["speedup_rounding_bounds"] = (
        (speedup["value"], speedup["ci95"], speedup["rounding_bounds"]) if speedup else (None,) * 3)
    trend = row.pop("trend")
    (row["trend"], row["trend_ratio"], row["trend_ratio_ci95"], row["trend_ratio_rounding_bounds"],
     row["trend_previous"]) = ((trend["verdict"], trend["ratio"], trend["ratio_ci95"], trend["ratio_rounding_bounds"],
                               trend["previous"]) if trend else (None,) * 5)
    row["implementation"] = label_index[row["implementation"]]
    if not urls.run_pages:
        del row["url"]
    return row


# --- The level pages' problems × hosts overview, the home page's headline, and the search page -

# Colour bands of the overview, by the fastest implementation's speedup, for cells where some
# implementation beats the reference beyond noise (each cell also shows the number; others are muted).
SPEEDUP_BANDS = [  # (class, lowest speedup, what it means)
    ("b0", 0.0, "beyond noise, by under 1.05×"),
    ("b1", 1.05, "1.05× to 1.5×"),
    ("b2", 1.5, "1.5× to 2×"),
    ("b3", 2.0, "2× to 4×"),
    ("b4", 4.0, "4× or more"),
]


def speedup_band(value: float | None) -> str:
    if value is None:
        return ""
    return [cls for cls, low, _ in SPEEDUP_BANDS if value >= low][-1]


def overview_hosts(lb: Leaderboard) -> list:
    """The overview's columns (on every level page): every timing host, by title."""
    return sorted(lb.content.environments.values(), key=lambda e: (e.metadata.title.casefold(), e.metadata.name))


def overview_cells(lb: Leaderboard, problem: Problem, host_names: tuple[str, ...], urls: Urls) -> list[dict | None]:
    """One problem's overview cells (its level page's row), one per host: its best run vs the reference.

    A problem timed at several workloads on one host shows its newest workload's board (the cell says
    how many workloads there are). Within that workload, a host timed under several protocols shows the
    first board in page order.
    """
    order = {w.digest: i for i, w in enumerate(lb.workloads[problem.slug])}
    chosen: dict[str, Board] = {}
    workloads: dict[str, set[str]] = {}
    for b in lb.boards[problem.slug]:  # oldest workload first: a newer one replaces an older one
        workloads.setdefault(b.host, set()).add(b.workload)
        held = chosen.get(b.host)
        if held is None or order[b.workload] > order[held.workload]:
            chosen[b.host] = b
    cells: list[dict | None] = []
    for name in host_names:
        b = chosen.get(name)
        if b is None:
            cells.append(None)
            continue
        best = _best(b)
        value = best.speedup.value if best is not None and best.speedup is not None else None  # (rounded once, by the page)
        # Coloured only where some run beats the reference beyond noise (its speedup's interval lies
        # wholly above 1) and is not flagged implausible, as the tables flag it (`Entry.held_out`: an implausible speedup or latency);
        # elsewhere the cell is muted, so the eye finds the wins. A fastest run flagged implausible is
        # shown flagged and never coloured: its number is no win until someone has checked it.
        implausible = bool(best and best.held_out)
        win = any(e.speedup is not None and e.speedup.above_1 and not e.held_out
                  for e in b.entries if e.rank is not None)
        cells.append({"url": urls.board(b), "best": best.implementation if best else None,
                      "tied": bool(best and best.tied), "tied_with": _tied_with(b), "speedup": value,
                      "band": speedup_band(value) if win and not implausible else "", "win": win,
                      "implausible": implausible, "workloads": len(workloads[name])})
    return cells


def _tied_with(board: Board) -> list[str]:
    """The other entries sharing the fastest's rank (rank 1), in table order: a "fastest" named anywhere
    names them too."""
    return [e.implementation for e in board.entries[1:] if e.rank == 1]


def headline(lb: Leaderboard, urls: Urls) -> list[dict]:
    """The home page's first answer, which implementation is best on which GPU: per timing host (by
    title), each implementation against the reference over the problems timed there
    (`Leaderboard.summaries`, as the host page gives them), in their one order (`Summary.order`)."""
    found = []
    for env in overview_hosts(lb):
        name = env.metadata.name
        summaries = lb.summaries.get(name, [])  # (in Summary.order)
        hw = env.spec.hardware
        summarised = {s.implementation_slug for s in summaries}
        # Timed here, but with no run compared with the reference (no table with one, or another GPU): named, so
        # that none goes missing unsaid.
        uncompared = [impl for impl in lb.implementations if name in impl.hosts and impl.slug not in summarised
                      and impl.label != lb.reference]
        found.append({"environment": env, "url": urls.host(name), "summaries": summaries, "uncompared": uncompared,
                      "gpu": " ".join(filter(None, [hw.product, hw.formFactor])), "compared": lb.compared_boards.get(name, 0)})
    return found


LATELY = 6  # dates × hosts of newest runs on the home page
CHANGES = 10  # regressions and improvements on the home page


def what_changed(lb: Leaderboard, urls: Urls) -> dict:
    """The home page's "what changed lately": the newest runs, as (date, host) batches with how many
    runs and problems each holds; and the latest runs that regressed or improved against their
    implementation's previous run on their table (`Entry.trend`), newest first."""
    envs = lb.content.environments
    by_time: dict[tuple[str, str], int] = {}  # (observedAt as given, host) → runs: few distinct values
    problems: dict[tuple[str, str], set[str]] = {}
    changed: list[tuple[Entry, Board]] = []
    history = 0
    global _LATELY
    kept, _LATELY = _LATELY, {}
    for p in lb.problems:
        key = lb.problem_keys.get(p.slug)
        held = kept.get(p.slug)
        if held is None or held[0] != key or key is None:
            held = (key, *_problem_lately(lb.boards[p.slug]))
        _LATELY[p.slug] = held
        _, runs_at, its_changes, its_history = held
        history += its_history
        changed += its_changes
        for time_host, n in runs_at.items():
            by_time[time_host] = by_time.get(time_host, 0) + n
            problems.setdefault(time_host, set()).add(p.slug)
    batches: dict[tuple[str, str], list] = {}  # (UTC date, host) → [runs, problem slugs]
    for (when, host), n in by_time.items():
        batch = batches.setdefault((utc(when)[:10], host), [0, set()])
        batch[0] += n
        batch[1] |= problems[when, host]
    newest = sorted(batches.items(), key=lambda kv: (envs[kv[0][1]].metadata.title.casefold(), kv[0][1]))
    newest.sort(key=lambda kv: kv[0][0], reverse=True)  # newest date first; hosts by title within a date
    del newest[LATELY:]
    changed.sort(key=lambda eb: (utc(eb[0].run.facts.observed_at or "1970-01-01T00:00:00+00:00"), eb[0].run.name),
                 reverse=True)
    return {
        "batches": [{"date": date, "environment": envs[host], "url": urls.host(host), "runs": n,
                     "problems": len(slugs)} for (date, host), (n, slugs) in newest],
        "changes": [{"row": entry_row(e, urls, b.significant_figures), "board_url": urls.board(b), "board": b,
                     "environment": envs[b.host],
                     "figures": b.significant_figures + 1 if b.significant_figures else None}
                    for e, b in changed[:CHANGES]],
        "regressed": sum(1 for e, _ in changed if e.trend.verdict == "regressed"),
        "improved": sum(1 for e, _ in changed if e.trend.verdict == "improved"),
        "history": history,
    }


# What each problem adds to "what changed lately", by slug, with the problem's key (Leaderboard.problem_keys)
# it was made from: a long-running `serve` goes over the runs of changed problems only (a pass over every
# run costs 1.6 s at a million). Remade whole each time (problems gone are dropped); made again in any
# process that renders the home page and lost with it.
_LATELY: dict[str, tuple] = {}


def _problem_lately(boards: list[Board]) -> tuple[dict[tuple[str, str], int], list[tuple[Entry, Board]], int]:
    """One problem's runs per (observedAt, host), its current entries that regressed or improved, and
    how many earlier runs its tables hold."""
    runs_at: dict[tuple[str, str], int] = {}
    changed: list[tuple[Entry, Board]] = []
    history = 0
    for b in boards:
        history += len(b.history)
        times: dict[str | None, int] = {}  # (a board's runs share a few times: one pass, then per time)
        for e in b.entries:
            when = e.run.facts.observed_at
            times[when] = times.get(when, 0) + 1
            if e.trend is not None and e.trend.verdict != "unchanged":
                changed.append((e, b))
        for e in b.history:
            when = e.run.facts.observed_at
            times[when] = times.get(when, 0) + 1
        for when, n in times.items():
            if when:
                runs_at[when, b.host] = runs_at.get((when, b.host), 0) + n
    return runs_at, changed, history


def search_page(lb: Leaderboard, urls: Urls) -> Page:
    return Page("search/", "search.html", "Search", page_context(lb, urls))


# --- What pages weigh, without making them -----------------------------------------------------------
# `check`, and a build before it writes anything, weigh the pages the content can make big, and the
# site, against max_page_bytes and max_site_bytes (build.bounds_problems). A source counts by the
# bound of its HTML (highlight.shown_sizes); the rest by what the bundled templates give each part,
# measured on a site of one run and on one table of 1,000 and of 3,000 runs, each its own
# implementation (benchmarks/one_table.py's tables), rounded down, plus what a label or title holds
# beyond a short one's: a site weighed over a cap is over it. A project's own templates may weigh
# otherwise: the build measures every file it writes.
RUN_PAGE_BYTES = 6_000  # a run page but its source and title (6.3 kB measured)
TITLE_TIMES = 3  # a run page says its title in <title>, its description and its heading (and its document)
# The most a title can add to its page (models.Text: 10,000 characters, each a hidden one at worst:
# "[U+202E]" as text, safetext.CODE_POINT_HTML in the document): titles are weighed only on a page
# this close to the cap.
TITLE_MOST_BYTES = 10_000 * (TITLE_TIMES * len("[U+202E]") + len(CODE_POINT_HTML.format(0x202E)))
PAGE_BYTES = 2_000  # any page's frame: its head, navigation and footer (the 404 page: 2.0 kB)
TABLE_BYTES = 3_000  # a table on a problem page: its head, chart and notes
ROW_BYTES = 210  # a run in a table: its row and its point on the chart (219)
MATRIX_CELL_BYTES = 50  # a speedup in a problem's host × implementation table
SUMMARY_BYTES = (200, 480)  # per implementation on a host's page: its charts' share, and per group (level) (1,210 for two)
HEADLINE_BYTES = (140, 70)  # per implementation on the home page's card of each host, and per group (286 for two)
LISTED_BYTES = 100  # per implementation on the implementations page and on the search page (108 and 100)
BOARD_ROW_BYTES = 250  # per table on a host's page
LEVEL_CELL_BYTES = 60  # per problem and host on a level page
IMPLEMENTATION_PAGE_BYTES = 2_700  # (2.7 kB with one problem and no summary; 5.2 kB with both)
API_ROW_BYTES = {"objects": 450, "arrays": 200}  # per run in its problem's API document (454 as objects)
API_SUMMARY_BYTES = 590  # per implementation in a host's API document (598)
CSV_ROW_BYTES = 160  # per run in its table's CSV (164)
SHORT_TEXT = 16  # the bytes of the labels and titles the weights above were measured with


class Weight(NamedTuple):
    """A page weighed over max_page_bytes: what it is, its weight, and what a problem line says of it."""

    url: str
    bytes: int
    where: str  # the content file (and field) the line starts with
    what: str  # e.g. "the page of run x"
    why: str  # what makes it big, e.g. "with this source (content/x.py)"
    detail: str = ""  # said after the cap, e.g. "; its runs are in content/a.json (3), content/b.json (1)"


class SiteWeight(NamedTuple):
    """What `weigh_site` found: the pages over the cap, and the site's weight with the parts of it
    that a setting can drop (publish.size_advice)."""

    pages: list[Weight]  # those over the limit, in page order
    total: int  # the whole site's, at least
    runs: int  # its run pages' share of it
    csvs: int  # its tables' CSVs'
    problem_json: int  # its problems' API documents'


def weigh_site(lb: Leaderboard, max_page_bytes: int, run_pages: bool = True, board_csvs: bool = True,
               api_entries: str = "objects") -> SiteWeight:
    """Every page the content can make big weighed without making it (a source by its bound), those
    over `max_page_bytes` said; and the site's weight (its sources as plain text: what any page
    showing one holds at least). One pass over the runs with a source, the tables and the summaries."""
    over: list[Weight] = []
    text = _TextBytes()
    runs_total = _weigh_run_pages(lb, max_page_bytes, text, over) if run_pages else 0
    total = runs_total + sum(s.sizes[0] for s in lb.content.sources.values())  # (and each file for download)
    problem_pages, rows = _weigh_problem_pages(lb, max_page_bytes, text, over)
    csvs, problem_json = rows * CSV_ROW_BYTES if board_csvs else 0, rows * API_ROW_BYTES.get(api_entries, 450)
    host_pages, headline = _weigh_host_pages(lb, max_page_bytes, text, over)
    total += problem_pages + csvs + problem_json + host_pages
    total += _weigh_listing_pages(lb, max_page_bytes, text, headline, over)
    total += IMPLEMENTATION_PAGE_BYTES * len(lb.implementations)
    return SiteWeight(over, total, runs_total, csvs, problem_json)


def _weigh_run_pages(lb: Leaderboard, max_page_bytes: int, text: _TextBytes, over: list[Weight]) -> int:
    """The run pages' weight; each over the limit said, by its source or its title."""
    budget = max_page_bytes // SOURCE_SHARE
    runs_total = 0
    for run in lb.content.runs:
        page = RUN_PAGE_BYTES
        source = run.files.get("implementation") if run.files else None
        if source is not None:
            shown = _shown_bound(source, run.facts.implementation_source, budget)
            page += shown
            runs_total += source.sizes[1] - shown  # (the site counts it as plain text)
        if page + TITLE_MOST_BYTES > max_page_bytes:
            page += text.extra_title(run.facts.title_parts)
            if page > max_page_bytes and source is not None and 2 * shown > page:
                over.append(Weight(run_page_url(run.name), page, f"{run.source}: run.spec.implementationSource",
                                   f"the page of run {run.name}", f"with this source ({source.shown})"))
            elif page > max_page_bytes:
                over.append(Weight(run_page_url(run.name), page, f"{run.source}: run.metadata.title",
                                   f"the page of run {run.name}", "with this title"))
        runs_total += page
    return runs_total


def _weigh_problem_pages(lb: Leaderboard, max_page_bytes: int, text: _TextBytes,
                         over: list[Weight]) -> tuple[int, int]:
    """The problem pages' weight (their workload sources' plain text included) and their tables' rows."""
    budget = max_page_bytes // SOURCE_SHARE
    total = rows = 0
    for problem in lb.problems:
        boards = lb.boards[problem.slug]
        page = PAGE_BYTES + sum(TABLE_BYTES + ROW_BYTES * (len(b.entries) + len(b.history))
                                + sum(text.extra(e.implementation) for e in b.entries)
                                + sum(text.extra(e.implementation) for e in b.history) for b in boards)
        rows += sum(len(b.entries) + len(b.history) for b in boards)
        with_reference = sum(1 for b in boards if b.reference is not None)
        page += MATRIX_CELL_BYTES * with_reference * len({e.implementation_slug for b in boards for e in b.entries})
        biggest = None  # (its workload sources: one per workload, the first run's that has one)
        for workload in lb.workloads[problem.slug]:
            run = next((e.run for b in boards if b.workload == workload.digest for e in b.runs
                        if "workload" in e.run.files), None)
            if run is not None:
                shown = _shown_bound(run.files["workload"], run.facts.workload_source, budget)
                page += shown
                total += run.files["workload"].sizes[1] - shown  # (the site counts it as plain text)
                if biggest is None or shown > biggest[0]:
                    biggest = (shown, run)
        total += page
        if page > max_page_bytes:
            if biggest is not None and biggest[0] * 2 > page:
                run = biggest[1]
                over.append(Weight(problem_url(problem.slug), page, f"{run.source}: run.spec.workloadSource",
                                   f"the page of problem {problem.slug}",
                                   f"with this source ({run.files['workload'].shown})"))
            else:
                runs = [e.run for b in boards for e in b.runs]
                over.append(Weight(problem_url(problem.slug), page, files_of(runs, 1),
                                   f"the page of problem {problem.slug}",
                                   f"with {_counted(len(runs), 'run')} in {_counted(len(boards), 'table')}",
                                   f"; its runs are in {files_of(runs)}"))
    return total, rows


def _weigh_host_pages(lb: Leaderboard, max_page_bytes: int, text: _TextBytes, over: list[Weight]) -> tuple[int, int]:
    """The host pages' weight with their API summaries, and what their summaries add to the home page."""
    total = headline = 0
    boards_of_host: dict[str, list[Board]] = {}
    for boards in lb.boards.values():
        for b in boards:
            boards_of_host.setdefault(b.host, []).append(b)
    for host, summaries in lb.summaries.items():
        groups = sum(len(s.tallies) for s in summaries)
        boards_here = boards_of_host.get(host, [])
        page = (PAGE_BYTES + SUMMARY_BYTES[0] * len(summaries) + SUMMARY_BYTES[1] * groups
                + BOARD_ROW_BYTES * min(len(boards_here), TABLES_PER_HOST_PAGE)
                + sum(text.extra(s.implementation) * (len(s.tallies) + 2) for s in summaries))  # (rows and charts)
        headline += HEADLINE_BYTES[0] * len(summaries) + HEADLINE_BYTES[1] * groups
        total += page + API_SUMMARY_BYTES * len(summaries)
        if page > max_page_bytes:
            runs = [e.run for b in boards_here for e in b.entries]
            over.append(Weight(f"hosts/{host}/", page, files_of(runs, 1), f"the page of host {host}",
                               f"with {_counted(len(summaries), 'implementation')} summarized",
                               f"; its runs are in {files_of(runs)}"))
    return total, headline


def _weigh_listing_pages(lb: Leaderboard, max_page_bytes: int, text: _TextBytes, headline: int,
                         over: list[Weight]) -> int:
    """The home, implementations, search and level pages' weight."""
    total = 0
    labels = sum(text.extra(i.label) for i in lb.implementations)
    listing = PAGE_BYTES + LISTED_BYTES * len(lb.implementations) + labels
    levels = PAGE_BYTES + LEVEL_CELL_BYTES * min(len(lb.problems), PROBLEMS_PER_PAGE) * len(lb.content.environments)
    for url, page, what in (("", PAGE_BYTES + headline + labels, "the home page"),
                            ("implementations/", listing, "the implementations page"),
                            ("search/", listing, "the search page"),
                            ("levels/", levels, "a level's page")):
        total += page
        if page > max_page_bytes:
            runs = [e.run for i in lb.implementations for e in i.entries]
            over.append(Weight(url, page, files_of(runs, 1), what,
                               f"with {_counted(len(lb.implementations), 'implementation')} and "
                               f"{_counted(len(lb.content.environments), 'timing host')}",
                               f"; the runs are in {files_of(runs)}"))
    return total


SOURCE_SHARE = 2  # a source is highlighted when, so shown, it takes at most 1/SOURCE_SHARE of max_page_bytes


def source_budget(max_page_bytes: int) -> int:
    """The bytes a source may take on its page highlighted (else it is shown as plain text)."""
    return max_page_bytes // SOURCE_SHARE


def _shown_bound(source, ref: tuple[str, str | None], budget: int) -> int:
    from .highlight import shown_as  # (its bounds alone: no Pygments)

    return shown_as(source.rel, ref[1], source.sizes, budget)[1]


def _counted(n: int, noun: str) -> str:
    return f"{n:,} {noun if n == 1 else noun + 's'}"


def problem_url(slug: str) -> str:
    return f"problems/{slug}/"


def files_of(runs, most: int = 3) -> str:
    """The content files holding the most of `runs`, most first (with how many, when more than one is named)."""
    counts: dict[str, int] = {}
    for run in runs:
        counts[run.source.file] = counts.get(run.source.file, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if most == 1:
        return ranked[0][0] if ranked else "content"
    named = ", ".join(f"{file} ({n:,})" for file, n in ranked[:most])
    return named + (f" and {len(ranked) - most:,} more files" if len(ranked) > most else "")


class _TextBytes:
    """What a label or title weighs on a page beyond SHORT_TEXT bytes (escaped, a hidden character as
    its code point), once per distinct text."""

    def __init__(self):
        self.known: dict[str, int] = {}
        self.titles: dict[tuple[str, ...], int] = {}  # (a run's title by its parts: shared by many runs)

    def extra(self, text: str) -> int:
        found = self.known.get(text)
        if found is None:
            shown = escape(text)
            found = self.known[text] = max(0, (len(shown) if shown.isascii() else len(shown.encode())) - SHORT_TEXT)
        return found

    def extra_title(self, parts: tuple[str, ...]) -> int:
        """A run page's title: TITLE_TIMES as text, and once in its document (a hidden character as
        an element there: safetext.CODE_POINT_HTML)."""
        found = self.titles.get(parts)
        if found is None:
            title = " · ".join(parts)
            shown = html_escape(title)
            shown = shown if shown.isprintable() else shown_hidden(shown, CODE_POINT_HTML)
            found = self.titles[parts] = TITLE_TIMES * self.extra(title) + max(0, len(shown.encode()) - SHORT_TEXT)
        return found


def heaviest_files(lb: Leaderboard, run_pages: bool = True, board_csvs: bool = True, api_entries: str = "objects",
                   most: int = 3) -> list[tuple[str, int]]:
    """The content files whose runs weigh most on the site (their run pages and sources, their rows in
    tables, API documents and CSVs), heaviest first, with their weight, as `weigh_site` weighs them."""
    row = ROW_BYTES + API_ROW_BYTES.get(api_entries, 450) + (CSV_ROW_BYTES if board_csvs else 0)
    weights: dict[str, int] = {}
    for run in lb.content.runs:
        weight = row + (RUN_PAGE_BYTES if run_pages else 0)
        for kind, source in run.files.items():
            if run_pages or kind == "workload":
                weight += source.sizes[1]
        weights[run.source.file] = weights.get(run.source.file, 0) + weight
    return sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:most]
