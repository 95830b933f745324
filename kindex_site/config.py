"""kindex.toml: the site's settings. Flags on the command line override them."""

from __future__ import annotations

import tomllib
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import KindexError

CONFIG_FILE = "kindex.toml"


class Config(BaseModel):
    """Settings of one site. Relative folders are taken from the folder holding kindex.toml."""

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
    reference: str = Field("PyTorch eager", min_length=1, max_length=200)  # speedups are against this label
    # One page per run. Off, a run's details live in its problem's table, JSON and CSV only: for
    # corpora whose run pages alone would pass GitHub Pages' 1 GB (about 5 KB a run).
    run_pages: bool = True
    root: Path = Field(default=Path("."), exclude=True)  # where relative folders start

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str) -> str:
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

    @property
    def absolute_url(self) -> str | None:
        """base_url when it names a host (https://…/), else None: sitemaps, feeds and canonical links need one."""
        return self.base_url if urlsplit(self.base_url).netloc else None

    @property
    def base_path(self) -> str:
        """The URL path the site is served under, e.g. '/' or '/kindex/'."""
        return urlsplit(self.base_url).path

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
    try:
        return Config(**values, root=root)
    except ValidationError as e:
        where = path or "settings"
        raise KindexError(
            [f"{where}: {'.'.join(map(str, err['loc']))}: {err['msg'].removeprefix('Value error, ')}"
             for err in e.errors(include_url=False)]
        ) from None
