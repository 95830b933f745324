"""`kindex-site new DIR`: a leaderboard repository of one's own, ready to build, serve, check and publish.

It writes kindex.toml, an example bundle and an about page, a .gitignore, a README, a CODEOWNERS file
and two GitHub workflows that use this package's GitHub Action pinned to this version's tag. The about
page's rules sit between `RULES_BEGIN` and `RULES_END`, where `with_current_rules` puts the installed
version's. The other files are in skeleton/, with @NAME@ placeholders. Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from . import __version__
from .aboutrules import RULES_BEGIN, RULES_END, rules_block, rules_markdown, rules_path, with_current_rules
from .config import CONFIG_FILE, Config, ConfigError
from .errors import KindexError, display

PACKAGE = Path(__file__).resolve().parent
SKELETON = PACKAGE / "skeleton"
API_VERSION = "kernelindex.dev/v1alpha1"

# owner/repo[/path]@ref, as `uses:` takes it; nothing YAML or a shell would read otherwise
_ACTION = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}(?:/[A-Za-z0-9._-]{1,100})*"
                     r"@[A-Za-z0-9](?:[A-Za-z0-9._/-]{0,199})")

# The example: one run of the reference on one problem and host, shaped like the seed bundle.
EXAMPLE_PROBLEM = "Example softmax"  # its slug, example-softmax, names it for new-run
EXAMPLE_HOST = "example-h100-pcie"
EXAMPLE_LAB = "Example Lab"
EXAMPLE_FOLDER = "content/example"
EXAMPLE_SOURCE = "softmax.py"
PREVIEW = "http://127.0.0.1:8000"  # where `kindex-site serve` serves by default, before the base URL's path
# (its files in skeleton/ → where they go in the new project)
SKELETON_FILES = {
    "README.md": "README.md",
    "gitignore": ".gitignore",
    "pages.yml": ".github/workflows/pages.yml",
    "check.yml": ".github/workflows/check.yml",
    "about.md": "content/pages/about.md",
    "CODEOWNERS": ".github/CODEOWNERS",
    EXAMPLE_SOURCE: f"{EXAMPLE_FOLDER}/{EXAMPLE_SOURCE}",
}


@dataclass(frozen=True)
class Settings:
    """What a new project is made from; `check` says what is wrong with one, by option."""

    title: str
    base_url: str
    reference: str
    action: str  # OWNER/REPO@REF, as the workflows' `uses:` names it

    def problems(self) -> list[str]:
        found = [f"--{name.replace('_', '-')}: {message}" for name, message in _config_problems(
            {"title": self.title, "base_url": self.base_url, "reference": self.reference})]
        if "·" in self.reference:
            found.append(f"--reference: {self.reference!r}: a label cannot hold '·', which separates the "
                         "parts of a run's title")
        if not _ACTION.fullmatch(self.action):
            found.append(f"--action: {self.action!r}: give the GitHub Action as OWNER/REPO@REF, "
                         "e.g. kernelindex/kindex-site@v0.1.0")
        return found


@dataclass(frozen=True)
class Made:
    folder: Path
    files: list[str]  # relative paths, in the order written
    settings: Settings

    def report(self) -> list[str]:
        where = display(self.folder)
        return [
            f"Wrote a leaderboard of your own in {where}/:",
            *(f"  {rel}" for rel in self.files),
            f"Its workflows use the GitHub Action {self.settings.action}. The example's {self.settings.reference} "
            "timing is made up: replace it with a real one before ranking a run against it (README.md, Add runs).",
            "Next:",
            *([f"  cd {where}"] if where not in ("", ".") else []),
            f"  kindex-site serve              # preview on {preview_url(self.settings.base_url)}, rebuilt on every "
            "change",
            "  kindex-site check --strict     # what the check of every pull request runs",
            f"  kindex-site new-run --problem example-softmax --host {EXAMPLE_HOST} --implementation LABEL --lab NAME ...",
            "Then push it to GitHub and set Settings → Pages → Source: GitHub Actions (README.md says more).",
        ]


def preview_url(base_url: str) -> str:
    """The address `kindex-site serve` prints for a project of this base URL: the site is served under its path."""
    return PREVIEW + Config(base_url=base_url).base_path


# --- The GitHub Action this version publishes ----------------------------------------------------


def published_repository() -> str | None:
    """OWNER/REPO of this package's GitHub repository (its `Repository` project URL); None when unknown."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        urls = metadata("kindex-site").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        parts = urlsplit(url.strip())
        path = parts.path.strip("/").removesuffix(".git")
        if label.strip().lower() == "repository" and parts.netloc == "github.com" and path.count("/") == 1:
            return path
    return None


def default_action() -> str | None:
    """The Action of this very version: OWNER/REPO@v<version>."""
    repository = published_repository()
    return f"{repository}@v{__version__}" if repository else None


# --- What the new project holds ----------------------------------------------------------------------


