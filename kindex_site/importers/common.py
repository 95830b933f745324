"""What every importer shares: command plumbing, exact numbers, digests and names, strict JSON,
dates, bundles and their checks, and the all-or-nothing, deterministic writer (`write_changed`)."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import secrets
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

from pydantic import ValidationError

from .. import strictjson
from ..errors import KindexError, printable
from ..models import API_VERSION, MAX_SAFE_INT, NAME_PATTERN, Bundle

MAX_NAME = 200  # the longest run name NAME_PATTERN allows
NAME = re.compile(NAME_PATTERN)
NS_PER_MS = Decimal(1_000_000)
MAX_MS = Decimal(MAX_SAFE_INT) / NS_PER_MS  # the longest time whole nanoseconds hold (2⁵³−1 ns, exact)


# --- the command ---------------------------------------------------------------------------------


def add_source_parser(sources, name: str, help: str, description: str, example: str) -> argparse.ArgumentParser:
    """`kindex-site import NAME`'s parser, its example shown as written."""
    return sources.add_parser(name, help=help, description=description, epilog=example,
                              formatter_class=argparse.RawDescriptionHelpFormatter)


@dataclass
class Imported:
    """What an import did, as its command reports it."""
    runs: int = 0
    written: int = 0
    unchanged: int = 0
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # printed before the summary (e.g. versions matched)


def report(result: Imported, summary: str, out: Path) -> int:
    """Print an import's warnings (to stderr), its notes, and its summary with what it wrote; the exit status."""
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for line in result.notes:
        print(line)
    print(f"{summary} → {out.as_posix()}/ ({result.written} written, {result.unchanged} unchanged)")
    return 0


# --- names and digests ---------------------------------------------------------------------------


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def digest(value) -> str:
    """sha256: of canonical JSON: sorted keys, no spaces, UTF-8."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def run_name(head: str, name: str) -> str:
    """`head`-<slug of name>, at most MAX_NAME characters, a longer one cut and ended by a digest of the whole."""
    full = f"{head}-{slug(name)}".strip("-")
    if len(full) <= MAX_NAME:
        return full
    return tagged(full, hashlib.sha256(full.encode()).hexdigest()[:8])


def tagged(name: str, tag: str) -> str:
    """`name`-`tag`, `name` cut to keep it within MAX_NAME characters."""
    return f"{name[:MAX_NAME - 1 - len(tag)].rstrip('-')}-{tag}"


def some(names: list[str], shown: int = 3) -> str:
    """The first few of `names`, and how many more: "a, b, c and 4 more"."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


# --- numbers: milliseconds to whole nanoseconds, exactly ---------------------------------------------


def ms_to_ns(ms: int | Decimal) -> Decimal:
    """A time in ms, read as a Decimal (see DECODER), in ns: 4.94 ms is exactly 4940000 ns."""
    return Decimal(ms) * NS_PER_MS


def whole_ns(value: Decimal) -> int:
    """A time in ns rounded to the nearest whole ns (half to even)."""
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def json_number(value: Decimal) -> int | float:
    """A Decimal as a bundle writes it: an integer if it is one."""
    return int(value) if value == value.to_integral_value() else float(value)


def plain(value):
    """A source's value as JSON had it, to keep in sourceNative: Decimal('4.97') → 4.97, ints stay ints."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return float(value) if isinstance(value, Decimal) else value


def ms_problem(value: int | Decimal) -> str | None:
    """Why a number of milliseconds cannot be written in whole nanoseconds (None if it can)."""
    if -MAX_MS <= value <= MAX_MS:
        return None
    return (f"{shown_number(value)} ms is too large to be written in whole nanoseconds "
            f"(beyond {MAX_SAFE_INT} ns, 2⁵³−1)")


def shown_number(value) -> str:
    """A number as a message shows it: a long one by its ends and its length, never 5000 digits."""
    text = str(value)
    if len(text) <= 24:
        return text
    digits = text.lstrip("-")
    size = f"{len(digits)} digits" if digits.isdigit() else f"{len(text)} characters"
    return f"{text[:len(text) - len(digits) + 6]}…{text[-3:]} ({size})"


def json_kind(value) -> str:
    """What a JSON value is, as a message says it: "an object", "null", …"""
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, (int, Decimal)) else type(value).__name__)


# --- reading a source's JSON ---------------------------------------------------------------------


def _decimal(text: str) -> Decimal:
    try:
        return Decimal(text)
    except ArithmeticError:  # an exponent beyond what Decimal holds (10^18 and more)
        raise strictjson.JSONRejected(f"number {shown_number(text)} is out of range") from None


def _integer(text: str) -> int | Decimal:
    """An integer of more digits than Python converts, read as a Decimal so that the checks name it."""
    try:
        return int(text)
    except ValueError:
        return Decimal(text)


_STRICT = strictjson.decoder()
# Decimal: 4.94 ms must become exactly 4940000 ns.
DECODER = json.JSONDecoder(object_pairs_hook=_STRICT.object_pairs_hook, parse_constant=_STRICT.parse_constant,
                           parse_float=_decimal, parse_int=_integer)


def read_json(path: Path, expected: type, what: str, errors: list[str]):
    """A source file's JSON value (numbers as Decimal) if it is a `expected` (`what`: "an array of
    rows"); else None, and why in `errors`."""
    try:
        data = DECODER.decode(path.read_bytes().decode("utf-8-sig"))
    except FileNotFoundError:
        problem = "not found"
    except OSError as e:
        problem = f"cannot read: {e.strerror}"
    except UnicodeDecodeError as e:
        problem = f"not UTF-8 text (byte {e.start})"
    except strictjson.JSONRejected as e:
        problem = str(e)
    except json.JSONDecodeError as e:
        problem = f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"
    except RecursionError:
        problem = "JSON nested too deeply"
    else:
        if isinstance(data, expected):
            return data
        problem = f"expected {what}, not {json_kind(data)}"
    errors.append(f"{path}: {problem}")
    return None


