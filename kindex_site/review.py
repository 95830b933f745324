"""What a pull request does to the leaderboard (`check --base REF`), judged by the base alone: its
`kindex.toml` and code. The pull request is read as git objects, never as its checkout: the difference
between its merge base with REF and its HEAD, applied to the base's content, both written out of git
into a temporary folder laid out as the repository. What needs a maintainer is docs/security.md's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from pathlib import Path, PurePosixPath
from typing import Iterator, NamedTuple

from .config import CONFIG_FILE, Config, load_config
from .errors import KindexError, plural, printable
from .leaderboard import (Board, Entry as BoardEntry, Leaderboard, Rules, build_leaderboard, foreign_lab_runs,
                          primary_value)
from .load import Content, Run, load_content
from .physics import NS_PER_S, duration

GIT_SECONDS = 120  # for each git command: a repository's history is read, never its network
SHOWN = 20  # names listed per kind of change in the summary (the counts are whole)
SHOWN_FIELDS = 12  # fields listed per changed run
VALUE_CHARS = 80  # of a changed field's value shown in the summary
MAX_FILE_BYTES = 64 * 2**20  # a file a pull request adds to the content (jsonread.MAX_JSON_BYTES: a .json's bound)
NEEDS = "needs a maintainer's review"
FUTURE_SLACK = timedelta(days=1)  # a run dated ahead of the check by more than this (clocks and time zones) fails it
REGULAR_FILES = ("100644", "100755")  # git's modes of a plain file; links (120000) and submodules (160000) are not
# The content's folders of the publisher's documents (load.py), each as a message names a change to it.
PUBLISHERS = {"costs": "a workload's cost", "reviews": "a run's review"}


def needs(n: int) -> str:
    """`1 change needs` / `2 changes need` a maintainer's review."""
    return f"{plural(n, 'change')} {'needs' if n == 1 else 'need'} a maintainer's review"


@dataclass
class Review:
    """A pull request's effect, and what in it needs a maintainer."""

    problems: list[str] = field(default_factory=list)  # `path: what`, each a reason the check fails
    added: list[str] = field(default_factory=list)  # run names
    changed: dict[str, list[str]] = field(default_factory=dict)  # run name → its fields' changes
    removed: list[str] = field(default_factory=list)
    joined: dict[str, list[str]] = field(default_factory=dict)  # board → runs the pull request adds to it
    moved: list[tuple[str, str, str, str]] = field(default_factory=list)  # (board, run, rank before, rank after)
    references: list[tuple[str, str | None, str | None]] = field(default_factory=list)  # (board, before, after)
    files: list[str] = field(default_factory=list)  # every path the pull request changes, `status path`
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """The change log as Markdown (GitHub's step summary renders it; a terminal reads it as text)."""
        lines = ["## What this pull request changes on the leaderboard", ""]
        lines.append(f"- {plural(len(self.added), 'run')} added, {len(self.changed)} changed, {len(self.removed)} removed")
        lines.append(f"- {plural(len(self.joined), 'table')} joined, {plural(len(self.moved), 'rank')} moved, "
                     f"{plural(len(self.references), 'reference')} changed")
        lines.append(f"- {plural(len(self.files), 'file')} changed")
        lines += [f"- {_md(note)}" for note in self.notes]
        if self.problems:
            lines += ["", f"**{needs(len(self.problems))}:**", ""]
            lines += [f"- {_md(p)}" for p in self.problems[:SHOWN]] + _more(self.problems)
        if self.joined:
            lines += ["", "### Tables joined", ""]
            items = sorted(self.joined.items())
            lines += [f"- {_md(board)}: {_md(', '.join(runs))}" for board, runs in items[:SHOWN]] + _more(items)
        if self.moved:
            lines += ["", "### Ranks moved", "", "| table | run | before | after |", "| --- | --- | --- | --- |"]
            lines += [f"| {_md(b)} | {_md(r)} | {_md(before)} | {_md(after)} |" for b, r, before, after in self.moved[:SHOWN]]
            lines += _more(self.moved)
        if self.references:
            lines += ["", "### References changed", ""]
            lines += [f"- {_md(b)}: {_md(before or 'none')} → {_md(after or 'none')}" for b, before, after in self.references]
        if self.changed:
            lines += ["", "### Runs changed", ""]
            items = sorted(self.changed.items())
            for name, fields in items[:SHOWN]:
                lines.append(f"- {_md(name)}")
                lines += [f"  - {_md(f)}" for f in fields[:SHOWN_FIELDS]]
                if len(fields) > SHOWN_FIELDS:
                    lines.append(f"  - … and {len(fields) - SHOWN_FIELDS} more fields")
            lines += _more(items)
        for title, names in (("Runs added", self.added), ("Runs removed", self.removed), ("Files changed", self.files)):
            if names:
                lines += ["", f"### {title}", ""] + [f"- {_md(n)}" for n in names[:SHOWN]] + _more(names)
        return "\n".join(lines) + "\n"


