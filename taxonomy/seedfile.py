"""Reading taxonomy and context-variable files (the L2-Bench seed layout) into plain values.

Pure: no Django. Every problem is collected with the file and the place in it, so a person can fix
the whole file in one pass; each is a `Text`, shown in the reader's language
(`l2annot.shown.message_text`).
"""

import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from core.formats.jsonl import decoder_reason
from core.messages import gettext_noop, os_error_reason

KINDS = ("categorical", "ordinal", "boolean", "text", "number")


class SeedFileError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class SubCompetencySpec:
    code: str
    name: str
    order: int
    description: str = ""


@dataclass(frozen=True)
class CompetencySpec:
    code: str
    name: str
    order: int
    description: str = ""
    sub_competencies: tuple[SubCompetencySpec, ...] = ()


@dataclass(frozen=True)
class FrameworkSpec:
    code: str
    name: str
    note: str = ""
    description: str = ""
    competencies: tuple[CompetencySpec, ...] = ()


@dataclass(frozen=True)
class ValueSpec:
    code: str
    label: str
    order: int


@dataclass(frozen=True)
class VariableSpec:
    key: str
    label: str
    kind: str
    order: int
    group: str = ""
    description: str = ""
    source: str = ""
    minimum: Decimal | None = None
    maximum: Decimal | None = None
    whole_numbers: bool = False
    values: tuple[ValueSpec, ...] = field(default=())
    scale: str = ""  # the code of the proficiency scale whose levels are the values


@dataclass(frozen=True)
class LevelSpec:
    code: str
    label: str
    order: int
    description: str = ""
    # (scale code, level code, upper level code or "") of the level it corresponds to
    corresponds_to: tuple[str, str, str] | None = None


@dataclass(frozen=True)
class ScaleSpec:
    code: str
    name: str
    order: int
    description: str = ""
    source: str = ""
    levels: tuple[LevelSpec, ...] = ()


def value_code(label: str) -> str:
    """A stable slug for a value label: 'Pre-A1' -> 'pre-a1', 'young learners (6-11)' ->
    'young-learners-6-11'."""
    ascii_label = unicodedata.normalize("NFKD", label).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_label.lower()).strip("-")
    return slug or "value"


def _load_json(path: Path) -> Any:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise SeedFileError(
            [
                gettext_noop(
                    "%(file)s: line %(line)s: not valid JSON (%(error)s)",
                    file=path.name,
                    line=exc.lineno,
                    error=decoder_reason(exc.msg),
                )
            ]
        ) from exc
    except OSError as exc:
        raise SeedFileError(
            [
                gettext_noop(
                    "%(file)s: cannot be read (%(error)s)",
                    file=path.name,
                    error=os_error_reason(exc),
                )
            ]
        ) from exc
    check_storable(data, path.name)
    return data


# Half of a UTF-16 surrogate pair ("\\ud800" in JSON) is no character: no database stores it.
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_storable(data: Any, source: str) -> None:
    """Refuse a seed file holding, anywhere, a character no database stores (NUL, which
    PostgreSQL refuses, or half of a surrogate pair), naming where: the keys and list
    positions (from 1) that lead to it."""
    found = _unstorable_at(data, ())
    if found is None:
        return
    place = " > ".join(found[0]) or gettext_noop("the top level")
    if found[1] == "\x00":
        message = gettext_noop(
            "%(file)s: %(place)s: holds the NUL character (\\u0000), which the database "
            "cannot store",
            file=source,
            place=place,
        )
    else:
        message = gettext_noop(
            "%(file)s: %(place)s: holds %(code)s, half of a surrogate pair and not a "
            "character, which cannot be stored",
            file=source,
            place=place,
            code=f"\\u{ord(found[1]):04x}",
        )
    raise SeedFileError([message])


def _unstorable(text: str) -> str | None:
    if "\x00" in text:
        return "\x00"
    surrogate = _SURROGATE.search(text)
    return None if surrogate is None else surrogate.group()


