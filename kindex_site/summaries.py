"""KernelBench's summaries (about page, "Summaries"): each implementation's result on each problem of
the suite on a host, and its fast_p, coverage and geometric mean per level and over all levels."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from .errors import plural
from .load import Content
from .stats import Speedup, geometric_mean
from .boards import Board, Entry, Implementation, Problem, Workload, observed_span, primary_value
from .rules import Rules


FAST_P = (0.0, 1.0, 1.5, 2.0)  # KernelBench's fast_p thresholds, shown on implementation and host pages
ALL_LEVELS = "all"  # the summaries' group of every level
OTHER_LEVEL = "other"  # the group of problems without a KernelBench level


def level_group(problem: Problem) -> str:
    """The suite's group a problem counts in: its KernelBench level, else "other"."""
    return OTHER_LEVEL if problem.level is None else str(problem.level)


def suite_slot(problem: Problem) -> tuple | str:
    """A problem's place in its suite: its KernelBench level and number, else the problem itself."""
    if problem.level is not None and problem.number is not None:
        return (problem.level, problem.number)
    return problem.slug


def group_order(group: str) -> tuple:
    """Levels by number, then "other", then "all"."""
    return (group == ALL_LEVELS, group == OTHER_LEVEL, int(group) if group.isdigit() else 0, group)


def group_title(group: str) -> str:
    return {ALL_LEVELS: "All levels", OTHER_LEVEL: "Other problems"}.get(group) or f"Level {group}"


@dataclass(frozen=True, slots=True)
class Result:
    """One implementation's result on one problem on one host (about page, "Summaries")."""

    passed: bool  # passed, ranked and not held out as implausible
    speedup: Speedup | None  # of its best passed run, where its table has a reference
    reference_value: int | None  # (the two means the speedup is of, for exact fast_p)
    value: int | None
    held_out: tuple[str, ...] = ()  # its runs held out as implausible (when it did not pass otherwise)
    earlier: Workload | None = None  # the earlier workload it is on, where the newest has no run of it
    uncompared: int = 0  # its runs on earlier workloads of the problem, none of them with a reference run
    uncompared_passed: int = 0

    def fast(self, p: float) -> bool:
        """KernelBench's "fast_p" on this problem: passed, with reference mean > p × its mean (exactly)."""
        if not self.passed:
            return False
        if p == 0:
            return True
        return self.speedup is not None and _P_EXACT[p] * self.value < self.reference_value


_P_EXACT = {p: Fraction(str(p)) for p in FAST_P}


@dataclass(frozen=True)
class Tally:
    """An implementation on a host over one group of the suite (a level, or all): counts of the suite's problems.
    Its fields are its API object's, in this order, under their own names unless api.py spells them otherwise."""

    group: str  # a level ("1"), OTHER_LEVEL or ALL_LEVELS
    suite: int  # problems of the suite in this group: the denominator
    attempted: int  # problems where it has a current run on the host
    passed: int
    held_out: tuple[str, ...]  # runs held out as implausible, one per problem
    fast_p: dict[float, int]  # p → problems passed with speedup > p
    beyond_noise: int  # problems passed with the speedup's interval wholly above 1
    geomean_speedup: float | None  # over the passed with a speedup
    geomean_over: int
    speedups: tuple[float, ...] = ()  # the passed ones', ascending (the fast_p chart)
    elsewhere: int = 0  # problems it was timed on here, but not on the workloads this tally counts
    uncompared: int = 0  # its runs here on workloads without a reference run, where it has no other
    uncompared_passed: int = 0
    levels: tuple[str, ...] = ()  # (ALL_LEVELS) the groups it is over
    some_levels: bool = False  # (ALL_LEVELS) over fewer groups than the site's suite has

    def share(self, p: float) -> float:
        return self.fast_p[p] / self.suite

    @property
    def title(self) -> str:
        """"Level 1", "Other problems", "All levels"; over fewer than the suite's: "Levels 1–3", "Levels 1, 2 and other"."""
        if self.group == ALL_LEVELS and self.some_levels:
            numbers = [int(g) for g in self.levels if g.isdigit()]
            span = len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1))
            named = [f"{numbers[0]}–{numbers[-1]}"] if span else [str(n) for n in numbers]
            named += ["other"] if OTHER_LEVEL in self.levels else []
            return "Level " + named[0] if len(named) == 1 else f"Levels {', '.join(named[:-1])} and {named[-1]}"
        return group_title(self.group)


