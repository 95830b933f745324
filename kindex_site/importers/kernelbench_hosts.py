"""KernelBench's timing hosts: host folders joined into one host by their environment, each named once,
its timings ordered and stamped; and what earlier imports left in --out (`Held`)."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ..errors import plural, printable
from .common import digest, environment_document, run_name, slug
from .kernelbench_files import (ENTRY_PATTERN, FILE_PATTERN, LEVEL_PATTERN, SOURCE, Result, SourceFile,
                                timings_fingerprint, trace)

@dataclass(frozen=True)
class Host:
    label: str  # short GPU name for titles, e.g. "H100 PCIe"
    vendor: str | None
    product: str
    form_factor: str | None
    architecture: str | None
    provider: str | None
    expect: str  # regex a row's `hardware` string should match


# KernelBench's results/timing/ hosts; provider and power (SXM or PCIe) as its README says, None where it does not.
HOSTS: dict[str, Host] = {
    "H100_PCIe_LambdaLabs": Host("H100 PCIe", "nvidia", "NVIDIA H100", "PCIe", "sm_90", "Lambda Labs", r"\bH100\b"),
    "H100_together": Host("H100", "nvidia", "NVIDIA H100", "SXM", "sm_90", "Together AI", r"\bH100\b"),
    "H100_Modal": Host("H100", "nvidia", "NVIDIA H100", "SXM", "sm_90", "Modal", r"\bH100\b"),
    "B200_together": Host("B200", "nvidia", "NVIDIA B200", "SXM", "sm_100", "Together AI", r"\bB200\b"),
    "L40S_matx3": Host("L40S", "nvidia", "NVIDIA L40S", "PCIe", "sm_89", "Stanford matx3", r"\bL40S\b"),
    "L40S_babel": Host("L40S", "nvidia", "NVIDIA L40S", "PCIe", "sm_89", "CMU Babel", r"\bL40S\b"),
    "L40S_modal": Host("L40S", "nvidia", "NVIDIA L40S", "PCIe", "sm_89", "Modal", r"\bL40S\b"),
    "L4_GCP": Host("L4", "nvidia", "NVIDIA L4", "PCIe", "sm_89", "Google Cloud", r"\bL4\b"),
    "L4_modal": Host("L4", "nvidia", "NVIDIA L4", "PCIe", "sm_89", "Modal", r"\bL4\b"),
    "A6000_babel": Host("RTX A6000", "nvidia", "NVIDIA RTX A6000", "PCIe", "sm_86", "CMU Babel", r"\bA6000\b"),
    "RTX_3090_Ti": Host("GeForce RTX 3090 Ti", "nvidia", "NVIDIA GeForce RTX 3090 Ti", "PCIe", "sm_86", None,
                        r"\b3090 Ti\b"),
    "A100_modal": Host("A100 40GB", "nvidia", "NVIDIA A100 40GB", "SXM", "sm_80", "Modal", r"\bA100\b"),
    "A100-80GB_modal": Host("A100 80GB", "nvidia", "NVIDIA A100 80GB", None, "sm_80", "Modal", r"\bA100\b"),
    "A10G_modal": Host("A10G", "nvidia", "NVIDIA A10G", "PCIe", "sm_86", "Modal", r"\bA10G\b"),
    "T4_modal": Host("T4", "nvidia", "NVIDIA T4", "PCIe", "sm_75", "Modal", r"\bT4\b"),
    "MI250": Host("MI250", "amd", "AMD Instinct MI250", "OAM", "gfx90a", None, r"\bMI250"),
}
_HOSTS_CASEFOLD = {name.casefold(): host for name, host in HOSTS.items()}
_HOST_NAMES_CASEFOLD = {name.casefold(): name for name in HOSTS}

@dataclass
class TimingHost:
    """One timing host: the host folders whose runs get one ExecutionEnvironment (H100_modal and H100_Modal)."""
    spelling: str  # the host table's name for it (H100_Modal), else its folder's name
    environment: dict  # its document; metadata.name is set once every host is known (`_name_hosts`)
    identity: str  # digest of the document but its name: what makes two folders one host
    files: list[SourceFile]
    name: str = ""  # "kernelbench-h100-modal"
    folder: str = ""  # under --out

    @property
    def part(self) -> str:
        """The host's part of its runs' names: "h100-modal"."""
        return self.name.removeprefix("kernelbench-")


def timing_hosts(files: list[SourceFile], held: Held, result: Result, errors: list[str]) -> list[TimingHost]:
    """The timing hosts: host folders with the same ExecutionEnvironment are one host, named once;
    its timings of an implementation ordered by date, a copy of one imported once."""
    by_folder: dict[str, list[SourceFile]] = {}
    for f in files:
        if not slug(f.host):
            unnamed = (f"{f.path.parent}: host folder {printable(f.host)!r} has no ASCII letters or digits, of which "
                       "the host's name (kernelbench-<host>) and its folder under --out are made; rename the folder "
                       "(KernelBench's are named like L4_GCP: GPU and provider)")
            if unnamed not in errors:
                errors.append(unnamed)
            continue
        by_folder.setdefault(f.host, []).append(f)
    hosts: dict[str, TimingHost] = {}  # identity → host
    for folder in sorted(by_folder):
        environment = _environment(folder, _distinct(by_folder[folder]), result.warnings)
        identity = _identity(environment)
        if identity in hosts:
            hosts[identity].files += by_folder[folder]
        else:
            spelling = _HOST_NAMES_CASEFOLD.get(folder.casefold(), folder)
            hosts[identity] = TimingHost(spelling, environment, identity, by_folder[folder])
    _name_hosts(list(hosts.values()), held)
    for host in hosts.values():
        host.files = _timings(host, held, result, errors)
    return sorted(hosts.values(), key=lambda h: (h.spelling, h.name))


def _distinct(files: list[SourceFile]) -> list[SourceFile]:
    """One file of each content (a timing given twice counts once)."""
    return list({f.fingerprint: f for f in reversed(files)}.values())[::-1]


def _identity(environment: dict) -> str:
    metadata = {k: v for k, v in environment["metadata"].items() if k != "name"}
    return digest({**environment, "metadata": metadata})


def _name_hosts(hosts: list[TimingHost], held: Held) -> None:
    """Each host's name: the one --out's files already give it, else kernelbench-<folder slug>, ending in
    a digest of the environment where another environment has that name (Höst and Hást)."""
    taken = {name: identity for name, (identity, _) in held.environments.items()}
    by_identity: dict[str, str] = {}
    by_folder: dict[str, str] = {}
    for name, (identity, folders) in sorted(held.environments.items()):
        by_identity.setdefault(identity, name)
        for folder in folders:
            by_folder.setdefault(folder, name)

    def earlier(host: TimingHost) -> str | None:
        """The name --out's files give the host: by its environment, else by its folders."""
        return by_identity.get(host.identity) or next(
            (by_folder[f] for f in sorted({f.host for f in host.files}) if f in by_folder), None)

    given: dict[str, str] = {}  # name → identity, in this import
    for host in sorted(hosts, key=lambda h: (earlier(h) is None, h.spelling, h.identity)):
        plain = f"kernelbench-{slug(host.spelling)}"
        name = earlier(host)
        if name is None or given.get(name, host.identity) != host.identity:
            owner = given.get(plain, taken.get(plain, host.identity))
            name = plain if owner == host.identity else f"{plain}-{host.identity.removeprefix('sha256:')[:8]}"
        given[name] = host.identity
        host.name = name
        host.folder = _safe_folder(host.spelling) if name == plain else host.part
        host.environment["metadata"]["name"] = name


