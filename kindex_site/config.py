"""kindex.toml: the site's settings. Flags on the command line override them.

Standard library only: a no-op build reads the settings before it knows whether there is any work.
The checks and their messages are pydantic's lax mode's (tests/test_config.py compares the two).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from urllib.parse import urlsplit

from .errors import KindexError
from .gpus import check_entry

CONFIG_FILE = "kindex.toml"

# name → (default, kind (a type, or a tuple of the strings allowed), min length, max length), in error order.
FIELDS: dict[str, tuple] = {
    "title": ("Kernel Index", str, 1, 200),
    "description": ("Timings of GPU kernel implementations, compared only where they are comparable.", str, None, 1000),
    "base_url": ("/", str, None, None),
    "content_dir": ("content", str, None, None),
    "output_dir": ("site", str, None, None),
    "templates_dir": ("templates", str, None, None),
    "static_dir": ("static", str, None, None),
    "reference": ("PyTorch eager", str, 1, 200),  # speedups are against this label
    # Off, a run's details live in its problem's table, JSON and CSV only (docs/scale.md).
    "run_pages": (True, bool, None, None),
    # A CSV per table (problems/<slug>/<host>.csv); off, the problem's JSON holds the same rows.
    "board_csvs": (True, bool, None, None),
    # How a problem's API document holds its runs: one object per entry, or arrays under "columns".
    "api_entries": ("objects", ("objects", "arrays"), None, None),
    # Where no floor judges a run, a speedup at or above this is flagged `implausible` until reviewed clean.
    "implausible_speedup": (10.0, float, None, None),
    # A host steadily this many times off the other hosts' latencies is flagged, its runs held out.
    "implausible_latency": (1000.0, float, None, None),
    # Top folder of the content → the labs it speaks for (docs/security.md, "Labs").
    "labs": ((), dict, None, None),
    # The labs whose runs of the reference may be a table's reference; empty: any lab's earliest run.
    "publisher_labs": ((), list, None, None),
    "reference_runs": ((), list, None, None),  # runs a maintainer marks as a table's reference
    # Caps on what content may make (docs/security.md, "Bounds"), enforced by check and build alike.
    "max_page_bytes": (16 * 2**20, int, None, None),  # one page, sources included
    "max_site_bytes": (900 * 10**6, int, None, None),  # the whole site (GitHub Pages takes at most 1 GB)
    "max_runs_per_table": (10_000, int, None, None),  # runs on one table, its history included
    "max_sources_per_pr": (100, int, None, None),  # source files a pull request may add or change
    # A site's corrections to kindex_site/gpus.toml (docs/gpus.md): GPU name → figures with sources.
    "gpus": ((), dict, None, None),
}

_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})
_NOT_BOOL = "Input should be a valid boolean"
_UNPARSABLE_BOOL = "Input should be a valid boolean, unable to interpret input"
_I64 = range(-(2**63), 2**63)


class ConfigError(ValueError):
    """Invalid settings: `problems` holds (field, message) pairs, fields first, extra keys last."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{field}: {message}" for field, message in problems))


def _check_bool(value):
    if type(value) is bool:
        return value
    if isinstance(value, str):
        text = value.lower() if value.isascii() else value
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ValueError(_UNPARSABLE_BOOL)
    if isinstance(value, int) and not isinstance(value, bool):
        if value not in _I64:
            raise ValueError(_NOT_BOOL)
        if value in (0, 1):
            return bool(value)
        raise ValueError(_UNPARSABLE_BOOL)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")) or not value.is_integer() or not -(2.0**63) < value < 2.0**63:
            raise ValueError(_NOT_BOOL)
        if value in (0.0, 1.0):
            return bool(value)
        raise ValueError(_UNPARSABLE_BOOL)
    raise ValueError(_NOT_BOOL)


def _check_str(value, least: int | None, most: int | None) -> str:
    if not isinstance(value, str):
        raise ValueError("Input should be a valid string")
    value = str(value)
    if least is not None and len(value) < least:
        raise ValueError(f"String should have at least {least} character{'' if least == 1 else 's'}")
    if most is not None and len(value) > most:
        raise ValueError(f"String should have at most {most} character{'' if most == 1 else 's'}")
    return value


