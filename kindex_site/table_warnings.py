"""The warnings under a table (about page, "Warnings under a table"), each with the runs it is about."""

from __future__ import annotations


from .models import HELD_VERDICTS
from .physics import duration
from .boards import (Board, Entry, FOREIGN_LAB, HIGH_VARIANCE, NO_PUBLISHER_REFERENCE, OUTLIER_FACTOR, Warning,
                     in_words, runs_counted, std_ns)
from .identity import slugify
from .rules import Rules, claimed_lab, lab_folder, speaks_for_its_lab


def board_warnings(board: Board, environment, rules: Rules, references: list[Entry],
              unordered: list[list[Entry]]) -> list[Warning]:
    """What a reader must know to read the table; `references` (_speedups) and `unordered`
    (_current_and_history) are what the table could not tell."""
    found = _content_warnings(rules, references, unordered) + _lab_warnings(board, rules)
    entries = board.entries
    hw = environment.spec.hardware
    host_gpu = " ".join(filter(None, [hw.product, hw.formFactor]))

    mixed = [e for e in entries if e.mixed_hardware]
    if mixed:
        recorded = sorted({str(e.run.facts.hardware) for e in mixed})
        found.append(Warning("mixed-hardware",
            f"{runs_counted(len(mixed))} recorded another GPU ({', '.join(recorded)}) than this host's {host_gpu}; "
            "they are marked and left out of ranks and summaries.", [e.run.name for e in mixed]))

    not_passed = [e for e in entries if e.run.facts.status != "passed"]
    if not_passed:
        counts: dict[str, int] = {}
        for e in not_passed:
            counts[e.run.facts.status] = counts.get(e.run.facts.status, 0) + 1
        detail = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        found.append(Warning("failed-runs", f"{runs_counted(len(not_passed))} did not pass ({detail}); they are listed unranked.",
                             [e.run.name for e in not_passed]))

    no_ci = [e for e in entries if e.no_ci]
    if no_ci:
        found.append(Warning("no-ci", f"{runs_counted(len(no_ci))} gave no confidence interval; compared by the mean alone "
                             "(beyond the source's rounding, where it states one), a difference may be noise.",
                             [e.run.name for e in no_ci]))

    noisy = [e for e in entries if e.run.facts.timed and (sd := std_ns(e)) is not None
             and sd > HIGH_VARIANCE * e.run.facts.mean]
    if noisy:
        found.append(Warning("high-variance", f"{runs_counted(len(noisy))} had a standard deviation above "
                             f"{HIGH_VARIANCE:.0%} of the mean; their timings are noisy.", [e.run.name for e in noisy]))

    outliers = [e for e in entries if e.run.facts.maximum is not None
                and e.run.facts.maximum > OUTLIER_FACTOR * e.run.facts.mean]
    if outliers:
        found.append(Warning("outliers", f"{runs_counted(len(outliers))} had a slowest sample above {OUTLIER_FACTOR}× "
                             "the mean: some samples were disturbed.", [e.run.name for e in outliers]))

    found += _held_out_warnings(board, rules)

    digests = {e.run.facts.environment_digest for e in board.runs}
    if len(digests) > 1:
        found.append(Warning("environment-changed", f"The runs on this host carry {len(digests)} different "
                             "environment digests: its hardware or software changed between them.",
                             [e.run.name for e in board.runs]))
    return found


def _content_warnings(rules: Rules, references: list[Entry], unordered: list[list[Entry]]) -> list[Warning]:
    """What the content asks a table that it cannot tell: against which reference, which run came first."""
    found: list[Warning] = []
    if len(references) > 1:
        named = in_words([f"{e.run.name} ({e.implementation})" for e in references])
        found.append(Warning("several-references",
            f"{len(references)} current {rules.reference} runs of different implementations or lab folders: "
            f"{named}. Which one speedups are against cannot be told, so speedups on this table are left out until "
            "one reference remains.", [e.run.name for e in references]))

    if unordered:
        said = "; ".join(
            f"{group[0].implementation}: {in_words([e.run.name for e in group])} "
            + (f"observed at {group[0].run.facts.observed_at}" if group[0].run.facts.observed_at else "without observedAt")
            for group in unordered)
        found.append(Warning("unordered-runs",
            f"Runs of one implementation that cannot be ordered in time have no trend between them ({said}); "
            "the current one is the latest by observedAt, then the one whose name sorts last.",
            [e.run.name for group in unordered for e in group]))
    return found


