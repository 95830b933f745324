"""A content file's JSON values, each with where it came from (`Source`), read within bounds as UTF-8
and strict JSON; problem lines that say where (`error_lines`)."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pydantic import ValidationError

from . import strictjson
from .errors import printable
from .models import nearest_name

MAX_JSON_BYTES = 64 * 2**20  # one .json file is parsed whole; larger corpora belong in .jsonl
MAX_LINE_BYTES = 2**20  # one bundle is a few KB; a longer .jsonl line is not a bundle
MAX_PROBLEMS_PER_FILE = 50  # a broken million-line file should not print a million lines
BUNDLE_KEYS = {"run", "protocol", "environment"}  # a bundle's own keys: any other is refused


@dataclass(frozen=True, slots=True)
class Source:
    """Where a document came from: a file, and the array index or .jsonl line inside it."""

    file: str  # as the user would open it (errors.display): relative to the working folder where possible
    index: int | None = None
    line: int | None = None
    # The hash of the bytes it came from (its .jsonl line, array element or .json file), as raw bytes:
    digest: bytes = field(default=b"", compare=False)  # incremental builds compare it
    rel: str = field(default="", compare=False)  # its path under the content folder (one string per file)

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.file}:{self.line}"
        if self.index is not None:
            return f"{self.file}[{self.index}]"
        return self.file

    @property
    def on_site(self) -> str:
        """Where it came from, under the content folder (`kernelbench/L4/x.json[3]`): the same on any machine."""
        return str(Source(self.rel, self.index, self.line))


INVALID = object()  # what is yielded for a value that is not JSON, or refused (None is JSON's null)


class RefusedBundle(NamedTuple):
    """An array's element the strict decoder refused: no bundle, but the source files it names are checked."""

    value: object


def file_values(path: str | Path, shown: str, problems: list[str], digests: dict[str, str], trusted: frozenset[str],
                rel: str = "", size: int | None = None):
    """Yield (Source, parsed JSON value, or INVALID, or a RefusedBundle) for each value in a file;
    errors go to problems, the sha256 of its bytes to digests[shown]. `trusted`: digests of files read
    cleanly before. `size`: its size as listed."""
    try:
        if os.fspath(path).endswith(".jsonl"):
            with open(path, "rb") as f:
                digest = hashlib.sha256()
                yield from _jsonl_values(f, shown, problems, digest, rel)
                digests[shown] = digest.hexdigest()
            return
        size = os.stat(path).st_size if size is None else size
        if size > MAX_JSON_BYTES:
            problems.append(f"{shown}: {size / 2**20:.0f} MiB is more than a .json file may hold "
                            f"({MAX_JSON_BYTES // 2**20} MiB); write large corpora as .jsonl, one bundle per line")
            return
        data = file_bytes(path, size)
    except OSError as e:
        problems.append(f"{shown}: cannot read: {e.strerror}")
        return
    file_digest = digests[shown] = hashlib.sha256(data).hexdigest()
    text = _decode(data, shown, problems, check_bom=True)
    if text is None:
        return
    if not text.strip():
        problems.append(f"{shown}: file is empty")
        return
    decoder = PLAIN_DECODER if file_digest in trusted else _DECODER
    strings = _SURROGATE_ESCAPE.search(data) is not None  # (look at strings only then)
    if is_array(text):
        # Each element keeps its own digest: changing one run of a file of hundreds changes only its pages.
        items = _parse(text, Source(shown), problems, decoder, array=True)
        if items is INVALID:
            return
        marked = type(items) is _MarkedItems
        for index, (item, span) in enumerate(items):
            source = Source(shown, index=index, digest=hashlib.sha1(span.encode()).digest(), rel=rel)
            refused = refusal_lines(strictjson.marks(item), source) if marked else ()
            if refused:  # (an element the strict decoder refused: each mark a problem)
                problems += refused
                yield source, RefusedBundle(item)
                continue
            yield source, _encodable(item, source, problems) if strings else item
        return
    value = _parse(text, Source(shown), problems, decoder)
    if value is not INVALID:
        source = Source(shown, digest=bytes.fromhex(file_digest), rel=rel)
        yield source, _encodable(value, source, problems) if strings else value