def _timings(host: TimingHost, held: Held, result: Result, errors: list[str]) -> list[SourceFile]:
    """The host's files, a copy of one once, each timing after the first of its implementation stamped
    with its date; names already given in --out stay."""
    by_implementation: dict[str, list[SourceFile]] = {}
    for f in sorted(host.files, key=lambda f: (f.path.name, f.observed_at.astimezone(timezone.utc), str(f.path))):
        by_implementation.setdefault(f.implementation, []).append(f)
    kept_all: list[SourceFile] = []
    for implementation, files in by_implementation.items():
        kept: list[SourceFile] = []
        for f in files:
            copy = next((k for k in kept if k.fingerprint == f.fingerprint), None)
            if copy is not None:
                result.warnings.append(f"{f.path}: the same timings as {copy.path}, one timing of host "
                                       f"{host.spelling!r}: imported once, observed at {copy.when}")
                continue
            earlier = held.copies.get((host.name, implementation, f.fingerprint))
            if earlier is not None and earlier[0] != f.when:
                result.warnings.append(
                    f"{f.path}: the same timings as {earlier[1]}, which an earlier import wrote (observed at "
                    f"{earlier[0]}): not imported again" + (
                        "; this file is dated earlier: if its date is the right one, delete that file and import "
                        "again" if f.when < earlier[0] else ""))
                continue
            same = next((k for k in kept if k.when == f.when), None)
            if same is not None:
                errors.append(f"{f.path}: another timing of host {host.spelling!r}'s {implementation}, {same.path}, "
                              f"is observed at the same time ({f.when}): the site could not tell which is the newer; "
                              "date each in PROVENANCE.txt")
                continue
            kept.append(f)
        owners = {held.runs[name][0] for f in kept for name in _plain_names(host, f) if name in held.runs}
        first = next((f for f in kept if (host.name, implementation, f.when) in owners), None)
        if first is None and not owners:
            first = kept[0] if kept else None
        for f in kept:
            f.stamp = None if f is first else _stamp(f.observed_at)
        kept_all += kept
    return kept_all


