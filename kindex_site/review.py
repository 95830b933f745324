"""What a pull request does to the leaderboard (`check --base REF`): the base's leaderboard and the
pull request's, made by the same code (the base's, as the check workflow installs it), compared.

A pull request may add runs. It needs a maintainer's review, and the check fails, when it changes a
file outside the content folder (code, templates, settings, workflows), changes or removes a run
already published, changes a table's reference run, or changes a protocol or an environment that
published runs use. Whatever it does, its effect is written as a change log: runs added, tables
joined, ranks moved, references changed (docs/security.md, "Pull requests").
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .config import Config
from .errors import KindexError, plural, printable
from .leaderboard import Board, Leaderboard, Rules, build_leaderboard
from .load import Facts, load_content

GIT_SECONDS = 120  # for each git command: a repository's history is read, never its network
SHOWN = 20  # names listed per kind of change in the summary (the counts are whole)
REVIEW = "needs a maintainer's review"


@dataclass
class Review:
    """A pull request's effect, and what in it needs a maintainer."""

    problems: list[str] = field(default_factory=list)  # `file: what`, each a reason the check fails
    added: list[str] = field(default_factory=list)  # run names
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    joined: dict[str, list[str]] = field(default_factory=dict)  # board → runs the pull request adds to it
    moved: list[tuple[str, str, str, str]] = field(default_factory=list)  # (board, run, rank before, rank after)
    references: list[tuple[str, str | None, str | None]] = field(default_factory=list)  # (board, before, after)

    def summary(self) -> str:
        """The change log as Markdown (GitHub's step summary renders it; a terminal reads it as text)."""
        lines = ["## What this pull request changes on the leaderboard", ""]
        lines.append(f"- {plural(len(self.added), 'run')} added, {len(self.changed)} changed, {len(self.removed)} removed")
        lines.append(f"- {plural(len(self.joined), 'table')} joined, {plural(len(self.moved), 'rank')} moved, "
                     f"{plural(len(self.references), 'reference')} changed")
        if self.problems:
            lines += ["", f"**{plural(len(self.problems), 'change')} {REVIEW}:**", ""]
            lines += [f"- {_md(p)}" for p in self.problems[:SHOWN]] + _more(self.problems)
        if self.joined:
            lines += ["", "### Tables joined", ""]
            items = sorted(self.joined.items())
            lines += [f"- {_md(board)}: {_md(', '.join(runs))}" for board, runs in items[:SHOWN]] + _more(items)
        if self.moved:
            lines += ["", "### Ranks moved", "", "| table | run | before | after |", "| --- | --- | --- | --- |"]
            lines += [f"| {_md(b)} | {_md(r)} | {before} | {after} |" for b, r, before, after in self.moved[:SHOWN]]
            lines += _more(self.moved)
        if self.references:
            lines += ["", "### References changed", ""]
            lines += [f"- {_md(b)}: {_md(before or 'none')} → {_md(after or 'none')}" for b, before, after in self.references]
        for title, names in (("Runs added", self.added), ("Runs changed", self.changed), ("Runs removed", self.removed)):
            if names:
                lines += ["", f"### {title}", ""] + [f"- {_md(n)}" for n in names[:SHOWN]] + _more(names)
        return "\n".join(lines) + "\n"


def review(config: Config, base: str) -> Review:
    """Compare the leaderboard of the working tree's content with that of the content at git ref `base`;
    KindexError when the repository or the ref cannot be read."""
    content_dir = config.folder("content_dir").resolve()
    top = Path(_git(content_dir if content_dir.is_dir() else config.root, "rev-parse", "--show-toplevel").strip())
    try:
        content_rel = PurePosixPath(content_dir.relative_to(top.resolve()).as_posix())
    except ValueError:
        raise KindexError(f"{content_dir}: content_dir: not inside the git repository at {top}") from None
    _git(top, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}", what=f"--base {base}: no such commit")
    result = Review()
    for path in _changed_files(top, base):
        if PurePosixPath(path).parts[:len(content_rel.parts)] != content_rel.parts:
            result.problems.append(f"{printable(path)}: a change outside {content_rel}/ {REVIEW}")
    rules = Rules.of(config)
    mine = load_content(content_dir, keep_documents=False)
    theirs_lb: Leaderboard | None = None
    with tempfile.TemporaryDirectory(prefix="kindex-base-") as folder:
        base_content = _extract(top, base, content_rel, Path(folder))
        if base_content is not None:
            theirs = load_content(base_content, keep_documents=False)
            theirs_lb = build_leaderboard(theirs, rules)
    mine_lb = build_leaderboard(mine, rules)
    if theirs_lb is None:
        result.added = sorted(r.name for r in mine.runs)
        return result
    _compare(theirs_lb, mine_lb, result)
    return result


