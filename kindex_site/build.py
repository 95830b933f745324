"""Write phase: the only code that writes the site.

`build()` reads top to bottom: load and check everything, render every output in memory,
refuse two outputs claiming one path, then write a fresh folder beside the output and swap it in.
A failure at any point before the swap leaves the previous site exactly as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from .config import Config
from .errors import KindexError
from .leaderboard import Leaderboard, build_leaderboard
from .load import Content, display, load_content
from .pages import Urls, api_documents, site_pages
from .render import make_environment, markdown_renderer


@dataclass
class BuildResult:
    pages: int
    runs: int
    files: int
    seconds: float
    output: Path
    warnings: list[str] = field(default_factory=list)


def check(config: Config) -> tuple[Content, Leaderboard]:
    """Read and check phases: everything a build needs, or KindexError with every problem."""
    content = load_content(config.folder("content_dir"))
    return content, build_leaderboard(content)


def build(config: Config) -> BuildResult:
    started = time.perf_counter()
    out = config.folder("output_dir")
    _refuse_unsafe_output(out, config)

    content, lb = check(config)
    urls = Urls(config.base_path)
    md = markdown_renderer()
    markdown_html = {p.slug: md.render(p.markdown) for p in content.pages}

    env = make_environment(config.folder("templates_dir"), {
        "site": {"title": config.title, "description": config.description},
        "urls": urls,
        "nav_pages": [(p.slug, p.title) for p in content.pages],
    })
    outputs: dict[str, bytes] = {}
    claimed_by: dict[str, str] = {}

    def claim(path: str, data: bytes, what: str) -> None:
        # Pelican's rule: two outputs may never claim one path (case-insensitively, for macOS/Windows disks).
        key = path.casefold()
        if key in claimed_by:
            raise KindexError(f"{path}: claimed by both {claimed_by[key]} and {what}")
        claimed_by[key] = what
        outputs[path] = data

    pages = site_pages(lb, urls, markdown_html)
    templates: dict[str, jinja2.Template] = {}
    for page in pages:
        try:
            template = templates.get(page.template) or templates.setdefault(page.template, env.get_template(page.template))
            html = template.render(page=page, **page.context)
        except jinja2.TemplateError as e:
            raise KindexError(_template_problem(e, page.template)) from None
        claim(page.output_path, html.encode("utf-8"), f"page /{page.url}")
    for path, doc in api_documents(lb, urls).items():
        claim(path, _json_bytes(doc), f"API document /{path}")
    static = config.folder("static_dir")
    if static.is_dir():
        for file in sorted(p for p in static.rglob("*") if p.is_file() and not p.is_symlink()):
            claim("static/" + file.relative_to(static).as_posix(), file.read_bytes(), f"static file {display(file)}")

    _write_atomically(out, outputs)
    return BuildResult(
        pages=len(pages), runs=len(content.runs), files=len(outputs),
        seconds=time.perf_counter() - started, output=out, warnings=content.warnings,
    )


def _json_bytes(doc: dict) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _template_problem(e: jinja2.TemplateError, template: str) -> str:
    if isinstance(e, jinja2.TemplateSyntaxError):
        return f"{e.filename or template}:{e.lineno}: template syntax error: {e.message}"
    return f"templates/{template}: {type(e).__name__}: {e}"


MARKER = ".kindex-site"  # written into output folders this tool made, so it never wipes anything else


def _refuse_unsafe_output(out: Path, config: Config) -> None:
    resolved = out.resolve()
    content = config.folder("content_dir").resolve()
    root = config.root.resolve()
    reason = None
    if resolved == Path(resolved.anchor):
        reason = "is the file system root"
    elif resolved == Path.home().resolve():
        reason = "is your home folder"
    elif resolved == root:
        reason = "is the project folder"
    elif resolved == content or resolved.is_relative_to(content):
        reason = "is inside the content folder"
    elif content.is_relative_to(resolved):
        reason = "contains the content folder"
    elif (resolved / ".git").exists():
        reason = "holds a .git folder"
    elif resolved.exists() and not resolved.is_dir():
        reason = "is a file"
    elif resolved.is_dir() and any(resolved.iterdir()) and not (resolved / MARKER).exists():
        reason = "is a non-empty folder kindex-site did not create"
    if reason:
        raise KindexError(f"{display(out)}: refusing to write the site there: it {reason}")


def _write_atomically(out: Path, outputs: dict[str, bytes]) -> None:
    """Write everything into a fresh sibling folder, then swap it in with two renames."""
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    old = None
    try:
        made: set[Path] = {staging}
        for rel, data in sorted(outputs.items()):
            target = staging / rel
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            target.write_bytes(data)
        (staging / MARKER).write_text("This folder is written by kindex-site build; it is replaced on each build.\n")
        os.chmod(staging, 0o755)
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, old)
        os.replace(staging, out)
    except BaseException:
        if old is not None and not out.exists():
            os.replace(old, out)
            old = None
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
