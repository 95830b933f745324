"""A problem's page (every table of its runs, by workload) and each run's page, with what physics
says of them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache, partial

from .charts import Strip, format_si, format_sol
from .gpus import GpuFigures, GpuTable, load_gpus
from .entry_rows import NOT_TIMED, cost_json, entry_row, lab_of, limits_json, result_sol, sol_of
from .leaderboard import Board, Entry, Leaderboard, Problem, lab_folder, primary_value, utc
from .models import HELD_VERDICTS
from .paging import Page
from .physics import NS_PER_S, Limits, duration
from .stats import Speedup
from .tables import TABLES
from .urls import Urls, run_page_url


def board_view(board: Board, lb: Leaderboard, urls: Urls) -> dict:
    protocol = lb.content.protocols[board.protocol]
    figures, statistic, reviews = board.significant_figures, board.statistic, lb.content.reviews
    rows = [entry_row(e, urls, figures, statistic, reviews) for e in board.entries]
    sols = [sol_of(e.limits, primary_value(e, statistic)) for e in board.entries]
    return {
        "board": board, "environment": lb.content.environments[board.host], "protocol": protocol, "rows": rows,
        "history": [entry_row(e, urls, figures, statistic, reviews) for e in board.history],
        # Each row with its exact fraction of the speed of light (the table rounds it once).
        "lines": list(zip(rows, sols, (e.limits for e in board.entries))),
        "above_light": any(sol > 1 for sol in sols if sol), "physics": board_physics(board),
        # Who produced the runs: said once above the table when one lab made them all, else on each row.
        "labs": sorted({lab for e in board.runs if (lab := lab_of(e.run.facts))}),
        "figures": figures + 1 if figures else None,  # the most significant figures a value is shown with
        "mean_figures": min(3, figures + 1) if figures else 3,
        "trends": trend_series(board), "warnings": board.warnings, "reference": board.reference,
    }


def trend_series(board: Board) -> list[tuple[str, list[tuple[str, int, tuple[int, int] | None]]]]:
    """Per implementation with two or more comparable runs on the board: (label, [(observedAt, mean
    ns, 95% interval)] oldest first), for its trend chart."""
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
    """A problem's boards grouped by workload, each with its host × implementation speedups and its
    workload's source (`shown_source`)."""
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
                       "transposed": len(columns) > MATRIX_COLUMNS and len(matrix) < len(columns)})
    return groups


MATRIX_COLUMNS = 6  # a problem's speedup table with more implementations than this (and fewer hosts) is turned


def page_warnings(groups: list[dict]) -> dict:
    """The distinct warnings of a page's tables, as listed once at its end: `listed`, each (code, message
    without its count, whether counted), sorted; `rows`, each with the tables (anchor, host title) it is
    on where its code is listed more than once, else None."""
    on: dict[tuple[str, str, bool], list[tuple[str, str]]] = {}
    for group in groups:
        for view in group["boards"]:
            title = view["environment"].metadata.title
            for w in view["warnings"]:
                count, message = w.counted
                on.setdefault((w.code, message, count != ""), []).append((view["board"].anchor, title))
    listed = sorted(on)
    codes = Counter(code for code, _, _ in listed)
    return {"listed": listed, "rows": [(*key, on[key] if codes[key[0]] > 1 else None) for key in listed]}


def problem_page(lb: Leaderboard, problem: Problem, urls: Urls, board_csvs: bool = True,
                 source_budget: int | None = None) -> Page:
    """A problem's page: every table of its runs, each linking to its CSV with board_csvs."""
    # Its context is made when the page is rendered, then dropped: a site's rows held at once would
    # be most of a million-run build's memory.
    def context() -> dict:
        groups = workload_groups(lb, problem.slug, urls, source_budget)
        return {"problem": problem, "groups": groups, "page_warnings": page_warnings(groups),
                "api_url": urls.api_problem(problem.slug), "reference": lb.reference, "board_csvs": board_csvs,
                "columns": TABLES}

    return Page(f"problems/{problem.slug}/", "problem.html", problem.title, context)


def run_of_page(board: Board, path: str) -> Entry:
    """The entry of `board` whose run page is at `path` (run_page_path)."""
    return board.runs_by_name[path[5:-11]]  # (runs/<name>/index.html)


