"""What the hardware allows a run: its floor and its speed of light, by the about page's formulas
("Physics"). Pure: a cost (models.WorkloadCost), a GPU's figures (gpus.GpuFigures) and a latency in,
exact fractions of nanoseconds out.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

NS_PER_S = 10**9


@dataclass(frozen=True, slots=True)
class Limits:
    """What one workload costs on one GPU: its floor and its roofline, in ns, each None with the reason."""

    gpu: str | None  # the GPU table's name for it
    floor_ns: Fraction | None
    floor_why_not: str | None  # why no floor is claimed
    roofline_ns: Fraction | None
    roofline_why_not: str | None  # why no roofline is known
    moved_bytes: int | None  # input + output bytes: what the floor is made of
    bandwidth: float | None  # DRAM bytes per second, as the GPU table gives it

    def below_floor(self, value_ns: int, half_step: int | Fraction = 0) -> bool:
        """A latency that, even rounded up by half its source's rounding step, is under the floor."""
        return self.floor_ns is not None and value_ns + half_step < self.floor_ns

    def sol(self, value_ns: int | None) -> float | None:
        """The run's fraction of the speed of light: roofline / latency."""
        if self.roofline_ns is None or not value_ns:
            return None
        return self.roofline_ns.numerator / (self.roofline_ns.denominator * value_ns)  # (one rounding, as float(Fraction))


NO_COST = "no cost was counted for its workload"


def limits(cost, gpu, gpu_named: str | None, flushed: bool = False) -> Limits:
    """The floor and roofline of a workload (`cost`: a WorkloadCost's spec, or None) on a GPU (`gpu`:
    GpuFigures, or None when the table has none for `gpu_named`, the name the run and host give)."""
    if cost is None or cost.status != "counted":
        why = NO_COST if cost is None else f"its workload's cost could not be counted: {cost.reason}"
        return Limits(gpu and gpu.name, None, why, None, why, None, None)
    moved = cost.inputBytes + cost.outputBytes
    if gpu is None:
        why = f"the GPU table has no figures for {gpu_named or 'its GPU'}"
        return Limits(None, None, why, None, why, moved, None)
    bandwidth = gpu.dram_bytes_per_s
    if not bandwidth or gpu.l2_bytes is None:
        why = f"the GPU table gives no {'DRAM bandwidth' if not bandwidth else 'cache size'} for {gpu.name}"
        return Limits(gpu.name, None, why, None, why, moved, None)
    per_byte = Fraction(NS_PER_S, _whole(bandwidth))
    # What may stay on chip between timed calls: any bytes, or with the cache flushed the call's outputs.
    resident = min(cost.outputBytes, gpu.l2_bytes) if flushed else gpu.l2_bytes
    from_dram = moved - resident
    floor, floor_why_not = from_dram * per_byte, None
    if from_dram <= 0:
        floor, floor_why_not = None, (f"its inputs and outputs ({moved:,} bytes) fit in {gpu.name}'s L2 "
                                      f"({gpu.l2_bytes:,} bytes) between timed calls")
    compute, roofline_why_not = Fraction(0), None
    for precision, count in sorted(cost.flops.items()):
        peak = gpu.peak(precision) if count else None
        if count and not peak:
            roofline_why_not = f"the GPU table gives no {precision.upper()} peak for {gpu.name}"
        elif count:
            compute += Fraction(count * NS_PER_S, _whole(peak))
    roofline = max(compute, max(0, moved + cost.parameterBytes - resident) * per_byte)
    if roofline_why_not is None and not roofline:
        roofline_why_not = (f"its bytes fit in {gpu.name}'s L2 between timed calls and it counts no "
                            "floating-point operations")
    return Limits(gpu.name, floor, floor_why_not, None if roofline_why_not else roofline, roofline_why_not,
                  moved, bandwidth)


def _whole(rate: float) -> int | Fraction:
    """A figure as an exact number: whole (bytes or operations per second are) unless it is not."""
    return int(rate) if float(rate).is_integer() else Fraction(rate)


def duration(ns: Fraction | int | float) -> str:
    """A time to 3 significant figures in the unit that keeps it between 1 and 1000."""
    value = float(ns)
    for unit, size in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if value >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value:.3g} ns"