class Entry(NamedTuple):
    """One path of a git tree: its mode, object id and size (None for what is not a blob)."""

    mode: str
    oid: str
    size: int | None


@dataclass
class PullRequest:
    """A pull request made ready to judge: the base's settings, the base's content and the content
    once merged, each written out of git under `folder` (`base/`, `merged/`) as the repository lays it out."""

    top: Path  # the repository
    here: PurePosixPath  # the working folder, from the repository's top
    base: str
    config: Config  # the base's settings; its folders are relative to the merged tree's working folder
    content: PurePosixPath  # the content folder, from the repository's top
    changed: dict[str, tuple[Entry | None, Entry | None]]  # path → (at the merge base, at HEAD)
    base_tree: dict[str, Entry]
    folder: Path
    problems: list[str]
    notes: list[str]

    def root(self, which: str) -> Path:
        """The working folder inside the base's or the merged tree."""
        return self.folder / which / self.here

    def review(self, merged: Content, merged_lb: Leaderboard) -> Review:
        """The pull request's effect on the leaderboard: `merged` is its content as checked."""
        result = Review(problems=list(self.problems), notes=list(self.notes))
        result.files = [f"{_status(*entries)} {_shown_path(path)}" for path, entries in sorted(self.changed.items())]
        with _working_in(self.root("base")):
            folder = self.config.folder("content_dir")
            base = load_content(folder, keep_documents=False) if folder.is_dir() else Content()
            base_lb = build_leaderboard(base, Rules.of(self.config))
        self._runs(base, merged, result)
        _tables(base_lb, merged_lb, {r.name for r in base.runs}, result)
        mine = set(result.added) | result.changed.keys()
        where = {r.name: r.source for r in merged.runs}
        result.problems += [f"{where[name]}: {message}" for name, message in sorted(foreign_lab_runs(merged_lb).items())
                            if name in mine]
        ahead = datetime.now(timezone.utc) + FUTURE_SLACK
        result.problems += [f"{r.source}: run.spec.observedAt: {r.facts.observed_at} is after this check ran: a run "
                            "dated ahead would stay its implementation's current run whatever comes later"
                            for r in merged.runs if r.name in mine and r.facts.observed_at
                            and datetime.fromisoformat(r.facts.observed_at).astimezone(timezone.utc) > ahead]
        self._sources(merged, result)
        result.problems += below_floor(merged_lb, mine)
        return result

    def _runs(self, base: Content, merged: Content, result: Review) -> None:
        """Runs added, and every published run the pull request's files change or remove, field by field."""
        published = {r.name for r in base.runs}
        result.added = sorted(r.name for r in merged.runs if r.name not in published)
        merged_root = self.folder / "merged"
        for path, (_, head) in sorted(self.changed.items()):
            if not _inside(path, self.content) or path not in self.base_tree:
                continue
            written, merged_file = self.folder / "base" / path, merged_root / path
            if not _plain(written) or (head is not None and not _plain(merged_file)):
                continue  # (a link or an oversized file in its place is a problem of its own)
            before = _documents(written.read_bytes(), self._shown(path))
            after = _documents(merged_file.read_bytes(), self._shown(path)) if head is not None else {}
            shown = self._shown(path)
            for name, doc in before.items():
                if name not in after:
                    result.removed.append(name)
                    result.problems.append(f"{shown}: removes the published run {printable(name)}")
                elif after[name] != doc:
                    result.changed[name] = _field_changes(doc, after[name])
                    result.problems.append(f"{shown}: changes the published run {printable(name)} "
                                           f"({plural(len(result.changed[name]), 'field')})")
        result.removed.sort()
        merged_runs = {r.name: r for r in merged.runs}
        for run in base.runs:  # (a source file can change what a run's page shows without its document)
            now = merged_runs.get(run.name)
            if now is None or run.name in result.changed:
                continue
            for kind, before in run.files.items():
                after = now.files.get(kind)
                if after is None or after.digest != before.digest:
                    result.changed.setdefault(run.name, []).append(
                        f"{kind} source {before.rel}: sha256:{before.digest[:12]} → "
                        f"{'(none)' if after is None else after.rel + ' sha256:' + after.digest[:12]}")
                    result.problems.append(f"{self._shown(f'{self.content}/{before.rel}')}: changes the {kind} "
                                           f"source of the published run {printable(run.name)}")
        used = {r.protocol for r in base.runs}, {r.environment for r in base.runs}
        for kind, theirs, mine, names in (("protocol", base.protocols, merged.protocols, used[0]),
                                          ("environment", base.environments, merged.environments, used[1])):
            for name in sorted(names & mine.keys()):
                if theirs[name].model_dump(mode="json") != mine[name].model_dump(mode="json"):
                    where = next((str(r.source) for r in merged.runs if getattr(r, kind) == name), name)
                    result.problems.append(f"{where}: changes the {kind} {printable(name)}, which published runs use")

    def _sources(self, merged: Content, result: Review) -> None:
        """The source files the pull request adds or changes, against max_sources_per_pr."""
        named = {f"{self.content}/{rel}" if str(self.content) != "." else rel for rel in merged.sources}
        sources = sorted(p for p, (_, head) in self.changed.items() if head is not None and p in named)
        most = self.config.max_sources_per_pr
        if len(sources) > most:
            result.problems.append(f"{self._shown(sources[most])}: the pull request adds or changes "
                                   f"{plural(len(sources), 'source file')}, more than max_sources_per_pr ({most}) "
                                   "in kindex.toml")

    def _shown(self, path: str) -> str:
        """A repository path as the user would type it from the working folder."""
        return _from_here(path, self.here)