def _plain_names(host: TimingHost, f: SourceFile) -> set[str]:
    return {timing_run_name(host.part, f.implementation, int(LEVEL_PATTERN.match(level)[1]), int(m[1]), m[2], None)
                  for level, entries in f.data.items() for entry in entries if (m := ENTRY_PATTERN.match(entry))}


def _stamp(when: datetime) -> str:
    """A timing's date in its runs' and file's names: 20260114t002149z (UTC)."""
    utc = when.astimezone(timezone.utc)
    return f"{utc.year:04d}{utc:%m%d}t{utc:%H%M%S}z"


@dataclass
class Held:
    """What earlier imports wrote under --out: the runs an import must neither clash with nor replace."""
    out: Path
    runs: dict[str, tuple[tuple[str, str, str], Path]] = field(default_factory=dict)  # name → (timing, file)
    files: dict[Path, tuple[str, str, str]] = field(default_factory=dict)  # file → its timing
    environments: dict[str, tuple[str, set[str]]] = field(default_factory=dict)  # name → (identity, folders)
    # (host name, implementation, fingerprint) → (observedAt, a file): a copy is not imported again, redated
    copies: dict[tuple[str, str, str], tuple[str, Path]] = field(default_factory=dict)

    @classmethod
    def read(cls, out: Path) -> Held:
        """A timing is (host name, implementation, observedAt)."""
        held = cls(out)
        if not out.is_dir():
            return held
        traces: dict[tuple[str, str, str], list[tuple[str, str, str]]] = {}
        for path in sorted(out.rglob("*.json")):
            if path.name.startswith("."):
                continue
            try:
                value = json.loads(path.read_bytes())
            except (OSError, ValueError, RecursionError):
                continue
            for written in value if isinstance(value, list) else [value]:
                try:
                    spec, environment = written["run"]["spec"], written["environment"]
                    native = spec["sourceNative"]
                    folder, file = native["benchmark"].rsplit("/", 1)
                    host = environment["metadata"]["name"]
                    timing = (host, FILE_PATTERN.match(file)[1], spec["observedAt"])
                    name = written["run"]["metadata"]["name"]
                    if native["source"] != SOURCE or not all(isinstance(v, str) for v in (*timing, name, folder)):
                        continue
                    held.environments.setdefault(host, (_identity(environment), set()))[1].add(folder)
                    problem = native.get("formerExternalId", native["externalId"]).split("/", 2)[2]
                    kept = {k: native[k] for k in ("hardware", "metrics", "extra") if k in native}
                    kept_trace = trace(problem, spec["status"], (spec.get("timing") or {}).get("samples"), kept)
                except (KeyError, TypeError, AttributeError, IndexError, ValueError):
                    continue
                held.files.setdefault(path, timing)
                held.runs.setdefault(name, (timing, path))
                traces.setdefault(timing, []).append(kept_trace)
        for timing, found in traces.items():
            host, implementation, when = timing
            held.copies.setdefault((host, implementation, timings_fingerprint(found)), (when, held.runs_file(timing)))
        return held

    def runs_file(self, timing: tuple[str, str, str]) -> Path:
        return min(path for path, held in self.files.items() if held == timing)

    def clashes(self, outputs: dict[Path, list[dict]]) -> list[str]:
        """Files under --out this import does not write that hold runs it writes: stale copies."""
        stale: dict[Path, str] = {}
        for bundles in outputs.values():
            for b in bundles:
                name = b["run"]["metadata"]["name"]
                if name in self.runs and self.runs[name][1] not in outputs:
                    stale.setdefault(self.runs[name][1], name)
        if not stale:
            return []
        first = min(stale)
        return [(f"{self.out}: {plural(len(stale), 'file')} this import did not write hold runs it writes (e.g. "
                 f"{first}: {stale[first]}); delete them, or two runs of one name will clash")]


