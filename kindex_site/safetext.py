"""Text as pages show it, safely: HTML escaping and characters that do not show as themselves.

A leaf (the standard library only, nothing of kindex_site), so that every module that writes text
for a reader (the charts, the templates, source listings, the feed and sitemap, the search index)
shows it by the same rules.
"""

from __future__ import annotations

import re


def escape(value) -> str:
    """markupsafe.escape's text as a plain str, for markup joined into a bigger string at once (a
    Markup made for each piece costs more than the escaping), with each HIDDEN character as its code
    point in brackets ('[U+202E]': the same text in an element, an attribute or a <title>).

    As markupsafe.escape: a str as it is, an object with `__html__` as that says (not shown_hidden:
    it is markup already), anything else by its str; then & < > ' " as &amp; &lt; &gt; &#39; &#34;.
    """
    if type(value) is str:
        text = value
    elif hasattr(value, "__html__"):
        return value.__html__()
    else:
        # (a plain str: __str__ may give a subclass, and Markup's replace escapes its arguments)
        text = str.__str__(str(value))
    # (Most text holds none of the five: the tests cost less than the replacing.)
    if "&" in text or "<" in text or ">" in text or "'" in text or '"' in text:
        text = text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;").replace('"', "&#34;")
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
