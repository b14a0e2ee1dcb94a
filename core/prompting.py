"""Judge prompts as text with slots, and the judge's answer read back as a verdict. Pure: no
Django, so a notebook (or the Inspect task a run builds) can fill and parse exactly as the app.

A template is plain text with slots written ``{{name}}``: ``{{task}}`` (the task's instruction),
``{{reference_answer}}``, ``{{response}}`` (the model's answer; a dialogue as its turns),
``{{criterion}}`` (the criterion's wording, with what passes and fails when given),
``{{context}}`` (every context value, one ``name: value`` line each), ``{{context.<name>}}``
(one context value, blank when the task has none) and ``{{dialogue}}`` (the turns, blank for a
text answer). Anything else between double braces is an unknown slot, refused when the
template is saved, so a typo never reaches the judge as literal text.

A judge answers ``true`` (the criterion is met) or ``false``, and nothing else: a *binary*
template's whole answer must be that word; a *critique* template's answer is a critique whose
last non-blank line is that word. Anything else is unparseable: never guessed as pass or fail.
On an ordinal criterion (a scale from min to max) the criterion's text asks for a level
instead, and the answer is read the same way with a whole number of the scale in place of the
word (`parse_level`).

A judge configuration may also ask for the judge's probability that the response meets the
criterion (binary criteria only): `PROBABILITY_REQUEST` follows the filled prompt, and the
answer then holds a line ``probability: P`` before the verdict. `split_probability` takes
that line out before the verdict is read, so an answer whose probability cannot be read
(``80%``, ``1.5``, ``nan``) keeps its verdict, with no probability.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from core.messages import gettext_noop

__all__ = [
    "CORRECTIVE_MESSAGE",
    "LEVEL_CORRECTIVE_MESSAGE",
    "PROBABILITY_REQUEST",
    "SLOTS",
    "AnswerStyle",
    "PromptShape",
    "Unit",
    "UnitSizes",
    "asking_probability",
    "filled_length",
    "parse_answer",
    "parse_level",
    "parse_probability",
    "prompt_shape",
    "render",
    "split_probability",
    "template_problems",
]

SLOTS = ("task", "reference_answer", "response", "criterion", "context", "dialogue")
_SLOT = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
_CONTEXT_SLOT = re.compile(r"context\.[A-Za-z0-9_-]+")
_REQUIRED = ("response", "criterion")


class AnswerStyle(StrEnum):
    """How the judge's answer carries its verdict."""

    BINARY = "binary"  # the whole answer is `true` or `false`
    CRITIQUE = "critique"  # a critique, then `true` or `false` alone on the last line


CORRECTIVE_MESSAGE = {
    AnswerStyle.BINARY: (
        "Your answer could not be read. Answer with exactly one word: true if the response "
        "meets the criterion, false if it does not. Nothing else."
    ),
    AnswerStyle.CRITIQUE: (
        "Your answer could not be read. Keep your critique, and end with a line holding exactly "
        "one word: true if the response meets the criterion, false if it does not."
    ),
}


LEVEL_CORRECTIVE_MESSAGE = {
    AnswerStyle.BINARY: (
        "Your answer could not be read. Answer with exactly one whole number from {low} to "
        "{high}: the level of the scale the response reaches. Nothing else."
    ),
    AnswerStyle.CRITIQUE: (
        "Your answer could not be read. Keep your critique, and end with a line holding exactly "
        "one whole number from {low} to {high}: the level of the scale the response reaches."
    ),
}


PROBABILITY_REQUEST = (
    "Also state how likely it is that the response meets the criterion: just before your "
    "verdict, write a line of its own `probability: P`, with P a decimal number from 0 to 1 "
    "(0.5: you cannot tell; 0.95: it almost surely meets it)."
)


def asking_probability(prompt: str) -> str:
    """A binary criterion's filled prompt as sent when the judge is asked for its probability."""
    return f"{prompt}\n\n{PROBABILITY_REQUEST}"


@dataclass(frozen=True, slots=True)
class Unit:
    """What one judge call is about: a response to a task, judged on one criterion."""

    task: str
    response: str
    criterion: str
    reference_answer: str = ""
    context: Mapping[str, str] = field(default_factory=dict)
    turns: Sequence[tuple[str, str]] = ()  # (role, content) of a dialogue, in order


def _written(slot: str) -> str:
    return "{{" + slot + "}}"


def template_problems(text: str) -> list[str]:
    """What is wrong with a template's text (empty when it can be used): unknown slots, and
    the two slots a judge cannot do without (the response and the criterion). Each is a
    `core.messages.Text`, in English, shown in the reader's language by `message_text`."""
    problems: list[str] = []
    used = {match.group(1) for match in _SLOT.finditer(text)}
    unknown = sorted(s for s in used if s not in SLOTS and not _CONTEXT_SLOT.fullmatch(s))
    if unknown:
        problems.append(
            gettext_noop(
                "unknown slot %(unknown)s: the slots are %(slots)s and %(context)s",
                unknown=", ".join(map(_written, unknown)),
                slots=", ".join(map(_written, SLOTS)),
                context=_written("context.<name>"),
            )
        )
    for slot in _REQUIRED:
        if slot not in used:
            problems.append(
                gettext_noop("the template never shows the judge the %(slot)s", slot=_written(slot))
            )
    return problems


def _dialogue(turns: Sequence[tuple[str, str]]) -> str:
    return "\n\n".join(f"[{role}]\n{content}" for role, content in turns)


