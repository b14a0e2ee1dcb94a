"""What a judge run will cost, before it starts: its calls and tokens from the characters of
the prompts it will send, priced at the model's `ModelPrice` (core.costs says how tokens are
estimated without a tokenizer), and the per-run budget (settings.JUDGE_RUN_BUDGET) a run above
which the maintainer must confirm.

The prompts are not filled to be estimated: their lengths are the template's own characters
and the lengths of the texts it takes, from the database (`judging.units.prompt_lengths`,
equal to the filled prompts' lengths), kept in the cache while the study's texts and rubrics
and the prompt stay as they are. Only the run's job fills each prompt, once, to send it."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db.models import Count, Max, Sum
from django.utils.translation import gettext

from agreement.cache import code_fingerprint
from core.costs import Estimate, Price, estimate_tokens, over_budget, tokens_of_length
from grading.models import Study, StudyItem
from judging.models import JudgeRun, ModelPrice, PromptVersion
from judging.units import prompt_lengths
from rubrics.models import TaskContextValue

ESTIMATE_SECONDS = 24 * 3600
_ROOT = Path(__file__).resolve().parent.parent
# A cached estimate names the code that counted it: another release counts afresh.
_CODE = code_fingerprint(
    [_ROOT / "core" / "prompting.py", _ROOT / "core" / "costs.py", _ROOT / "judging" / "units.py"]
)


def budget() -> Decimal | None:
    found: Decimal | None = settings.JUDGE_RUN_BUDGET
    return found


@dataclass(frozen=True)
class Costing:
    """The model's price for a run, and what its calls are estimated to cost."""

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
    ask_probability: bool = False,
) -> Costing:
    """What judging `study` (its first `limit` units) with `model` and `prompt` will cost,
    at the batch API's price when `batch`, with the request for the judge's probability after
    each binary criterion's prompt when `ask_probability`."""
    price = price_of(model)
    if batch and price is not None:
        price = price.for_batch()
    tokens = prompt_tokens(study, prompt, ask_probability=ask_probability)
    found = estimate_tokens(
        tokens if limit is None else tokens[:limit], epochs=epochs, style=prompt.style, price=price
    )
    return Costing(price, found)


def price_of(model: str) -> Price | None:
    """The price of `model` as the admins keep it; None when none is known."""
    found = ModelPrice.objects.for_model(model)
    return found.price if found is not None else None


def prompt_tokens(
    study: Study, prompt: PromptVersion, *, ask_probability: bool = False
) -> list[int]:
    """The estimated tokens of each prompt `prompt` makes for the study's units, in the order
    the run sends them (`study_units`), cached under what they are counted from: the prompt
    version (never edited), the study's items and their rubric versions, and their tasks'
    texts and context values. A study's response is never rewritten (a change is its next
    version, `rubrics.responses`). Three queries when cached."""
    asked = int(ask_probability)
    key = f"judge-prompt-tokens:{_CODE}:{study.pk}:{prompt.pk}:{asked}:{_texts_state(study)}"
    found: list[int] | None = cache.get(key)
    if found is None:
        lengths = prompt_lengths(study, prompt.text, asking_probability=ask_probability)
        found = [tokens_of_length(n) for n in lengths]
        cache.set(key, found, ESTIMATE_SECONDS)
    return found


def _texts_state(study: Study) -> str:
    """Changes whenever a prompt of the study's units would: an item added or taken away (or
    given another rubric version), a task edited (its revision, or its save time), a context
    value of its tasks set, changed or cleared, or a listed value's label or a variable's key
    renamed."""
    items = StudyItem.objects.filter(study=study)
    state = items.aggregate(
        n=Count("pk"),
        last=Max("pk"),
        rubrics=Sum("rubric_version_id"),
        revisions=Sum("response__task__revision"),
        saved=Max("response__task__updated_at"),
    )
    values = TaskContextValue.objects.filter(task__in=items.values("response__task")).aggregate(
        n=Count("pk"),
        revisions=Sum("revision"),
        last=Max("pk"),
        # A listed value's label and a variable's key are in the prompt: renaming either in
        # the taxonomy (its revision) counts again.
        labels=Sum("value__revision"),
        keys=Sum("variable__revision"),
    )
    saved = state["saved"].timestamp() if state["saved"] else 0
    return (
        f"{state['n']}:{state['last']}:{state['rubrics']}:{state['revisions']}:{saved}:"
        f"{values['n']}:{values['revisions']}:{values['last']}:{values['labels']}:{values['keys']}"
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