def _unstorable_at(value: Any, place: tuple[str, ...]) -> tuple[tuple[str, ...], str] | None:
    if isinstance(value, str):
        character = _unstorable(value)
        return None if character is None else (place, character)
    if isinstance(value, dict):
        children = [(str(key), child) for key, child in value.items()]
    elif isinstance(value, list):
        children = [(str(number), child) for number, child in enumerate(value, start=1)]
    else:
        return None
    for key, child in children:
        if (in_key := _unstorable(key)) is not None:
            return place, in_key
        if (inside := _unstorable_at(child, (*place, key))) is not None:
            return inside
    return None


# The shape of each file is a JSON Schema (taxonomy/schemas/, also the files' reference); what a
# schema cannot say (codes that repeat, a range upside down) is checked below.
SCHEMAS = Path(__file__).with_name("schemas")


@cache
def _validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


type Place = tuple[str | int, ...]


class _Problems:
    """Problems found in one file, each at the place of the item it concerns, reported in the
    order of the file (and of the item's fields)."""

    def __init__(self, field_order: dict[str, int]) -> None:
        self.field_order = field_order
        self.found: dict[str, tuple[int, ...]] = {}

    def add(self, item: Place, message: str, field_name: str = "") -> None:
        # A list inside an item (its sub-competencies) sorts at that field's place in the item.
        place = tuple(part if isinstance(part, int) else self._rank(part) for part in item)
        self.found.setdefault(message, (*place, self._rank(field_name)))

    def _rank(self, field_name: str) -> int:
        return self.field_order.get(field_name, len(self.field_order))

    def raise_any(self) -> None:
        if self.found:
            ordered = sorted(self.found.items(), key=lambda entry: entry[1])
            raise SeedFileError([message for message, _ in ordered])


def _shape(
    problems: _Problems,
    data: Any,
    schema: str,
    where: Callable[[Place], str],
    items: frozenset[str],
) -> None:
    """Every way `data` departs from the file's schema, as a message at its item's place: an
    item is a position in one of the lists named `items`."""
    for error in _validator(schema).iter_errors(data):
        path = tuple(error.absolute_path)
        cut = max((i + 2 for i in range(len(path) - 1) if path[i] in items), default=0)
        item, rest = path[:cut], path[cut:]
        at = where(item)
        entry = data
        for part in item:
            entry = entry[part]
        if error.validator == "required" and not rest and isinstance(entry, dict):
            for key in error.validator_value:
                if key not in entry:
                    problems.add(item, _missing(at, str(key), entry), str(key))
            continue
        is_level = len(item) > 1 and item[-2] == "levels"
        problems.add(item, _wrong(at, rest, error, entry, is_level), str(rest[0]) if rest else "")


def _missing(where: str, key: str, item: dict[str, Any]) -> str:
    if key == "levels":
        return gettext_noop("%(where)s: needs a non-empty list of levels", where=where)
    if key == "values":
        return _needs_values(where, item)
    return gettext_noop("%(where)s: field '%(key)s' is empty", where=where, key=key)


def _needs_values(where: str, item: dict[str, Any]) -> str:
    return gettext_noop(
        "%(where)s: a %(kind)s variable needs a non-empty list of values",
        where=where,
        kind=item.get("kind"),
    )


