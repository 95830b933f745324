"""The rules every leaderboard's about page states, between two marker lines Markdown does not show:
`kindex-site new` writes them (scaffold.py), a build puts the installed version's in their place."""

from __future__ import annotations

from pathlib import Path

from .errors import KindexError

PACKAGE = Path(__file__).resolve().parent

# Markdown link reference definitions, which render as nothing: the page reads the same with them.
RULES_BEGIN = "[kindex-site rules]: # (What follows, up to the end marker, is kindex-site's rules.)"
RULES_END = "[kindex-site rules end]: #"
_SITE_OWN = "## Where the data comes from"  # the bundled site's own section of its about page, not a rule


def rules_path() -> Path:
    """The package's about page: shipped inside the package, or in a checkout its content/pages/about.md."""
    inside = PACKAGE / "rules" / "about.md"
    return inside if inside.is_file() else PACKAGE.parent / "content" / "pages" / "about.md"


def rules_markdown() -> str:
    """The rules every leaderboard follows, in Markdown: the package's about page without its title
    and the bundled site's own section on its data."""
    try:
        text = rules_path().read_text(encoding="utf-8")
    except OSError as e:
        raise KindexError(f"{rules_path()}: kindex-site's own rules cannot be read ({e.strerror}): "
                          "reinstall kindex-site") from None
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        if line.startswith("# ") and not kept:
            continue  # the page's title
        if line.startswith("## "):
            skipping = line.rstrip() == _SITE_OWN
        if not skipping:
            kept.append(line)
    return "\n".join(kept).strip("\n")


def rules_block() -> str:
    """The rules between their two markers, as an about page holds them."""
    return f"{RULES_BEGIN}\n\n{rules_markdown()}\n\n{RULES_END}"


def with_current_rules(markdown: str) -> str:
    """A page with the installed version's rules between its markers; a page without both, as it is."""
    begin = markdown.find(RULES_BEGIN)
    end = markdown.find(RULES_END, begin + 1) if begin >= 0 else -1
    if begin < 0 or end < 0:
        return markdown
    return markdown[:begin] + rules_block() + markdown[end + len(RULES_END):]
