"""The one error type a user sees, and how warnings are said on a terminal. Anything else escaping to the CLI is a bug in kindex-site."""

from __future__ import annotations

import re
from pathlib import Path


WARNING = "warning: "  # how a warning's line starts among a failure's lines


class KindexError(Exception):
    """One or more problems with the user's input, each a line `where: what`; a failing step's
    warnings end `problems`, each line starting `warning: `, and `count` counts the problems alone."""

    def __init__(self, problems: list[str] | str, count: int | None = None, warnings: list[str] | tuple = ()):
        errors = [problems] if isinstance(problems, str) else list(problems)
        self.count = len(errors) if count is None else count  # more than shown when capped
        self.warnings = list(warnings)
        self.problems = errors + [WARNING + w for w in self.warnings]
        super().__init__("\n".join(self.problems))

    @property
    def errors(self) -> list[str]:
        """The problems' lines, without the warnings'."""
        return self.problems[:len(self.problems) - len(self.warnings)]


# What would not show as written on one line of a terminal or a log: controls, line and paragraph
# separators, bidirectional controls and lone surrogates.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                          "\ud800-\udfff]")


def printable(text: str) -> str:
    """text with what would not show as written escaped as Python writes it (\\n, \\u202e, \\ud800)."""
    return _UNPRINTABLE.sub(lambda m: ascii(m.group())[1:-1], text)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def display(path: Path) -> str:
    """The path as the user would type it: relative to the working folder where possible."""
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def summarize(error: KindexError) -> str:
    """`3 problems in 2 files` (`, and 1 warning`): the last line of a failed command."""
    files = {p.split(":", 1)[0].split("[", 1)[0] for p in error.errors}
    said = f"{plural(error.count, 'problem')} in {plural(len(files), 'file')}"
    return f"{said}, and {plural(len(error.warnings), 'warning')}" if error.warnings else said


# --- warnings on a terminal -----------------------------------------------------------------

GROUPED_OVER = 3  # a cause said more often than this is one line: its count and an example
EXAMPLE_CHARS = 240  # an example's length at most, in a grouped line (--verbose says it whole)
# Causes each said whatever their count: one line names one finding to act on (leaderboard.UNITS: a host off in units).
NEVER_GROUPED = ("implausible-latency",)
# A warning's cause: the code a leaderboard line gives after its place, else its text after the
# place with what varies (names, paths, digests, numbers) left out.
_CODE = re.compile(r"(?:^|: )([a-z][a-z0-9]*(?:-[a-z0-9]+)+): ")
_PLACE = re.compile(r"[^\s:]+(?::\d+)?: ")
_VARYING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[^\s('\"]*/[^\s)'\",;:]*|sha256:[0-9a-f]+|\b[0-9a-f]{12,}\b|\b\d[\d,.]*(?:e[-+]?\d+)?")


def warning_lines(warnings: list[str], verbose: bool = False) -> list[str]:
    """The lines that say `warnings` on a terminal: each one with `verbose`; otherwise a cause said
    more than GROUPED_OVER times is one line, with its count and an example (docs/building.md)."""
    if verbose:
        return [f"warning: {w}" for w in warnings]
    causes = [warning_cause(w) for w in warnings]
    counts: dict[str, int] = {}
    for cause in causes:
        counts[cause] = counts.get(cause, 0) + 1
    lines, said = [], set()
    for w, cause in zip(warnings, causes):
        if counts[cause] <= GROUPED_OVER or cause in NEVER_GROUPED:
            lines.append(f"warning: {w}")
        elif cause not in said:
            said.add(cause)
            example = w if len(w) <= EXAMPLE_CHARS else w[:EXAMPLE_CHARS].rsplit(" ", 1)[0] + " …"
            lines.append(f"warning: {counts[cause]} × {cause} (e.g. {example}); --verbose lists each")
    return lines


def warning_cause(warning: str) -> str:
    """What a warning is about, the same for all warnings of one cause (`unordered-runs`, `ignored`)."""
    code = _CODE.search(warning)
    if code:
        return code.group(1)
    place = _PLACE.match(warning)
    text = _VARYING.sub("…", warning[place.end():] if place else warning)
    return re.split(r" \(|; ", text, maxsplit=1)[0].strip() or text