def _config_problems(values: dict) -> list[tuple[str, str]]:
    try:
        Config(**values)
    except ConfigError as e:
        return e.problems
    return []


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    def escape(m: re.Match) -> str:
        c = m.group()
        return {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(c, f"\\u{ord(c):04X}")

    return '"' + re.sub(r'["\\\x00-\x1f\x7f]', escape, text) + '"'


def _settings_file(s: Settings) -> str:
    return (
        "# Settings for `kindex-site build`; command-line flags override them.\n"
        f"title = {_toml_string(s.title)}\n"
        "# Where the site is served from; the publishing workflow gives the GitHub Pages URL instead.\n"
        f"base_url = {_toml_string(s.base_url)}\n"
        "# The implementation speedups are against: the middle part of its runs' titles.\n"
        f"reference = {_toml_string(s.reference)}\n"
        'content_dir = "content"\n'
        'output_dir = "site"\n'
        "# The publisher's labs: only their runs of the reference may be a table's reference (or a run named\n"
        "# in reference_runs); another lab's run of it is a run of its own.\n"
        f"publisher_labs = [{_toml_string(EXAMPLE_LAB)}]\n"
        "reference_runs = []\n"
        "\n"
        "# The labs whose runs each top folder of content/ holds. A folder not listed holds the lab whose name\n"
        "# slugs to the folder's name (content/my-lab/: \"My Lab\"), where new-run writes that lab's runs.\n"
        "[labs]\n"
        f"{EXAMPLE_FOLDER.removeprefix('content/')} = [{_toml_string(EXAMPLE_LAB)}]\n"
    )


def _digest(value) -> str:
    """sha256: of canonical JSON, as the importers and `kindex-site digest --json` make digests."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _name_part(text: str) -> str:
    part = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60].strip("-")
    return part or "reference"


def example_bundle(reference: str, source: bytes) -> dict:
    """One run of the reference on the example problem and host, digests made as the importers make them."""
    protocol = {
        "apiVersion": API_VERSION, "kind": "BenchmarkProtocol",
        "metadata": {"name": "example-timing-v1", "title": "Example timing protocol"},
        "spec": {
            "harness": {"name": "Your timing harness"},
            "measurement": {"timer": "cuda_events", "primaryStatistic": "mean"},
            "comparability": {
                "family": "example_timing",
                "notes": "An example: say here how runs are timed (warm-up, repetitions, timer, what the "
                         "interval is) and what makes two runs comparable. Comparable only within one "
                         "problem and one timing host.",
            },
        },
    }
    environment = {
        "apiVersion": API_VERSION, "kind": "ExecutionEnvironment",
        "metadata": {"name": EXAMPLE_HOST, "title": "Example host · H100 PCIe"},
        "spec": {"hardware": {"vendor": "nvidia", "product": "NVIDIA H100", "formFactor": "PCIe",
                              "architecture": "sm_90"},
                 "software": {}},
    }
    source_digest = "sha256:" + hashlib.sha256(source).hexdigest()
    mean, std, samples = 92_400, 1_800, 100
    half = 1.96 * std / samples**0.5  # the mean's 95% interval, rounded outwards to whole nanoseconds
    run = {
        "apiVersion": API_VERSION, "kind": "BenchmarkRun",
        "metadata": {
            "name": f"example-softmax-{_name_part(reference)}-example-lab",
            "title": f"{EXAMPLE_PROBLEM} · {reference} · {EXAMPLE_LAB}",
        },
        "spec": {
            "status": "passed",
            "timing": {
                "samples": samples,
                "latencyNs": {"mean": mean, "minimum": 89_900, "maximum": 99_700,
                              "confidence95": [math.floor(mean - half), math.ceil(mean + half)]},
                "primaryStatistic": "mean",
            },
            "observedAt": "2026-01-15T12:00:00Z",
            "measurements": [{"metric": "latency", "statistic": "std", "unit": "ns", "value": std}],
            "sourceNative": {"source": "example",
                             "note": f"Not a measurement: an example's made-up timing, written by kindex-site new. "
                                     f"It is the table's reference until a real {reference} run of the "
                                     "publisher's replaces it (README.md, Add runs)."},
            "protocolDigest": _digest(protocol),
            "workloadDigest": source_digest,
            "environmentDigest": _digest(environment),
            "implementationDigest": source_digest,
            "implementationSource": {"path": EXAMPLE_SOURCE, "language": "python"},
            "workloadSource": {"path": EXAMPLE_SOURCE, "language": "python"},
        },
    }
    return {"run": run, "protocol": protocol, "environment": environment}


def maintainers(base_url: str) -> str:
    """CODEOWNERS' default owner: the GitHub account a Pages URL names (https://OWNER.github.io/…),
    else a placeholder the README says to replace."""
    host = urlsplit(base_url).hostname or ""
    owner = host.removesuffix(".github.io") if host.endswith(".github.io") else ""
    return f"@{owner}" if re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})", owner) else "@OWNER"


def project_files(s: Settings) -> dict[str, str]:
    """Every file of the new project, by its path there."""
    owner_repo, _, ref = s.action.partition("@")
    repository = "https://github.com/" + "/".join(owner_repo.split("/")[:2])
    values = {
        "TITLE": s.title, "REFERENCE": s.reference, "VERSION": __version__, "ACTION": s.action,
        "REPOSITORY": repository, "REF": ref, "INSTALL": f"git+{repository}@{ref}",
        "PROBLEM": "example-softmax", "HOST": EXAMPLE_HOST, "RULES": rules_block(),
        "MAINTAINERS": maintainers(s.base_url), "PREVIEW": preview_url(s.base_url),
        "LAB": EXAMPLE_LAB,
    }
    files = {CONFIG_FILE: _settings_file(s)}
    for name, rel in SKELETON_FILES.items():
        text = (SKELETON / name).read_text(encoding="utf-8")
        if not name.endswith(".py"):
            text = re.sub(r"@([A-Z]+)@", lambda m: values[m.group(1)], text)
        files[rel] = text
    source = files[f"{EXAMPLE_FOLDER}/{EXAMPLE_SOURCE}"].encode("utf-8")
    bundle = example_bundle(s.reference, source)
    files[f"{EXAMPLE_FOLDER}/{bundle['run']['metadata']['name']}.json"] = json.dumps(bundle, indent=2, ensure_ascii=False) + "\n"
    return files


# --- Writing it ------------------------------------------------------------------------------------


def refusal(folder: Path) -> str | None:
    """Why `folder` cannot become a new project, or None. A folder holding only .git (an empty clone)
    is empty enough."""
    if not folder.exists():
        return None
    if not folder.is_dir():
        return f"{display(folder)}: refusing to write a new leaderboard there: it is not a folder"
    try:
        entries = [p.name for p in folder.iterdir() if p.name != ".git"]
    except OSError as e:
        return f"{display(folder)}: refusing to write a new leaderboard there: cannot list it ({e.strerror})"
    if entries:
        return f"{display(folder)}: refusing to write a new leaderboard there: it is not empty"
    return None


def new_project(folder: Path, settings: Settings) -> Made:
    """Write the project into `folder` (made if missing; empty if there): all of it, or nothing."""
    problem = refusal(folder)
    if problem:
        raise KindexError(problem)
    found = settings.problems()
    if found:
        raise KindexError(found)
    files = project_files(settings)
    created = not folder.exists()
    written: list[Path] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for rel, text in files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "x", encoding="utf-8", newline="\n") as f:
                written.append(path)
                f.write(text)
    except OSError as e:
        _remove(folder, written, created)
        raise KindexError(f"{display(Path(e.filename or folder))}: cannot write it ({e.strerror}); nothing was kept") from None
    except BaseException:
        _remove(folder, written, created)
        raise
    return Made(folder, list(files), settings)


def _remove(folder: Path, written: list[Path], created: bool) -> None:
    """Undo a write that stopped half-way: the files written, then the folders left empty."""
    for path in written:
        path.unlink(missing_ok=True)
    folders = sorted({p for path in written for p in path.parents if p != folder and folder in p.parents},
                     key=lambda p: len(p.parts), reverse=True)
    for path in [*folders, *([folder] if created else [])]:
        try:
            path.rmdir()
        except OSError:
            pass


# --- Asking --------------------------------------------------------------------------------------


def default_title(folder: Path) -> str:
    """my-leaderboard → My leaderboard."""
    words = re.sub(r"[-_\s]+", " ", folder.resolve().name).strip()
    return (words[:1].upper() + words[1:]) if words else "Kernel leaderboard"


def ask(question: str, default: str, check: Callable[[str], str | None],
        read: Callable[[str], str] = input) -> str:
    """One answer on the terminal: the default when left empty; asked again while `check` objects."""
    while True:
        try:
            answer = read(f"{question} [{default}]: ").strip()
        except EOFError:
            print(file=sys.stderr)
            answer = ""
        value = answer or default
        problem = check(value)
        if problem is None:
            return value
        print(f"  {problem}", file=sys.stderr)
        if not answer:
            return value  # (a default that fails: reported by new_project, not asked forever)


def settings_for(folder: Path, title: str | None, base_url: str | None, reference: str | None,
                 action: str | None, interactive: bool) -> Settings:
    """The flags given; what they leave out asked for on a terminal, else the defaults."""
    if action is None:
        action = default_action()
        if action is None:
            raise KindexError("--action: this installation of kindex-site does not say where its GitHub Action "
                              "is published (no Repository URL in its metadata): give --action OWNER/REPO@REF")
    problem = refusal(folder)  # (before asking anything)
    if problem:
        raise KindexError(problem)
    defaults = {"title": default_title(folder), "base_url": "/", "reference": Config().reference}
    given = {"title": title, "base_url": base_url, "reference": reference}
    questions = {
        "title": "Title of the leaderboard",
        "base_url": "URL it is served from (GitHub Pages: https://OWNER.github.io/REPO/; the workflow gives it)",
        "reference": "Reference implementation, which speedups are against",
    }
    values = {}
    for name, value in given.items():
        if value is None and interactive:
            def check(text: str, name=name) -> str | None:
                found = Settings(**{**defaults, name: text, "action": action}).problems()
                return "; ".join(p.split(": ", 1)[1] for p in found if p.startswith(f"--{name.replace('_', '-')}:")) or None

            value = ask(questions[name], defaults[name], check)
        values[name] = defaults[name] if value is None else value
    return Settings(**values, action=action)
