"""Reading taxonomy and context-variable files (the L2-Bench seed layout) into plain values.

Pure: no Django. Every problem is collected with the file and the place in it, so a person can fix
the whole file in one pass; each is a `Text`, shown in the reader's language
(`l2annot.shown.message_text`).
"""

import json
import re
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from l2annot.messages import gettext_noop

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
                    error=exc.msg,
                )
            ]
        ) from exc
    except OSError as exc:
        raise SeedFileError(
            [
                gettext_noop(
                    "%(file)s: cannot be read (%(error)s)", file=path.name, error=exc.strerror
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


def _listed(path: Path, key: str) -> list[Any]:
    """The list a seed file holds under `key` (or the file's top-level list)."""
    data = _load_json(path)
    listed = data.get(key) if isinstance(data, dict) else data
    if not isinstance(listed, list):
        raise SeedFileError(
            [gettext_noop("%(file)s: expected a list under '%(key)s'", file=path.name, key=key)]
        )
    return listed


def _text(obj: dict[str, Any], key: str, where: str, problems: list[str], required: bool) -> str:
    value = obj.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        problems.append(
            gettext_noop(
                "%(where)s: field '%(key)s' must be text, not %(type)s",
                where=where,
                key=key,
                type=type(value).__name__,
            )
        )
        return ""
    if required and not value.strip():
        problems.append(gettext_noop("%(where)s: field '%(key)s' is empty", where=where, key=key))
    return value.strip()


def read_taxonomy(path: Path) -> FrameworkSpec:
    data = _load_json(path)
    problems: list[str] = []
    name = path.name
    if not isinstance(data, dict) or not isinstance(data.get("framework"), dict):
        raise SeedFileError(
            [
                gettext_noop(
                    "%(file)s: expected an object with 'framework' and 'competencies'", file=name
                )
            ]
        )
    fw = data["framework"]
    fw_where = gettext_noop("%(file)s: framework", file=name)
    fw_code = _text(fw, "code", fw_where, problems, required=True)
    fw_name = _text(fw, "name", fw_where, problems, required=True)
    raw_competencies = data.get("competencies")
    if not isinstance(raw_competencies, list):
        raise SeedFileError(
            [gettext_noop("%(file)s: field 'competencies' must be a list", file=name)]
        )
    seen_codes: set[str] = set()
    competencies = []
    for i, raw in enumerate(raw_competencies, start=1):
        where = gettext_noop("%(file)s: competency %(number)s", file=name, number=i)
        if not isinstance(raw, dict):
            problems.append(gettext_noop("%(where)s: must be an object", where=where))
            continue
        code = _text(raw, "code", where, problems, required=True)
        if code in seen_codes:
            problems.append(
                gettext_noop("%(where)s: duplicate code %(code)s", where=where, code=code)
            )
        seen_codes.add(code)
        subs = []
        for j, sub in enumerate(raw.get("sub_competencies") or [], start=1):
            sub_where = gettext_noop(
                "%(where)s (%(code)s), sub-competency %(number)s", where=where, code=code, number=j
            )
            if not isinstance(sub, dict):
                problems.append(gettext_noop("%(where)s: must be an object", where=sub_where))
                continue
            sub_code = _text(sub, "code", sub_where, problems, required=True)
            if sub_code in seen_codes:
                problems.append(
                    gettext_noop(
                        "%(where)s: duplicate code %(code)s", where=sub_where, code=sub_code
                    )
                )
            seen_codes.add(sub_code)
            subs.append(
                SubCompetencySpec(
                    code=sub_code,
                    name=_text(sub, "name", sub_where, problems, required=True),
                    order=_order(sub, j, sub_where, problems),
                    description=_text(sub, "description", sub_where, problems, required=False),
                )
            )
        competencies.append(
            CompetencySpec(
                code=code,
                name=_text(raw, "name", where, problems, required=True),
                order=_order(raw, i, where, problems),
                description=_text(raw, "description", where, problems, required=False),
                sub_competencies=tuple(subs),
            )
        )
    if problems:
        raise SeedFileError(problems)
    return FrameworkSpec(
        code=fw_code,
        name=fw_name,
        note=_text(fw, "note", name, problems, required=False),
        description=_text(fw, "description", name, problems, required=False),
        competencies=tuple(competencies),
    )


def _order(obj: dict[str, Any], default: int, where: str, problems: list[str]) -> int:
    value = obj.get("order", default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(
            gettext_noop(
                "%(where)s: field 'order' must be a whole number >= 0, not %(value)s",
                where=where,
                value=repr(value),
            )
        )
        return default
    return value


def _decimal(value: Any, where: str, problems: list[str]) -> Decimal | None:
    if value is None:
        return None
    try:
        if isinstance(value, bool):
            raise InvalidOperation
        return Decimal(str(value))
    except InvalidOperation:
        problems.append(
            gettext_noop("%(where)s: %(value)s is not a number", where=where, value=repr(value))
        )
        return None


def read_context_variables(path: Path) -> tuple[VariableSpec, ...]:
    name = path.name
    raw_variables = _listed(path, "context_variables")
    problems: list[str] = []
    seen: set[str] = set()
    variables = []
    for i, raw in enumerate(raw_variables, start=1):
        where = gettext_noop("%(file)s: variable %(number)s", file=name, number=i)
        if not isinstance(raw, dict):
            problems.append(gettext_noop("%(where)s: must be an object", where=where))
            continue
        key = _text(raw, "key", where, problems, required=True)
        where = gettext_noop("%(where)s (%(key)s)", where=where, key=key)
        if key in seen:
            problems.append(gettext_noop("%(where)s: duplicate key", where=where))
        seen.add(key)
        kind = _text(raw, "kind", where, problems, required=True)
        if kind and kind not in KINDS:
            problems.append(
                gettext_noop(
                    "%(where)s: kind '%(kind)s' is not one of %(kinds)s",
                    where=where,
                    kind=kind,
                    kinds=", ".join(KINDS),
                )
            )
        raw_values = raw.get("values")
        scale = _text(raw, "scale", where, problems, required=False)
        if scale and kind != "ordinal":
            problems.append(
                gettext_noop(
                    "%(where)s: only an ordinal variable takes a scale's levels", where=where
                )
            )
        if scale and raw_values is None:
            raw_values = []  # the scale's levels are the values
        values: list[ValueSpec] = []
        minimum = maximum = None
        whole = False
        if kind == "number":
            bounds = raw_values if isinstance(raw_values, dict) else {}
            minimum = _decimal(
                bounds.get("min"), gettext_noop("%(where)s: min", where=where), problems
            )
            maximum = _decimal(
                bounds.get("max"), gettext_noop("%(where)s: max", where=where), problems
            )
            if minimum is not None and maximum is not None and minimum > maximum:
                problems.append(
                    gettext_noop(
                        "%(where)s: min %(minimum)s is above max %(maximum)s",
                        where=where,
                        minimum=str(minimum),
                        maximum=str(maximum),
                    )
                )
            whole = bounds.get("whole", False)
            if not isinstance(whole, bool):
                problems.append(
                    gettext_noop(
                        "%(where)s: 'whole' must be true or false, not %(value)s",
                        where=where,
                        value=repr(whole),
                    )
                )
                whole = False
        elif kind in ("categorical", "ordinal", "boolean"):
            if not isinstance(raw_values, list) or (not raw_values and not scale):
                problems.append(
                    gettext_noop(
                        "%(where)s: a %(kind)s variable needs a non-empty list of values",
                        where=where,
                        kind=kind,
                    )
                )
                raw_values = []
            codes: set[str] = set()
            for j, label in enumerate(raw_values, start=1):
                if not isinstance(label, str) or not label.strip():
                    problems.append(
                        gettext_noop(
                            "%(where)s: value %(number)s must be non-empty text",
                            where=where,
                            number=j,
                        )
                    )
                    continue
                code = value_code(label)
                if code in codes:
                    problems.append(
                        gettext_noop(
                            "%(where)s: value %(number)s '%(label)s' repeats an earlier value",
                            where=where,
                            number=j,
                            label=label,
                        )
                    )
                codes.add(code)
                values.append(ValueSpec(code=code, label=label.strip(), order=j))
        variables.append(
            VariableSpec(
                key=key,
                label=_text(raw, "label", where, problems, required=True),
                kind=kind,
                order=_order(raw, i, where, problems),
                group=_text(raw, "group", where, problems, required=False),
                description=_text(raw, "description", where, problems, required=False),
                source=_text(raw, "source", where, problems, required=False),
                minimum=minimum,
                maximum=maximum,
                whole_numbers=whole,
                values=tuple(values),
                scale=scale,
            )
        )
    if problems:
        raise SeedFileError(problems)
    return tuple(variables)


def read_scales(path: Path) -> tuple[ScaleSpec, ...]:
    """Proficiency scales: `{"proficiency_scales": [{"code", "name", "levels": [...]}]}`, a level
    being its label or `{"label", "description", "corresponds_to": {"scale", "level", "up_to"}}`
    (levels named by label or code; `up_to` only for a range)."""
    name = path.name
    raw_scales = _listed(path, "proficiency_scales")
    problems: list[str] = []
    scales = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_scales, start=1):
        where = gettext_noop("%(file)s: scale %(number)s", file=name, number=i)
        if not isinstance(raw, dict):
            problems.append(gettext_noop("%(where)s: must be an object", where=where))
            continue
        code = _text(raw, "code", where, problems, required=True)
        where = gettext_noop("%(where)s (%(code)s)", where=where, code=code)
        if code in seen:
            problems.append(gettext_noop("%(where)s: duplicate code", where=where))
        seen.add(code)
        raw_levels = raw.get("levels")
        if not isinstance(raw_levels, list) or not raw_levels:
            problems.append(
                gettext_noop("%(where)s: needs a non-empty list of levels", where=where)
            )
            raw_levels = []
        levels: list[LevelSpec] = []
        for j, level in enumerate(raw_levels, start=1):
            level_where = gettext_noop("%(where)s, level %(number)s", where=where, number=j)
            entry = {"label": level} if isinstance(level, str) else level
            if not isinstance(entry, dict):
                problems.append(
                    gettext_noop("%(where)s: must be a label or an object", where=level_where)
                )
                continue
            label = _text(entry, "label", level_where, problems, required=True)
            if value_code(label) in {other.code for other in levels}:
                problems.append(
                    gettext_noop(
                        "%(where)s: '%(label)s' repeats an earlier level",
                        where=level_where,
                        label=label,
                    )
                )
            levels.append(
                LevelSpec(
                    code=value_code(label),
                    label=label,
                    order=j,
                    description=_text(entry, "description", level_where, problems, False),
                    corresponds_to=_mapping(entry.get("corresponds_to"), level_where, problems),
                )
            )
        scales.append(
            ScaleSpec(
                code=code,
                name=_text(raw, "name", where, problems, required=True),
                order=_order(raw, i, where, problems),
                description=_text(raw, "description", where, problems, required=False),
                source=_text(raw, "source", where, problems, required=False),
                levels=tuple(levels),
            )
        )
    if problems:
        raise SeedFileError(problems)
    return tuple(scales)


def _mapping(raw: Any, where: str, problems: list[str]) -> tuple[str, str, str] | None:
    if raw is None:
        return None
    where = gettext_noop("%(where)s: corresponds_to", where=where)
    if not isinstance(raw, dict):
        problems.append(
            gettext_noop("%(where)s: must be an object with 'scale' and 'level'", where=where)
        )
        return None
    scale = _text(raw, "scale", where, problems, required=True)
    level = _text(raw, "level", where, problems, required=True)
    upper = _text(raw, "up_to", where, problems, required=False)
    return scale, value_code(level), value_code(upper) if upper else ""
