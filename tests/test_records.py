"""The caches beside the site store named, versioned records: a record read back in another shape
than the one written is never taken for it."""

from __future__ import annotations

from typing import NamedTuple

from conftest import seed_problem_run
from kindex_site.state import files as cache
from kindex_site.state.records import StoredFile, StoredPlan, StoredRun, plans_format, runs_format
from kindex_site.leaderboard import StoredBoard, StoredEntry, rankings_format


def test_every_record_says_its_version_and_each_cache_header_names_its_records():
    for record in (StoredFile, StoredRun, StoredBoard, StoredEntry, StoredPlan):
        assert isinstance(record.VERSION, int) and record._fields, record
    headers = {runs_format(), rankings_format(), plans_format()}
    assert len(headers) == 3 and all(h.startswith(b"kindex-site ") and h.endswith(b"\n") for h in headers)


def test_another_shape_or_version_of_a_record_is_another_format():
    class Plan(NamedTuple):
        VERSION = 1
        made_from: tuple

    class Renamed(NamedTuple):
        VERSION = 1
        made: tuple

    class Newer(NamedTuple):
        VERSION = 2
        made_from: tuple

    formats = {cache.record_format("plans", (record,)) for record in (Plan, Renamed, Newer)}
    assert len(formats) == 3


def test_a_build_reads_back_what_the_last_one_stored_and_ignores_another_format(project):
    project.write("content/a.json", [seed_problem_run("h1", "PyTorch eager", 2_000_000),
                                     seed_problem_run("h1", "Fast", 1_000_000)])
    project.built()
    site = project.root / "site"
    assert cache.path(site, "runs").read_bytes().startswith(runs_format())
    stored = cache.read_plans(site, plans_format())
    assert stored and all(StoredPlan._make(plan).pages for plan in stored.values())
    assert cache.read_plans(site, plans_format().replace(b"kindex-site", b"kindex-other")) == {}

    # Caches from another version of the records: the next build reads none of them, and its site is
    # a clean build's.
    for path in (cache.path(site, "runs"), cache.path(site, "plans"), cache.path(site, "rankings")):
        data = path.read_bytes()
        path.write_bytes(data.replace(b"kindex-site ", b"kindex-site-0 ", 1))
    project.write("content/b.json", [seed_problem_run("h2", "Fast", 1_500_000)])
    project.built()
    rebuilt = project.snapshot()
    code, _, err = project.build("--clean")
    assert code == 0, err
    assert project.snapshot() == rebuilt