@contextmanager
def pull_request(config_file: Path | None, overrides: dict, base: str) -> Iterator[PullRequest]:
    """Make the pull request at HEAD ready to judge against git ref `base`, the merged tree the working
    folder inside the block. KindexError when the repository, the ref or the settings cannot be read."""
    cwd = Path.cwd()
    top = Path(_git(cwd, "rev-parse", "--show-toplevel").strip()).resolve()
    here = PurePosixPath(cwd.resolve().relative_to(top).as_posix())
    settings = Path(os.path.normpath(cwd / (config_file or CONFIG_FILE)))
    try:
        settings_path = PurePosixPath(settings.resolve().relative_to(top).as_posix())
    except ValueError:
        raise KindexError(f"{config_file}: --config: not inside the git repository at {top}") from None
    _git(top, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}", what=f"--base {base}: no such commit")
    fork = _git(top, "merge-base", base, "HEAD", what=f"--base {base}: no common history with HEAD").strip()
    base_tree, fork_tree, head_tree = _tree(top, base), _tree(top, fork), _tree(top, "HEAD")
    changed = {p: (fork_tree.get(p), head_tree.get(p)) for p in sorted(fork_tree.keys() | head_tree.keys())
               if _changes(fork_tree.get(p), head_tree.get(p))}
    unsafe = [p for p in changed if not _safe(p)]  # (git refuses to check such a path out; nothing is written for it)
    base_tree = {p: e for p, e in base_tree.items() if _safe(p)}
    for path in unsafe:
        del changed[path]
    notes = []
    if _git(top, "status", "--porcelain", "--untracked-files=no", "--ignore-submodules=none").strip():
        notes.append("the working tree has uncommitted changes: the check judges the commit HEAD, not them")
    with tempfile.TemporaryDirectory(prefix="kindex-check-") as folder:
        root = Path(folder).resolve()  # (the working folder's path is the resolved one)
        for which in ("base", "merged"):
            (root / which / here).mkdir(parents=True, exist_ok=True)
        settings_entry = base_tree.get(str(settings_path))
        if settings_entry is not None:
            data = _run_git(top, "cat-file", "blob", settings_entry.oid)
            for which in ("base", "merged"):
                _write(root / which / str(settings_path), data)
        elif config_file is not None:
            raise KindexError(f"{config_file}: --base {base} has no such file: the base's settings judge a pull request")
        with _working_in(root / "merged" / here):
            config = load_config(Path(os.path.relpath(settings_path, here)) if settings_entry else None, overrides)
            content = _content_path(config, root / "merged", base)
            problems = [f"{_shown_path(p)}: a path git would not check out {NEEDS}" for p in unsafe]
            problems += _outside(changed, content, here, _settings_paths(config, root / "merged", settings_path))
            _write_tree(top, base_tree, content, root / "base")
            _merge(top, root / "base", root / "merged", content, changed, head_tree, here, problems,
                   {p: (fork_tree.get(p), base_tree.get(p)) for p in changed})
            yield PullRequest(top, here, base, config, content, changed, base_tree, root, problems, notes)


