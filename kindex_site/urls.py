"""Where everything is on the site: URLs (`Urls`), made in one place so that the site works under a
sub-path (GitHub project pages) as well as at the root, and the output paths they are made from."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import quote

from .leaderboard import Board


@dataclass(frozen=True)
class Urls:
    base_path: str  # '/' or '/sub/path/'
    # Without run pages (run_pages = false), a run's link goes to its row's table instead.
    run_boards: dict[str, str] | None = field(default=None, compare=False)

    def __call__(self, relative: str) -> str:
        return self.base_path + relative

    @property
    def run_pages(self) -> bool:
        """Whether each run has a page of its own (else a run's link is its table's, on its problem's page)."""
        return self.run_boards is None

    def problem(self, slug: str) -> str:
        return self(problem_url(slug))

    def board(self, board: Board) -> str:
        return self(f"problems/{board.problem.slug}/#{board_id(board)}")

    def host(self, name: str) -> str:
        return self(f"hosts/{name}/")

    def implementation(self, slug: str) -> str:
        return self(f"implementations/{slug}/")

    def run(self, name: str) -> str:
        if self.run_boards is not None:
            return self.run_boards[name]
        return self(run_page_url(name))

    def protocol(self, name: str) -> str:
        return self(f"protocols/{name}/")

    def board_csv(self, board: Board) -> str:
        return self(board_csv_path(board))

    def api_problem(self, slug: str) -> str:
        return self(f"api/v1/problems/{slug}.json")

    def api_host(self, name: str) -> str:
        return self(f"api/v1/hosts/{name}.json")

    def source(self, rel: str) -> str:
        return self(quote(source_path(rel)))


def source_path(rel: str) -> str:
    """Where the site serves a source file: its path under content/, under sources/."""
    return f"sources/{rel}"


def run_page_url(name: str) -> str:
    return f"runs/{name}/"


def run_page_path(name: str) -> str:
    """A run page's output file, by which a big site plans it (its `Page` made when written)."""
    return f"runs/{name}/index.html"


def problem_url(slug: str) -> str:
    return f"problems/{slug}/"


def board_id(board: Board) -> str:
    """A board's id on its problem page: prefixed, so that no host name can take one of the page's own."""
    return f"board-{board.anchor}"


def board_csv_path(board: Board) -> str:
    return f"problems/{board.problem.slug}/{board.anchor}.csv"
