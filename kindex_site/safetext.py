"""Text as pages show it, safely: HTML escaping and characters that do not show as themselves.

A leaf: the standard library and MarkupSafe only, nothing of kindex_site, so that every module that
writes text for a reader (the charts, the templates, source listings, the feed and sitemap, the search
index) shows it by the same rules.
"""

from __future__ import annotations

import re

from markupsafe import escape as _markup_escape

try:  # (MarkupSafe 3: escape is Python around this C function; in 2, escape itself is C and quick)
    from markupsafe import _escape_inner
except ImportError:  # pragma: no cover
    _escape_inner = None


def escape(value) -> str:
    """markupsafe.escape's text as a plain str, for markup joined into a bigger string at once (a
    Markup made for each piece costs more than the escaping), with each HIDDEN character as its code
    point in brackets ('[U+202E]': the same text in an element, an attribute or a <title>)."""
    if _escape_inner is None:  # pragma: no cover
        text = str(_markup_escape(value))
    elif type(value) is str:
        text = _escape_inner(value)
    elif hasattr(value, "__html__"):
        return value.__html__()
    else:
        text = _escape_inner(str(value))
    return text if text.isprintable() or HIDDEN.search(text) is None else shown_hidden(text)


# Characters that do not show as themselves: C0 and C1 controls (NUL, ESC…; tab and line breaks
# aside), which HTML parsers drop or flag, and the bidirectional controls, which reorder the text
# after them (a reversed name, digest or line of a kernel: "Trojan Source"). No page shows one as
# itself: each is shown as its code point.
HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


CODE_POINT_HTML = '<code class="ctl">U+{:04X}</code>'  # (where an element may stand: a document's strings, a source)


def shown_hidden(text: str, marked: str = "[U+{:04X}]") -> str:
    """`text` (HTML or plain) with each HIDDEN character as its code point, formatted by `marked`."""
    return HIDDEN.sub(lambda m: marked.format(ord(m.group())), text)
