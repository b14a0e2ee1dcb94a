"""JSON Lines: one JSON object per line, streamed, every bad line reported by its number.

Blank lines are skipped; a UTF-8 byte-order mark on the first line is ignored. ``NaN`` and
``Infinity`` (which Python's ``json`` accepts but JSON does not) and a key given twice in one
object are reported, not silently read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from .problems import Problem, Text, describe, gettext_noop

__all__ = [
    "LARGEST_INTEGER",
    "MAX_LINE_BYTES",
    "MAX_VALUES",
    "NUL_REFUSED",
    "FieldReader",
    "JsonRefused",
    "iter_jsonl",
    "loads",
    "nul_in",
    "too_many_values",
    "unstorable_in",
    "values_in",
]

# No id, count, weight or epoch needs more; Python itself refuses to read 4,300 digits and more.
MAX_INTEGER_DIGITS = 18
# The largest value the database's integer columns hold (PostgreSQL's `integer`).
LARGEST_INTEGER = 2**31 - 1
# Values one JSON text may hold (as `values_in` counts them): a million take about 70 MB once
# read, whatever their size in the text, where `[{},{},...]` needs three bytes each.
MAX_VALUES = 1_000_000
# Bytes of one line of JSON Lines, read whole: the longest response or dialogue is far shorter.
MAX_LINE_BYTES = 32 * 1024 * 1024


def values_in(text: str | bytes) -> int:
    """How many values reading `text` would make, counted in the text before anything is
    built, never too few: every value after the first of a list or object follows a comma,
    and every list or object opens with a bracket (those inside strings count one more)."""
    if isinstance(text, bytes):
        return text.count(b",") + text.count(b"[") + text.count(b"{") + 1
    return text.count(",") + text.count("[") + text.count("{") + 1


def too_many_values(text: str | bytes, most: int = MAX_VALUES) -> Text | None:
    """Why `text` is refused before it is read (it holds more than `most` values), or None."""
    found = values_in(text)
    if found <= most:
        return None
    return gettext_noop(
        "holds about %(found)s values, more than the %(most)s read at once",
        found=f"{found:,}",
        most=f"{most:,}",
    )


class JsonRefused(ValueError):
    """Text that is not JSON this project reads; the message says why, for a person."""

    def __init__(self, message: str, path: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.message, self.path = message, path


class _LongNumber:
    """An integer too long to read, kept in place so the field holding it can be named."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _integer(text: str) -> int | _LongNumber:
    digits = len(text.lstrip("-"))
    return int(text) if digits <= MAX_INTEGER_DIGITS else _LongNumber(digits)


def _long_number(value: Any, path: tuple[str | int, ...] = ()) -> JsonRefused | None:
    if isinstance(value, _LongNumber):
        message = gettext_noop(
            "a number of %(digits)s digits (at most %(most)s)",
            digits=value.digits,
            most=MAX_INTEGER_DIGITS,
        )
        return JsonRefused(message, path)
    if isinstance(value, dict):
        children: Iterator[tuple[str | int, Any]] = iter(value.items())
    elif isinstance(value, list):
        children = enumerate(value)
    else:
        return None
    for key, child in children:
        if (found := _long_number(child, (*path, key))) is not None:
            return found
    return None


NUL_REFUSED = gettext_noop("holds the NUL character (\\u0000), which the database cannot store")
_NUL_KEY = gettext_noop("a key holds the NUL character (\\u0000), which the database cannot store")
# A lone half of a UTF-16 surrogate pair (JSON's "\\ud800" escape) decodes to a string that no
# UTF-8 encoder, hence no database, page or log, accepts. An escaped pair is one character.
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")


def _surrogate(text: str, *, key: bool = False) -> Text | None:
    found = _SURROGATE.search(text)
    if found is None:
        return None
    code = f"\\u{ord(found.group()):04x}"
    if key:
        return gettext_noop(
            "a key holds %(code)s, half of a surrogate pair and not a character, which cannot "
            "be stored",
            code=code,
        )
    return gettext_noop(
        "holds %(code)s, half of a surrogate pair and not a character, which cannot be stored",
        code=code,
    )


def _nul(text: str, *, key: bool = False) -> Text | None:
    if "\x00" not in text:
        return None
    return _NUL_KEY if key else NUL_REFUSED


