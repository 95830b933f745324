"""The JSON API documents: the index, each host's and each problem's (`api_documents`,
`problem_document`). Values are the input's, in nanoseconds; None where absent."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from functools import partial

from .entry_rows import cost_json, entry_row, warning_json
from .leaderboard import EARLIER, FAST_P, Entry, Leaderboard, Problem, Summary, Tally, group_order
from .physics import NO_COST
from .urls import Urls

API_VERSION = "kindex-site/v1"


def api_documents(lb: Leaderboard, urls: Urls) -> dict[str, Callable[[], dict]]:
    """Output path → a function making that JSON document, but the problems' own (`problem_document`)."""
    docs: dict[str, Callable[[], dict]] = {"api/v1/index.json": partial(_index_document, lb, urls)}
    for name in sorted(lb.content.environments):
        docs[f"api/v1/hosts/{name}.json"] = partial(_host_document, lb, name, urls)
    return docs


def _index_document(lb: Leaderboard, urls: Urls) -> dict:
    return {
        "apiVersion": API_VERSION, "runs": len(lb.content.runs),
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
        "apiVersion": API_VERSION, "name": name, "title": e.metadata.title, "url": urls.host(name),
        "hardware": e.spec.hardware.model_dump(mode="json", exclude_unset=True),
        "software": e.spec.software, "reference": lb.reference,
        "implementations": [summary_json(s, urls, lb.reference) for s in lb.summaries[name]],
        "boards": [
            {"problem": b.problem.slug, "workload": b.workload, "protocol": b.protocol,
             "url": urls.board(b), "api": urls.api_problem(b.problem.slug), "runs": len(b.runs)}
            for p in lb.problems for b in lb.boards[p.slug] if b.host == name
        ],
    }


def problem_document(lb: Leaderboard, p: Problem, urls: Urls, entries: str = "objects") -> dict:
    """/api/v1/problems/<slug>.json: every board of the problem with its entries, and each workload's cost."""
    costs = lb.content.costs
    doc = {
        "apiVersion": API_VERSION, "slug": p.slug, "title": p.title,
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
                "host": b.host, "workload": b.workload, "protocol": b.protocol,
                "comparability": _comparability(protocols[b.protocol]),
                "reference": b.reference.run.name if b.reference else None,
                "entries": [entry_row(e, urls, b.significant_figures, b.statistic, reviews) for e in b.entries],
                "history": [entry_row(e, urls, b.significant_figures, b.statistic, reviews) for e in b.history],
                "warnings": [warning_json(w) for w in b.warnings],
            }
            for b in boards
        ]
        return doc
    # Arrays: what boards repeat is said once, a board's runs are named by their row in it, and
    # without run pages an entry's url is its board's "url".
    labels = list(dict.fromkeys(e.implementation for b in boards for e in b.runs))
    label_index = {label: i for i, label in enumerate(labels)}
    doc["columns"] = list(_flat_entry(boards[0].entries[0], urls, label_index, None, "mean", reviews))
    doc["implementations"] = labels
    doc["protocols"] = {name: _comparability(protocols[name]) for name in dict.fromkeys(b.protocol for b in boards)}
    doc["boards"] = []
    for b in boards:
        row_of = {e.run.name: i for i, e in enumerate(b.runs)}  # (history rows follow the entries')
        doc["boards"].append({
            "host": b.host, "workload": b.workload, "protocol": b.protocol, "url": urls.board(b),
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
    """An API entry as an "arrays" row: speedup and trend flattened into columns, the implementation
    by its index in the document's list, url only where runs have pages of their own."""
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


def summary_json(s: Summary, urls: Urls, reference: str) -> dict:
    return {
        "implementation": s.implementation, "url": urls.implementation(s.implementation_slug), "host": s.host,
        "basis": s.basis,
        "observed": {"first": s.observed[0], "last": s.observed[1]} if s.basis == EARLIER else None,
        "why_not_compared": s.why_not_compared(reference) or None,
        "levels": {group: tally_json(tally) for group, tally in s.tallies.items()},
    }


def tally_json(t: Tally) -> dict:
    """A summary over one group of the suite: counts, and shares of the suite (exact quotients). Each of
    Tally's fields in its order but the pages' own, under its own name unless `_TALLY_SPELT` spells it otherwise."""
    doc: dict = {}
    for name, spelt in _TALLY_FIELDS:
        if spelt is None:
            doc[name] = getattr(t, name)
        else:
            doc.update(spelt(t))
    return doc


_PAGES_ONLY = {"group", "speedups", "some_levels"}  # left out: the group is its key, the rest the pages' own
# Tally's fields the API spells otherwise, as their items.
_TALLY_SPELT: dict[str, Callable[[Tally], dict]] = {
    "held_out": lambda t: {"held_out_implausible": len(t.held_out), "held_out_runs": list(t.held_out)},
    "fast_p": lambda t: {"fast_p": {f"{p:g}": t.share(p) for p in FAST_P},
                         "fast_p_count": {f"{p:g}": n for p, n in t.fast_p.items()}},
    "beyond_noise": lambda t: {"faster_beyond_noise": t.beyond_noise},
    "elsewhere": lambda t: {"timed_elsewhere": t.elsewhere},
    "uncompared": lambda t: {"uncompared_runs": t.uncompared},
    "levels": lambda t: {"over_levels": list(t.levels), "title": t.title} if t.levels else {},
}
_TALLY_FIELDS = tuple((f.name, _TALLY_SPELT.get(f.name)) for f in fields(Tally) if f.name not in _PAGES_ONLY)