# What a summary counts: about page, "Summaries".
CURRENT, EARLIER, UNCOMPARED = "current", "earlier", "uncompared"


@dataclass(frozen=True)
class Summary:
    """One implementation against the reference on one host: a Tally per level it has tables in, and
    over all of them (`tallies[ALL_LEVELS]`)."""

    implementation: str
    implementation_slug: str
    host: str
    tallies: dict[str, Tally]
    basis: str = CURRENT  # CURRENT, EARLIER or UNCOMPARED
    observed: tuple[str | None, str | None] = (None, None)  # (EARLIER) when its workloads were first and last timed

    @property
    def all(self) -> Tally:
        return self.tallies[ALL_LEVELS]

    @property
    def comparable(self) -> bool:
        return self.basis != UNCOMPARED

    def why_not_compared(self, reference: str, group: str = ALL_LEVELS) -> str:
        """Why a summary with nothing compared has no figures: its runs here, and where they are."""
        t = self.tallies[group]
        if self.basis != UNCOMPARED:
            return ""
        passed = f" ({t.uncompared_passed} passed)" if t.uncompared_passed != t.uncompared else ""
        return (f"Not comparable: {plural(t.uncompared, 'run')}{passed} on earlier workloads, which have no "
                f"{reference} run on this host")

    @property
    def order(self) -> tuple:
        """The one order of summaries on a host: newest workloads', earlier ones', those with nothing
        compared; each by fast_1 over the suite, then fast_0, then the name."""
        return ((CURRENT, EARLIER, UNCOMPARED).index(self.basis), -self.all.fast_p[1.0], -self.all.fast_p[0.0],
                self.implementation.casefold(), self.implementation_slug)


def earlier_results(on_host: list[Board], newest: str, workloads: list[Workload], done: set[str], reference: str
                     ) -> list[tuple[str, Result]]:
    """The Results of the implementations with no run on the host's newest workload of the problem,
    from the newest earlier workload with a reference run, else compared with none."""
    found: list[tuple[str, Result]] = []
    uncompared: dict[str, list[Entry]] = {}
    for w in reversed(workloads):  # (newest first)
        boards = [b for b in on_host if b.workload == w.digest]
        if w.digest == newest or not boards:
            continue
        if any(b.reference is not None for b in boards):
            for slug, result in problem_results(boards, reference):
                if slug not in done:
                    done.add(slug)
                    found.append((slug, replace(result, earlier=w)))
            continue
        for e in (e for b in boards for e in b.entries if e.run.grouping[1] != reference and not e.mixed_hardware):
            uncompared.setdefault(e.implementation_slug, []).append(e)
    for slug, entries in uncompared.items():
        if slug not in done:
            passed = sum(1 for e in entries if e.run.facts.status == "passed")
            found.append((slug, Result(False, None, None, None, uncompared=len(entries), uncompared_passed=passed)))
    return found


def problem_results(boards: list[Board], reference: str) -> list[tuple[str, Result]]:
    """Each implementation's Result on one problem on one host, from its newest workload's tables;
    the reference is not one of them."""
    attempted: dict[str, list[tuple[Board, Entry]]] = {}
    for b in boards:
        for e in b.entries:
            if e.mixed_hardware or e.run.grouping[1] == reference:  # (another GPU is no attempt on this host)
                continue
            attempted.setdefault(e.implementation_slug, []).append((b, e))
    found = []
    for impl_slug, pairs in attempted.items():
        passed = [(b, e) for b, e in pairs if e.rank is not None and not e.held_out]
        if not passed:
            held = tuple(e.run.name for _, e in pairs if e.held_out and e.run.facts.status == "passed")
            found.append((impl_slug, Result(False, None, None, None, held)))
            continue
        with_speedup = [(b, e) for b, e in passed if e.speedup is not None]
        if not with_speedup:
            found.append((impl_slug, Result(True, None, None, None)))
            continue
        b, e = max(with_speedup, key=lambda be: be[1].speedup.value)
        found.append((impl_slug, Result(True, e.speedup, primary_value(b.reference, b.statistic),
                                        primary_value(e, b.statistic))))
    return found