def _first_refused(
    value: Any, refuse: Callable[..., Text | None], path: tuple[str | int, ...] = ()
) -> JsonRefused | None:
    """The first text or key of `value` that `refuse` has a message for, with where it is."""
    if isinstance(value, str):
        message = refuse(value)
        return None if message is None else JsonRefused(message, path)
    if isinstance(value, dict):
        for key, child in value.items():
            if (message := refuse(key, key=True)) is not None:
                return JsonRefused(message, path)
            if (found := _first_refused(child, refuse, (*path, key))) is not None:
                return found
    elif isinstance(value, list):
        for index, child in enumerate(value):
            if (found := _first_refused(child, refuse, (*path, index))) is not None:
                return found
    return None


def nul_in(value: Any, path: tuple[str | int, ...] = ()) -> JsonRefused | None:
    """The first text (or key) of `value` holding the NUL character, which PostgreSQL refuses
    in text and JSON columns."""
    return _first_refused(value, _nul, path)


def unstorable_in(value: Any) -> JsonRefused | None:
    """The first text (or key) of `value` that no database stores: one holding NUL or half of
    a surrogate pair."""
    return _first_refused(
        value, lambda text, key=False: _nul(text, key=key) or _surrogate(text, key=key)
    )


def loads(text: str) -> Any:
    """``json.loads`` for text from outside: refuses ``NaN``, a key given twice, nesting deeper
    than Python's reader follows, integers longer than ``MAX_INTEGER_DIGITS`` and half of a
    surrogate pair (``"\\ud800"``), each with a ``JsonRefused`` whose ``path`` names where (keys
    and list indexes)."""
    if text.startswith("\ufeff"):  # as json.loads says it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    if (too_many := too_many_values(text)) is not None:
        raise JsonRefused(too_many)
    try:
        value = _DECODER.decode(text)
        # The reader follows deeper nesting than Python's recursion limit: walking a value
        # the reader accepted can be what overflows.
        long_number = _long_number(value)
    except RecursionError:
        raise JsonRefused(gettext_noop("nested too deeply")) from None
    if long_number is not None:
        raise long_number
    if _MAYBE_SURROGATE.search(text) and (found := _first_refused(value, _surrogate)) is not None:
        raise found
    return value


def _no_constants(name: str) -> Any:
    raise JsonRefused(gettext_noop("%(name)s is not JSON", name=name))


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise JsonRefused(gettext_noop("key '%(key)s' appears twice", key=key))
        result[key] = value
    return result


# Why Python's JSON reader refused a text, in its own English words, translated where the
# problem is read (any other reason is shown as the reader gave it).
DECODER_REASONS: dict[str, Text] = {
    reason: reason
    for reason in (
        gettext_noop("Expecting value"),
        gettext_noop("Expecting property name enclosed in double quotes"),
        gettext_noop("Expecting ':' delimiter"),
        gettext_noop("Expecting ',' delimiter"),
        gettext_noop("Extra data"),
        gettext_noop("Unterminated string starting at"),
        gettext_noop("Invalid control character at"),
        gettext_noop("Invalid \\escape"),
        gettext_noop("Invalid \\uXXXX escape"),
        gettext_noop("Illegal trailing comma before end of object"),
        gettext_noop("Illegal trailing comma before end of array"),
        gettext_noop("Unexpected UTF-8 BOM (decode using utf-8-sig)"),
    )
}


def decoder_reason(reason: str) -> str:
    """A JSONDecodeError's `msg` as a message translated where it is read."""
    return DECODER_REASONS.get(reason, reason)


# One decoder for every line: json.loads with hooks builds a new one per call.
_DECODER = json.JSONDecoder(
    parse_constant=_no_constants, object_pairs_hook=_unique_keys, parse_int=_integer
)


