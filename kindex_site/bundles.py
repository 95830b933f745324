"""A bundle validated: its run checked, its protocol and environment validated once however many
bundles repeat them (`Definitions`), and every document within the bounds a page shows."""

from __future__ import annotations

import json
import marshal
from pathlib import Path

from pydantic import ValidationError

from . import strictjson
from .jsonread import BUNDLE_KEYS, Source, error_lines, prefixed, refusal_lines
from .listing import Listed
from .models import BenchmarkProtocol, BenchmarkRun, Bundle, ExecutionEnvironment, FormatWarnings
from .runs import Run

# A document's JSON is shown whole on a page: bounded, so that one bundle cannot make a page of any size.
MAX_DOCUMENT_BYTES = 64 * 2**10

_SHARED_KINDS = {"protocol": BenchmarkProtocol, "environment": ExecutionEnvironment}


class Definitions:
    """The protocols and environments validated, each once: bundles repeat them word for word, so a
    model is shared by every run that repeats its JSON (as marshal writes it: 1, 1.0 and true apart)
    and the checks across files are mostly identity tests."""

    MAX_SHARED = 4096  # per kind: content that defines more (hostile, say) has the rest validated each time

    def __init__(self):
        self.shared: dict[str, dict[bytes, object]] = {"protocol": {}, "environment": {}}
        self.raw: dict[int, tuple[str, object, object]] = {}  # id(model) → (slot, its JSON, model), for every model made
        self.bounded: dict[int, tuple] = {}  # id(model) → (model, its _out_of_bounds lines)
        self.unknown: dict[int, tuple] = {}  # id(model) → (model, its unknown fields): models.FormatWarnings'
        self.pairs: dict[tuple[int, int], tuple] = {}  # (ids of a protocol and an environment) → their tuple
        self.sized: set[int] = set()  # id(model) of those whose size was checked (_too_big)

    @staticmethod
    def key(value: object) -> bytes | None:
        try:
            return marshal.dumps(value, 2)  # (version 2: no back-references, so equal values give equal bytes)
        except ValueError:  # nested deeper than marshal goes
            return None

    def keys(self, raw: dict) -> tuple[bytes | None, bytes | None]:
        if raw.keys() != BUNDLE_KEYS:
            return None, None
        return self.key(raw["protocol"]), self.key(raw["environment"])

    def pair(self, keys: tuple) -> tuple | None:
        """The shared (protocol, environment) for a bundle's keys, if both are known."""
        protocol = self.shared["protocol"].get(keys[0]) if keys[0] is not None else None
        environment = self.shared["environment"].get(keys[1]) if keys[1] is not None else None
        return None if protocol is None or environment is None else (protocol, environment)

    def adopt(self, slot: str, key: bytes | None, value: object, model):
        """The shared model for value: the one validated before, else this one (now shared)."""
        if key is not None:
            shared = self.shared[slot]
            known = shared.get(key)
            if known is not None:
                return known
            if len(shared) < self.MAX_SHARED:
                shared[key] = model
        self.raw[id(model)] = (slot, value, model)
        return model

    @property
    def crowded(self) -> bool:
        """Whether it holds many more models than it shares (a resident builder's edits): then a new one is started."""
        return len(self.raw) > 4 * self.MAX_SHARED

    def pair_of(self, definitions: tuple):
        """One (protocol, environment) tuple shared by every run that names that pair."""
        return self.pairs.setdefault((id(definitions[0]), id(definitions[1])), definitions)

    def model(self, slot: str, key: bytes | None, value: object):
        """The shared model for a valid definition's JSON, validated if it is new."""
        known = self.shared[slot].get(key) if key is not None else None
        return known if known is not None else self.adopt(slot, key, value, _SHARED_KINDS[slot].model_validate(value))

    def models(self, raw: dict) -> tuple[BenchmarkProtocol, ExecutionEnvironment]:
        """A valid bundle's (protocol, environment) models as validate would give them, its run not validated again."""
        keys = self.keys(raw)
        return self.model("protocol", keys[0], raw["protocol"]), self.model("environment", keys[1], raw["environment"])


