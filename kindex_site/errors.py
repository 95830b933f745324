"""The one error type a user sees. Anything else escaping to the CLI is a bug in kindex-site."""

from __future__ import annotations

import re
from pathlib import Path


WARNING = "warning: "  # how a warning's line starts among a failure's lines


class KindexError(Exception):
    """One or more problems with the user's input, each a line `where: what`.

    `warnings`, when a failing step had some, are said with its problems, so that one pass tells
    everything: `problems` ends with them, each line starting `warning: ` (as a build prints them);
    `count` counts the problems alone."""

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


# What would not show as written on one line of a terminal or a log: C0 and C1 controls (a newline
# would split a problem in two), line and paragraph separators, bidirectional controls (which
# reorder what follows), and lone surrogates (no UTF-8 stream can carry them).
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                          "\ud800-\udfff]")


def printable(text: str) -> str:
    """text with what would not show as written escaped as Python writes it (\\n, \\x85, \\u202e, \\ud800):
    for content's own strings (keys, names) in problem and warning lines."""
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