def _wrong(where: str, rest: Place, error: ValidationError, entry: Any, is_level: bool) -> str:
    """The message for one departure from the schema at `rest` inside the item `entry`."""
    value = error.instance
    if not rest and is_level and error.validator == "pattern":
        return gettext_noop("%(where)s: field '%(key)s' is empty", where=where, key="label")
    if not rest and is_level:
        return gettext_noop("%(where)s: must be a label or an object", where=where)
    if not rest:
        return gettext_noop("%(where)s: must be an object", where=where)
    key = str(rest[0])
    if len(rest) == 1:
        if key == "order":
            return gettext_noop(
                "%(where)s: field 'order' must be a whole number >= 0, not %(value)s",
                where=where,
                value=repr(value),
            )
        if key == "kind" and error.validator == "enum":
            return gettext_noop(
                "%(where)s: kind '%(kind)s' is not one of %(kinds)s",
                where=where,
                kind=value,
                kinds=", ".join(KINDS),
            )
        if key == "levels":
            return gettext_noop("%(where)s: needs a non-empty list of levels", where=where)
        if key == "values" and entry.get("kind") in LISTED:
            return _needs_values(where, entry)
        if key == "values":
            return gettext_noop(
                "%(where)s: a number variable's values are its bounds: an object with 'min', "
                "'max' and 'whole'",
                where=where,
            )
        if key == "corresponds_to" and error.validator == "required":
            required: list[str] = list(error.validator_value)  # type: ignore[arg-type]
            given: dict[str, Any] = value if isinstance(value, dict) else {}
            missing = [name for name in required if name not in given]
            return gettext_noop(
                "%(where)s: field '%(key)s' is empty",
                where=gettext_noop("%(where)s: corresponds_to", where=where),
                key=missing[0],
            )
        if key == "corresponds_to":
            return gettext_noop(
                "%(where)s: must be an object with 'scale' and 'level'",
                where=gettext_noop("%(where)s: corresponds_to", where=where),
            )
        if error.validator == "pattern" or value is None:
            return gettext_noop("%(where)s: field '%(key)s' is empty", where=where, key=key)
        return gettext_noop(
            "%(where)s: field '%(key)s' must be text, not %(type)s",
            where=where,
            key=key,
            type=type(value).__name__,
        )
    if key == "values" and isinstance(rest[1], int):
        return gettext_noop(
            "%(where)s: value %(number)s must be non-empty text", where=where, number=rest[1] + 1
        )
    if key == "values" and rest[1] == "whole":
        return gettext_noop(
            "%(where)s: 'whole' must be true or false, not %(value)s",
            where=where,
            value=repr(value),
        )
    if key == "values":
        return gettext_noop(
            "%(where)s: %(value)s is not a number",
            where=gettext_noop("%(where)s: %(bound)s", where=where, bound=rest[1]),
            value=repr(value),
        )
    inner = entry.get(key) if isinstance(entry, dict) else None
    return _wrong(
        gettext_noop("%(where)s: %(key)s", where=where, key=key), rest[1:], error, inner, False
    )


def _listed(path: Path, key: str) -> list[Any]:
    """The list a seed file holds under `key` (or the file's top-level list)."""
    data = _load_json(path)
    listed = data.get(key) if isinstance(data, dict) else data
    if not isinstance(listed, list):
        raise SeedFileError(
            [gettext_noop("%(file)s: expected a list under '%(key)s'", file=path.name, key=key)]
        )
    return listed


def _text(obj: dict[str, Any], key: str) -> str:
    """The stripped text under `key`, or "" where there is none (or, before the file is found
    valid, something other than text)."""
    value = obj.get(key)
    return value.strip() if isinstance(value, str) else ""


def _entry(items: list[Any], index: int) -> dict[str, Any]:
    entry = items[index] if index < len(items) else None
    return entry if isinstance(entry, dict) else {}


def read_taxonomy(path: Path) -> FrameworkSpec:
    data = _load_json(path)
    name = path.name
    if not isinstance(data, dict) or not isinstance(data.get("framework"), dict):
        raise SeedFileError(
            [
                gettext_noop(
                    "%(file)s: expected an object with 'framework' and 'competencies'", file=name
                )
            ]
        )
    if not isinstance(data.get("competencies"), list):
        raise SeedFileError(
            [gettext_noop("%(file)s: field 'competencies' must be a list", file=name)]
        )
    competencies: list[Any] = data["competencies"]

    def where(item: Place) -> str:
        if not item:
            return name
        if item == ("framework",):
            return gettext_noop("%(file)s: framework", file=name)
        competency = gettext_noop(
            "%(file)s: competency %(number)s", file=name, number=int(item[1]) + 1
        )
        if len(item) == 2:
            return competency
        code = _entry(competencies, int(item[1])).get("code")
        return gettext_noop(
            "%(where)s (%(code)s), sub-competency %(number)s",
            where=competency,
            code=code if isinstance(code, str) else "",
            number=int(item[3]) + 1,
        )

    fields = ["code", "sub_competencies", "name", "order", "description"]
    problems = _Problems({field_name: rank for rank, field_name in enumerate(fields)})
    _shape(problems, data, "taxonomy", where, frozenset({"competencies", "sub_competencies"}))
    seen: set[str] = set()
    for i, raw in enumerate(competencies):
        if not isinstance(raw, dict):
            continue
        for place, entry in [(("competencies", i), raw)] + [
            (("competencies", i, "sub_competencies", j), sub)
            for j, sub in enumerate(raw.get("sub_competencies") or [])
            if isinstance(raw.get("sub_competencies"), list) and isinstance(sub, dict)
        ]:
            code = entry.get("code")
            if isinstance(code, str) and code.strip():
                if code.strip() in seen:
                    problems.add(
                        place,
                        gettext_noop(
                            "%(where)s: duplicate code %(code)s",
                            where=where(place),
                            code=code.strip(),
                        ),
                        "code",
                    )
                seen.add(code.strip())
    problems.raise_any()
    framework = data["framework"]
    return FrameworkSpec(
        code=_text(framework, "code"),
        name=_text(framework, "name"),
        note=_text(framework, "note"),
        description=_text(framework, "description"),
        competencies=tuple(
            CompetencySpec(
                code=_text(raw, "code"),
                name=_text(raw, "name"),
                order=raw.get("order", i),
                description=_text(raw, "description"),
                sub_competencies=tuple(
                    SubCompetencySpec(
                        code=_text(sub, "code"),
                        name=_text(sub, "name"),
                        order=sub.get("order", j),
                        description=_text(sub, "description"),
                    )
                    for j, sub in enumerate(raw.get("sub_competencies") or [], start=1)
                ),
            )
            for i, raw in enumerate(competencies, start=1)
        ),
    )


