"""The one error type a user sees. Anything else escaping to the CLI is a bug in kindex-site."""

from __future__ import annotations

from pathlib import Path


class KindexError(Exception):
    """One or more problems with the user's input, each a line `where: what`."""

    def __init__(self, problems: list[str] | str, count: int | None = None):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.count = len(self.problems) if count is None else count  # more than shown when capped
        super().__init__("\n".join(self.problems))


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def display(path: Path) -> str:
    """The path as the user would type it: relative to the working folder where possible."""
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def summarize(error: KindexError) -> str:
    """`3 problems in 2 files`: the last line of a failed command."""
    files = {p.split(":", 1)[0].split("[", 1)[0] for p in error.problems}
    return f"{plural(error.count, 'problem')} in {plural(len(files), 'file')}"
