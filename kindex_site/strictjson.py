"""JSON as a leaderboard must read it: no duplicate keys, no NaN or Infinity, no out-of-range numbers,
no nesting deeper than MAX_DEPTH, no string that UTF-8 cannot encode (Python's json accepts them all).
The decoder refuses the first three as it parses; `within` and `refusal` check the bounds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable


class JSONRejected(ValueError):
    """Valid JSON syntax that a kindex document may still not hold; the message says what."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise JSONRejected(f"duplicate key {dup!r}")
    return obj


def _no_constants(name: str):
    raise JSONRejected(f"{name} is not a JSON number")


def finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONRejected(f"number {text} is out of range")
    return value


def decoder(parse_float: Callable[[str], object] = finite_float) -> json.JSONDecoder:
    """A decoder raising JSONRejected on what kindex documents forbid (and JSONDecodeError on bad syntax)."""
    return json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constants, parse_float=parse_float)


# --- Bounds: what every value in a document must stay within ------------------------------------
# Every number, string and nesting level of a document is checked against these (load.py).

MAX_DEPTH = 32  # levels of objects and arrays in one bundle (its own fields use 6)
MAX_INTEGER = 2**53 - 1  # the largest integer a JavaScript reader of the API holds exactly
MAX_FLOAT = 1e300  # finite, with room for arithmetic on it


class Refused:
    """Put by `locating_decoder` where the fast decoder raised: the message, found again with its place."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message


def _marked_pairs(pairs: list[tuple[str, object]]) -> object:
    try:
        return _unique_keys(pairs)
    except JSONRejected as e:
        return Refused(str(e))


def _marked_float(text: str) -> object:
    value = float(text)
    return value if math.isfinite(value) else Refused(f"number {text} is out of range")


def _marked_int(text: str) -> object:
    try:
        return int(text)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        return Refused(_integer_message(text))


def locating_decoder() -> json.JSONDecoder:
    """A decoder that puts a `Refused` where `decoder()` would raise, so that `refusal` can say where."""
    return json.JSONDecoder(object_pairs_hook=_marked_pairs, parse_float=_marked_float, parse_int=_marked_int,
                            parse_constant=lambda name: Refused(f"{name} is not a JSON number"))


def _integer_message(text: str) -> str:
    digits = text.lstrip("-")
    shown = text if len(digits) <= 24 else f"{text[:len(text) - len(digits) + 6]}…{digits[-3:]} ({len(digits)} digits)"
    return f"integer {shown} is beyond ±{MAX_INTEGER} (2⁵³−1, the largest a JavaScript reader holds exactly)"


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _surrogate_message(text: str, what: str) -> str:
    bad = next(c for c in text if "\ud800" <= c <= "\udfff")
    return (f"{what} holds a lone surrogate (\\u{ord(bad):04x}), which UTF-8 cannot encode: a \\ud800–\\udfff "
            "escape must be half of a pair")


def within(value: dict | list, depth: int = 1) -> bool:
    """A container (itself `depth` levels deep) keeps the bounds, strings aside: the quick test."""
    if depth > MAX_DEPTH:
        return False
    for item in (value.values() if type(value) is dict else value):
        t = type(item)  # (most frequent first: a document is mostly strings and small integers)
        if t is str:
            continue
        if t is int:
            if -MAX_INTEGER <= item <= MAX_INTEGER:
                continue
            return False
        if t is dict or t is list:
            if within(item, depth + 1):
                continue
            return False
        if t is float:
            if -MAX_FLOAT <= item <= MAX_FLOAT:
                continue
            return False
        if item is None or t is bool:
            continue
        return False  # a Refused mark
    return True


def refusal(value: object, depth: int = 1, strings: bool = False) -> tuple[tuple, str] | None:
    """None if `value` (parsed JSON, `depth` levels deep) keeps the bounds; otherwise the first place
    that does not, as (location like pydantic's, message): `within`'s bounds, the `Refused` marks and,
    with `strings`, that every string and key is encodable as UTF-8."""
    t = type(value)
    if t is not dict and t is not list:
        found = _scalar_refusal(value, strings)
        return None if found is None else ((), found)
    if not strings and within(value, depth):
        return None
    if depth > MAX_DEPTH:
        return (), f"nested more than {MAX_DEPTH} levels deep"
    for key, item in (value.items() if t is dict else enumerate(value)):
        if strings and type(key) is str and not _utf8(key):
            return (key,), _surrogate_message(key, "the key")
        found = refusal(item, depth + 1, strings)
        if found is not None:
            return (key, *found[0]), found[1]
    return None


def refusals(value: object, depth: int = 1, strings: bool = False):
    """Every place in `value` that `refusal` would find, in document order, as (location, message)."""
    t = type(value)
    if t is not dict and t is not list:
        found = _scalar_refusal(value, strings)
        if found is not None:
            yield (), found
        return
    if not strings and within(value, depth):
        return
    if depth > MAX_DEPTH:
        yield (), f"nested more than {MAX_DEPTH} levels deep"
        return
    for key, item in (value.items() if t is dict else enumerate(value)):
        if strings and type(key) is str and not _utf8(key):
            yield (key,), _surrogate_message(key, "the key")
        for at, message in refusals(item, depth + 1, strings):
            yield (key, *at), message


def marks(value: object):
    """Every `Refused` mark `locating_decoder` put in `value`, in document order, as (location, message)."""
    t = type(value)
    if t is Refused:
        yield (), value.message
    elif t is dict or t is list:
        for key, item in (value.items() if t is dict else enumerate(value)):
            for at, message in marks(item):
                yield (key, *at), message


def _scalar_refusal(value: object, strings: bool) -> str | None:
    t = type(value)
    if t is Refused:
        return value.message
    if t is str:
        return None if not strings or _utf8(value) else _surrogate_message(value, "the string")
    if t is int:
        return None if -MAX_INTEGER <= value <= MAX_INTEGER else _integer_message(str(value))
    if t is float:
        return None if -MAX_FLOAT <= value <= MAX_FLOAT else f"number {value!r} is beyond ±1e300"
    return None