def read_context_variables(path: Path) -> tuple[VariableSpec, ...]:
    name = path.name
    listed = _listed(path, "context_variables")

    def where(item: Place) -> str:
        if not item:
            return name
        number = int(item[1])
        at = gettext_noop("%(file)s: variable %(number)s", file=name, number=number + 1)
        if not isinstance(listed[number], dict):
            return at
        key = listed[number].get("key")
        return gettext_noop(
            "%(where)s (%(key)s)", where=at, key=key.strip() if isinstance(key, str) else ""
        )

    fields = ["key", "kind", "values", "label", "order", "group", "description", "source", "scale"]
    problems = _Problems({field_name: rank for rank, field_name in enumerate(fields)})
    _shape(
        problems,
        {"context_variables": listed},
        "context_variables",
        where,
        frozenset({"context_variables"}),
    )
    seen: set[str] = set()
    for i, raw in enumerate(listed):
        if not isinstance(raw, dict):
            continue
        place = ("context_variables", i)
        key, kind, raw_values = _text(raw, "key"), raw.get("kind"), raw.get("values")
        if key:
            if key in seen:
                problems.add(
                    place, gettext_noop("%(where)s: duplicate key", where=where(place)), "key"
                )
            seen.add(key)
        if _text(raw, "scale") and kind != "ordinal":
            problems.add(
                place,
                gettext_noop(
                    "%(where)s: only an ordinal variable takes a scale's levels", where=where(place)
                ),
                "scale",
            )
        if kind == "number" and isinstance(raw_values, dict):
            low, high = _number(raw_values.get("min")), _number(raw_values.get("max"))
            if low is not None and high is not None and low > high:
                problems.add(
                    place,
                    gettext_noop(
                        "%(where)s: min %(minimum)s is above max %(maximum)s",
                        where=where(place),
                        minimum=str(low),
                        maximum=str(high),
                    ),
                    "values",
                )
        if kind in LISTED and isinstance(raw_values, list):
            codes: set[str] = set()
            for j, label in enumerate(raw_values, start=1):
                if not isinstance(label, str) or not label.strip():
                    continue
                if value_code(label) in codes:
                    problems.add(
                        place,
                        gettext_noop(
                            "%(where)s: value %(number)s '%(label)s' repeats an earlier value",
                            where=where(place),
                            number=j,
                            label=label,
                        ),
                        "values",
                    )
                codes.add(value_code(label))
    problems.raise_any()
    return tuple(_variable(raw, i) for i, raw in enumerate(listed, start=1))


LISTED = ("categorical", "ordinal", "boolean")