def _check_bound(value) -> float:
    if type(value) not in (int, float) or not 1 < value < float("inf"):
        raise ValueError("Input should be a number greater than 1")
    return float(value)


def _check_names(value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("Input should be a list of run names")
    return tuple(value)


def _check_count(value) -> int:
    if type(value) is not int or not 1 <= value < 2**63:
        raise ValueError("Input should be a whole number of at least 1")
    return value


def _check_labs(value) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A table of folder = [lab, …], kept as sorted pairs (Config is immutable and hashable)."""
    if not isinstance(value, dict):
        raise ValueError("Input should be a table of folder = [lab names]")
    pairs = []
    for folder, labs in value.items():
        if not isinstance(labs, list) or not labs or not all(isinstance(v, str) and v.strip() for v in labs):
            raise ValueError(f"{folder}: Input should be a list of lab names")
        if not folder or "/" in folder or "\\" in folder or folder in (".", ".."):
            raise ValueError(f"{folder!r}: Input should be the name of a folder directly in the content folder")
        pairs.append((folder, tuple(labs)))
    return tuple(sorted(pairs))


def _check_gpus(value) -> tuple[tuple[str, tuple], ...]:
    """A table of GPU name = {figure = {value, source}, …}, kept as sorted pairs (Config stays hashable)."""
    if not isinstance(value, dict):
        raise ValueError('Input should be a table of GPU name = {figure = {value = …, source = "…"}, …}')
    return tuple(sorted((name, check_entry(name, entry)) for name, entry in value.items()))


# Settings that were, and what took their place.
RETIRED = {"reviewed_runs": "replaced by review documents: write a RunReview (verdict \"clean\" and its reason) "
                            "for each run in the content folder's reviews/ (docs/content-format.md, \"Reviews\")"}


def _check_choice(value, choices: tuple[str, ...]) -> str:
    if isinstance(value, str) and value in choices:
        return str(value)
    *most, last = [repr(c) for c in choices]
    raise ValueError(f"Input should be {', '.join(most)} or {last}" if most else f"Input should be {last}")


def _check_base_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("", "http", "https") or (parts.scheme and not parts.netloc):
        raise ValueError("must be an http(s) URL such as https://example.org/kindex/ or a path such as /")
    if parts.scheme and not parts.path:  # https://example.org (as actions/configure-pages gives a root site)
        value, parts = value + "/", urlsplit(value + "/")
    if not parts.path.startswith("/"):
        raise ValueError("its path must start with '/'")
    if parts.query or parts.fragment:
        raise ValueError("must not have a query or fragment")
    return value if value.endswith("/") else value + "/"


class Config:
    """Settings of one site, relative folders taken from kindex.toml's; immutable, checked by `Config(**values, root=…)`."""

    __slots__ = (*FIELDS, "root", "model_fields_set")

    title: str
    description: str
    base_url: str
    content_dir: str
    output_dir: str
    templates_dir: str
    static_dir: str
    reference: str
    run_pages: bool
    board_csvs: bool
    api_entries: str
    implausible_speedup: float
    implausible_latency: float
    labs: tuple[tuple[str, tuple[str, ...]], ...]  # (folder, its labs), sorted by folder
    publisher_labs: tuple[str, ...]
    reference_runs: tuple[str, ...]
    max_page_bytes: int
    max_site_bytes: int
    max_runs_per_table: int
    max_sources_per_pr: int
    gpus: tuple[tuple[str, tuple], ...]  # (GPU name, its checked figures as sorted pairs), sorted by name
    root: Path  # where relative folders start
    model_fields_set: frozenset[str]  # the settings given rather than defaulted (root included)

    def __init__(self, **values):
        problems: list[tuple[str, str]] = []
        checked: dict = {}
        for name, (default, kind, least, most) in FIELDS.items():
            if name not in values:
                checked[name] = default
                continue
            value = values[name]
            try:
                if kind is bool:
                    checked[name] = _check_bool(value)
                elif kind is float:
                    checked[name] = _check_bound(value)
                elif kind is list:
                    checked[name] = _check_names(value)
                elif kind is int:
                    checked[name] = _check_count(value)
                elif kind is dict:
                    checked[name] = _check_gpus(value) if name == "gpus" else _check_labs(value)
                elif isinstance(kind, tuple):  # one of these strings
                    checked[name] = _check_choice(value, kind)
                else:
                    value = _check_str(value, least, most)
                    checked[name] = _check_base_url(value) if name == "base_url" else value
            except ValueError as e:
                problems.append((name, str(e)))
        root = values.get("root", Path("."))
        if not isinstance(root, Path):
            problems.append(("root", "Input is not a valid path"))
        problems += [(name, RETIRED.get(name, "Extra inputs are not permitted")) for name in values
                     if name not in FIELDS and name != "root"]
        if problems:
            raise ConfigError(problems)
        for name, value in checked.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "model_fields_set", frozenset(values))

    def __setattr__(self, name, value):
        raise AttributeError(f"Config is immutable: cannot set {name}")

    def __delattr__(self, name):
        raise AttributeError(f"Config is immutable: cannot delete {name}")

    def __eq__(self, other):
        if not isinstance(other, Config):
            return NotImplemented
        return self._values() == other._values() and self.model_fields_set == other.model_fields_set

    def __hash__(self):
        return hash(self._values())

    def __repr__(self) -> str:
        return "Config(" + ", ".join(f"{k}={v!r}" for k, v in zip((*FIELDS, "root"), self._values())) + ")"

    def _values(self) -> tuple:
        return (*(getattr(self, name) for name in FIELDS), self.root)

    def model_dump(self, mode: str = "python") -> dict:
        """The settings (root aside), as pydantic's model_dump gave them: the cache's settings key."""
        return {name: getattr(self, name) for name in FIELDS}

    @property
    def absolute_url(self) -> str | None:
        """base_url when it names a host (https://…/), else None: sitemaps, feeds and canonical links need one."""
        return self.base_url if urlsplit(self.base_url).netloc else None

    @property
    def base_path(self) -> str:
        """The URL path the site is served under, e.g. '/' or '/kindex/'."""
        return urlsplit(self.base_url).path

    def labs_of(self, folder: str) -> tuple[str, ...] | None:
        """The labs a top folder of the content may speak for, when `labs` lists it (else None)."""
        return dict(self.labs).get(folder)

    def folder(self, name: str) -> Path:
        path = Path(getattr(self, name))
        path = path if path.is_absolute() else self.root / path
        if name in ("templates_dir", "static_dir") and not path.is_dir() and name not in self.model_fields_set:
            return bundled(name.removesuffix("_dir"))  # a project without its own gets the defaults
        return path


