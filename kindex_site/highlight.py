"""Source files on pages: highlighted by Pygments, with line numbers, readable without JavaScript.

Pygments escapes the text it is given (&, <, >, quotes), so a source file is shown as text whatever
it holds; it is never executed and never put inside a <script>. Imported only when a page shows a
source: a site without any never loads Pygments.
"""

from __future__ import annotations

from markupsafe import Markup


def source_html(text: str, filename: str, language: str | None = None) -> Markup:
    """A file's text as highlighted HTML: a table of line numbers and code (class "source")."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter

    return Markup(highlight(text, _lexer(filename, language), HtmlFormatter(
        linenos="table", cssclass="source", wrapcode=True)))


def _lexer(filename: str, language: str | None):
    from pygments.lexers import TextLexer, get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:  # the language the run names, else the file name's; plain text for neither
        return get_lexer_by_name(language) if language else get_lexer_for_filename(filename)
    except ClassNotFound:
        return TextLexer()


def stylesheet() -> str:
    """The highlighting colours of static/source.css (made by this, then the box's rules added by
    hand): light, and dark where the reader prefers it."""
    from pygments.formatters import HtmlFormatter

    def rules(style: str) -> str:  # (only those scoped to .source: Pygments also styles every <pre>)
        css = HtmlFormatter(style=style).get_style_defs(".source")
        return "\n".join(line for line in css.splitlines() if line.startswith(".source"))

    return (f"/* Source highlighting (kindex_site/highlight.py stylesheet()) */\n{rules('default')}\n"
            f"@media (prefers-color-scheme: dark) {{\n{rules('github-dark')}\n}}\n")
