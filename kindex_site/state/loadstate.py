"""A resident builder's last clean load (`LoadState`), patched for the next with the files changed since."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from ..documents import DocumentFile, is_document, read_documents
from ..jsonread import Source
from ..listing import Listed, racy, roots
from ..load import Content, finish_load, is_bundle, is_page, keeps_documents, read_page
from ..models import BenchmarkProtocol, ExecutionEnvironment
from ..reading import Read, Reader
from ..runs import Run
from ..sources import SourceChecks, SourceText, attach_files, referred


class LoadState:
    """A resident caller's (build --watch, serve) last clean load: the next reads and checks only the
    files whose stat changed since (or that were read in the tick they were written: listing.racy) and
    takes every other file's runs, digest, warnings and place in the checks across files as they were.

    It gives what a whole pass gives (runs in path order, each definition as the first file defining it
    has it); a load it cannot tell as surely is a whole pass: a changed file with a problem, a protocol
    or environment defined anew, no longer, or otherwise, an entry but a plain file in the snapshot,
    another content folder, or another choice of keeping documents."""

    def __init__(self) -> None:
        self.clean = False  # holds a clean load to patch
        self.where: tuple = ()  # the content folder as listed and as shown; whether documents were asked for
        self.stats: Mapping[str, tuple[int, ...]] = {}  # the snapshot that load was made from
        self.keep_documents = True
        self.documents_bytes = 0
        self.bundles: dict[str, Read] = {}  # path under content → what the file gave, in path order
        self.pages: list[str] = []  # the Markdown pages' paths, sorted
        self.others: dict[str, Listed] = {}  # the other files, in path order
        self.run_names: dict[str, Source] = {}
        self.first_seen: dict[tuple[str, str], tuple[object, Source]] = {}  # (kind, name) → its first file's
        self.first: dict[tuple[str, str], str] = {}  # (kind, name) → the first file defining it
        self.counts: dict[tuple[str, str], int] = {}  # (kind, name) → how many files define it
        self.protocols: dict[str, BenchmarkProtocol] = {}
        self.environments: dict[str, ExecutionEnvironment] = {}
        self.digests: dict[str, str] = {}
        self.warnings: list[str] = []
        self.racy: set[str] = set()  # files read in the tick they were written: compared again next time
        self.sources: dict[str, SourceText] = {}  # the source files runs refer to, in path order
        self.referred: dict[str, int] = {}  # source file → how many of the runs' references name it
        self.documents: dict[str, DocumentFile | None] = {}  # costs/ and reviews/ files; None: to be read again

    def keep(self, content_dir: Path, stats: Mapping | None, wanted: bool, keep_documents: bool, documents_bytes: int,
             read: dict[str, Read], pages: list[Listed], others: dict[str, Listed], checks, content: Content,
             memo: dict, sources: SourceChecks, documents: dict[str, DocumentFile]) -> None:
        """Keep a whole pass's load (clean: it raised otherwise); `checks`, its checks across files."""
        self.clean = False
        if not stats or not all(key[0] >= 0 for key in stats.values()):
            return  # (the listing then has more to say than a snapshot: every load is a whole pass)
        self.where = (*roots(content_dir), wanted)
        self.stats, self.keep_documents, self.documents_bytes = stats, keep_documents, documents_bytes
        self.bundles = {rel: read[rel] for rel in sorted(read)}
        self.pages = [f.rel for f in pages]
        self.others = others
        self.run_names = checks.run_names
        self.first_seen = {key: seen for key, seen in checks.first_seen.items() if key[0] != "same"}
        self.first, self.counts = {}, {}
        for rel, result in self.bundles.items():
            for key in result.index.definitions:
                self.counts[key] = self.counts.get(key, 0) + 1
                self.first.setdefault(key, rel)
        self.protocols, self.environments = dict(content.protocols), dict(content.environments)
        self.digests = dict(content.digests)
        self.warnings = [w for result in self.bundles.values() for w in result.warnings]
        self.documents = dict(documents)
        self.racy = self._racy(self.bundles, memo) | sources.racy() | self._racy_documents()
        self.sources, self.referred = dict(content.sources), referred(content.runs)
        self.clean = True

    def _racy(self, rels, memo: dict) -> set[str]:
        shown_root = self.where[1]
        return {rel for rel in rels if (m := memo.get(shown_root + rel)) is not None and racy(m.stat, m.read_at)}

    def _racy_documents(self) -> set[str]:
        return {rel for rel, found in self.documents.items()
                if found is not None and found.stat is not None and racy(found.stat, found.read_at)}

    def patched(self, content_dir: Path, stats: Mapping[str, tuple[int, ...]], reader: Reader,
                progress: Callable[[int, int], None] | None, sources: SourceChecks) -> Content | None:
        """The load of `stats`, made from the last one and the files changed since; None when it
        takes a whole pass (see the class). Raises KindexError for a page or source file's problem."""
        at, shown_root = roots(content_dir)
        if not self.clean or self.where != (at, shown_root, reader.keep_documents):
            return None
        self.clean = False  # (until this load is done: what follows changes what is kept in place)
        changes = self._changes(stats, at, shown_root)
        if changes is None:
            return None
        gone, fresh, sources_changed = changes
        reader.keep_documents = keeps_documents(self.where[2], self.documents_bytes)
        if reader.keep_documents != self.keep_documents:
            return None
        read = reader.read_all(fresh, progress)
        refind = self._exchanged(gone, fresh, read)
        if refind is None:
            return None
        dropped = [source.rel for rel in gone for run in self.bundles[rel].runs for source in run.files.values()]
        self._take(gone, read, shown_root)
        if refind:
            self._find_first(refind)
        content = Content(runs=[run for result in self.bundles.values() for run in result.runs],
                          protocols=dict(self.protocols), environments=dict(self.environments),
                          warnings=list(self.warnings), files=len(self.bundles), read=reader.fresh,
                          digests=dict(self.digests))
        problems: list[str] = []
        self._pages_and_documents(at, shown_root, stats, content, problems)
        if sources_changed:
            attach_files(content, self.others, problems, sources)
            self.referred = referred(content.runs)
        else:  # the runs of other files refer to the files they did, as they were
            self._attach(content, [run for f in fresh for run in read[f.rel].runs], dropped, problems, sources)
        self.sources = content.sources
        finish_load(content, self.others, problems, 0, sources, attach=False, documents=self.documents)
        self.stats = stats
        self.racy = self._racy(read, reader.memo) | sources.racy() | self._racy_documents()
        self.clean = True
        return content

    def _pages_and_documents(self, at: str, shown_root: str, stats: Mapping[str, tuple[int, ...]], content: Content,
                             problems: list[str]) -> None:
        """The pages, read again, and the costs/ and reviews/ files changed since (the others' documents
        kept), in path order, as a whole pass says their problems."""
        documents = self.documents
        for rel in sorted([*self.pages, *documents]):
            if rel in documents:
                found = documents[rel]
                if found is None:
                    found = documents[rel] = read_documents(Listed(at + rel, rel, shown_root + rel, stats[rel]))
                problems += found.problems
                continue
            page = read_page(Path(at + rel), shown_root + rel, problems)
            if page:
                content.pages.append(page)

    def _changes(self, stats: Mapping[str, tuple[int, ...]], at: str, shown_root: str) -> tuple | None:
        """The bundle files changed or gone, those to read, and whether another file (a run may refer to)
        changed, the other kinds kept up to date; None when the listing has more to say (a symlink)."""
        gone: list[str] = []
        fresh: list[Listed] = []
        sources_changed = pages_changed = False
        for rel in sorted({rel for rel, _ in stats.items() ^ self.stats.items()} | self.racy):
            key = stats.get(rel)
            if key is not None and key[0] < 0:
                return None
            if is_page(rel):
                pages_changed = True
                if key is None and rel in self.pages:
                    self.pages.remove(rel)
                elif key is not None and rel not in self.pages:
                    self.pages.append(rel)
            elif is_document(rel):  # (read again in _pages_and_documents)
                if key is None:
                    self.documents.pop(rel, None)
                else:
                    self.documents[rel] = None
            elif is_bundle(rel):
                if rel in self.bundles:
                    gone.append(rel)
                    self.documents_bytes -= self.stats[rel][0]
                if key is not None:
                    fresh.append(Listed(at + rel, rel, shown_root + rel, key))
                    self.documents_bytes += key[0]
            else:
                sources_changed = True
                if key is None:
                    self.others.pop(rel, None)
                else:
                    self.others[rel] = Listed(at + rel, rel, shown_root + rel, key)
        if pages_changed:
            self.pages.sort()
        if sources_changed:  # (sorted once: a pull may bring thousands of kernels)
            self.others = dict(sorted(self.others.items()))
        return gone, fresh, sources_changed

    def _exchanged(self, gone: list[str], fresh: list[Listed], read: dict[str, Read]) -> set | None:
        """Out go the changed files' runs, in their new ones (agreeing with every other file's, with no new
        definition): the definitions whose first file may be another now; None if a whole pass must decide."""
        bundles, counts, first, run_names = self.bundles, self.counts, self.first, self.run_names
        refind: set[tuple[str, str]] = set()
        for rel in gone:
            index = bundles[rel].index
            for name in index.names:
                del run_names[name]
            for key in index.definitions:
                counts[key] -= 1
                if first[key] == rel:
                    refind.add(key)
        for f in fresh:
            result = read[f.rel]
            index = result.index
            if result.problems or not index.clean or index.names.keys() & run_names.keys():
                return None
            for key, (doc, _) in index.definitions.items():
                seen = self.first_seen.get(key)
                if seen is None or (seen[0] is not doc and seen[0] != doc):
                    return None
                counts[key] += 1
                if f.rel <= first[key]:
                    refind.add(key)
            run_names.update(index.names)
        if any(counts[key] == 0 for rel in gone for key in bundles[rel].index.definitions):
            return None  # (no file defines it now: its pages go)
        return refind

    def _take(self, gone: list[str], read: dict[str, Read], shown_root: str) -> None:
        """The changed files' new runs in place of their old ones, in path order."""
        bundles = self.bundles
        added = False
        for rel in gone:
            if rel not in read:
                del bundles[rel]
                del self.digests[shown_root + rel]
        for rel, result in read.items():
            added = added or rel not in bundles
            bundles[rel] = result
            self.digests[shown_root + rel] = result.digest
        if added:
            self.bundles = bundles = dict(sorted(bundles.items()))
            self.digests = {shown_root + rel: result.digest for rel, result in bundles.items()}
        if any(bundles[rel].warnings for rel in read) or any(rel not in read for rel in gone) or self.warnings:
            self.warnings = [w for result in bundles.values() for w in result.warnings]

    def _attach(self, content: Content, runs: list[Run], dropped: list[str], problems: list[str],
                sources: SourceChecks) -> None:
        """The source files of `runs` (the changed files'), whose earlier versions referred to `dropped`."""
        content.sources = found = dict(self.sources)
        attach_files(content, self.others, problems, sources, runs)
        counts = self.referred
        for rel in dropped:
            counts[rel] -= 1
        for rel, n in referred(runs).items():
            counts[rel] = counts.get(rel, 0) + n
        if found.keys() != self.sources.keys() or any(not counts[rel] for rel in dropped):
            content.sources = {rel: found[rel] for rel in sorted(found) if counts.get(rel)}
            for rel in [rel for rel, n in counts.items() if not n]:
                del counts[rel]
            sources.keep_only(content.sources.keys())

    def _find_first(self, keys: set[tuple[str, str]]) -> None:
        """The first file defining each of `keys` now, and the definitions in the order a whole pass meets them."""
        for key in keys:
            for rel, result in self.bundles.items():
                seen = result.index.definitions.get(key)
                if seen is not None:
                    self.first[key], self.first_seen[key] = rel, seen
                    break

        def met(key):
            rel = self.first[key]
            return rel, list(self.bundles[rel].index.definitions).index(key)

        order = sorted(self.first, key=met)
        self.protocols = {name: self.first_seen[(kind, name)][0] for kind, name in order if kind == "BenchmarkProtocol"}
        self.environments = {name: self.first_seen[(kind, name)][0] for kind, name in order
                             if kind == "ExecutionEnvironment"}