def suite_summaries(in_order: list[Problem], problems: dict[str, Problem], on_slot: dict, results_of: dict,
                     implementations: dict[str, Implementation], rules: Rules, content: Content
                     ) -> tuple[dict[str, int], dict[str, list[Summary]]]:
    """The suite (its slots per group) and each host's summaries, from the problem timed last on each slot."""
    slots: dict[str, set] = {}
    for p in in_order:
        slots.setdefault(level_group(p), set()).add(suite_slot(p))
    suite = {group: len(s) for group, s in slots.items()}
    suite[ALL_LEVELS] = sum(suite.values())
    results: dict[tuple[str, str], dict[str, list[Result]]] = {}  # (host, impl) → group → its results
    groups_of_host: dict[str, set[str]] = {}  # host → the suite's groups where something is compared
    for (host, _), (_, slug) in on_slot.items():
        group = level_group(problems[slug])
        for impl_slug, result in results_of[slug].get(host, ()):
            groups_of_host.setdefault(host, set()).add(group)
            results.setdefault((host, impl_slug), {}).setdefault(group, []).append(result)
    # Every implementation timed on a host is summarised there, with no result as not fast on any problem.
    for impl in implementations.values():
        if impl.label != rules.reference:
            for host in impl.hosts:
                if host in groups_of_host:
                    results.setdefault((host, impl.slug), {})
    return suite, _summaries(results, suite, groups_of_host, content, implementations)


def _summaries(results: dict[tuple[str, str], dict[str, list[Result]]], suite: dict[str, int],
               groups_of_host: dict[str, set[str]], content: Content,
               implementations: dict[str, Implementation]) -> dict[str, list[Summary]]:
    """Per host and implementation, per level where something is compared and over all of them: the
    tallies of about page, "Summaries"."""
    result: dict[str, list[Summary]] = {name: [] for name in content.environments}
    for (host, slug), by_group in results.items():
        groups = tuple(sorted(groups_of_host[host], key=group_order))
        every = [r for g in groups for r in by_group.get(g, [])]
        basis = _basis(every)
        counted = {g: [r for r in by_group.get(g, []) if _on_basis(r, basis)] for g in groups}
        tallies = {g: _tally(g, suite[g], counted[g], by_group.get(g, [])) for g in groups}
        tallies[ALL_LEVELS] = replace(
            _tally(ALL_LEVELS, sum(suite[g] for g in groups), [r for g in groups for r in counted[g]], every),
            levels=groups, some_levels=len(groups) < len(suite) - 1)
        observed = observed_span([r.earlier for r in every if r.earlier]) if basis == EARLIER else (None, None)
        result[host].append(Summary(implementations[slug].label, slug, host, tallies, basis, observed))
    for summaries in result.values():
        summaries.sort(key=lambda s: s.order)
    return result


def _basis(results: list[Result]) -> str:
    """CURRENT with a result on a newest workload (or no run at all), EARLIER on an earlier one, else UNCOMPARED."""
    if not results or any(r.earlier is None and not r.uncompared for r in results):
        return CURRENT
    return EARLIER if any(r.earlier is not None for r in results) else UNCOMPARED


def _on_basis(result: Result, basis: str) -> bool:
    if basis == CURRENT:
        return result.earlier is None and not result.uncompared
    return basis == EARLIER and result.earlier is not None


def _tally(group: str, suite: int, results: list[Result], every: list[Result]) -> Tally:
    """`results`: those the tally counts, of `every` result of the implementation in the group."""
    speedups = sorted(r.speedup.value for r in results if r.passed and r.speedup is not None)
    return Tally(
        group=group, suite=suite, attempted=len(results),
        passed=sum(1 for r in results if r.passed),
        fast_p={p: sum(1 for r in results if r.fast(p)) for p in FAST_P},
        beyond_noise=sum(1 for r in results if r.passed and r.speedup is not None and r.speedup.above_1),
        geomean_speedup=geometric_mean(speedups), geomean_over=len(speedups),
        held_out=tuple(r.held_out[0] for r in results if r.held_out), speedups=tuple(speedups),
        elsewhere=len(every) - len(results),
        uncompared=sum(r.uncompared for r in every), uncompared_passed=sum(r.uncompared_passed for r in every),
    )
