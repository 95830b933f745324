"""Which problem a run is of, by the ids of the source that made it: the registry the core asks.

A source whose importer names problems by ids of its own (KernelBench's ``…/levelN/M_Name.py``)
has an entry in `NAMINGS`; a run of any other source is named by its title's first part. The core
asks `problem_naming` for every run it loads, so this module holds the standard library only: an
importer's heavy parts (argument parsing, git, validation) stay in the importer's own module.

A new benchmark whose runs carry its own problem ids adds a `Naming` subclass here and one entry
in `NAMINGS` (see docs/importing.md, "Writing an importer").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple


class NamedProblem(NamedTuple):
    """A problem as its source names it: the site's Problem fields, in their order."""
    slug: str  # its page's folder under /problems/
    title: str
    level: int | None = None  # the benchmark's own level and number, by which its problems sort
    number: int | None = None


class Naming:
    """How one source names the problem a run is of.

    The problem is told from the run's ``spec.sourceNative[field]``: its last `parts` parts, split
    at '/' (what runs of one problem share, whatever else the id holds: host, implementation,
    model). A renamed problem's former name, in ``spec.sourceNative[former_field]``, is told the
    same way; the site lists it on the problem's page and redirects its old page there.
    """

    field = "externalId"
    former_field = "formerExternalId"
    parts = 2
    missing = "run.spec.sourceNative.externalId: missing"  # why a run without `field` cannot be named

    def problem_text(self, native: dict) -> str | None:
        """The part of a run's sourceNative that names its problem; None if it has none."""
        return self._tail(native.get(self.field))

    def former_text(self, native: dict) -> str | None:
        """The same part of the name the problem had before the source renamed it, if any."""
        return self._tail(native.get(self.former_field))

    def _tail(self, value) -> str | None:
        return "/".join(value.split("/")[-self.parts:]) if isinstance(value, str) else None

    def problem(self, text: str, slugify: Callable[[str], str]) -> NamedProblem | str:
        """The problem `text` (a `problem_text`) names, or why it names none; `slugify` is the site's
        rule for a title's part of a URL."""
        raise NotImplementedError


# bounded: int() refuses 4,300+ digits
KERNELBENCH_ID = re.compile(r"^level(\d{1,15})/(\d{1,15})_(.+?)(?:\.py)?$")


def problem_title(name: str) -> str:
    """A KernelBench problem's title from its file's name part: "Square_matrix_multiplication_" →
    "Square matrix multiplication"."""
    return " ".join(name.replace("_", " ").split())


class KernelBench(Naming):
    """KernelBench's ids end in the problem's file, ``levelN/M_Name.py``: its level, number and name.
    Every source made from KernelBench's problems (its timing files, its leaderboard) names them so."""

    missing = "run.spec.sourceNative.externalId: a kernelbench run needs its externalId (…/levelN/M_Name.py)"

    def problem(self, text: str, slugify: Callable[[str], str]) -> NamedProblem | str:
        m = KERNELBENCH_ID.match(text)
        if not m:
            return (f"run.spec.sourceNative.externalId: ends in {text!r}, not in levelN/M_Name.py "
                    "as KernelBench ids do")
        level, number, title = int(m[1]), int(m[2]), problem_title(m[3])
        return NamedProblem(f"level{level}-{number}-{slugify(title)}".strip("-"), title, level, number)


KERNELBENCH = KernelBench()

# sourceNative.source → how it names problems; a key ending in "*" stands for every source that
# starts with what comes before it. One entry an importer (or a family of sources, as here).
NAMINGS: dict[str, Naming] = {
    "kernelbench": KERNELBENCH,  # importers/kernelbench.py
    "kernelbench-*": KERNELBENCH,  # importers/kernelbench_leaderboard.py, and other KernelBench-made sources
}


def problem_naming(source: object) -> Naming | None:
    """How runs of `source` (their sourceNative.source) name their problem; None for a source whose
    runs name it by their title."""
    if not isinstance(source, str):
        return None
    naming = NAMINGS.get(source)
    if naming is not None:
        return naming
    return next((n for key, n in NAMINGS.items() if key.endswith("*") and source.startswith(key[:-1])), None)
