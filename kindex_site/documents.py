"""The publisher's documents, `costs/*.json(l)` (WorkloadCost) and `reviews/*.json(l)` (RunReview): read
as bundles are, then checked against one another and the runs once every file is in (`check_documents`)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from pydantic import ValidationError

from . import strictjson
from .bundles import MAX_DOCUMENT_BYTES, biggest_field, json_bytes
from .errors import printable
from .jsonread import (BUNDLE_KEYS, INVALID, MAX_PROBLEMS_PER_FILE, RefusedBundle, Source, error_lines, file_values,
                       refusal_lines)
from .listing import Listed
from .models import MAX_FORMAT_WARNINGS_PER_FILE, RunReview, WorkloadCost, unknown_in_document

if TYPE_CHECKING:
    from .load import Content

DOCUMENT_KINDS = {"costs": WorkloadCost, "reviews": RunReview}  # folder → the kind of document it holds


def document_folder(rel: str) -> str | None:
    """costs or reviews, for a path under one of them (by its path under the content folder)."""
    folder, slash, _ = rel.partition("/")
    return folder if slash and folder in DOCUMENT_KINDS else None


def is_document(rel: str) -> bool:
    """costs/*.json(l) or reviews/*.json(l), by its path under the content folder: the publisher's documents."""
    folder = document_folder(rel)
    return folder is not None and rel.count("/") == 1 and rel.endswith((".json", ".jsonl"))


class DocumentFile(NamedTuple):
    """A costs/ or reviews/ file, read: its valid documents with where each is, its problems
    (`stopped`: reading stopped), warnings, stat and when it was read."""

    documents: list[tuple[Source, WorkloadCost | RunReview]]
    problems: list[str]
    warnings: list[str]
    stopped: bool
    stat: tuple | None
    read_at: int


def read_documents(f: Listed) -> DocumentFile:
    """A costs/ or reviews/ file's documents, read and validated as bundles are."""
    model = DOCUMENT_KINDS[f.rel.partition("/")[0]]
    read_at = time.time_ns()
    found: list[tuple[Source, WorkloadCost | RunReview]] = []
    problems: list[str] = []
    unknown: list[str] = []
    seen = 0
    values = file_values(f.at, f.shown, problems, {}, frozenset(), rel=f.rel, size=f.stat[0] if f.stat else None)
    for source, raw in values:
        seen += 1
        if raw is not INVALID and type(raw) is not RefusedBundle:  # (else said already)
            doc = _document(raw, source, model, problems, unknown, f.stat is None or f.stat[0] > MAX_DOCUMENT_BYTES)
            if doc is not None:
                found.append((source, doc))
        if len(problems) >= MAX_PROBLEMS_PER_FILE:
            values.close()
            problems.append(f"{f.shown}: stopped reading after {len(problems)} problems in this file")
            return DocumentFile(found, problems, _capped(unknown, f.shown), True, f.stat, read_at)
    if not seen and not problems:
        unknown.insert(0, f"{f.shown}: holds an empty array: no document")
    return DocumentFile(found, problems, _capped(unknown, f.shown), False, f.stat, read_at)


def _capped(lines: list[str], shown: str) -> list[str]:
    """A file's warnings about unknown fields, MAX_FORMAT_WARNINGS_PER_FILE at most, then how many more."""
    if len(lines) <= MAX_FORMAT_WARNINGS_PER_FILE:
        return lines
    more = len(lines) - MAX_FORMAT_WARNINGS_PER_FILE
    return [*lines[:MAX_FORMAT_WARNINGS_PER_FILE], f"{shown}: and {more} more unknown fields like these"]


def _document(raw: object, source: Source, model: type[WorkloadCost | RunReview], problems: list[str],
              unknown: list[str], may_be_big: bool) -> WorkloadCost | RunReview | None:
    """One document of a costs/ or reviews/ file, validated, its unknown fields said as a bundle's are;
    None with its problems."""
    kind, folder = model.__name__, document_folder(source.rel)
    if type(raw) is not dict:
        what = "null" if raw is None else type(raw).__name__.replace("str", "string").replace("list", "array")
        problems.append(f"{source}: expected a {kind} document object, not {what}")
        return None
    if "kind" not in raw and raw.keys() & BUNDLE_KEYS:
        problems.append(f"{source}: a bundle, where {folder}/ holds {kind} documents (bundles go anywhere else)")
        return None
    if "kind" in raw and raw["kind"] != kind:
        problems.append(f"{source}: kind: {printable(repr(raw['kind']))[:80]}: {folder}/ holds {kind} documents only")
        return None
    for where, message, near in unknown_in_document(raw, kind):
        (problems if near else unknown).append(f"{source}: {where}: {message}")
    try:
        doc = model.model_validate(raw)
    except ValidationError as e:
        problems += error_lines(source, e)
        return None
    beyond = refusal_lines(strictjson.refusals(raw, 1)) if not strictjson.within(raw) else []
    if may_be_big and not beyond and json_bytes(raw) > MAX_DOCUMENT_BYTES:
        field_name, its = biggest_field(raw, "")
        beyond = [f"{field_name.removeprefix('.') or '(top level)'}: the document is {json_bytes(raw):,} bytes of "
                  f"JSON ({its:,} of them here), more than the {MAX_DOCUMENT_BYTES // 2**10} KiB a page shows of one"]
    problems += [f"{source}: {line}" for line in beyond]
    return None if beyond else doc


def check_documents(content: Content, documents: Mapping[str, DocumentFile], problems: list[str]) -> int:
    """The documents into content.costs and .reviews: one cost a workload (of a run: else warned of), one
    document a kind and name, a review's run among the runs. Returns how many files stopped being read."""
    names: dict[tuple[str, str], Source] = {}
    costs_at: dict[str, Source] = {}
    reviews: list[tuple] = []
    runs = workloads = None  # (made when first needed: a million runs, and no documents, is the usual)
    for rel, found in sorted(documents.items()):
        content.warnings += found.warnings
        for source, doc in found.documents:
            first = names.setdefault((doc.kind, doc.metadata.name), source)
            if first is not source:
                problems.append(f"{source}: metadata.name: {doc.metadata.name!r} is also the name of the {doc.kind} "
                                f"in {first}")
            if doc.kind == "RunReview":
                runs = runs if runs is not None else {run.name for run in content.runs}
                if doc.spec.run not in runs:
                    problems.append(f"{source}: spec.run: no run named {doc.spec.run!r} in the content")
                reviews.append((doc.spec.since, rel, source.index or source.line or 0, doc))
                continue
            digest = doc.spec.workloadDigest
            first = costs_at.setdefault(digest, source)
            workloads = workloads if workloads is not None else {run.facts.workload_digest for run in content.runs}
            if first is not source:
                problems.append(f"{source}: spec.workloadDigest: {digest} has a cost in {first} already")
            elif digest not in workloads:
                content.warnings.append(f"{source}: no run has workload {digest} (its cost is not shown)")
            else:
                content.costs[digest] = doc
    for *_, doc in sorted(reviews, key=lambda review: review[:3]):
        content.reviews.setdefault(doc.spec.run, []).append(doc)
    return sum(found.stopped for found in documents.values())
