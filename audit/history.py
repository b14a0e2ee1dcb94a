"""How a history reads what its events hold, in the reader's language.

An event keeps the comment and the values it was written with. A comment written now is a
stored message (`core.messages.gettext_noop`: its English template and values, kept in
`AuditEvent.message`) and needs nothing here. What was stored as English text before, a value
stored by its key, a change that is no field: each app says how its models' histories read
them, once, as it loads (`register` from its `AppConfig.ready`), and `audit.AuditEvent` reads
them for every history page. Several apps may register for one model (an importer's comments
on a task, beside the task's own)."""

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from django.db import models
from django.utils.functional import Promise

from l2annot.shown import message_text

__all__ = ["Reading", "Readings", "read_text", "readings_of", "register", "template_reading"]

# A stored text and how to read it: a pattern it matches whole, and what it reads as then.
type Reading = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]


@dataclass
class Readings:
    """What a model's history reads: the names of its changes that are no field (`labels`),
    how it reads a change's stored values (`values`, by change, each text of a list alone;
    `lists`, by change, a list of texts at once: one query for all, say) and stored comments
    (`comments`, tried in order)."""

    labels: dict[str, str | Promise] = field(default_factory=dict)
    values: dict[str, Callable[[str], str]] = field(default_factory=dict)
    lists: dict[str, Callable[[list[str]], list[str]]] = field(default_factory=dict)
    comments: list[Reading] = field(default_factory=list)


_REGISTERED: dict[str, Readings] = {}


def register(
    model: type[models.Model] | str,
    *,
    labels: Mapping[str, str | Promise] | None = None,
    values: Mapping[str, Callable[[str], str]] | None = None,
    lists: Mapping[str, Callable[[list[str]], list[str]]] | None = None,
    comments: Iterable[Reading] = (),
    messages: Iterable[str] = (),
) -> None:
    """Say how the history of `model` ("app_label.model" or the class) reads its events:
    `messages` are the English templates its comments are written with (`gettext_noop`), so
    that a comment stored as their English text before reads as the message it is."""
    key = _key(model)
    readings = _REGISTERED.setdefault(key, Readings())
    readings.labels.update(labels or {})
    readings.values.update(values or {})
    readings.lists.update(lists or {})
    readings.comments += [*comments, *(template_reading(t, key) for t in messages)]


def readings_of(model: type[models.Model] | None) -> Readings:
    return _REGISTERED.get(_key(model), Readings()) if model is not None else Readings()


def read_text(text: str, readings: Iterable[Reading]) -> str:
    """`text` as the first of `readings` whose pattern it matches whole reads it; else as is."""
    for pattern, reading in readings:
        found = pattern.fullmatch(text)
        if found is not None:
            return reading(found)
    return text


PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])")


def template_reading(template: str, model: type[models.Model] | str | None = None) -> Reading:
    """The reading of a text written as `template % values`: the template, through the
    catalogue, with the values the text holds, each read in its turn as `model`'s history
    reads a comment (a reason that is itself a message)."""
    pattern: list[str] = []
    seen: set[str] = set()
    numbers: set[str] = set()
    start = 0
    for found in PLACEHOLDER.finditer(template):
        pattern.append(re.escape(template[start : found.start()]))
        name, kind = found.groups()
        if name in seen:
            pattern.append(f"(?P={name})")
        else:
            pattern.append(f"(?P<{name}>\\d+)" if kind == "d" else f"(?P<{name}>.*?)")
            seen.add(name)
            if kind == "d":
                numbers.add(name)
        start = found.end()
    pattern.append(re.escape(template[start:]))

    def reading(found: re.Match[str]) -> str:
        comments = _REGISTERED.get(_key(model), Readings()).comments if model else []
        values: dict[str, object] = {
            name: int(text) if name in numbers else read_text(text, comments)
            for name, text in found.groupdict().items()
        }
        return message_text({"text": template, "values": values})

    return re.compile("".join(pattern), re.DOTALL), reading


def _key(model: type[models.Model] | str) -> str:
    return model.lower() if isinstance(model, str) else model._meta.label_lower
