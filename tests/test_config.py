"""config.py checks kindex.toml without pydantic (a no-op build must not import it): its verdicts
and messages must stay those of the pydantic model it replaced, which is kept here as the reference."""

from __future__ import annotations

import datetime
import math
import subprocess
import sys
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kindex_site.config import RETIRED, Config, ConfigError, load_config
from kindex_site.errors import KindexError


class Reference(BaseModel):
    """The pydantic Config as it was."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field("Kernel Index", min_length=1, max_length=200)
    description: str = Field(
        "Timings of GPU kernel implementations, compared only where they are comparable.", max_length=1000
    )
    base_url: str = "/"
    content_dir: str = "content"
    output_dir: str = "site"
    templates_dir: str = "templates"
    static_dir: str = "static"
    reference: str = Field("PyTorch eager", min_length=1, max_length=200)
    run_pages: bool = True
    board_csvs: bool = True
    api_entries: Literal["objects", "arrays"] = "objects"
    root: Path = Field(default=Path("."), exclude=True)

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("", "http", "https") or (parts.scheme and not parts.netloc):
            raise ValueError("must be an http(s) URL such as https://example.org/kindex/ or a path such as /")
        if parts.scheme and not parts.path:
            value, parts = value + "/", urlsplit(value + "/")
        if not parts.path.startswith("/"):
            raise ValueError("its path must start with '/'")
        if parts.query or parts.fragment:
            raise ValueError("must not have a query or fragment")
        return value if value.endswith("/") else value + "/"


def verdict(cls, values: dict):
    try:
        c = cls(**values, root=Path("x"))
    except ValidationError as e:
        return [(".".join(map(str, err["loc"])), err["msg"].removeprefix("Value error, "))
                for err in e.errors(include_url=False)]
    except ConfigError as e:
        return e.problems
    parts = urlsplit(c.base_url)
    shown = (c.base_url if parts.netloc else None, parts.path)  # absolute_url and base_path as they were
    if cls is Config:
        assert (c.absolute_url, c.base_path) == shown
    dump = {k: v for k, v in c.model_dump(mode="json").items() if k not in NEWER}  # (settings the reference never had)
    return dump, set(c.model_fields_set), c.root, shown


NEWER = ("implausible_speedup", "implausible_latency",  # checked by test_statistics_settings
         "labs", "publisher_labs", "reference_runs",  # test_trust_settings
         "max_page_bytes", "max_site_bytes", "max_runs_per_table", "max_sources_per_pr",
         "gpus")  # tests/test_gpus.py


SCALARS = [
    None, True, False, 0, 1, 2, -1, 10**30, 2**63, 2**63 - 1, -(2**63), -(2**63) - 1,
    0.0, -0.0, 1.0, 2.0, -1.0, 0.5, 1e-300, 1e300, 2.0**63, -(2.0**63), 2.0**63 - 1024, -(2.0**63) - 2048, -(2.0**63) + 1024, math.nan, math.inf, -math.inf,
    "", "x", "yes", "YES", "no", "On", "off", "t", "F", "1", "0", "y", "N", "true ", " true", "2", "1.0",
    "ｔrue", "\u212a", "é" * 200, "😀" * 201, "x" * 200, "x" * 201, "x" * 1000, "x" * 1001,
    [], [1], {}, {"a": 1}, datetime.date(2020, 1, 1), datetime.time(1, 2),
    datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc),
    "/", "/a", "/a/", "http://x", "https://x", "https://x/a?b", "https://x/a#f", "http://[::1", "ftp://a",
    "https:///a", "//host/a", "a/b", "HTTPS://x/", "/a?", "/a#", "mailto:x", "https://owner.github.io/repo",
    "objects", "arrays", "Arrays", "arrays ", "columns",
    " /a", "\t/a\n", "http:/x", "https://x:99/a",
]


@pytest.mark.parametrize("field", [*Reference.model_fields])
def test_every_value_gets_the_pydantic_verdict(field):
    for value in SCALARS:
        if field == "root":
            continue
        assert verdict(Config, {field: value}) == verdict(Reference, {field: value}), (field, value)


def test_errors_come_in_field_order_then_extra_keys():
    values = {"zzz": 1, "run_pages": "maybe", "title": "", "aaa": 2, "base_url": "ftp://x", "reference": 3}
    assert verdict(Config, values) == verdict(Reference, values)
    assert verdict(Config, {}) == verdict(Reference, {})


def test_immutable_and_comparable():
    a, b = Config(title="A", root=Path(".")), Config(title="A", root=Path("."))
    assert a == b and hash(a) == hash(b) and a != Config(root=Path("."))
    with pytest.raises(AttributeError):
        a.title = "B"


def test_load_config_messages(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("kindex.toml").write_text('titel = "typo"\nrun_pages = 3\nbase_url = "ftp://x"\n')
    with pytest.raises(KindexError) as e:
        load_config(None, {})
    assert e.value.problems == [
        "kindex.toml: base_url: must be an http(s) URL such as https://example.org/kindex/ or a path such as /",
        "kindex.toml: run_pages: Input should be a valid boolean, unable to interpret input",
        "kindex.toml: titel: Extra inputs are not permitted",
    ]
    with pytest.raises(KindexError, match=r"^settings: base_url: its path must start with '/'$"):
        Path("kindex.toml").unlink() or load_config(None, {"base_url": "x", "content_dir": None})
    config = load_config(None, {"base_url": "https://o.github.io", "content_dir": None})
    assert config.base_url == "https://o.github.io/" and config.base_path == "/"
    assert config.model_fields_set == {"base_url", "root"}


def test_a_no_op_build_imports_neither_pydantic_nor_jinja(project):
    from conftest import SEED

    project.write("content/seed.json", SEED)
    project.built()
    probe = ("import sys\nfrom kindex_site.cli import main\ncode = main(['build'])\n"
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'jinja2', 'markupsafe')"
             " or m in ('kindex_site.models', 'kindex_site.build'))\n"
             "print('HEAVY', heavy)\nsys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=project.root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Up to date" in done.stdout and "HEAVY []" in done.stdout, done.stdout


def test_statistics_settings():
    c = Config(root=Path("x"))
    assert c.implausible_speedup == 10.0
    assert Config(implausible_speedup=4, root=Path("x")).implausible_speedup == 4.0
    for bad in (1, 0.5, True, "10", math.inf, math.nan, None):
        assert verdict(Config, {"implausible_speedup": bad}) == [
            ("implausible_speedup", "Input should be a number greater than 1")], bad
    assert Config(root=Path("x")).implausible_latency == 1000.0
    assert Config(implausible_latency=50, root=Path("x")).implausible_latency == 50.0
    for bad in (1, 0.5, True, "1000", math.inf, None):
        assert verdict(Config, {"implausible_latency": bad}) == [
            ("implausible_latency", "Input should be a number greater than 1")], bad


def test_reviewed_runs_is_retired_for_review_documents(tmp_path, monkeypatch):
    """Runs checked by hand are RunReview documents in the content's reviews/ now (issue 43): the old
    setting is refused, whatever its value, with what took its place, never ignored."""
    assert "reviewed_runs" not in Config.__annotations__
    for value in (["a-run"], [], "a-run", None):
        assert verdict(Config, {"reviewed_runs": value}) == [("reviewed_runs", RETIRED["reviewed_runs"])], value
    assert "RunReview" in RETIRED["reviewed_runs"] and "reviews/" in RETIRED["reviewed_runs"]
    monkeypatch.chdir(tmp_path)
    Path("kindex.toml").write_text('title = "T"\nreviewed_runs = ["a-run"]\nimplausible_speedup = 5\n')
    with pytest.raises(KindexError) as e:
        load_config(None, {})
    assert e.value.problems == [f"kindex.toml: reviewed_runs: {RETIRED['reviewed_runs']}"]
    other = tmp_path / "site.toml"
    other.write_text('reviewed_runs = []\ntitel = "typo"\n')
    with pytest.raises(KindexError) as e:
        load_config(other, {})
    assert e.value.problems == [f"{other}: reviewed_runs: {RETIRED['reviewed_runs']}",
                                f"{other}: titel: Extra inputs are not permitted"]


def test_trust_settings():
    c = Config(root=Path("x"))
    assert (c.labs, c.publisher_labs, c.reference_runs) == ((), (), ())
    assert (c.max_page_bytes, c.max_site_bytes) == (16 * 2**20, 900 * 10**6)  # (GitHub Pages: 1 GB, with room)
    c = Config(labs={"kb": ["Lab B", "Lab A"], "a": ["Lab C"]}, publisher_labs=["Lab A"], max_runs_per_table=5,
               root=Path("x"))
    assert c.labs == (("a", ("Lab C",)), ("kb", ("Lab B", "Lab A"))) and c.labs_of("kb") == ("Lab B", "Lab A")
    assert c.labs_of("zz") is None and c.publisher_labs == ("Lab A",) and c.max_runs_per_table == 5
    for bad in ({"a/b": ["L"]}, {"..": ["L"]}, {"a": []}, {"a": "L"}, {"a": [""]}, ["a"], "a"):
        assert [f for f, _ in verdict(Config, {"labs": bad})] == ["labs"], bad
    for bad in (0, -1, 1.5, True, "10", None, 2**63):
        assert verdict(Config, {"max_page_bytes": bad}) == [
            ("max_page_bytes", "Input should be a whole number of at least 1")], bad
