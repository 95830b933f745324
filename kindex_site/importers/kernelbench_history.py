"""KernelBench's git history (--repo): each version of its problem sources, and where a file's bytes were
first committed. Read with the git command (`git`, which every importer that reads a history runs)."""

from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterator

from ..errors import KindexError

PROBLEM_PATH = re.compile(r"^level\d+/\d+_[^/]+\.py$")  # a problem source under KernelBench/


@dataclass(frozen=True)
class Version:
    """KernelBench/'s problem sources at one commit."""
    commit: str
    when: datetime  # its committer date
    problems: dict[str, str]  # "level1/1_Square_matrix_multiplication_.py" → the source's blob id

    def __str__(self) -> str:
        return f"{self.commit[:7]} ({self.when.date().isoformat()})"


class History:
    """A KernelBench git checkout's history, read with the git command; HEAD's first-parent commits
    are the versions KernelBench published."""

    def __init__(self, repo: Path):
        self.repo = repo
        if not repo.is_dir():
            raise KindexError(f"--repo: {repo}: not found (give a KernelBench git checkout)")
        self._git("rev-parse", "--verify", "--quiet", "HEAD^{commit}", what="not a git repository with commits")
        self.dates: dict[str, datetime] = {}  # every commit on any ref → its committer date
        self._rank: dict[str, int] = {}  # … → its place, parents before children: breaks ties between dates
        for line in self._git("log", "--all", "--date-order", "--reverse", "--format=%H %cI").splitlines():
            commit, when = line.split(" ")
            self._rank[commit] = len(self._rank)
            self.dates[commit] = datetime.fromisoformat(when)
        self.chain = self._git("log", "--first-parent", "--reverse", "--format=%H", "HEAD").split()  # oldest first
        self._place = {commit: n for n, commit in enumerate(self.chain)}
        commits = list(self.dates)
        self._trees = dict(zip(commits, self._object_ids([f"{c}:KernelBench" for c in commits])))
        self._listings: dict[str | None, dict[str, str]] = {None: {}}  # KernelBench/ tree → its problems
        if not self._problems(self._trees[self.chain[-1]]):
            raise KindexError(f"--repo: {repo}: its HEAD commit has no KernelBench/levelN/*.py problem sources "
                              "(give a KernelBench git checkout)")
        self.renames = self._renames()

    # What the import asks

    def blob_ids(self, paths: list[Path]) -> dict[Path, str]:
        """Each file's blob id: what git would store for its exact bytes."""
        asked = [p for p in paths if "\n" not in str(p.resolve())]
        text = "".join(f"{p.resolve()}\n" for p in asked)
        return dict(zip(asked, self._git("hash-object", "--no-filters", "--stdin-paths", input=text).split()))

    def first_commits(self, blobs: set[str]) -> dict[str, tuple[str, list[str]]]:
        """Each blob's first commit anywhere in the repository: {blob: (the earliest commit, by date,
        whose changes add it, those paths sorted)}, from one `git log`."""
        out = self._git("log", "--all", "--raw", "--no-abbrev", "--no-renames", "--diff-merges=separate", "--root",
                        "-z", "--format=@%H")
        added: dict[str, dict[str, set[str]]] = {}  # blob → commit → paths
        commit = ""
        tokens = iter(out.split("\0"))
        for token in tokens:
            token = token.lstrip("\n")
            if token.startswith("@"):
                commit = token[1:]
            elif token.startswith(":"):  # ":<mode> <mode> <old blob> <new blob> <status>", then its path
                path, blob = next(tokens, ""), token.split(" ")[3]
                if blob in blobs:
                    added.setdefault(blob, {}).setdefault(commit, set()).add(path)
        first = {blob: min(commits, key=self._order) for blob, commits in added.items()}
        return {blob: (commit, sorted(added[blob][commit])) for blob, commit in first.items()}

    def _order(self, commit: str) -> tuple[datetime, int]:
        """Oldest first: by committer date, parents before children on a tie."""
        return self.dates[commit], self._rank[commit]

    def commit_named(self, name: str) -> str | None:
        """The commit a (possibly abbreviated) id names, if one commit on a ref of the checkout has it."""
        found = [c for c in self.dates if c.startswith(name.lower())]
        return found[0] if len(found) == 1 else None

    def nearest_version_holding(self, problem: str, around: str) -> Version | None:
        """The version of HEAD's first-parent line nearest `around` (the earlier on a tie) holding `problem`."""
        at = self._place.get(around)
        if at is None:  # a commit on a side branch: the first-parent line up to its date
            at = max((n for n, c in enumerate(self.chain) if self.dates[c] <= self.dates[around]), default=0)
        for step in range(len(self.chain)):
            for n in (at - step, at + step) if step else (at,):
                if 0 <= n < len(self.chain):
                    if problem in self._problems(self._trees[self.chain[n]]):
                        return self._version(self.chain[n])
        return None

    def commit_holding(self, problem: str, when: datetime) -> Version | None:
        """Any commit, on any ref, whose KernelBench/ holds `problem`: the one dated nearest `when`."""
        holding = [c for c in self.dates if problem in self._problems(self._trees[c])]
        if not holding:
            return None
        return self._version(min(holding, key=lambda c: (abs(self.dates[c] - when), self._rank[c])))

    def in_force_at(self, when: datetime) -> str | None:
        """The latest first-parent commit of HEAD dated at or before `when`."""
        return next((c for c in reversed(self.chain) if self.dates[c] <= when), None)

    def version_at(self, when: datetime) -> Version | None:
        """The version in force at `when` (see `in_force_at`), or None if `when` is before the first commit."""
        commit = self.in_force_at(when)
        return None if commit is None else self._version(commit)

    def paths_of(self, blobs: set[str]) -> dict[str, dict[str, str]]:
        """Where each blob is a problem source anywhere in the history: {blob: {path under KernelBench/:
        the first commit holding it there}}, oldest first. Blobs never found are left out."""
        found: dict[str, dict[str, str]] = {}
        for commit in sorted(self.dates, key=self._order):
            for path, blob in self._problems(self._trees[commit]).items():
                if blob in blobs:
                    found.setdefault(blob, {}).setdefault(path, commit)
        return found

    def versions_back_from(self, start: str) -> Iterator[Version]:
        """The version at `start`, then each earlier one on HEAD's first-parent line, newest first."""
        if start in self._place:
            earlier = self.chain[:self._place[start]]
        else:  # a commit on a side branch: the first-parent line up to its date
            earlier = [c for c in self.chain if self.dates[c] < self.dates[start]]
        seen: set[str | None] = set()
        for commit in [start, *reversed(earlier)]:
            tree = self._trees[commit]
            if tree not in seen:  # commits with the same sources are one version: the latest stands for it
                seen.add(tree)
                yield self._version(commit)

    def newest_name(self, problem: str, since: datetime) -> str:
        """What KernelBench calls `problem` (a name in the version of `since`) after the renames since then."""
        for when, old, new in self.renames:
            if when > since and problem == old:
                problem = new
        return problem

    def sha256s(self, blobs: set[str]) -> dict[str, str]:
        """Each blob's hex SHA-256."""
        return {blob: hashlib.sha256(text).hexdigest() for blob, text in read_blobs(self.repo, sorted(blobs)).items()}

    # How it is read

    def _version(self, commit: str) -> Version:
        return Version(commit, self.dates[commit], self._problems(self._trees[commit]))

    def _renames(self) -> list[tuple[datetime, str, str]]:
        """(when, old name, new name) of each problem git finds renamed between consecutive first-parent
        versions, oldest first (a problem replaced under its number shares too little to count)."""
        out = self._git("log", "--first-parent", "--diff-merges=first-parent", "--reverse", "-M",
                        "--diff-filter=R", "--name-status", "-z", "--format=@%H", "HEAD", "--", "KernelBench/")
        renames = []
        commit = None
        tokens = iter(out.split("\0"))
        for token in tokens:
            token = token.strip("\n")
            if token.startswith("@"):
                commit = token[1:]
            elif token.startswith("R"):
                old, new = (next(tokens).removeprefix("KernelBench/") for _ in range(2))
                if PROBLEM_PATH.match(old) and PROBLEM_PATH.match(new):
                    renames.append((self.dates[commit], old, new))
        return renames

    def _problems(self, tree: str | None) -> dict[str, str]:
        if tree not in self._listings:
            self._listings[tree] = tree_blobs(self.repo, tree, PROBLEM_PATH)
        return self._listings[tree]

    def _object_ids(self, names: list[str]) -> list[str | None]:
        """Each `<commit>:<path>`'s object id, or None where there is none, by one `git cat-file --batch-check`."""
        if not names:
            return []
        out = self._git("cat-file", "--batch-check", input="".join(f"{n}\n" for n in names))
        ids = []
        for line in out.splitlines():
            parts = line.split(" ")  # "<id> <type> <size>", or "<name> missing"
            ids.append(parts[0] if len(parts) == 3 and parts[2].isdigit() else None)
        return ids

    def _git(self, *args: str, input: str | None = None, what: str | None = None) -> str:
        out = git(self.repo, list(args), input.encode("utf-8", "surrogateescape") if input is not None else None, what)
        return out.decode("utf-8", "surrogateescape")


