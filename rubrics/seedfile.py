"""Reading a universal-criteria file (fixtures/universal_criteria.json layout) into plain values.

Pure: no Django. Every problem is collected with its place in the file, as a `Text`."""

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.messages import gettext_noop
from taxonomy.seedfile import SeedFileError, check_storable

UNIVERSAL_CODE = re.compile(r"^\d{2}u\d+$")
GUIDANCE = ("passes", "fails", "pass_example", "fail_example")


@dataclass(frozen=True)
class UniversalCriterionSpec:
    code: str
    wording: str
    weight: int
    order: int
    passes: str = ""
    fails: str = ""
    pass_example: str = ""
    fail_example: str = ""


@dataclass(frozen=True)
class UniversalCriteriaFile:
    framework: str
    criteria: tuple[UniversalCriterionSpec, ...]


def read_universal_criteria(path: Path) -> UniversalCriteriaFile:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, json.JSONDecodeError) as exc:
        raise SeedFileError(
            [gettext_noop("%(file)s: %(error)s", file=str(path), error=str(exc))]
        ) from exc
    check_storable(data, str(path))
    return parse_universal_criteria(data, str(path))


def parse_universal_criteria(data: Any, source: str = "file") -> UniversalCriteriaFile:
    problems: list[str] = []
    if not isinstance(data, dict) or not isinstance(data.get("criteria"), list):
        raise SeedFileError(
            [gettext_noop("%(file)s: expected an object with a 'criteria' list.", file=source)]
        )
    specs: list[UniversalCriterionSpec] = []
    seen: set[str] = set()
    for position, item in enumerate(data["criteria"], start=1):
        where = gettext_noop("%(file)s: criterion %(number)s", file=source, number=position)
        if not isinstance(item, dict):
            problems.append(gettext_noop("%(where)s: expected an object.", where=where))
            continue
        code = str(item.get("code", "")).strip()
        wording = str(item.get("wording", "")).strip()
        weight = item.get("weight")
        if not UNIVERSAL_CODE.match(code):
            problems.append(
                gettext_noop("%(where)s: code '%(code)s' is not like 06u1.", where=where, code=code)
            )
        elif code in seen:
            problems.append(
                gettext_noop("%(where)s: code %(code)s appears twice.", where=where, code=code)
            )
        seen.add(code)
        if not wording:
            problems.append(
                gettext_noop("%(where)s (%(code)s): wording is missing.", where=where, code=code)
            )
        if isinstance(weight, bool) or not isinstance(weight, int) or weight == 0:
            problems.append(
                gettext_noop(
                    "%(where)s (%(code)s): weight must be a non-zero integer, got %(weight)s.",
                    where=where,
                    code=code,
                    weight=repr(weight),
                )
            )
            weight = 0
        guidance = {name: str(item.get(name, "") or "").strip() for name in GUIDANCE}
        specs.append(UniversalCriterionSpec(code, wording, weight, position, **guidance))
    if problems:
        raise SeedFileError(problems)
    return UniversalCriteriaFile(str(data.get("framework", "")).strip(), tuple(specs))