def run_page(lb: Leaderboard, urls: Urls, board: Board, path: str, source_budget: int | None = None) -> Page:
    """The page at `path` (run_page_path) of a run of `board`, made when written; a run whose document
    was not kept is read again from its file then."""
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
        "ranked": board.ranked,  # (how many its rank is out of)
        "environment": environment, "protocol": protocol,
        # Plain values: a template reads a dict's item faster than an object's attribute.
        "names": {"run": r.name, "file": r.source.on_site, "host": environment.metadata.title,
                  "protocol": protocol.metadata.title, "problem": problem.title, "implementation": entry.implementation},
        "document": r.shown, "table_api_url": urls.api_problem(problem.slug),
        "board_url": urls.board(board), "implementation_url": urls.implementation(entry.implementation_slug),
        "host_url": urls.host(r.environment), "protocol_url": urls.protocol(r.protocol),
        "source": shown_source(r, "implementation", urls, source_budget),
        # Its verdict against the reference, as the speedup's interval says (about page, "Comparing two runs").
        "beyond": None if entry.speedup is None or entry.is_reference else verdict_text(entry.speedup),
    }


def run_physics(content, entry: Entry, board: Board, gpus: GpuTable | None) -> dict:
    """A run page's physics: its exact fraction of the speed of light and its newest reviews; and its
    "facts", alike for every run of its workload on its GPU (render.physics_facts keeps them by "key")."""
    x = entry.limits
    cost = content.costs.get(board.workload)
    gpu = _gpu_named(gpus, x.gpu) if gpus is not None and x is not None and x.gpu else None
    value, reviews = primary_value(entry, board.statistic), content.reviews.get(entry.run.name, [])
    facts = {"cost": cost, "gpu": gpu, "limits": x, "context": partial(_facts_context, x, cost, gpu)}
    return {"limits": x, "value": value, "sol": sol_of(x, value), "statistic": board.statistic,
            "gpu": None if x is None else x.gpu, "floor_ns": None if x is None else x.floor_ns,
            "dram_bytes": dram_bytes(x) if entry.below_floor else None,  # (its warning's)
            "roofline_text": limits_json(x)[5],
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
    """What templates/run_physics.html is given, as plain values: a run's limits, GPU figures, cost."""
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
    """The GPU figures a floor and a roofline take: (what, the figure, its source, the time it gives)."""
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
    plain text when highlighted it might take more than `budget` bytes (highlight.shown_as)."""
    source = run.files.get(kind)
    if source is None:
        return None
    from .highlight import highlighted, shown_as  # (Pygments, only for pages that show a source)

    ref = run.facts.implementation_source if kind == "implementation" else run.facts.workload_source
    language = ref[1] if budget is None else shown_as(source.rel, ref[1], source.sizes, budget)[0]
    shown = highlighted(source.text, source.digest, source.rel, language)
    return {"url": urls.source(source.rel), "name": source.rel.rsplit("/", 1)[-1], "bytes": shown.bytes,
            "lines": shown.lines, "html": shown.html}


def gpu_table(lb: Leaderboard) -> GpuTable:
    """The GPU table the leaderboard judged its runs by (a site's corrections in)."""
    return lb.gpus if lb.gpus is not None else _package_gpus()


@lru_cache(maxsize=1)
def _package_gpus() -> GpuTable:
    return load_gpus()


def dram_bytes(x: Limits | None) -> int | None:
    """The bytes a floor has to move through DRAM: its inputs and outputs but what may stay in the L2."""
    if x is None or x.floor_ns is None or not x.bandwidth:
        return None
    return round(x.floor_ns * Fraction(x.bandwidth) / NS_PER_S)


def board_physics(board: Board) -> dict | None:
    """The floor and roofline a board's line states, as plain values; None without a cost or a timed run."""
    x = next((e.limits for e in board.entries if e.limits is not None and not e.mixed_hardware), None)
    if x is None or x.moved_bytes is None:
        return None
    return {"gpu": x.gpu, "floor_ns": x.floor_ns, "floor_why_not": x.floor_why_not, "roofline_ns": x.roofline_ns,
            "roofline_why_not": x.roofline_why_not, "bandwidth": x.bandwidth, "dram_bytes": dram_bytes(x)}


def sol_strips(boards: list[Board], environments: Mapping) -> list[Strip]:
    """Per implementation, its current runs' fractions of the speed of light on the hosts that timed
    one workload (the one fair view across GPUs); None for a workload one host timed."""
    if len({b.host for b in boards}) < 2:
        return []
    found: dict[str, list[tuple[float, str]]] = {}
    for b in boards:
        for e in b.entries:
            sol = result_sol(e, b.statistic)
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