def file_bytes(path: str | Path, size: int) -> bytes:
    """A file's bytes, `size` of them as listed (or more, if it has grown), read unbuffered by os.read."""
    fd = os.open(path, os.O_RDONLY)
    try:
        parts = []
        while part := os.read(fd, size + 1 if not parts else 2**20):
            parts.append(part)
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _jsonl_values(f, shown: str, problems: list[str], file_digest, rel: str = ""):
    blank = True
    for number, raw in jsonl_lines(f, file_digest):
        if raw is None:
            problems.append(f"{shown}:{number}: line longer than {MAX_LINE_BYTES // 2**10} KiB; not a bundle")
            blank = False
            continue
        source = Source(shown, line=number, digest=hashlib.sha1(raw).digest(), rel=rel)
        line = _decode(raw, str(source), problems, check_bom=number == 1)
        if line is not None and not line.strip():
            continue  # (a line of other whitespace, such as U+00A0)
        blank = False
        value = INVALID if line is None else _parse(line, source, problems)
        if value is not INVALID and _SURROGATE_ESCAPE.search(raw) is not None:
            value = _encodable(value, source, problems)
        # Failures are yielded too (as INVALID), so the caller can stop a file that fails throughout.
        yield source, value
    if blank:
        problems.append(f"{shown}: file is empty")


_NOT_BLANK = re.compile(rb"[^ \t\r\n\x0b\x0c]")  # (a blank line holds ASCII whitespace alone)
_BLOCK_BYTES = 2**20


def jsonl_lines(f, file_digest=None, starts: array | None = None):
    """(number from 1, its bytes with its line break) for each line of a .jsonl file but blank ones;
    None for a line longer than MAX_LINE_BYTES. `file_digest` is updated with every byte; `starts`, if
    given, gets where each line ends."""
    buf, at, number, read, ended = b"", 0, 0, 0, False  # (buf holds the file's bytes read - len(buf) to read)
    while True:
        found = _NOT_BLANK.search(buf, at)
        skipped = buf.rfind(b"\n", at, found.start() if found else len(buf)) + 1
        if skipped > at:
            if starts is None:
                number += buf.count(b"\n", at, skipped)
            else:
                base = read - len(buf)
                while at < skipped:
                    at = buf.index(b"\n", at) + 1
                    number += 1
                    starts.append(base + at)
            at = skipped
        end = buf.find(b"\n", at)
        if end < 0 and not ended and len(buf) - at <= MAX_LINE_BYTES:
            more = f.read(_BLOCK_BYTES)
            read += len(more)
            if file_digest is not None:
                file_digest.update(more)
            buf, at, ended = buf[at:] + more, 0, not more
            continue
        if at == len(buf):
            return
        number += 1
        if (end if end >= 0 else len(buf)) - at > MAX_LINE_BYTES:  # too long: skipped to its end
            if end >= 0:
                at = end + 1
            else:
                buf, at = b"", 0
                while not ended:
                    more = f.read(_BLOCK_BYTES)
                    read += len(more)
                    if file_digest is not None:
                        file_digest.update(more)
                    ended, end = not more, more.find(b"\n")
                    if end >= 0:
                        buf, at = more, end + 1
                        break
            if starts is not None:
                starts.append(read - len(buf) + at)
            yield number, None
            continue
        stop = len(buf) if end < 0 else end + 1
        raw, at = buf[at:stop], stop
        if starts is not None:
            starts.append(read - len(buf) + at)
        yield number, raw


def _decode(data: bytes, where: str, problems: list[str], check_bom: bool) -> str | None:
    if check_bom and data.startswith(b"\xef\xbb\xbf"):
        problems.append(f"{where}: starts with a byte-order mark; save it as UTF-8 without BOM")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        problems.append(f"{where}: not UTF-8 (byte {e.start}: {data[e.start:e.start + 1]!r})")
        return None