def _number(value: Any) -> Decimal | None:
    """A bound the schema accepted (a JSON number), or None for one it did not."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return Decimal(str(value))


def _variable(raw: dict[str, Any], order: int) -> VariableSpec:
    kind = raw["kind"]
    given = raw.get("values")
    bounds: dict[str, Any] = given if kind == "number" and isinstance(given, dict) else {}
    labels = raw.get("values") or [] if kind in LISTED else []
    return VariableSpec(
        key=_text(raw, "key"),
        label=_text(raw, "label"),
        kind=kind,
        order=raw.get("order", order),
        group=_text(raw, "group"),
        description=_text(raw, "description"),
        source=_text(raw, "source"),
        minimum=_number(bounds.get("min")),
        maximum=_number(bounds.get("max")),
        whole_numbers=bounds.get("whole", False),
        values=tuple(
            ValueSpec(code=value_code(label), label=label.strip(), order=j)
            for j, label in enumerate(labels, start=1)
        ),
        scale=_text(raw, "scale"),
    )


def read_scales(path: Path) -> tuple[ScaleSpec, ...]:
    """Proficiency scales: `{"proficiency_scales": [{"code", "name", "levels": [...]}]}`, a level
    being its label or `{"label", "description", "corresponds_to": {"scale", "level", "up_to"}}`
    (levels named by label or code; `up_to` only for a range)."""
    name = path.name
    listed = _listed(path, "proficiency_scales")

    def where(item: Place) -> str:
        if not item:
            return name
        number = int(item[1])
        at = gettext_noop("%(file)s: scale %(number)s", file=name, number=number + 1)
        if isinstance(listed[number], dict):
            code = listed[number].get("code")
            at = gettext_noop(
                "%(where)s (%(code)s)", where=at, code=code.strip() if isinstance(code, str) else ""
            )
        if len(item) == 2:
            return at
        return gettext_noop("%(where)s, level %(number)s", where=at, number=int(item[3]) + 1)

    fields = ["code", "levels", "label", "description", "corresponds_to", "name", "order", "source"]
    problems = _Problems({field_name: rank for rank, field_name in enumerate(fields)})
    _shape(
        problems,
        {"proficiency_scales": listed},
        "proficiency_scales",
        where,
        frozenset({"proficiency_scales", "levels"}),
    )
    seen: set[str] = set()
    for i, raw in enumerate(listed):
        if not isinstance(raw, dict):
            continue
        place: Place = ("proficiency_scales", i)
        code = _text(raw, "code")
        if code:
            if code in seen:
                problems.add(
                    place, gettext_noop("%(where)s: duplicate code", where=where(place)), "code"
                )
            seen.add(code)
        given = raw.get("levels")
        levels: list[Any] = given if isinstance(given, list) else []
        codes: set[str] = set()
        for j, level in enumerate(levels):
            label = _text(_level(level), "label")
            if not label:
                continue
            if value_code(label) in codes:
                at: Place = (*place, "levels", j)
                problems.add(
                    at,
                    gettext_noop(
                        "%(where)s: '%(label)s' repeats an earlier level",
                        where=where(at),
                        label=label,
                    ),
                    "label",
                )
            codes.add(value_code(label))
    problems.raise_any()
    return tuple(
        ScaleSpec(
            code=_text(raw, "code"),
            name=_text(raw, "name"),
            order=raw.get("order", i),
            description=_text(raw, "description"),
            source=_text(raw, "source"),
            levels=tuple(
                _level_spec(_level(level), j) for j, level in enumerate(raw["levels"], start=1)
            ),
        )
        for i, raw in enumerate(listed, start=1)
    )


def _level(level: Any) -> dict[str, Any]:
    if isinstance(level, str):
        return {"label": level}
    return level if isinstance(level, dict) else {}


def _level_spec(entry: dict[str, Any], order: int) -> LevelSpec:
    label = _text(entry, "label")
    mapping = entry.get("corresponds_to")
    corresponds_to = None
    if mapping:
        upper = _text(mapping, "up_to")
        corresponds_to = (
            _text(mapping, "scale"),
            value_code(_text(mapping, "level")),
            value_code(upper) if upper else "",
        )
    return LevelSpec(
        code=value_code(label),
        label=label,
        order=order,
        description=_text(entry, "description"),
        corresponds_to=corresponds_to,
    )
