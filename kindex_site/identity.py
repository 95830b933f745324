"""Which problem a run is of: its name from its source (naming.py) or title, one problem per
workload, former names leading to the current one."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import replace

from .errors import KindexError
from .naming import problem_naming
from .load import Content, Run
from .models import NAME_PATTERN, is_windows_device
from .boards import Implementation, PROBLEM_NAMES, Problem, WORKLOAD_OVERLAP, in_words, utc


_NAME = re.compile(NAME_PATTERN)

# Latin letters that Unicode does not decompose into an ASCII letter and a mark, spelt as their
# languages spell them without it (Straße → strasse, Ørsted → orsted).
_LATIN = str.maketrans({"ß": "ss", "ẞ": "SS", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "Ø": "O", "ø": "o",
                        "Ł": "L", "ł": "l", "Đ": "D", "đ": "d", "Ð": "D", "ð": "d", "Þ": "Th", "þ": "th",
                        "Ħ": "H", "ħ": "h", "Ŧ": "T", "ŧ": "t", "ı": "i"})


def slugify(text: str) -> str:
    """A name as a URL's part: lowercase ASCII letters and digits, '-' between; a name with characters
    that have no ASCII form ends in a digest of the whole (qwen-43d87f64)."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_LATIN))
    slug = re.sub(r"[^a-z0-9]+", "-", decomposed.encode("ascii", "ignore").decode().lower()).strip("-")[:120].strip("-")
    if not decomposed.isascii() and any(not c.isascii() and unicodedata.category(c)[0] in "LN" for c in decomposed):
        slug = f"{slug[:111].strip('-')}-{hashlib.sha256(decomposed.encode()).hexdigest()[:8]}".lstrip("-")
    return slug


def problem_of(run: Run, known: dict | None = None) -> Problem | str:
    """The problem a run times, or a message saying why it cannot be told; `known` remembers them by
    the text they were told from."""
    if isinstance(run.grouping, tuple):
        return run.grouping[0]  # told before, by build_leaderboard
    key = run.facts.problem_text
    naming = problem_naming(run.facts.naming)
    if naming is not None and key is None:
        return naming.missing
    problem = known.get((naming, key)) if known is not None else None
    if problem is None:
        problem = _titled_problem(key) if naming is None else _named_problem(naming, key)
        if isinstance(problem, str):
            return problem
        if known is not None:
            known[naming, key] = problem
    return problem


def _named_problem(naming, text: str) -> Problem | str:
    """The problem a source's own id names (naming.py), or why it names none."""
    named = naming.problem(text, slugify)
    return named if isinstance(named, str) else Problem(*named)


def _titled_problem(title: str) -> Problem | str:
    slug = slugify(title)
    if not slug:
        return f"run.metadata.title: the problem part {title!r} has no letters or digits to name a page by"
    if is_windows_device(slug):
        return f"run.metadata.title: problem {title!r} would be the folder {slug!r}, a reserved device name on Windows"
    return Problem(slug, title)


def implementation_label(run: Run) -> str:
    parts = run.facts.title_parts
    if len(parts) >= 2 and parts[1].strip():
        return parts[1].strip()
    return "implementation " + run.facts.implementation_digest.removeprefix("sha256:")[:12]


def name_runs(content: Content) -> tuple[list[Run], dict[str, Implementation]]:
    """Tell each run's named problem and implementation (`run.grouping`); one KindexError for all
    runs that cannot be told, or whose names would share a page with another's."""
    names: dict[str, tuple[Problem, object]] = {}  # slug → the problem named so, where first (a Source)
    implementations: dict[str, Implementation] = {}
    implementation_source: dict[str, object] = {}
    named: list[Run] = []
    errors: list[str] = []
    known_problems: dict = {}
    label_slugs: dict[str, str] = {}
    told: dict[tuple, tuple | str] = {}  # what _grouping reads of a run → its answer
    for run in content.runs:
        grouping = run.grouping  # told from the document alone, so kept on the run across rebuilds
        if grouping is None:
            f = run.facts
            from_ = (f.naming, f.problem_text, f.title_parts[1:2], f.implementation_digest)
            grouping = told.get(from_)
            if grouping is None:
                grouping = told[from_] = _grouping(run, known_problems, label_slugs)
            run.grouping = grouping
        if isinstance(grouping, str):
            errors.append(f"{run.source}: {grouping}")
            continue
        problem, label, impl_slug = grouping
        known = names.get(problem.slug)
        if known is None:
            names[problem.slug] = (problem, run.source)
        elif known[0] is not problem:
            if known[0] != problem:
                errors.append(f"{run.source}: problem {problem.title!r} would share the page /problems/{problem.slug}/ "
                              f"with {known[0].title!r} from {known[1]}")
                continue
            run.grouping = (known[0], label, impl_slug)  # one object per problem: next time, `is` will do
        impl = implementations.get(impl_slug)
        if impl is None:
            implementations[impl_slug], implementation_source[impl_slug] = Implementation(impl_slug, label), run.source
        elif impl.label != label:
            errors.append(
                f"{run.source}: run.metadata.title: implementation {label!r} would share the page "
                f"/implementations/{impl_slug}/ with {impl.label!r} from {implementation_source[impl_slug]}"
            )
            continue
        named.append(run)
    if errors:
        raise KindexError(errors)
    return named, implementations


