"""The estimate of a judge run's cost, without a database: tokens from characters, output
tokens assumed by answer style, priced per million tokens."""

from decimal import Decimal

import pytest

from core.costs import (
    ASSUMED_OUTPUT_TOKENS,
    Estimate,
    Price,
    cost,
    estimate,
    estimated_tokens,
    over_budget,
)

PRICE = Price(Decimal("2.00"), Decimal("8.00"), "USD", batch_discount=Decimal("0.5"))


def test_a_texts_tokens_are_its_characters_over_four_rounded_up():
    assert [estimated_tokens(t) for t in ("", "a", "abcd", "abcde", "x" * 400)] == [0, 1, 1, 2, 100]


def test_the_estimate_counts_each_prompt_once_per_epoch_and_assumes_the_styles_output():
    found = estimate(["x" * 400, "y" * 800], epochs=3, style="critique", price=PRICE)
    per_call = ASSUMED_OUTPUT_TOKENS["critique"]
    assert (found.calls, found.input_tokens, found.output_tokens) == (6, 900, 6 * per_call)
    assert found.output_tokens_per_call == per_call and found.currency == "USD"
    # 900 input tokens at 2 a million, 2400 output tokens at 8 a million: 0.0018 + 0.0192
    assert found.cost == Decimal("0.02")


def test_a_binary_answer_is_assumed_shorter_than_a_critique():
    binary = estimate(["x" * 40], style="binary")
    assert binary.output_tokens < estimate(["x" * 40], style="critique").output_tokens


def test_without_a_price_the_estimate_has_tokens_but_no_cost():
    found = estimate(["x" * 40])
    assert found.cost is None and found.input_tokens == 10 and found.currency == ""


def test_the_cost_of_a_million_tokens_is_the_price():
    assert cost(1_000_000, 1_000_000, PRICE) == Decimal("10.00")
    assert cost(0, 0, PRICE) == 0


def test_the_batch_price_takes_the_discount_off_both_prices():
    batch = PRICE.for_batch()
    assert (batch.input_per_million, batch.output_per_million) == (Decimal("1"), Decimal("4"))


def test_an_estimate_is_over_budget_only_above_it_and_only_with_a_price_and_a_budget():
    priced = Estimate(1, 1, 1, 1, Decimal("5.01"), "USD")
    assert over_budget(priced, Decimal("5"))
    assert not over_budget(priced, Decimal("5.01")) and not over_budget(priced, None)
    assert not over_budget(Estimate(1, 1, 1, 1, None), Decimal("0"))


def test_epochs_below_one_are_refused():
    with pytest.raises(ValueError):
        estimate(["x"], epochs=0)