def _compare(base: Leaderboard, pr: Leaderboard, result: Review) -> None:
    before = {r.name: r for r in base.content.runs}
    after = {r.name: r for r in pr.content.runs}
    for name in sorted(before.keys() - after.keys()):
        result.removed.append(name)
        result.problems.append(f"{before[name].source}: removes the published run {printable(name)}")
    for name in sorted(after.keys() - before.keys()):
        result.added.append(name)
    for name in sorted(before.keys() & after.keys()):
        if _identity(before[name]) != _identity(after[name]):
            result.changed.append(name)
            result.problems.append(f"{after[name].source}: changes the published run {printable(name)}")
    used = {r.protocol for r in before.values()}, {r.environment for r in before.values()}
    for kind, theirs, mine, names in (("protocol", base.content.protocols, pr.content.protocols, used[0]),
                                      ("environment", base.content.environments, pr.content.environments, used[1])):
        for name in sorted(names & mine.keys()):
            if theirs[name].model_dump(mode="json") != mine[name].model_dump(mode="json"):
                where = next((str(r.source) for r in after.values() if getattr(r, kind) == name), name)
                result.problems.append(f"{where}: changes the {kind} {printable(name)}, which published runs use")
    boards_before = {_board_key(b): b for boards in base.boards.values() for b in boards}
    boards_after = {_board_key(b): b for boards in pr.boards.values() for b in boards}
    for key, b in sorted(boards_after.items()):
        old = boards_before.get(key)
        shown = _board_name(b)
        new_runs = [e.run.name for e in b.runs if e.run.name not in before]
        if new_runs:
            result.joined[shown] = new_runs
        if old is None:
            continue
        was = old.reference.run.name if old.reference is not None else None
        now = b.reference.run.name if b.reference is not None else None
        if was != now:
            result.references.append((shown, was, now))
            if was is not None:
                where = next((str(after[n].source) for n in new_runs), str(after[was].source) if was in after else shown)
                result.problems.append(f"{where}: changes the reference of {shown} from {printable(was)} "
                                       f"to {printable(now) if now else 'none'}")
        ranks_before = {e.run.name: _rank_text(e) for e in old.entries}
        for e in b.entries:
            if e.run.name in ranks_before and ranks_before[e.run.name] != _rank_text(e):
                result.moved.append((shown, e.run.name, ranks_before[e.run.name], _rank_text(e)))


def _identity(run) -> tuple:
    """A run as published, wherever in its file it sits: its facts, its protocol and environment, and
    its source files' digests."""
    return (tuple(getattr(run.facts, name) for name in Facts.__slots__), run.protocol, run.environment,
            tuple(sorted((kind, source.digest) for kind, source in run.files.items())))


def _board_key(b: Board) -> tuple:
    return (b.problem.slug, b.workload, b.host, b.protocol)


def _board_name(b: Board) -> str:
    return f"{b.problem.title} on {b.host} ({b.protocol}, workload {b.workload.removeprefix('sha256:')[:8]})"


def _rank_text(e) -> str:
    return "—" if e.rank is None else f"={e.rank}" if e.tied else str(e.rank)


def _changed_files(top: Path, base: str) -> list[str]:
    """Files the working tree's HEAD changes since its merge base with `base` (as a pull request's diff),
    and files changed in the working tree itself."""
    merge_base = _git(top, "merge-base", base, "HEAD", what=f"--base {base}: no common history with HEAD").strip()
    names = _git(top, "diff", "--name-only", "-z", merge_base, "--").split("\0")
    names += _git(top, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    return sorted({n for n in names if n})


def _extract(top: Path, base: str, content_rel: PurePosixPath, into: Path) -> Path | None:
    """The base's content folder, written under `into`; None when the base has none."""
    listing = _git(top, "ls-tree", "-d", "--name-only", base, "--", str(content_rel))
    if not listing.strip():
        return None
    data = _run_git(top, "archive", "--format=tar", base, "--", str(content_rel), what=f"--base {base}: cannot read its content")
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(into, filter="data")  # (no links out, no absolute paths, no devices)
    return into / content_rel


def _git(cwd: Path, *args: str, what: str | None = None) -> str:
    return _run_git(cwd, *args, what=what).decode("utf-8", "surrogateescape")


def _run_git(cwd: Path, *args: str, what: str | None = None) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=GIT_SECONDS,
                              env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    except FileNotFoundError:
        raise KindexError("git: not found: check --base needs git installed") from None
    except subprocess.TimeoutExpired:
        raise KindexError(f"git {args[0]}: took over {GIT_SECONDS} s") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise KindexError(what or f"git {args[0]}: {said[-1] if said else 'failed'}")
    return done.stdout


def _md(text: str) -> str:
    """Content's text in a Markdown line: its characters shown as themselves, never as markup."""
    text = printable(text)
    return "".join("\\" + c if c in "\\`*_{}[]<>()#+-.!|~" else c for c in text)


def _more(items) -> list[str]:
    return [f"- … and {len(items) - SHOWN} more"] if len(items) > SHOWN else []