def _content_path(config: Config, tree: Path, base: str) -> PurePosixPath:
    folder = config.folder("content_dir").absolute()
    try:
        return PurePosixPath(Path(os.path.normpath(folder)).relative_to(tree).as_posix())
    except ValueError:
        raise KindexError(f"content_dir: {config.content_dir!r} in the settings of --base {base} is outside "
                          "the repository") from None


def _settings_paths(config: Config, tree: Path, settings: PurePosixPath) -> list[PurePosixPath]:
    """The settings file, templates and static files: a maintainer's, even inside the content folder."""
    found = [settings]
    for name in ("templates_dir", "static_dir"):  # (as set, even where the base has no such folder yet)
        folder = Path(os.path.normpath((config.root / getattr(config, name)).absolute()))
        if folder.is_relative_to(tree):
            found.append(PurePosixPath(folder.relative_to(tree).as_posix()))
    return found


def _outside(changed: dict, content: PurePosixPath, here: PurePosixPath, settings: list[PurePosixPath]) -> list[str]:
    """Changes no pull request makes without a maintainer: outside the content folder, to the
    settings, templates or static files, to a dotfile anywhere, to what is not a plain file, or too big."""
    problems = []
    for path, (before, after) in sorted(changed.items()):
        shown = _from_here(path, here)
        parts = PurePosixPath(path).parts
        if any(path == str(s) or _inside(path, s) for s in settings):
            problems.append(f"{_shown_path(shown)}: a change to the settings, templates or static files {NEEDS}")
        elif not _inside(path, content):
            problems.append(f"{_shown_path(shown)}: a change outside {printable(str(content))}/ {NEEDS}")
        elif any(part.startswith(".") for part in parts):
            problems.append(f"{_shown_path(shown)}: a change to a dotfile {NEEDS}")
        elif _is_page(path, content):
            problems.append(f"{_shown_path(shown)}: a change to a page of the site {NEEDS}")
        elif (publishers := _publishers(path, content)) is not None:
            problems.append(f"{_shown_path(shown)}: a change to {publishers} {NEEDS}")
        elif any(e is not None and e.mode not in REGULAR_FILES for e in (before, after)):
            kind = "a symbolic link" if "120000" in (before and before.mode, after and after.mode) else "a submodule"
            problems.append(f"{_shown_path(shown)}: {kind} in the content {NEEDS}")
        elif after is not None and after.size is not None and after.size > MAX_FILE_BYTES:
            problems.append(f"{_shown_path(shown)}: {after.size / 2**20:.0f} MiB, more than a pull request's file may "
                            f"hold ({MAX_FILE_BYTES // 2**20} MiB); a bigger import {NEEDS}")
    return problems


def _write_tree(top: Path, tree: dict[str, Entry], content: PurePosixPath, into: Path) -> None:
    """The tree's content folder, its plain files and links as git holds them."""
    paths = [p for p in sorted(tree) if _inside(p, content) and tree[p].mode in REGULAR_FILES + ("120000",)]
    for path, data in zip(paths, _blobs(top, [tree[p].oid for p in paths])):
        if tree[path].mode == "120000":  # (the loader refuses a link that leads out of the content)
            (into / path).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.fsdecode(data), into / path)
        else:
            _write(into / path, data)