def git(repo: Path, args: list[str], input: bytes | None = None, what: str | None = None) -> bytes:
    """What `git -C repo args` prints; a KindexError naming --repo if git is missing or fails (`what` says how)."""
    command = ["git", "-C", str(repo), "-c", "log.showSignature=false", "-c", "core.quotePath=false", *args]
    try:
        done = subprocess.run(command, input=input, capture_output=True)
    except FileNotFoundError:
        raise KindexError("--repo: the git command was not found; install git") from None
    except OSError as e:
        raise KindexError(f"--repo: cannot run git: {e.strerror or e}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        said = next((line for line in said if line.startswith(("fatal:", "error:"))), said[0] if said else "")
        raise KindexError(f"--repo: {repo}: {what or 'git ' + args[0] + ' failed'}"
                          + (f" (git: {said})" if said else ""))
    return done.stdout


def tree_blobs(repo: Path, tree: str, pattern: re.Pattern, *paths: str) -> dict[str, str]:
    """The blobs of `tree` (`git ls-tree -r`, of `paths` if given) whose path matches `pattern`: {path: blob id}."""
    listing = {}
    for entry in git(repo, ["ls-tree", "-r", "-z", tree, *paths]).decode("utf-8", "surrogateescape").split("\0"):
        info, _, path = entry.partition("\t")
        if pattern.match(path) and info.split(" ")[1:2] == ["blob"]:
            listing[path] = info.split(" ")[2]
    return listing


def read_blobs(repo: Path, blobs: list[str]) -> dict[str, bytes]:
    """Each blob's bytes, all read by one `git cat-file --batch`."""
    out = git(repo, ["cat-file", "--batch"], "".join(f"{b}\n" for b in blobs).encode())
    found: dict[str, bytes] = {}
    at = 0
    for blob in blobs:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        if len(header) != 3 or header[1] != b"blob":
            raise KindexError(f"--repo: {repo}: git cannot read the problem source {blob} "
                              "(a partial or shallow clone? clone the whole history)")
        size = int(header[2])
        found[blob] = out[end + 1:end + 1 + size]
        at = end + 1 + size + 1
    return found