def _safe_folder(host: str) -> str:
    return host if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", host) and ".." not in host else slug(host)


def _host_record(host_name: str) -> Host | None:
    return HOSTS.get(host_name) or _HOSTS_CASEFOLD.get(host_name.casefold())


def _environment(host_name: str, files: list[SourceFile], warnings: list[str]) -> dict:
    strings = Counter(
        record["hardware"]
        for f in files if f.data
        for entries in f.data.values()
        for record in entries.values()
        if isinstance(record, dict) and isinstance(record.get("hardware"), str)
    )
    host = _host_record(host_name)
    if host is None:
        product = strings.most_common(1)[0][0] if strings else host_name
        lowered = product.lower()
        vendor = "nvidia" if "nvidia" in lowered else "amd" if re.search(r"\bamd\b", lowered) else None
        host = Host(host_name, vendor, product, None, None, None, "")
        found = ", ".join(repr(s) for s in sorted(strings)) or "none"
        warnings.append(f"host {host_name!r} is not in the importer's table of KernelBench hosts; its hardware is "
                        f"taken from its rows' hardware strings ({found})")
        title = f"KernelBench host · {host_name}"
    else:
        unexpected = sorted(s for s in strings if not re.search(host.expect, s))
        if unexpected:
            warnings.append(f"host {host_name!r}: rows name hardware {', '.join(map(repr, unexpected))}, "
                            f"not the {host.product} the host table gives")
        title = f"KernelBench host · {host.label}" + (f" ({host.provider})" if host.provider else "")
    hardware = {"vendor": host.vendor, "product": host.product, "formFactor": host.form_factor,
                "architecture": host.architecture}
    return environment_document("", title, hardware)  # named by `_name_hosts`


def where_timed(host_name: str) -> str:
    """The run title's last part: where it was timed (the provider, as in the seed)."""
    host = _host_record(host_name)
    if host is None:
        return host_name
    return host.provider or host.label


def timing_run_name(host: str, implementation: str, level: int, number: int, name: str, stamp: str | None) -> str:
    """kernelbench-<host>-<implementation>[-<date>]-l<level>-<number>-<problem> (`stamp`: see `_timings`)."""
    stamped = f"-{stamp}" if stamp else ""
    return run_name(f"kernelbench-{host}-{slug(implementation)}{stamped}-l{level}-{number}", name)
