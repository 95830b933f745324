"""How each source names the problem a run is of (`problem_naming`): a source with problem ids of its
own has an entry in `NAMINGS`, any other's runs are named by their title's first part. Standard
library only: the core asks it for every run it loads.
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
    """How one source names problems: by the last `parts` '/'-separated parts of a run's
    ``spec.sourceNative[field]``, a renamed one's former name by ``sourceNative[former_field]``."""

    field = "externalId"
    former_field = "formerExternalId"
    parts = 2
    missing = "run.spec.sourceNative.externalId: missing"  # why a run without `field` has no problem

    def problem_text(self, native: dict) -> str | None:
        return self._tail(native.get(self.field))

    def former_text(self, native: dict) -> str | None:
        return self._tail(native.get(self.former_field))

    def _tail(self, value) -> str | None:
        return "/".join(value.split("/")[-self.parts:]) if isinstance(value, str) else None

    def problem(self, text: str, slugify: Callable[[str], str]) -> NamedProblem | str:
        """The problem a `problem_text` names, or why it names none; `slugify` makes a title a URL's part."""
        raise NotImplementedError


def problem_title(name: str) -> str:
    """A KernelBench problem's title from its file's name: "Square_matrix_multiplication_" →
    "Square matrix multiplication"."""
    return " ".join(name.replace("_", " ").split())


class KernelBench(Naming):
    """Ids ending in the problem's file, ``levelN/M_Name.py``: its level, number and name."""

    ID = re.compile(r"^level(\d{1,15})/(\d{1,15})_(.+?)(?:\.py)?$")  # bounded: int() refuses 4,300+ digits
    missing = "run.spec.sourceNative.externalId: a kernelbench run needs its externalId (…/levelN/M_Name.py)"

    def problem(self, text: str, slugify: Callable[[str], str]) -> NamedProblem | str:
        m = self.ID.match(text)
        if not m:
            return (f"run.spec.sourceNative.externalId: ends in {text!r}, not in levelN/M_Name.py "
                    "as KernelBench ids do")
        level, number, title = int(m[1]), int(m[2]), problem_title(m[3])
        return NamedProblem(f"level{level}-{number}-{slugify(title)}".strip("-"), title, level, number)


KERNELBENCH = KernelBench()
# sourceNative.source → how its runs name problems; a key ending in "*" is a prefix.
NAMINGS: dict[str, Naming] = {
    "kernelbench": KERNELBENCH,  # importers/kernelbench_files.py
    "kernelbench-*": KERNELBENCH,  # importers/kernelbench_leaderboard.py, and any source made from KernelBench
}


def problem_naming(source: object) -> Naming | None:
    """How runs of `source` (their sourceNative.source) name their problem; None: by their title."""
    if not isinstance(source, str):
        return None
    naming = NAMINGS.get(source)
    if naming is not None:
        return naming
    return next((n for key, n in NAMINGS.items() if key.endswith("*") and source.startswith(key[:-1])), None)