def _merge(top: Path, base: Path, into: Path, content: PurePosixPath, changed: dict, head: dict[str, Entry],
           here: PurePosixPath, problems: list[str], theirs: dict[str, tuple[Entry | None, Entry | None]]) -> None:
    """The base's content folder with the pull request's changes applied: files it does not change
    linked, a file both sides changed merged line by line (`git merge-file`)."""
    source = base / content
    if source.is_dir():
        shutil.copytree(source, into / content, symlinks=True, copy_function=_link, dirs_exist_ok=True)
    wanted = [p for p, (_, after) in changed.items() if _inside(p, content) and after is not None
              and after.mode in REGULAR_FILES and (after.size or 0) <= MAX_FILE_BYTES]
    blobs = dict(zip(wanted, _blobs(top, [head[p].oid for p in wanted])))
    for path, (_, after) in sorted(changed.items()):
        if not _inside(path, content):
            continue
        target = into / path
        fork, now = theirs[path]
        try:
            if path in blobs and fork is not None and now is not None and now.oid != fork.oid:
                merged = _merge_file(top, fork, now, blobs[path])
                if merged is None:
                    problems.append(f"{_shown_path(_from_here(path, here))}: the base changed it too, and the two "
                                    "changes conflict: bring the pull request up to date with its base")
                    continue
                blobs[path] = merged
            if target.is_symlink() or target.is_file():
                target.unlink()  # (a link to the base's copy: never written through)
            if path in blobs:
                _write(target, blobs[path])
        except OSError as e:  # (a file where the base now has a folder, or the reverse)
            problems.append(f"{_shown_path(_from_here(path, here))}: cannot be applied to the base ({e.strerror}): "
                            "bring the pull request up to date with its base")


def _merge_file(top: Path, fork: Entry, base: Entry, head: bytes) -> bytes | None:
    """The three-way merge of a file changed on both sides since the merge base; None on a conflict."""
    with tempfile.TemporaryDirectory(prefix="kindex-merge-") as folder:
        parts = [Path(folder) / name for name in ("base", "fork", "head")]
        for path, data in zip(parts, (*_blobs(top, [base.oid, fork.oid]), head)):
            path.write_bytes(data)
        done = subprocess.run(["git", "merge-file", "-p", "-q", *map(str, (parts[2], parts[1], parts[0]))],
                              capture_output=True, timeout=GIT_SECONDS, env=_git_env())
        return done.stdout if done.returncode == 0 else None


def _link(source: str, target: str) -> None:
    """A hard link to the base's copy; a file already there is the same bytes."""
    try:
        os.link(source, target)
    except FileExistsError:
        pass
    except OSError:  # (a file system without hard links)
        shutil.copyfile(source, target)


def _tables(base: Leaderboard, pr: Leaderboard, published: set[str], result: Review) -> None:
    """Tables joined, ranks moved, references set or changed, runs moved out of a current table."""
    boards_before = {_board_key(b): b for boards in base.boards.values() for b in boards}
    boards_after = {_board_key(b): b for boards in pr.boards.values() for b in boards}
    sources = {e.run.name: e.run.source for b in boards_after.values() for e in b.runs}
    for key, b in sorted(boards_after.items()):
        old = boards_before.get(key)
        shown = _board_name(b)
        new_runs = [e.run.name for e in b.runs if e.run.name not in published]
        if new_runs:
            result.joined[shown] = new_runs
        was = old.reference.run.name if old is not None and old.reference is not None else None
        now = b.reference.run.name if b.reference is not None else None
        if was != now:
            result.references.append((shown, was, now))
            where = str(sources[now]) if now else next((str(sources[n]) for n in new_runs), shown)
            verb = "sets" if was is None else "changes"
            result.problems.append(f"{where}: {verb} the reference of {shown}"
                                   f"{'' if was is None else ' from ' + printable(was)} to "
                                   f"{printable(now) if now else 'none'}; a table's reference is the publisher's")
        if old is None:
            continue
        ranks_before = {e.run.name: _rank_text(e) for e in old.entries}
        current = {e.run.name for e in b.entries}
        for e in b.entries:
            if e.run.name in ranks_before and ranks_before[e.run.name] != _rank_text(e):
                result.moved.append((shown, e.run.name, ranks_before[e.run.name], _rank_text(e)))
        for e in b.history:
            if e.run.name in ranks_before and e.run.name not in current:
                result.moved.append((shown, e.run.name, ranks_before[e.run.name], f"history (after {e.superseded_by})"))
                newer = sources.get(e.superseded_by)
                if newer is not None and _folder(newer.rel) != _folder(e.run.source.rel):
                    result.problems.append(f"{newer}: moves the run {printable(e.run.name)} of another lab's folder "
                                           f"({_folder(e.run.source.rel) or 'the content root'}) out of {shown}")