def kept_problems(record: dict, skip, depth: int) -> list[str]:
    """Why each field of `record` not in `skip` cannot be kept as it is in a mapping `depth` levels
    deep in a bundle (sourceNative is 4)."""
    problems = []
    for key, value in record.items():
        found = None if key in skip else strictjson.refusal({key: plain(value)}, depth, strings=True)
        if found is not None:
            problems.append(f"{'.'.join(printable(str(k)) for k in found[0]) or printable(key)}: {found[1]}")
    return problems


# --- dates ---------------------------------------------------------------------------------------


OUTSIDE_UTC = "is outside the dates a timestamp can have in UTC (0001-01-01 to 9999-12-31)"


def parse_observed_at(text: str) -> datetime:
    """--observed-at: an ISO 8601 date (midnight UTC) or date-time with a time zone."""
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)
        value = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        raise KindexError(f"--observed-at: {text!r} is not an ISO 8601 date or date-time "
                          "(e.g. 2025-01-20 or 2025-01-20T03:25:46Z)") from None
    if value.tzinfo is None:
        raise KindexError(f"--observed-at: {text!r} needs a time zone (e.g. a trailing Z for UTC)")
    if not in_utc_range(value):
        raise KindexError(f"--observed-at: {text!r} {OUTSIDE_UTC}")
    return value


def in_utc_range(when: datetime) -> bool:
    """Whether a date-time with a time zone is one in UTC too (9999-12-31T23:00-05:00 is not)."""
    try:
        when.astimezone(timezone.utc)
    except OverflowError:
        return False
    return True


def utc_timestamp(when: datetime) -> str:
    """`when` as observedAt is written: UTC, to the millisecond, the year in four digits."""
    utc = when.astimezone(timezone.utc)
    return f"{utc.year:04d}-{utc:%m-%dT%H:%M:%S}.{utc.microsecond // 1000:03d}Z"


# --- documents -----------------------------------------------------------------------------------


def protocol_document(name: str, title: str, harness: str, repository: str, measurement: dict, family: str,
                      notes: str) -> dict:
    """A BenchmarkProtocol: the harness that measured the runs, what it measured, and what they compare with."""
    return {"apiVersion": API_VERSION, "kind": "BenchmarkProtocol", "metadata": {"name": name, "title": title},
            "spec": {"harness": {"name": harness, "repository": repository}, "measurement": measurement,
                     "comparability": {"family": family, "notes": notes}}}


def environment_document(name: str, title: str, hardware: dict) -> dict:
    """An ExecutionEnvironment: the hardware the runs were measured on (what is None left out)."""
    return {"apiVersion": API_VERSION, "kind": "ExecutionEnvironment", "metadata": {"name": name, "title": title},
            "spec": {"hardware": {k: v for k, v in hardware.items() if v is not None}, "software": {}}}


def bundle(name: str, title: str, spec: dict, protocol: dict, environment: dict) -> dict:
    """A bundle of one run, with the protocol and environment it was measured under."""
    return {"run": {"apiVersion": API_VERSION, "kind": "BenchmarkRun", "metadata": {"name": name, "title": title},
                    "spec": spec},
            "protocol": protocol, "environment": environment}


def valid(made: dict, where: str, errors: list[str]) -> bool:
    """Whether a bundle the importer made validates; if not, why, in `errors` (an importer's bug)."""
    try:
        Bundle.model_validate(made)
    except ValidationError as e:
        for err in e.errors(include_url=False):
            loc = ".".join(str(p) for p in err["loc"])
            errors.append(f"{where}: made an invalid bundle: {loc}: {err['msg']}")
        return False
    return True


def unique(name: str, where: str, names: dict[str, str], errors: list[str]) -> bool:
    """Whether no other run of this import has the name (`names`: each name → where it was made first)."""
    if name in names:
        errors.append(f"{where}: run name {name!r} is also made from {names[name]}")
        return False
    names[name] = where
    return True


def stop_if_any(errors: list[str]) -> None:
    """Refuse the import if a problem was found: every one is named, and nothing is written."""
    if errors:
        raise KindexError(errors)


# --- writing -------------------------------------------------------------------------------------


def dump(value) -> bytes:
    """A bundle file's bytes: indented JSON, UTF-8, one newline at the end."""
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def write_changed(files: dict[Path, bytes], result: Imported) -> None:
    """Write the files whose bytes differ from what is there (see `write_all`), counting them in `result`."""
    changed = {path: data for path, data in sorted(files.items()) if not _same_bytes(path, data)}
    result.unchanged = len(files) - len(changed)
    write_all(changed)
    result.written = len(changed)


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def write_all(files: dict[Path, bytes]) -> None:
    """Write every file to a temporary dot-name beside it, then rename them all into place: a failure
    while writing leaves every target as it was, and no file is ever half-written."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, data in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
            with open(tmp, "xb") as handle:
                staged.append((tmp, path))
                handle.write(data)
    except BaseException as e:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        if isinstance(e, OSError):
            raise KindexError(f"{path}: cannot write: {e.strerror or e}") from None
        raise
    for tmp, path in staged:
        os.replace(tmp, path)
