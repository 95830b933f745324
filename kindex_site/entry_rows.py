"""A run as the site gives it: its row in a table and its entry in the API (`entry_row`), with what
physics and the reviews say of it."""

from __future__ import annotations

from collections.abc import Mapping

from .leaderboard import Entry, Trend, Warning, primary_value, std_ns
from .physics import Limits, duration
from .stats import Speedup
from .urls import Urls


def entry_row(entry: Entry, urls: Urls, figures: int | None = None, statistic: str = "mean",
              reviews: Mapping[str, list] | None = None) -> dict:
    """One table row and one API entry: the input's own nanoseconds, None where absent; ratios to
    one significant figure more than the source reports (`figures`), else six; what physics and the
    given `reviews` say of it. Made afresh each time: a million rows kept would outweigh the runs."""
    facts = entry.run.facts
    row = {
        "run": entry.run.name, "implementation": entry.implementation, "lab": lab_of(facts),
        "status": facts.status, "rank": entry.rank,
        "mean_ns": facts.mean, "ci95_ns": list(facts.ci95) if facts.ci95 else None,
        "min_ns": facts.minimum, "max_ns": facts.maximum, "std_ns": std_ns(entry), "samples": facts.samples,
        "observed_at": facts.observed_at, "url": urls.run(entry.run.name),
        "tied": entry.tied, "mixed_hardware": entry.mixed_hardware,
        "reference": entry.is_reference and entry.rank is not None,
        "speedup": speedup_json(entry.speedup, figures), "trend": trend_json(entry.trend, figures),
        "implausible": entry.implausible, "implausible_latency": entry.implausible_latency,
        "last_passed": entry.last_passed, "superseded_by": entry.superseded_by,
        "source_url": urls.source(entry.run.files["implementation"].rel) if "implementation" in entry.run.files else None,
        **physics_json(entry, statistic),
    }
    if reviews is not None:
        row["reviews"] = [review_json(r) for r in reviews.get(entry.run.name, ())]
    return row


def lab_of(facts) -> str | None:
    """Who produced a run: its title's parts after the implementation, None when it names no one."""
    parts = facts.title_parts
    return " · ".join(parts[2:]) if len(parts) > 2 else None


def speedup_json(s: Speedup | None, figures: int | None = None) -> dict | None:
    """A speedup as the API carries it: the exact ratio, with its 95% interval or its rounding bounds."""
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
# What physics.py and the reviews say of each run (about page, "Physics"); figures to 3 significant figures.

NOT_TIMED = "the run has no timing"


def sig3(value, whole: bool = True) -> int | float | None:
    """A figure to 3 significant figures for the API: an int when whole (and `whole`), else a float."""
    if value is None:
        return None
    rounded = float(f"{float(value):.3g}")
    return int(rounded) if whole and rounded.is_integer() else rounded


def physics_json(entry: Entry, statistic: str) -> dict:
    """A run's floor, roofline and fraction of the speed of light on its GPU (each None with why),
    whether it is below its floor, and its newest review's verdict."""
    x = entry.limits
    gpu, floor, floor_why_not, roofline, roofline_why_not, _ = limits_json(x)
    return {"gpu": gpu, "floor_ns": floor, "floor_why_not": floor_why_not, "roofline_ns": roofline,
            "roofline_why_not": roofline_why_not, "sol": sig3(sol_of(x, primary_value(entry, statistic)), whole=False),
            "below_floor": entry.below_floor, "verdict": entry.verdict}


def limits_json(x: Limits | None) -> tuple:
    """A Limits' API fields (and its roofline as a page says it)."""
    if x is None:
        return None, None, NOT_TIMED, None, NOT_TIMED, None
    return (x.gpu, sig3(x.floor_ns), x.floor_why_not, sig3(x.roofline_ns), x.roofline_why_not,
            None if x.roofline_ns is None else duration(x.roofline_ns))


def sol_of(x: Limits | None, value: int | None) -> float | None:
    """Limits.sol, exactly (a quotient of ints rounded once), at a tenth of its cost: asked of every run."""
    if x is None or x.roofline_ns is None or not value:
        return None
    return x.roofline_ns.numerator / (x.roofline_ns.denominator * value)


def result_sol(e: Entry, statistic: str) -> float | None:
    """A run's exact fraction of the speed of light (pages round it once), where it is a result."""
    if e.limits is None or e.unrankable or e.mixed_hardware or e.run.facts.status != "passed":
        return None
    return sol_of(e.limits, primary_value(e, statistic))


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
