"""Tables' columns, each said once: the head row, the "more" disclosure's words and the stylesheet's
rules are made from the list; each row's cells come in its order (macros.html, host_row.html). A summary
table's columns (`SUMMARY`) are the Tally's numbers it shows, each cell made from its column."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from markupsafe import Markup

from .safetext import escape


@dataclass(frozen=True, slots=True)
class Column:
    head: str  # its header; "{reference}" stands for the reference implementation's name
    card: str | None = None  # its name over each value in the card layout (below 40rem): the head's if None, none if ""
    num: bool = False  # a number: right-aligned, on one line
    more: str = ""  # hidden until the disclosure before the table is opened, which names it so
    head_css: str = ""  # declarations for its header
    card_css: str = ""  # declarations for its cells in the card layout
    ranked_card: bool = True  # False: in the card layout, shown in unranked rows only

    def head_for(self, reference) -> str:
        return self.head.replace("{reference}", str(reference))

    @property
    def card_name(self) -> str:
        return self.head if self.card is None else self.card


@dataclass(frozen=True, slots=True)
class Table:
    name: str  # its class, which its rules select by
    columns: tuple[Column, ...]
    scope: bool = False  # its headers say scope="col"
    classed: bool = False  # its number cells carry class "num" (the header too): no rule for them by position

    @property
    def more(self) -> str:
        """The disclosure's words: the hidden columns' names, say "Min, max, std"."""
        words = ", ".join(c.more for c in self.columns if c.more)
        return words[:1].upper() + words[1:]

    def head_row(self, reference=None) -> Markup:
        """Its head row, `{reference}` filled in: made once per reference (a page holds a table per host)."""
        return _head_row(self, reference)


@lru_cache(maxsize=1024)
def _head_row(table: Table, reference) -> Markup:
    scope, num = (' scope="col"' if table.scope else ""), ' class="num"' if table.classed else ""
    # Without the headers' end tags, which HTML implies: a problem page repeats this row per table.
    return Markup("<tr>" + "".join(f"<th{scope}{num if c.num else ''}>{escape(c.head_for(reference))}"
                                   for c in table.columns) + "</tr>")


WIDE = "min-width: 6.5rem"  # a long numeric header wraps to a few lines, not a word each
ONE_LINE = "white-space: nowrap"

# A board's runs, on its problem's page: what a reader compares is shown, the rest behind "more".
LATENCY = Table("latency", (
    Column("Rank", card="", num=True, card_css="flex: 0 0 auto; min-width: 2.5rem"),
    Column("Implementation", card=""),  # (the row's header)
    Column("Status", ranked_card=False),  # (a ranked run passed; its rank says so)
    Column("Mean (ms)", num=True, head_css=WIDE),
    Column("95% CI (ms)", num=True, head_css=WIDE),
    Column("Speedup vs {reference} (×)", card="Speedup (×)", num=True, head_css=WIDE),
    Column("Speedup 95% CI (×)", num=True, head_css=WIDE),
    Column("% of speed of light", num=True, head_css=WIDE),
    Column("Min (ms)", num=True, head_css=WIDE, more="min"),
    Column("Max (ms)", num=True, head_css=WIDE, more="max"),
    Column("Std (ms)", num=True, head_css=WIDE, more="std"),
    Column("Samples", num=True, head_css=WIDE, more="samples"),
    Column("Observed (UTC)", more="date"),
))
# A board's earlier runs, under its table.
HISTORY = Table("history", (
    Column("Implementation", card=""),
    Column("Observed (UTC)"),
    Column("Status"),
    Column("Mean (ms)", num=True, head_css=ONE_LINE),
    Column("95% CI (ms)", num=True, head_css=ONE_LINE),
    Column("Vs its previous run (×)", num=True, head_css=ONE_LINE),
    Column("Superseded by"),
))
# A host's boards, on its page: a row per board.
BOARDS = Table("boards", (
    Column("Problem", card=""),
    Column("Implementations", num=True),
    Column("Runs", num=True),
    Column("Fastest"),
    Column("Its mean (ms)", num=True),
), scope=True, classed=True)
TABLES = {t.name: t for t in (LATENCY, HISTORY, BOARDS)}


SUMMARY_CELLS = ("count", "ratio", "coverage", "held")


@dataclass(frozen=True, slots=True)
class SummaryColumn:
    """A summary table's column (macros.html's summary_table): one number of a Tally (summaries.py)."""

    head: str
    name: str  # its cells' class, "c-<name>": the card layout names them by it (static/style.css)
    field: str  # the Tally field it shows and sorts by
    key: float | None = None  # the item it shows of a field that maps (fast_p: its p)
    # "count": of the suite; "ratio": × with how many it is over (`over`); "coverage"; "held": the runs, listed.
    cell: str = "count"
    over: str = ""  # ("ratio") the Tally field counting what it is over
    card: str | None = None  # its name over each value in the card layout: the head's if None

    def __post_init__(self):
        if self.cell not in SUMMARY_CELLS:  # (summary_table shows no other)
            raise ValueError(f"summary column {self.head!r}: cell {self.cell!r} is not one of {SUMMARY_CELLS}")

    @property
    def card_name(self) -> str:
        return self.head if self.card is None else self.card


@dataclass(frozen=True, slots=True)
class SummaryTable:
    """A summary table's columns after each row's name: its head, cells and card labels are made from them."""

    name: str  # its class, which its card labels select by
    columns: tuple[SummaryColumn, ...]
    head_css: str = ""  # declarations for its number headers: a ninth column fits 1280 px only below their 6.5rem

    def cells(self, tally) -> list[tuple]:
        """A row's cells: (class, how shown, value, the number it sorts by, what it is over), one call a row."""
        row = []
        for c in self.columns:
            value = getattr(tally, c.field)
            value = value if c.key is None else value[c.key]
            row.append((c.name, c.cell, value, len(value) if c.cell == "held" else value,
                        getattr(tally, c.over) if c.over else None))
        return row


# An implementation's summaries on a host, or a host's of an implementation: after the row's name.
SUMMARY = SummaryTable("summary", (
    SummaryColumn("Attempted", "attempted", "attempted", cell="coverage"),
    SummaryColumn("fast_0 (passed)", "fast0", "fast_p", key=0.0),
    SummaryColumn("fast_1", "fast1", "fast_p", key=1.0),
    SummaryColumn("fast_1.5", "fast15", "fast_p", key=1.5),
    SummaryColumn("fast_2", "fast2", "fast_p", key=2.0),
    SummaryColumn("Faster beyond noise", "beyond", "beyond_noise"),
    SummaryColumn("Geometric mean over the passed (×)", "geomean", "geomean_speedup", cell="ratio",
                  over="geomean_over", card="Geometric mean, over the passed (×)"),
    SummaryColumn("Held out", "held", "held_out", cell="held"),
))
