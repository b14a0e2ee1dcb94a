"""What a judge run costs in money: estimated before it starts from its prompts' characters,
and counted after from the tokens the provider reported.

No tokenizer is downloaded to estimate: a prompt's input tokens are its characters divided by
`CHARS_PER_TOKEN` (about 4 characters a token for English text with the common BPE tokenizers,
fewer for other scripts), rounded up. The output is not known before the judge answers, so a
call is assumed to answer `ASSUMED_OUTPUT_TOKENS[style]` tokens: a binary verdict is a word, a
critique a few paragraphs. A call is assumed answered at its first try (an unreadable answer
asked again costs more), and every call is assumed paid (calls answered from the cache by a
previous attempt are not)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CHARS_PER_TOKEN = 4
# Output tokens assumed per call, by the prompt's answer style (core.prompting.AnswerStyle's
# values): "true"/"false" with the end of the message; a critique of some paragraphs.
ASSUMED_OUTPUT_TOKENS = {"binary": 5, "critique": 400}
MILLION = Decimal(1_000_000)
CENT = Decimal("0.01")


@dataclass(frozen=True, slots=True)
class Price:
    """A model's price: per million input and output tokens, in `currency`."""

    input_per_million: Decimal
    output_per_million: Decimal
    currency: str
    batch_discount: Decimal = Decimal(0)  # the fraction off through the batch API (0.5: half)

    def for_batch(self) -> Price:
        """The price of a call sent through the provider's batch API."""
        kept = 1 - self.batch_discount
        return Price(
            self.input_per_million * kept, self.output_per_million * kept, self.currency, Decimal(0)
        )


@dataclass(frozen=True, slots=True)
class Estimate:
    """A run's calls, their tokens and, when the model's price is known, their cost."""

    calls: int
    input_tokens: int
    output_tokens: int
    output_tokens_per_call: int
    cost: Decimal | None  # None: no price known for the model
    currency: str = ""


def estimated_tokens(text: str) -> int:
    """Tokens of `text` without a tokenizer: its characters / CHARS_PER_TOKEN, rounded up
    (0 for an empty text)."""
    return tokens_of_length(len(text))


def tokens_of_length(characters: int) -> int:
    """Tokens of a text of `characters` characters (`estimated_tokens` without the text)."""
    return -(-characters // CHARS_PER_TOKEN)


def cost(input_tokens: int, output_tokens: int, price: Price) -> Decimal:
    """What the tokens cost at `price`, unrounded, in the price's currency."""
    return (
        Decimal(input_tokens) * price.input_per_million
        + Decimal(output_tokens) * price.output_per_million
    ) / MILLION


def rounded(amount: Decimal) -> Decimal:
    """An amount to the cent, as stored and shown (a cost under a cent shows as 0.00)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def estimate(
    prompts: Iterable[str],
    *,
    epochs: int = 1,
    style: str = "binary",
    price: Price | None = None,
) -> Estimate:
    """The estimate of a run that sends each of `prompts` once per epoch.

    Input tokens: each prompt's `estimated_tokens`, times `epochs`. Output tokens:
    `ASSUMED_OUTPUT_TOKENS[style]` per call (the binary figure for an unknown style). Cost:
    both at `price`, to the cent, or None without a price."""
    tokens = [estimated_tokens(prompt) for prompt in prompts]
    return estimate_tokens(tokens, epochs=epochs, style=style, price=price)


def estimate_tokens(
    prompt_tokens: Sequence[int],
    *,
    epochs: int = 1,
    style: str = "binary",
    price: Price | None = None,
) -> Estimate:
    """`estimate` from each prompt's tokens (`tokens_of_length` of its characters), without
    the prompts."""
    if epochs < 1:
        raise ValueError("epochs is at least 1")
    units, input_tokens = len(prompt_tokens), sum(prompt_tokens)
    per_call = ASSUMED_OUTPUT_TOKENS.get(style, ASSUMED_OUTPUT_TOKENS["binary"])
    calls = units * epochs
    input_tokens *= epochs
    output_tokens = calls * per_call
    amount = rounded(cost(input_tokens, output_tokens, price)) if price is not None else None
    return Estimate(
        calls=calls,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        output_tokens_per_call=per_call,
        cost=amount,
        currency=price.currency if price is not None else "",
    )


def over_budget(found: Estimate, budget: Decimal | None) -> bool:
    """Whether the estimated cost is above `budget` (never, without a budget or a price)."""
    return budget is not None and found.cost is not None and found.cost > budget