def _board_key(b: Board) -> tuple:
    return (b.problem.slug, b.workload, b.host, b.protocol)


def _board_name(b: Board) -> str:
    return f"{b.problem.title} on {b.host} ({b.protocol}, workload {b.workload.removeprefix('sha256:')[:8]})"


def _rank_text(e) -> str:
    return "—" if e.rank is None else f"={e.rank}" if e.tied else str(e.rank)


def _folder(rel: str) -> str:
    """A content file's top folder (its lab's), "" at the content's root."""
    return rel.split("/", 1)[0] if "/" in rel else ""


def _documents(data: bytes, shown: str) -> dict[str, str]:
    """A content file's bundles by their run's name, each as canonical JSON text (1800 and 1800.0 differ),
    read as the loader reads it (a .jsonl line ends at \\n only)."""
    try:
        if shown.endswith(".jsonl"):
            values = [json.loads(line) for line in data.split(b"\n") if line.strip()]
        elif shown.endswith(".json"):
            value = json.loads(data)
            values = value if isinstance(value, list) else [value]
        else:
            return {}
    except ValueError:  # (the content was read once already: a difference here is a reason to look)
        raise KindexError(f"{shown}: cannot be read as the loader read it, so its published runs cannot be "
                          f"compared; {NEEDS}") from None
    found = {}
    for value in values:
        try:
            name = value["run"]["metadata"]["name"]
        except (KeyError, TypeError):
            continue
        found[name] = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return found


def _field_changes(before: str, after: str) -> list[str]:
    """`run.spec.sourceNative.note: "a" → "b"`, one line per field added, removed or changed."""
    old, new = dict(_fields(json.loads(before))), dict(_fields(json.loads(after)))
    lines = []
    for path in sorted(old.keys() | new.keys()):
        if _exact(old.get(path, _ABSENT)) != _exact(new.get(path, _ABSENT)):
            lines.append(f"{path}: {_value(old.get(path, _ABSENT))} → {_value(new.get(path, _ABSENT))}")
    return lines


_ABSENT = object()


def _fields(value: object, path: str = "") -> Iterator[tuple[str, object]]:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _fields(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from _fields(item, f"{path}[{index}]")
    else:
        yield path, value


def _exact(value: object) -> str | None:
    return None if value is _ABSENT else json.dumps(value, sort_keys=True)


def _value(value: object) -> str:
    if value is _ABSENT:
        return "(none)"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 1] + "…"