def bundled(name: str) -> Path:
    """The default templates/ or static/: inside the installed package, or beside it in a checkout."""
    package = Path(__file__).resolve().parent
    inside = package / name
    return inside if inside.is_dir() else package.parent / name


def load_config(path: Path | None, overrides: dict) -> Config:
    """Read kindex.toml (the given file, else ./kindex.toml if present) and apply overrides."""
    values: dict = {}
    root = Path(".")
    if path is not None or Path(CONFIG_FILE).is_file():
        path = path or Path(CONFIG_FILE)
        try:
            values = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise KindexError(f"{path}: config file not found") from None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
            raise KindexError(f"{path}: {e}") from None
        root = path.parent
    if "root" in values:
        raise KindexError(f"{path}: root: Extra inputs are not permitted")
    values.update({k: v for k, v in overrides.items() if v is not None})
    where = path or "settings"
    try:
        config = Config(**values, root=root)
    except ConfigError as e:
        raise KindexError([f"{where}: {field}: {message}" for field, message in e.problems]) from None
    outside = [name for name in ("templates_dir", "static_dir") if not _inside(config.folder(name), root, name)]
    if outside:
        # Templates are code (Jinja runs them): only the project's own, or the bundled ones, ever render.
        raise KindexError([f"{where}: {name}: {getattr(config, name)!r} is outside the project folder "
                           f"{root.resolve()}; templates and static files must be the project's own" for name in outside])
    return config


def _inside(folder: Path, root: Path, name: str) -> bool:
    """The folder is the project's (under the folder holding kindex.toml) or the package's bundled one."""
    resolved = folder.resolve()
    return resolved.is_relative_to(root.resolve()) or resolved == bundled(name.removesuffix("_dir")).resolve()