class Identity:
    """Which problem each run is on: a connected group of workloads and the names runs give them
    (KernelBench resized its problems). It is shown by a benchmark's own name for it if any, else by
    its runs' most common name, then the first given, then the slug; its other names are aliases."""

    def __init__(self, runs: list[Run]):
        self.runs = runs
        self.warnings: list[str] = []
        self.redirects: dict[str, Problem] = {}
        # What a pass over the runs learns, kept small: per (workload, name) pair, per workload.
        self.pairs: dict[tuple[str, str], object] = {}  # (workload, name slug) → first source naming it
        self.hosts: dict[str, set[str]] = {}  # workload → hosts it was timed on
        self.times: dict[str, set[str]] = {}  # workload → its runs' observedAt
        self.named: dict[str, Problem] = {}  # slug → the problem a run names
        self.count: dict[str, int] = {}  # name slug → runs giving it
        self.first: dict[str, str] = {}  # name slug → its first observedAt, in UTC
        self.former: dict[str, set[tuple[str, str]]] = {}  # name slug → (source, former id) of its runs
        self.spans: dict[tuple[str, str], list[str]] = {}  # (workload, host) → [first, last] observedAt, in UTC
        for run in runs:
            f = run.facts
            problem = run.grouping[0]
            slug, workload = problem.slug, f.workload_digest
            if (workload, slug) not in self.pairs:
                self.pairs[workload, slug] = run.source
                self.named[slug] = problem
            self.hosts.setdefault(workload, set()).add(run.environment)
            if f.observed_at:
                self.times.setdefault(workload, set()).add(f.observed_at)
                when = utc(f.observed_at)
                if when < self.first.get(slug, "~"):
                    self.first[slug] = when
                span = self.spans.setdefault((workload, run.environment), [when, when])
                span[0], span[1] = min(span[0], when), max(span[1], when)
            self.count[slug] = self.count.get(slug, 0) + 1
            if f.former_problem_text is not None:
                self.former.setdefault(slug, set()).add((f.naming, f.former_problem_text))

    def problems(self) -> tuple[dict[str, Problem], dict[str, list[Run]]]:
        parent: dict[str, str] = {}

        def find(node: str) -> str:
            root = node
            while parent.get(root, root) != root:
                root = parent[root]
            while node != root:
                parent[node], node = root, parent.get(node, node)
            return root

        for workload, slug in self.pairs:
            a, b = find("w" + workload), find("n" + slug)
            if a != b:
                parent[a] = b
        groups: dict[str, list[str]] = {}  # root → name slugs
        for slug in self.named:
            groups.setdefault(find("n" + slug), []).append(slug)

        problems: dict[str, Problem] = {}
        problem_of_name: dict[str, Problem] = {}
        for slugs in groups.values():
            shown = self._problem(slugs)
            problems[shown.slug] = shown
            for slug in slugs:
                problem_of_name[slug] = shown
        self._redirect(problems)
        self._check_names(problem_of_name)
        runs_of_problem: dict[str, list[Run]] = {}
        for run in self.runs:
            runs_of_problem.setdefault(problem_of_name[run.grouping[0].slug].slug, []).append(run)
        return problems, runs_of_problem

    def _problem(self, slugs: list[str]) -> Problem:
        def preference(slug: str) -> tuple:  # (smallest first)
            p = self.named[slug]
            return (p.level is None, -self.count[slug], self.first.get(slug, "~"), slug)

        slugs = sorted(slugs, key=preference)
        shown = self.named[slugs[0]]
        aliases: dict[str, Problem] = {slug: self.named[slug] for slug in slugs[1:]}
        for slug in slugs:
            for source, text in sorted(self.former.get(slug, ())):
                former = _named_problem(problem_naming(source), text)
                if isinstance(former, Problem) and former.slug != shown.slug:
                    aliases.setdefault(former.slug, former)
        return replace(shown, aliases=tuple(sorted(aliases.values(), key=lambda p: p.sort_key)))

    def _redirect(self, problems: dict[str, Problem]) -> None:
        for problem in sorted(problems.values(), key=lambda p: p.sort_key):
            for alias in problem.aliases:
                if alias.slug in problems:
                    continue  # a problem of its own: its page stays
                if alias.slug in self.redirects:
                    other = self.redirects[alias.slug]
                    self.warnings.append(
                        f"problem {alias.title!r} is a former name of both {other.title!r} and {problem.title!r}; "
                        f"/problems/{alias.slug}/ leads to {other.title!r}")
                    continue
                self.redirects[alias.slug] = problem

    def _check_names(self, problem_of_name: dict[str, Problem]) -> None:
        """Two names for one workload; then the workload overlaps that change a result (_overlaps)."""
        names_of: dict[str, list[str]] = {}
        for workload, slug in self.pairs:
            names_of.setdefault(workload, []).append(slug)
        for workload, slugs in names_of.items():
            titles: dict[str, str] = {}  # (differing only in case, spacing or KernelBench's level prefix: one name)
            for slug in slugs:
                titles.setdefault(" ".join(self.named[slug].title.casefold().split()), slug)
            if len(titles) > 1:
                a, b = list(titles.values())[:2]
                more = f" (and {len(titles) - 2} more)" if len(titles) > 2 else ""
                self.warnings.append(
                    f"{self.pairs[workload, a]}: {PROBLEM_NAMES}: problem {self.named[a].title!r} and "
                    f"{self.pairs[workload, b]}: problem {self.named[b].title!r}{more} name one workload "
                    f"({_short(workload)}); both are shown as {problem_of_name[a].title!r}")
        self._overlaps(problem_of_name)

    def _overlaps(self, problem_of_name: dict[str, Problem]) -> None:
        """Workloads of one problem timed over overlapping periods, said only where that changes a
        result (docs/building.md, "Workload overlaps")."""
        names_of: dict[str, set[str]] = {}  # workload → the name slugs giving it
        for workload, slug in self.pairs:
            names_of.setdefault(workload, set()).add(slug)
        workloads_of: dict[str, list[str]] = {}  # problem slug → its workloads
        for workload, slugs in names_of.items():
            workloads_of.setdefault(problem_of_name[min(slugs)].slug, []).append(workload)
        spans = {w: sorted(map(utc, t)) for w, t in self.times.items()}
        for workloads in workloads_of.values():
            ordered = sorted(workloads, key=lambda w: (spans[w][0] if w in spans else "~", w))  # (as summaries order them)
            newest = {host: w for w in ordered for host in self.hosts[w]}  # host → the workload its summaries take
            for i, a in enumerate(ordered):
                for b in ordered[i + 1:]:
                    line = self._overlap_line(a, b, newest, names_of, spans, problem_of_name)
                    if line:
                        self.warnings.append(line)

    def _overlap_line(self, a: str, b: str, newest: dict[str, str], names_of: dict[str, set[str]],
                      spans: dict[str, list[str]], problem_of_name: dict[str, Problem]) -> str | None:
        """What overlapping workloads `a` and `b` (`b` first timed later) change, if anything."""
        where = f"{self.pairs[a, min(names_of[a])]} and {self.pairs[b, min(names_of[b])]}: {WORKLOAD_OVERLAP}"
        both = sorted(h for h in self.hosts[a] & self.hosts[b]
                      if newest[h] == b and _overlap(self.spans.get((a, h)), self.spans.get((b, h))))
        if both:
            return (f"{where}: problem {problem_of_name[min(names_of[a])].title!r}: {in_words(both)} timed its workloads "
                    f"{_short(a)} and {_short(b)} over overlapping periods, so which is newer cannot be told; "
                    f"the summaries there take {_short(b)}, first timed later, and leave out {_short(a)}'s runs")
        titles = sorted(slug for slug in names_of[a] & names_of[b] if self.named[slug].level is None)
        if titles and not self.hosts[a] & self.hosts[b] and _overlap(spans.get(a), spans.get(b)):
            return (f"{where}: problem {self.named[titles[0]].title!r} names two workloads ({_short(a)}, {_short(b)}) "
                    "timed at the same time on different hosts, never on one, and no benchmark's own id names "
                    "them: two problems sharing a name? They are counted as one problem, in separate tables")
        return None


def _overlap(a: list[str] | None, b: list[str] | None) -> bool:
    """Whether two workloads' observation periods (their runs' sorted UTC times) overlap."""
    if not a or not b:
        return False
    return a[0] <= b[-1] and b[0] <= a[-1]


def _short(digest: str) -> str:
    return digest.removeprefix("sha256:")[:12]


def _grouping(run: Run, known_problems: dict, label_slugs: dict[str, str]) -> tuple[Problem, str, str] | str:
    """(problem, implementation label, implementation slug) of a run, or what is wrong."""
    problem = problem_of(run, known_problems)
    if isinstance(problem, str):
        return problem
    label = implementation_label(run)
    impl_slug = label_slugs.get(label)
    if impl_slug is None:
        impl_slug = label_slugs[label] = slugify(label) or "implementation"
    if is_windows_device(impl_slug):
        return (f"run.metadata.title: implementation {label!r} would be the folder {impl_slug!r}, "
                "a reserved device name on Windows")
    # One tuple (and label string) for all runs of a problem and implementation, not one per run.
    grouping = (problem, label, impl_slug)
    return known_problems.setdefault(grouping, grouping)