def iter_jsonl(path: Path, problems: list[Problem]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each good line; append a problem for each bad one.

    Line numbers count from 1 and include blank lines, as an editor shows them.
    """
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        problems.append(Problem(path.name, None, None, gettext_noop("file not found")))
        return
    with handle:
        for number, raw in enumerate(_lines(handle), start=1):
            if raw is None:
                message = gettext_noop(
                    "longer than %(most)s bytes: not read", most=f"{MAX_LINE_BYTES:,}"
                )
                problems.append(Problem(path.name, number, None, message))
                continue
            obj = _parse_line(raw.removeprefix(b"\xef\xbb\xbf") if number == 1 else raw)
            if isinstance(obj, str):
                problems.append(Problem(path.name, number, None, obj))
            elif isinstance(obj, JsonRefused):
                field = ".".join(str(key) for key in obj.path)
                problems.append(Problem(path.name, number, field, obj.message))
            elif obj is not None:
                yield number, obj


def _lines(handle: BinaryIO) -> Iterator[bytes | None]:
    """The file's lines, each read whole only when at most MAX_LINE_BYTES long: a longer one
    is skipped in pieces (and given as None), so one line never holds the worker's memory."""
    while raw := handle.readline(MAX_LINE_BYTES + 1):
        if len(raw) <= MAX_LINE_BYTES or raw.endswith(b"\n"):
            yield raw
            continue
        while (rest := handle.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
            pass
        yield None


def _parse_line(raw: bytes) -> dict[str, Any] | JsonRefused | str | None:
    """The object on a line, ``None`` for a blank line, or the problem."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return gettext_noop(
            "not valid UTF-8 (%(reason)s at byte %(byte)s)", reason=error.reason, byte=error.start
        )
    if not text.strip():
        return None
    try:
        value = loads(text)
    except json.JSONDecodeError as error:
        return gettext_noop(
            "not valid JSON (%(reason)s at column %(column)s)",
            reason=decoder_reason(error.msg),
            column=error.colno,
        )
    except JsonRefused as error:
        return (
            error
            if error.path
            else gettext_noop("not valid JSON (%(reason)s)", reason=error.message)
        )
    if not isinstance(value, dict):
        return gettext_noop("expected an object, got %(got)s", got=describe(value))
    # NUL reaches a decoded text only as the escape \\u0000 (a raw one is refused above).
    if ("\\u0000" in text or "\x00" in text) and (nul := nul_in(value)) is not None:
        return nul if nul.path else nul.message
    return value


class FieldReader:
    """Typed access to one JSON object's fields, reporting each wrong field as a problem."""

    def __init__(self, file: str, line: int | None, obj: dict[str, Any], problems: list[Problem]):
        self.file, self.line, self.obj, self.problems = file, line, obj, problems
        self.failed = False

    def report(self, field: str | None, message: str) -> None:
        self.failed = True
        self.problems.append(Problem(self.file, self.line, field, message))

    def text(self, key: str, *, required: bool = True, allow_int: bool = False) -> str | None:
        """A non-empty string (or, with ``allow_int``, an integer kept as its text)."""
        value = self.obj.get(key)
        if value is None:
            if required:
                self.report(key, gettext_noop("is missing"))
            return None
        if allow_int and isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            if allow_int:
                message = gettext_noop(
                    "expected a string or an integer, got %(got)s", got=describe(value)
                )
            else:
                message = gettext_noop("expected a string, got %(got)s", got=describe(value))
            self.report(key, message)
            return None
        if not value.strip():
            self.report(key, gettext_noop("is empty"))
            return None
        return value

    def free_text(self, key: str, default: str = "") -> str:
        """Any string, empty allowed; missing or null gives ``default``."""
        value = self.obj.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            self.report(key, gettext_noop("expected a string, got %(got)s", got=describe(value)))
            return default
        return value

    def probability(self, key: str) -> float | None:
        """A number from 0 to 1 (booleans and texts refused); missing or null gives None."""
        value = self.obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.report(key, gettext_noop("expected a number, got %(got)s", got=describe(value)))
            return None
        if not 0 <= value <= 1:  # NaN too
            self.report(
                key, gettext_noop("must be a probability from 0 to 1, got %(got)s", got=value)
            )
            return None
        return float(value)

    def integer(
        self,
        key: str,
        *,
        default: int | None,
        minimum: int | None = None,
        maximum: int = LARGEST_INTEGER,
    ) -> int | None:
        """An integer (booleans and floats refused) from ``minimum`` to ``maximum`` (by default
        what the database's integer columns hold); missing gives ``default`` or a problem."""
        value = self.obj.get(key)
        if value is None:
            if default is None:
                self.report(key, gettext_noop("is missing"))
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            self.report(key, gettext_noop("expected an integer, got %(got)s", got=describe(value)))
            return default
        if minimum is not None and value < minimum:
            self.report(
                key,
                gettext_noop("must be at least %(least)s, got %(got)s", least=minimum, got=value),
            )
            return default
        if value > maximum:
            self.report(
                key,
                gettext_noop(
                    "must be at most %(most)s, got %(got)s", most=f"{maximum:,}", got=f"{value:,}"
                ),
            )
            return default
        return value
