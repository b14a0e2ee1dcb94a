"""The {% interval %} tag: an estimate with its interval, or why it has none (the agreement
pages show hundreds of them; it replaced a template include per cell)."""

import pytest
from django.template import engines
from django.utils import translation

from core.stats import Coefficient
from core.stats.bootstrap import Interval

TAG = engines["django"].from_string(
    "{% load agreement_format %}{% interval value %}|{% interval value as_percent=True %}"
)
UNRELIABLE = (
    "No interval method reached 90% coverage in simulation for data like these: "
    "see the statistics guide"
)


def coefficient(value: float | None, reason: str | None = None) -> Coefficient:
    return Coefficient("alpha", value, reason, 10, 20)


def interval(estimate: Coefficient, low: float | None, high: float | None, **reasons) -> Interval:
    return Interval(estimate, low, high, 0.95, "percentile bootstrap (units)", 1000, 0, **reasons)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (
            interval(coefficient(0.123), 0.1, 0.456),
            '0.12 <span class="muted">[0.10, 0.46]</span>|'
            '12% <span class="muted">[10%, 46%]</span>',
        ),
        (
            interval(coefficient(None, "one value <only>"), None, None),
            '— <span class="muted">(one value &lt;only&gt;)</span>|'
            '— <span class="muted">(one value &lt;only&gt;)</span>',
        ),
        (
            interval(coefficient(0.5), None, None, undefined_reason="too few units"),
            '0.50 <span class="muted">(too few units)</span>|'
            '50% <span class="muted">(too few units)</span>',
        ),
        (
            interval(coefficient(0.5), 0.4, 0.6, unreliable_reason="n < 15"),
            f'0.50 <span class="badge" title="{UNRELIABLE}">n &lt; 15</span>|'
            f'50% <span class="badge" title="{UNRELIABLE}">n &lt; 15</span>',
        ),
        (interval(coefficient(0.5), None, None), "0.50|50%"),
        (None, "—|—"),
    ],
)
def test_an_interval_is_shown_with_its_bounds_or_the_reason_it_has_none(value, shown):
    with translation.override("en"):
        assert TAG.render({"value": value}) == shown


def test_an_interval_is_written_in_the_interface_language():
    with translation.override("es"):
        shown = TAG.render({"value": interval(coefficient(0.123), 0.1, 0.456)})
    assert shown == (
        '0,12 <span class="muted">[0,10; 0,46]</span>|12% <span class="muted">[10%; 46%]</span>'
    )
    with translation.override("es"):
        withheld = TAG.render(
            {"value": interval(coefficient(0.5), 0.4, 0.6, unreliable_reason="n")}
        )
    assert 'title="Ningún método de intervalo alcanzó una cobertura del 90 % en' in withheld