_DECODER = strictjson.decoder()
_LOCATING_DECODER = strictjson.locating_decoder()
PLAIN_DECODER = json.JSONDecoder()  # for files an earlier build read cleanly: C speed, no hooks
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def is_array(text: str) -> bool:
    """Whether a file's JSON text is an array (of bundles, by its first character that is not whitespace)."""
    return text.startswith("[", _WHITESPACE.match(text).end())


def _array_items(text: str, decoder: json.JSONDecoder) -> list[tuple[object, str]]:
    """A top-level JSON array as (element, the element's own text) pairs."""
    return [(item, text[start:end]) for item, start, end in array_elements(text, decoder)]


def array_elements(text: str, decoder: json.JSONDecoder):
    """Yield (element, where its text starts, where it ends) for each element of a top-level JSON array."""
    ws = _WHITESPACE.match
    idx = ws(text, ws(text, 0).end() + 1).end()  # past the opening bracket
    if text.startswith("]", idx):
        end = idx + 1
    else:
        while True:
            item, end = decoder.raw_decode(text, idx)
            yield item, idx, end
            idx = ws(text, end).end()
            if text.startswith(",", idx):
                idx = ws(text, idx + 1).end()
            elif text.startswith("]", idx):
                end = idx + 1
                break
            else:
                raise json.JSONDecodeError("Expecting ',' delimiter", text, idx)
    rest = ws(text, end).end()
    if rest != len(text):
        raise json.JSONDecodeError("Extra data", text, rest)


def _parse(text: str, source: Source, problems: list[str], decoder: json.JSONDecoder = _DECODER,
           array: bool = False):
    try:
        return _array_items(text, decoder) if array else decoder.decode(text)
    except json.JSONDecodeError as e:
        where = f"line {e.lineno} column {e.colno}" if source.line is None else f"column {e.colno}"
        problems.append(f"{source}: invalid JSON at {where}: {e.msg}")
    except ValueError as e:  # strictjson.JSONRejected, or an integer of more digits than Python converts
        if array:
            marked = _marked_items(text)
            if marked is not None:
                return marked  # (each element is looked at: those without a mark are bundles as any other)
        problems += _located(text, source, e)
    except RecursionError:
        problems.append(f"{source}: JSON nested too deeply")
    return INVALID


class _MarkedItems(list):
    """An array's (element, text) pairs parsed by the locating decoder: what is refused marked where it is."""


def _marked_items(text: str) -> _MarkedItems | None:
    try:
        return _MarkedItems(_array_items(text, _LOCATING_DECODER))
    except (ValueError, RecursionError):
        return None  # (broken further on too: _located says what was found first)


def _located(text: str, source: Source, error: ValueError) -> list[str]:
    """The lines for what the strict decoder refused in a bundle, with where each is (the text parsed again)."""
    try:
        value = _LOCATING_DECODER.decode(text)
    except (ValueError, RecursionError):
        return [f"{source}: {error}"]  # (broken further on too: what was found first is said)
    return refusal_lines(strictjson.refusals(value), source) or [f"{source}: {error}"]


# Only a \ud800–\udfff escape makes a string UTF-8 cannot encode: strings are looked at when a text has one.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _encodable(value: object, source: Source, problems: list[str]) -> object:
    """value, or INVALID with a problem when a string or key in it cannot be written as UTF-8 (or is beyond bounds)."""
    if strictjson.refusal(value, strings=True) is None:
        return value
    problems += refusal_lines(strictjson.refusals(value, strings=True), source)
    return INVALID


# --- Where a problem is -----------------------------------------------------------------------------


