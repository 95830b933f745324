"""The one error type a user sees. Anything else escaping to the CLI is a bug in kindex-site."""

from __future__ import annotations


class KindexError(Exception):
    """One or more problems with the user's input, each a line `where: what`."""

    def __init__(self, problems: list[str] | str, count: int | None = None):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.count = len(self.problems) if count is None else count  # more than shown when capped
        super().__init__("\n".join(self.problems))


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
