"""The settings the leaderboard's statistics follow (kindex.toml), and which lab a run speaks for."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from .load import Run
from .gpus import GpuFigures, GpuTable, load_gpus
from .identity import slugify


@dataclass(frozen=True)
class Rules:
    """The settings the leaderboard's statistics follow (kindex.toml)."""

    reference: str = "PyTorch eager"
    implausible_speedup: float = 10.0  # with no floor, a speedup at or above this vs the reference: flagged
    gpus_overrides: tuple = ()  # kindex.toml's corrections to the GPU table (Config.gpus)
    implausible_latency: float = 1000.0  # a host this many times off the others on the same workloads: flagged
    labs: tuple[tuple[str, tuple[str, ...]], ...] = ()  # a top folder of the content → the labs it speaks for
    publisher_labs: frozenset[str] = frozenset()  # the labs whose runs of the reference may be a reference
    reference_runs: frozenset[str] = frozenset()  # runs a maintainer names as their table's reference

    @classmethod
    def of(cls, config) -> Rules:
        return cls(config.reference, config.implausible_speedup, tuple(config.gpus),
                   config.implausible_latency, tuple(config.labs), frozenset(config.publisher_labs),
                   frozenset(config.reference_runs))

    @property
    def key(self) -> str:
        return repr((self.reference, self.implausible_speedup, self.gpus_overrides, self.implausible_latency,
                     self.labs, sorted(self.publisher_labs), sorted(self.reference_runs)))

    @cached_property
    def gpus(self) -> GpuTable:
        return _gpu_table(self.gpus_overrides)

    @cached_property
    def _gpu_of(self) -> dict:
        return {}

    def gpu_of(self, recorded: str | None, product: str, form_factor: str | None, memory: str | None
               ) -> GpuFigures | None:
        """A run's GPU in the table (GpuTable.find_for_run), found once per naming."""
        key = (recorded, product, form_factor, memory)
        found = self._gpu_of
        if key not in found:
            found[key] = self.gpus.find_for_run(*key)
        return found[key]

    def labs_of(self, folder: str) -> tuple[str, ...] | None:
        """The labs `labs` lets a top folder of the content speak for; None when it does not list the folder."""
        return dict(self.labs).get(folder)

    def may_speak_for(self, folder: str, lab: str) -> bool:
        """Whether runs in a top folder of the content may claim `lab` (about page, "Labs")."""
        if not folder or not lab:
            return True
        listed = self.labs_of(folder)
        return slugify(lab) == folder if listed is None else lab in listed


@lru_cache(maxsize=4)
def _gpu_table(overrides: tuple) -> GpuTable:
    return load_gpus(overrides)


def claimed_lab(run: Run) -> str:
    """The lab a run's title names: its parts after the implementation ("" when it names none)."""
    return " · ".join(run.facts.title_parts[2:]).strip()


def lab_folder(run: Run) -> str:
    """The top folder of the content a run's file is in, the lab folder that owns it ("" for the root)."""
    top, inside, _ = run.source.rel.partition("/")
    return top if inside else ""


def speaks_for_its_lab(run: Run, rules: Rules) -> bool:
    """Whether the lab a run's title claims is one its folder may speak for (about page, "Labs")."""
    return _may_speak_for(rules.labs, lab_folder(run), claimed_lab(run))


@lru_cache(maxsize=4096)  # (a folder's runs name a few labs, each asked once)
def _may_speak_for(labs: tuple, folder: str, lab: str) -> bool:
    return Rules(labs=labs).may_speak_for(folder, lab)