def format_location(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def location(loc: tuple) -> str:
    """`where: ` for a problem line, escaped where a key would not show as written; nothing for the top level."""
    return printable(format_location(loc)) + ": " if loc else ""


def refusal_lines(found, source: object = None, at: tuple = ()) -> list[str]:
    """`source: location: message` for each (location under `at`, message) strictjson found, so many at most."""
    head = "" if source is None else f"{source}: "
    return [f"{head}{location(at + loc)}{message}" for loc, message in itertools.islice(found, MAX_PROBLEMS_PER_FILE)]


def prefixed(slot: str, validate, value):
    """validate(value), with error locations said from the bundle (run.spec… rather than spec…)."""
    try:
        return validate(value)
    except ValidationError as e:
        raise ValidationError.from_exception_data(e.title, [
            {**err, "loc": (slot, *err["loc"])} for err in e.errors(include_url=False)]) from None


def error_lines(source: object, error: ValidationError) -> list[str]:
    """A document's validation errors, a line each: every field that is wrong, said once."""
    lines: list[str] = []
    for err in error.errors(include_url=False):
        loc = err["loc"]
        if len(loc) > 1 and loc[-1] in _UNION_TAGS and err["type"] in _NOT_A_NUMBER:
            loc = loc[:-1]  # (a number, integer or float: one line for the two members of its union)
            err = {**err, "loc": loc, "msg": "Input should be a number"}
        line = f"{source}: {printable(format_location(loc))}: {_message(err)}"
        if line not in lines:
            lines.append(line)
    return lines


_UNION_TAGS = ("int", "float")
_NOT_A_NUMBER = ("int_type", "float_type")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")

# What `kindex-site new-run` leaves where a value is still to be given (submit.TODO_*), and what to put there.
PLACEHOLDER = "TODO:"
_PLACEHOLDER_WANTS = {
    "run.spec.timing.samples": "the number of timed samples the mean is over (an integer)",
    "run.spec.timing.latencyNs.mean": "the mean latency in whole nanoseconds (an integer: 4.94 ms is 4940000)",
    "run.spec.timing.latencyNs.minimum": "the fastest sample's latency in whole nanoseconds (an integer)",
    "run.spec.timing.latencyNs.maximum": "the slowest sample's latency in whole nanoseconds (an integer)",
    "run.spec.timing.latencyNs.confidence95": "the mean's 95% confidence interval, [lo, hi] in whole nanoseconds",
    "run.spec.timing.latencyNs.confidence95[0]": ("the lower end of the mean's 95% confidence interval, in whole "
                                                  "nanoseconds (an integer)"),
    "run.spec.timing.latencyNs.confidence95[1]": ("the upper end of the mean's 95% confidence interval, in whole "
                                                  "nanoseconds (an integer)"),
    "run.spec.implementationDigest": ("your kernel source's digest, the sha256:… that `kindex-site digest "
                                      "YOUR_KERNEL_SOURCE` prints"),
    "run.spec.observedAt": "when the run was timed, such as 2026-03-05T08:38:15Z",
}


def _message(err: dict) -> str:
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    value = err.get("input")
    if type(value) is str and value.startswith(PLACEHOLDER):
        wants = _PLACEHOLDER_WANTS.get(format_location(err["loc"]))
        return "still the new-run placeholder 'TODO: …': " + (f"give {wants}" if wants else f"replace it ({msg})")
    kind = err["type"]
    if kind == "string_pattern_mismatch" and err["loc"][-1] in ("name", "run"):  # (a review's spec.run names a run)
        msg = "must be lowercase letters, digits, '.', '-' or '_', starting and ending with a letter or digit"
    elif kind in _NOT_A_NUMBER and type(value) is str and len(value) <= 40 and _JSON_NUMBER.fullmatch(value):
        msg += f", not the string {value!r}: write it without quotes"
    elif kind == "extra_forbidden" and len(err["loc"]) == 1:  # (a bundle's own keys: any other is refused)
        near = nearest_name(str(err["loc"][0]), BUNDLE_KEYS)
        msg = ("unknown field" + (f" (did you mean {near!r}?)" if near else "")
               + ": a bundle holds run, protocol and environment")
    return msg