def render(text: str, unit: Unit) -> str:
    """`text` with every slot filled from `unit`. An unknown slot is left as written (check
    templates with `template_problems` before use)."""
    context = "\n".join(f"{name}: {value}" for name, value in unit.context.items())
    values = {
        "task": unit.task,
        "reference_answer": unit.reference_answer,
        "response": _dialogue(unit.turns) if unit.turns else unit.response,
        "criterion": unit.criterion,
        "context": context,
        "dialogue": _dialogue(unit.turns),
    }

    def fill(match: re.Match[str]) -> str:
        slot = match.group(1)
        if slot in values:
            return values[slot]
        if _CONTEXT_SLOT.fullmatch(slot):
            return unit.context.get(slot.removeprefix("context."), "")
        return match.group(0)

    return _SLOT.sub(fill, text)


@dataclass(frozen=True, slots=True)
class UnitSizes:
    """The characters of what fills a unit's slots, as a database gives them without the
    texts: `filled_length(prompt_shape(text), UnitSizes.of(unit)) == len(render(text, unit))`."""

    task: int
    response: int
    criterion: int
    reference_answer: int = 0
    context: Mapping[str, int] = field(default_factory=dict)  # each value's characters by name
    turns: Sequence[tuple[str, int]] = ()  # (role, characters of the content) of a dialogue

    @classmethod
    def of(cls, unit: Unit) -> UnitSizes:
        return cls(
            task=len(unit.task),
            response=len(unit.response),
            criterion=len(unit.criterion),
            reference_answer=len(unit.reference_answer),
            context={name: len(value) for name, value in unit.context.items()},
            turns=[(role, len(content)) for role, content in unit.turns],
        )


@dataclass(frozen=True, slots=True)
class PromptShape:
    """A template as `render` fills it: its characters left as written, and how many times
    each slot it fills appears (`context.<name>` slots by their full name)."""

    fixed: int
    slots: Mapping[str, int]


def prompt_shape(text: str) -> PromptShape:
    """The shape of the template `text` (an unknown slot is left as written: fixed text)."""
    slots: dict[str, int] = {}
    filled = 0
    for match in _SLOT.finditer(text):
        slot = match.group(1)
        if slot in SLOTS or _CONTEXT_SLOT.fullmatch(slot):
            slots[slot] = slots.get(slot, 0) + 1
            filled += len(match.group(0))
    return PromptShape(fixed=len(text) - filled, slots=slots)


def _dialogue_length(turns: Sequence[tuple[str, int]]) -> int:
    # "[role]\ncontent" per turn, a blank line between turns (as _dialogue writes them)
    if not turns:
        return 0
    return sum(len(role) + 3 + chars for role, chars in turns) + 2 * (len(turns) - 1)


def filled_length(shape: PromptShape, sizes: UnitSizes) -> int:
    """The characters of a template of `shape` filled with a unit of `sizes`, as `render`
    fills it, without filling it (a run's cost is estimated from them)."""
    dialogue = _dialogue_length(sizes.turns)
    context = sum(len(name) + 2 + chars for name, chars in sizes.context.items())
    values = {
        "task": sizes.task,
        "reference_answer": sizes.reference_answer,
        "response": dialogue if sizes.turns else sizes.response,
        "criterion": sizes.criterion,
        "context": context + max(len(sizes.context) - 1, 0),
        "dialogue": dialogue,
    }
    length = shape.fixed
    for slot, times in shape.slots.items():
        if slot in values:
            length += times * values[slot]
        else:
            length += times * sizes.context.get(slot.removeprefix("context."), 0)
    return length


_WORDS = {"true": True, "false": False}


def _last_line(answer: str, style: AnswerStyle | str) -> str:
    if AnswerStyle(style) is AnswerStyle.BINARY:
        return answer.strip()
    lines = [line for line in answer.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def parse_level(answer: str, style: AnswerStyle | str, scale: tuple[int, int]) -> int | None:
    """The level in a judge's answer on an ordinal criterion: a whole number within `scale`
    (min, max), alone as the style asks; None otherwise (never rounded or clipped)."""
    text = _last_line(answer, style)
    if not re.fullmatch(r"[+-]?\d{1,6}", text):
        return None
    level = int(text)
    return level if scale[0] <= level <= scale[1] else None


def parse_answer(answer: str, style: AnswerStyle | str) -> bool | None:
    """The verdict in a judge's answer: True (met), False (not met), or None when the answer
    is not `true`/`false` as the style asks (case and surrounding blanks aside)."""
    if AnswerStyle(style) is AnswerStyle.BINARY:
        return _WORDS.get(answer.strip().lower())
    lines = [line for line in answer.splitlines() if line.strip()]
    return _WORDS.get(lines[-1].strip().lower()) if lines else None


_PROBABILITY_LINE = re.compile(r"^\s*\**probability\**\s*[:=]\s*(.*?)\s*$", re.IGNORECASE)


def parse_probability(text: str) -> float | None:
    """A probability written as `PROBABILITY_REQUEST` asks: a plain decimal number from 0 to 1
    (``0.8``, ``.8``, ``1``); None for anything else (a percentage, a fraction, an exponent,
    ``nan``, a number out of range), never rounded or clipped."""
    value = text.strip().strip("`*").strip()
    if not re.fullmatch(r"\d{1,3}(\.\d{1,12})?|\.\d{1,12}", value):
        return None
    probability = float(value)
    return probability if 0.0 <= probability <= 1.0 else None


def split_probability(answer: str) -> tuple[str, float | None]:
    """The answer without its ``probability:`` lines, to read the verdict in, and the
    probability on the last of them (None: no such line, or one not readable)."""
    kept: list[str] = []
    stated: str | None = None
    for line in answer.splitlines():
        found = _PROBABILITY_LINE.match(line)
        if found:
            stated = found.group(1)
        else:
            kept.append(line)
    if stated is None:
        return answer, None
    return "\n".join(kept), parse_probability(stated)