def _lab_warnings(board: Board, rules: Rules) -> list[Warning]:
    """Each run claiming a lab its folder may not speak for, and runs of the reference none of which
    may be the table's reference."""
    found = []
    for e in board.runs:
        if not speaks_for_its_lab(e.run, rules):
            lab, folder = claimed_lab(e.run), lab_folder(e.run)
            listed = rules.labs_of(folder)
            may = (f"kindex.toml's [labs] lets it speak for {in_words([repr(x) for x in listed])}" if listed
                   else f"it may speak for the lab whose name slugs to {folder!r}")
            found.append(Warning(FOREIGN_LAB,
                f"run {e.run.name} ({e.run.source.on_site}) claims the lab {lab!r}, which its folder {folder}/ may "
                f"not speak for ({may}). It is shown as a run of its own and replaces none of that lab's runs. "
                f"Move it to its lab's folder ({slugify(lab) or 'lab'}/ in the content folder), or have a "
                f"maintainer list {lab!r} for {folder!r} under [labs] in kindex.toml.", [e.run.name]))
    refs = [e for e in board.runs if e.implementation == rules.reference]
    if refs and all(e.other_source for e in refs):
        publisher = sorted(rules.publisher_labs)
        why = (f"the reference is the publisher's: a run of a lab in publisher_labs ({in_words(publisher)}) in a "
               "folder that may speak for it, or a run named in reference_runs" if publisher else
               "each claims a lab its folder may not speak for")
        named = in_words([f"{e.run.name} ({claimed_lab(e.run) or 'no lab'})" for e in refs])
        own = "is listed as a run of its own" if len(refs) == 1 else "are listed as runs of their own"
        found.append(Warning(NO_PUBLISHER_REFERENCE,
            f"{runs_counted(len(refs))} of {rules.reference} ({named}) {own}, not as this table's reference: {why}. "
            "The table has no reference and no speedups until such a run is added.", [e.run.name for e in refs]))
    return found


def _held_out_warnings(board: Board, rules: Rules) -> list[Warning]:
    """The runs a table ranks but the summaries hold out until reviewed: implausible speedups and latencies."""
    found = []
    implausible = [e for e in board.entries if e.implausible]
    if implausible:
        bound = f"{rules.implausible_speedup:g}"
        found.append(Warning("implausible", f"{runs_counted(len(implausible))} had a speedup of {bound}× or more "
                             "against the reference, which is rarely real (a wrong unit, a kernel that skips work): "
                             "ranked, but held out of summaries until reviewed.",
                             [e.run.name for e in implausible]))
    far = [e for e in board.runs if e.implausible_latency]
    if far:
        factor = f"{rules.implausible_latency:,g}"
        found.append(Warning("implausible-latency", f"This host's latencies are steadily {factor}× or more above or "
                             "below the other hosts' for the same workloads: probably not in the stated unit. "
                             f"{runs_counted(len(far))} here are ranked, but held out of summaries until reviewed clean.",
                             [e.run.name for e in far]))
    below = [e for e in board.runs if e.below_floor]
    if below:
        floors = in_words([f"{duration(x.floor_ns)} on {x.gpu} ({x.moved_bytes:,} bytes at {x.bandwidth / 1e12:.3g} TB/s)"
                          for x in dict.fromkeys(e.limits for e in below)])
        found.append(Warning("below-floor", f"{runs_counted(len(below))} faster than the hardware allows: below the floor, "
                             f"the time the workload's inputs and outputs take to move through DRAM ({floors}). "
                             "Not a result: unranked and held out of summaries.", [e.run.name for e in below]))
    judged = [e for e in board.runs if e.verdict in HELD_VERDICTS]
    if judged:
        verdicts = ", ".join(sorted({e.verdict for e in judged}))
        found.append(Warning("reviewed", f"{runs_counted(len(judged))} judged by a review ({verdicts}): shown with the "
                             "verdict, unranked and held out of summaries.", [e.run.name for e in judged]))
    return found