def _plain(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _status(before: Entry | None, after: Entry | None) -> str:
    return "added" if before is None else "deleted" if after is None else "modified"


def _changes(before: Entry | None, after: Entry | None) -> bool:
    return (before.mode, before.oid) != (after.mode, after.oid) if before and after else before is not after


def _inside(path: str, folder: PurePosixPath) -> bool:
    parts = folder.parts if str(folder) != "." else ()
    return PurePosixPath(path).parts[:len(parts)] == parts and len(PurePosixPath(path).parts) > len(parts)


def _is_page(path: str, content: PurePosixPath) -> bool:
    """A Markdown page of the site (load.py's `pages/*.md`): the publisher's voice, not a lab's."""
    rel = PurePosixPath(path).relative_to(content).as_posix() if str(content) != "." else path
    return rel.startswith("pages/") and rel.count("/") == 1 and rel.endswith(".md")


def _publishers(path: str, content: PurePosixPath) -> str | None:
    """What a path at any depth inside the content's costs/ or reviews/ is (PUBLISHERS); None elsewhere."""
    rel = PurePosixPath(path).relative_to(content).parts if str(content) != "." else PurePosixPath(path).parts
    return PUBLISHERS.get(rel[0]) if len(rel) > 1 else None


def below_floor(lb: Leaderboard, names: set[str] | None = None) -> list[str]:
    """`file: run NAME: …` for each run (of `names`, or every run) faster than its GPU allows and not
    reviewed: `check` fails on them."""
    found = []
    for boards in lb.boards.values():
        for b in boards:
            found += [(str(e.run.source), e.run.name, _floor_line(e, b.statistic)) for e in b.runs
                      if e.below_floor and e.verdict is None and (names is None or e.run.name in names)]
    return [line for *_, line in sorted(found)]


def _floor_line(e: BoardEntry, statistic: str) -> str:
    """The run, its latency, its floor, its GPU, and the bytes and bandwidth the floor is made of."""
    limits = e.limits
    from_dram = limits.floor_ns * Fraction(limits.bandwidth) / NS_PER_S  # (physics.limits' floor, undone: exact)
    kept = limits.moved_bytes - int(from_dram)
    less = f" (less the {kept:,} its L2 may hold)" if kept else ""
    value = primary_value(e, statistic)
    latency, floor = duration(value), duration(limits.floor_ns)
    if latency == floor:  # (just under: to 3 figures they read the same, so say them to the nanosecond)
        latency, floor = f"{value:,} ns", f"{float(limits.floor_ns):,.3f} ns"
    return (f"{e.run.source}: run {printable(e.run.name)}: {latency} is below its floor of {floor} on {limits.gpu}: "
            f"the workload's {limits.moved_bytes:,} bytes of inputs and outputs{less} take at least that long at "
            f"{limits.bandwidth / 1e12:.3g} TB/s")


def _safe(path: str) -> bool:
    """A path that stays inside the tree it is written to (git's own check for a checkout)."""
    parts = path.split("/")
    return "\0" not in path and all(p not in ("", ".", "..") and p.casefold() != ".git" for p in parts)


def _shown_path(path: str) -> str:
    """A path from git as a message shows it: bytes that are not UTF-8 as \\xNN, as the loader shows them."""
    return printable(path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))


def _from_here(path: str, here: PurePosixPath) -> str:
    return path if str(here) == "." else os.path.relpath(path, here)


@contextmanager
def _working_in(folder: Path) -> Iterator[None]:
    """Load and check from inside a tree written out of git, so that messages name the repository's paths."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _tree(top: Path, ref: str) -> dict[str, Entry]:
    """Every path of a commit's tree, read by git itself: no attribute or ignore file hides one."""
    listing = _run_git(top, "ls-tree", "-r", "-l", "-z", "--full-tree", ref)
    tree = {}
    for line in listing.split(b"\0"):
        if not line:
            continue
        meta, _, name = line.partition(b"\t")
        mode, _, oid, size = meta.split(None, 3)
        tree[os.fsdecode(name)] = Entry(mode.decode(), oid.decode(), None if size.strip() == b"-" else int(size))
    return tree


def _blobs(top: Path, oids: list[str]) -> Iterator[bytes]:
    """Each object's bytes in turn, from one `git cat-file --batch`, one object held at a time."""
    if not oids:
        return
    process = subprocess.Popen(["git", "cat-file", "--batch"], cwd=top, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_git_env())
    asking = threading.Thread(target=_ask, args=(process.stdin, oids), daemon=True)
    asking.start()
    try:
        for oid in oids:
            header = process.stdout.readline().split()
            if len(header) != 3 or header[0].decode() != oid:
                raise KindexError(f"git cat-file: cannot read object {oid}")
            size = int(header[2])
            data = process.stdout.read(size)
            process.stdout.read(1)  # (the newline after each object)
            yield data
    finally:
        process.kill()
        process.wait()
        asking.join()


def _ask(stream, oids: list[str]) -> None:
    try:
        for oid in oids:
            stream.write(oid.encode() + b"\n")
        stream.close()
    except OSError:  # (git stopped: the reader says why)
        pass


def _git(cwd: Path, *args: str, what: str | None = None) -> str:
    return _run_git(cwd, *args, what=what).decode("utf-8", "surrogateescape")


def _git_env() -> dict[str, str]:
    """No system configuration or attributes (a runner's are not the repository's), no pager, no prompt."""
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "GIT_ATTR_NOSYSTEM": "1",
            "GIT_PAGER": "cat"}


def _run_git(cwd: Path, *args: str, what: str | None = None) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=GIT_SECONDS, env=_git_env())
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
