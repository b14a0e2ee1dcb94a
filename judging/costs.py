"""What a judge run will cost, before it starts: its calls and tokens from the prompts filled
for the study's units, priced at the model's `ModelPrice` (core.costs says how tokens are
estimated without a tokenizer), and the per-run budget (settings.JUDGE_RUN_BUDGET) a run above
which the maintainer must confirm."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from core.costs import Estimate, Price, estimate, over_budget
from core.prompting import render
from grading.models import Study
from judging.models import JudgeRun, ModelPrice, PromptVersion
from judging.units import PlannedCall, study_units


def budget() -> Decimal | None:
    found: Decimal | None = settings.JUDGE_RUN_BUDGET
    return found


@dataclass(frozen=True)
class Costing:
    """A run's calls planned, the model's price, and what they are estimated to cost."""

    planned: list[PlannedCall]
    price: Price | None
    estimate: Estimate


def costing(
    study: Study,
    *,
    model: str,
    prompt: PromptVersion,
    epochs: int,
    limit: int | None,
    batch: bool = False,
) -> Costing:
    """What judging `study` (its first `limit` units) with `model` and `prompt` will cost,
    at the batch API's price when `batch`."""
    planned = study_units(study, limit=limit)
    price = price_of(model)
    if batch and price is not None:
        price = price.for_batch()
    found = run_estimate(planned, prompt=prompt, epochs=epochs, price=price)
    return Costing(planned, price, found)


def price_of(model: str) -> Price | None:
    """The price of `model` as the admins keep it; None when none is known."""
    found = ModelPrice.objects.for_model(model)
    return found.price if found is not None else None


def run_estimate(
    planned: Sequence[PlannedCall], *, prompt: PromptVersion, epochs: int, price: Price | None
) -> Estimate:
    """The estimate of judging `planned` with `prompt`, `epochs` times each, at `price`."""
    return estimate(
        (render(prompt.text, call.unit) for call in planned),
        epochs=epochs,
        style=prompt.style,
        price=price,
    )


class OverBudget(ValidationError):
    """A run refused for its estimate above the budget (on the form's `confirm_cost`); it
    carries the estimate, which the refusing page shows without filling the prompts again."""

    def __init__(self, message: str, found: Estimate) -> None:
        super().__init__({"confirm_cost": message})
        self.estimate = found


def check_budget(found: Estimate, *, confirmed: bool) -> None:
    """Refuse (OverBudget) a run estimated above the budget, unless `confirmed`."""
    limit = budget()
    if over_budget(found, limit) and not confirmed:
        message = gettext(
            "This run is estimated at %(cost)s %(currency)s, above the budget of a run "
            "(%(budget)s %(currency)s): confirm the cost to run it anyway."
        ) % {"cost": found.cost, "currency": found.currency, "budget": limit}
        raise OverBudget(message, found)


def freeze_price(run: JudgeRun, found: Estimate, price: Price | None) -> None:
    """Copy `price` and the estimate onto `run` (unsaved): a later edit of the model's price
    leaves what the run cost alone."""
    run.estimated_input_tokens = found.input_tokens
    run.estimated_output_tokens = found.output_tokens
    run.estimated_cost = found.cost
    if price is not None:
        run.price_input_per_million = price.input_per_million
        run.price_output_per_million = price.output_per_million
        run.currency = price.currency
