"""API documents written from the rules alone, in the shape `check` reads: what a site that follows the
about page exactly would publish. The self-test compares them (no differences) and tampered copies of
them (each tampering reported), so that a comparison that cannot fail would be seen to."""

from __future__ import annotations

from collections import defaultdict

from . import rules
from .check import Expected, Report, _physics_of, expect
from .inputs import Inputs, Run


def problem_key(run: Run) -> str:
    """Any consistent grouping of workloads into problems will do here: the run's title's first part."""
    return run.title.split(" · ")[0].strip().lower().replace(" ", "-")


def skeleton(inputs: Inputs, problem_of) -> dict[str, dict]:
    """Problem documents with their workloads and their costs only (what `check` takes the grouping from)."""
    workloads: dict[str, set[str]] = defaultdict(set)
    for run in inputs.runs.values():
        workloads[problem_of(run)].add(run.workload)
    return {slug: {"slug": slug, "workloads": [{"digest": w, "cost": inputs.costs.get(w)} for w in sorted(ws)],
                   "boards": []} for slug, ws in sorted(workloads.items())}


def entry(board: rules.Board, run: Run) -> dict:
    rank = board.rank.get(run.name)
    return {
        "run": run.name, "implementation": run.label, "status": run.status, "rank": rank,
        "tied": rank is not None and list(board.rank.values()).count(rank) > 1,
        "mixed_hardware": run.name in board.mixed, "reference": board.reference is not None
        and run.name == board.reference.name,
        "speedup": board.speedup.get(run.name), "implausible": run.name in board.implausible,
        "implausible_latency": run.name in board.implausible_latency,
        "trend": board.trend.get(run.name), **_physics_of(board.judge(run)),
        "floor_why_not": None if board.judge(run).floor is not None else "no floor is claimed",
        "roofline_why_not": None if board.judge(run).roofline is not None else "no roofline is known",
    }


def ideal_api(inputs: Inputs, problem_of) -> tuple[dict, dict, Expected]:
    problems = skeleton(inputs, problem_of)
    expected = expect(inputs, problems, Report())
    for key, board in sorted(expected.boards.items()):
        problems[board.problem]["boards"].append({
            "host": board.host, "workload": board.workload, "protocol": board.protocol,
            "reference": board.reference.name if board.reference else None,
            "entries": [entry(board, r) for r in board.current],
            "history": [entry(board, r) for r in board.history],
        })
    hosts = {host: {"name": host, "implementations": [
        {"implementation": s["implementation"], "url": f"/implementations/{s['implementation']}/", "host": host,
         "basis": s["basis"], "levels": s["levels"]} for s in summaries]} for host, summaries in expected.summaries.items()}
    return problems, hosts, expected