def validate(raw: object, source: Source, problems: list[str], known: Definitions
             ) -> tuple[BenchmarkRun, BenchmarkProtocol, ExecutionEnvironment] | None:
    """A bundle, validated, as (run, protocol, environment); `known`: the definitions validated so far."""
    if not isinstance(raw, dict):
        kind = "null" if raw is None else type(raw).__name__.replace("str", "string").replace("dict", "object")
        problems.append(f"{source}: expected a bundle object {{run, protocol, environment}}, not {kind}")
        return None
    keys = known.keys(raw)
    pair = known.pair(keys)
    try:
        if pair is not None:
            return prefixed("run", BenchmarkRun.model_validate, raw["run"]), *pair
        bundle = Bundle.model_validate(raw)
    except ValidationError as e:
        problems += error_lines(source, e)
        return None
    return (bundle.run, known.adopt("protocol", keys[0], raw["protocol"], bundle.protocol),
            known.adopt("environment", keys[1], raw["environment"], bundle.environment))


def checked_run(raw: dict, bundle: tuple, source: Source, origin: Path | Listed, keep_document: bool,
                warnings: FormatWarnings, known: Definitions, problems: list[str], may_be_big: bool = True) -> Run | None:
    """A valid bundle's run, unless a value or document in it is beyond the bounds (then a problem each)."""
    beyond = _out_of_bounds(raw, warnings.check(raw, source, bundle[1:]), bundle[1:], known.bounded)
    if may_be_big:
        beyond = [*beyond, *_too_big(raw, bundle[1:], known)]
    if beyond:
        problems += [f"{source}: {line}" for line in beyond]
        return None
    run = Run(*bundle, source, keep_document, origin)
    run.definitions = known.pair_of(run.definitions)  # (one tuple for the runs of a protocol and environment)
    return run


def _too_big(raw: dict, definitions: tuple, known: Definitions) -> list[str]:
    """A line for each of the bundle's documents (a definition once per model) over MAX_DOCUMENT_BYTES of JSON."""
    found = []
    for slot, value, model in (("run", raw["run"], None), ("protocol", raw["protocol"], definitions[0]),
                               ("environment", raw["environment"], definitions[1])):
        if model is not None:
            if id(model) in known.sized:
                continue
            known.sized.add(id(model))
        size = json_bytes(value)
        if size > MAX_DOCUMENT_BYTES:
            field, its = biggest_field(value, slot)
            found.append(f"{field}: the {slot} document is {size:,} bytes of JSON ({its:,} of them here), more than "
                         f"the {MAX_DOCUMENT_BYTES // 2**10} KiB a page shows of one document")
    return found


def json_bytes(value) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def biggest_field(value, path: str) -> tuple[str, int]:
    """The path of the deepest field holding most of `value`'s JSON (over half of it), and its size."""
    size = json_bytes(value)
    while True:
        items = value.items() if type(value) is dict else enumerate(value) if type(value) is list else ()
        sizes = [(json_bytes(v), k, v) for k, v in items]
        if not sizes:
            return path, size
        biggest, key, child = max(sizes, key=lambda s: s[0])
        if biggest * 2 < size:
            return path, size
        path = f"{path}[{key}]" if type(key) is int else f"{path}.{key}"
        value, size = child, biggest


def shown_json(doc: BenchmarkRun) -> bytes:
    """A validated document as its run page shows it (Run.shown), as compact JSON that parses back the same."""
    return BenchmarkRun.__pydantic_serializer__.to_json(doc, exclude_unset=True)


def _out_of_bounds(raw: dict, known: bool, definitions: tuple, bounded: dict) -> list[str] | tuple:
    """`location: message` for each value of a valid bundle beyond strictjson's bounds, a definition
    looked at once per model (`bounded`: id → (model, its problems))."""
    run = raw["run"]
    found: list[str] | tuple = ()
    if known:
        native = run["spec"].get("sourceNative")
        if native and not strictjson.within(native, 4):
            found = refusal_lines(strictjson.refusals(native, 4), at=("run", "spec", "sourceNative"))
    elif not strictjson.within(run, 2):
        found = refusal_lines(strictjson.refusals(run, 2), at=("run",))
    for slot, model in zip(("protocol", "environment"), definitions):
        seen = bounded.get(id(model))
        if seen is None:
            value = raw[slot]
            seen = bounded[id(model)] = (model, () if strictjson.within(value, 2)
                                         else refusal_lines(strictjson.refusals(value, 2), at=(slot,)))
        if seen[1]:
            found = [*found, *seen[1]]
    return found
