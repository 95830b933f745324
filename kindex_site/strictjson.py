"""JSON as a leaderboard must read it: no duplicate keys, no NaN or Infinity, no out-of-range numbers.

Python's json module accepts all three silently (the last duplicate wins; NaN parses), which would
let a file say two things at once or carry a number no reader can trust.
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
