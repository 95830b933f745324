"""Hosts off in units (about page, "Units"): a host whose latencies are steadily off the other hosts'."""

from __future__ import annotations

from fractions import Fraction

from .errors import plural
from .load import Content, Run
from .boards import UNITS


def units_lines(content: Content, off_hosts: dict[str, float]) -> list[str]:
    """One warning per host off in units (host_units), with its factor: a wrong unit is the host's files' to fix."""
    if not off_hosts:
        return []
    files: dict[str, dict[str, int]] = {host: {} for host in off_hosts}  # host → its held runs' files → runs
    for run in content.runs:
        said = content.reviews.get(run.name) if run.environment in files else None
        if run.environment in files and run.facts.status == "passed" and not (said and said[-1].spec.verdict == "clean"):
            counts = files[run.environment]
            counts[run.source.file] = counts.get(run.source.file, 0) + 1
    lines = []
    for host, factor in sorted(off_hosts.items()):
        counts = files[host]
        named = sorted(counts, key=lambda f: (-counts[f], f))  # (the file holding most of them first)
        place = (named[0] if named else host) + (f" (and {plural(len(named) - 1, 'other file')})" if len(named) > 1 else "")
        way = f"{_factor(factor)}× above" if factor >= 1 else f"{_factor(1 / factor)}× below"
        held = sum(counts.values())
        lines.append(f"{place}: host {host}: {UNITS}: its latencies are {way} the other hosts' for the same "
                     "workloads (the median over the workloads it shares with them): probably not in the unit its "
                     f"files state. Its {held} passed {'run' if held == 1 else 'runs'} not reviewed clean are ranked, "
                     "but held out of summaries (about page, \"Units\").")
    return lines


def _factor(x: float) -> str:
    """A factor to three significant figures, in digits (1,000, 1,230, 12.3)."""
    rounded = float(f"{x:.3g}")
    return f"{rounded:,.0f}" if rounded >= 100 else f"{rounded:g}"


def host_units(runs: list[Run], content: Content, factor: float) -> dict[str, float]:
    """The hosts whose latencies are steadily `factor` times or more above or below the other hosts'
    for the same workloads (about page, "Units"), each with that factor. In floats: a factor of 1000
    needs no exactness."""
    values: dict[str, dict[str, list[int]]] = {}  # workload → host → passed values
    statistic_of = {name: p.spec.measurement.primaryStatistic for name, p in content.protocols.items()}
    for run in runs:
        value = run.facts[statistic_of[run.protocol]] if run.facts.status == "passed" else None
        if value:
            values.setdefault(run.facts.workload_digest, {}).setdefault(run.environment, []).append(value)
    medians = [{host: float(_middle(sorted(v))) for host, v in hosts.items()}
               for hosts in values.values() if len(hosts) > 1]
    off = _off_hosts(medians, factor, set())
    again = _off_hosts(medians, factor, set(off))
    return {host: f for host, f in off.items() if host in again or not _judged_against(medians, host, set(off))}


UNITS_MIN_SHARED = 3  # workloads a host must share with others before its units are judged


def _off_hosts(medians: list[dict[str, float]], bound: float, excluded: set[str]) -> dict[str, float]:
    """The hosts off in units against the others but `excluded`, with their factor."""
    ways: dict[str, list[tuple[int, float]]] = {}  # host → (direction, its median / the others' middle)
    for hosts in medians:
        for host, m in hosts.items():
            others = sorted(v for h, v in hosts.items() if h != host and h not in excluded)
            if not others:
                continue
            low, high = others[(len(others) - 1) // 2], others[len(others) // 2]
            way = 1 if m > bound * high else -1 if m * bound < low else 0
            half = len(others) // 2
            middle = others[half] if len(others) % 2 else (others[half - 1] + others[half]) / 2
            ways.setdefault(host, []).append((way, m / middle))
    off = {}
    for host, judged in ways.items():
        for way in (1, -1):
            if len(judged) >= UNITS_MIN_SHARED and 2 * sum(w == way for w, _ in judged) > len(judged):
                ratios = sorted(r for _, r in judged)
                off[host] = ratios[len(ratios) // 2]  # (the upper middle: a factor to state, not to compare)
    return off


def _judged_against(medians: list[dict[str, float]], host: str, excluded: set[str]) -> bool:
    """Whether the host shares at least UNITS_MIN_SHARED workloads with hosts not `excluded`."""
    shared = sum(1 for hosts in medians if host in hosts and any(h != host and h not in excluded for h in hosts))
    return shared >= UNITS_MIN_SHARED


def _middle(values: list[int]) -> Fraction:
    """The median of sorted values: the middle one, or the mean of the middle two."""
    half = len(values) // 2
    return Fraction(values[half]) if len(values) % 2 else Fraction(values[half - 1] + values[half], 2)
