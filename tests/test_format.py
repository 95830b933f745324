"""Number formats: three significant figures, intervals wide enough to see, never invented precision."""

import pytest

from kindex_site.render import format_ci_ms, format_date, format_ms


@pytest.mark.parametrize("ns, shown", [
    (4940000, "4.94"), (4780000, "4.78"), (45600, "0.0456"), (123456789, "123"), (1234567890, "1,230"),
    (1000000, "1.00"), (500000, "0.500"), (1, "0.000001"), (1500, "0.00150"), (999999, "1.00"),
    (12, "0.000012"), (None, "—"), (33179000000, "33,200"), (999999500, "1,000"), (99950000000, "100,000"),
    (-33179000000, "-33,200"), (33179000000.0, "33,200"),
])
def test_milliseconds_three_significant_figures(ns, shown):
    assert format_ms(ns) == shown


@pytest.mark.parametrize("ci, mean, shown", [
    ([4931062, 4948938], 4940000, "4.931–4.949"),   # the seed
    ([4931062, 4931062], 4931062, "4.93–4.94"),     # zero width: still contains the value
    ([100, 200], 150, "0.000100–0.000200"),          # never beyond whole nanoseconds
    ([382800, 389200], 386000, "0.3828–0.3892"),
    ([1000000, 3000000], 2000000, "1.00–3.00"),
    ([33100000000, 33260000000], 33179000000, "33,100–33,260"),  # grouped as the mean beside it
    (None, 4940000, "—"),
])
def test_interval_has_visible_width_and_rounds_outwards(ci, mean, shown):
    assert format_ci_ms(ci, mean) == shown


def test_interval_contains_the_given_interval():
    lo, hi = 4931062, 4948938
    shown_lo, shown_hi = (float(x) * 1e6 for x in format_ci_ms([lo, hi], 4940000).split("–"))
    assert shown_lo <= lo and shown_hi >= hi


def test_date_is_utc():
    assert format_date("2026-03-05T23:30:00-05:00") == "2026-03-06"
    assert format_date("2026-03-05T08:38:15.000Z") == "2026-03-05"
