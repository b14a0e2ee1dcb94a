"""Messages written now and read later, in the reader's language: an import's problems, a judge
run's, why a statistic of a cached report is undefined.

Pure (no Django), so the pure cores can write them. A message is a `Text`: English text that
keeps its template and values, made with `gettext_noop(template, **values)` or, with a plural,
`Text.ngettext(singular, plural, number, **values)` (names Django's `makemessages` looks for,
so the templates reach the catalogue); `l2annot.shown.message_text` shows it in the language
of whoever reads it.
"""

from __future__ import annotations

import errno
from collections.abc import Iterable

__all__ = [
    "StoredMessage",
    "Text",
    "gettext_noop",
    "listed",
    "os_error_reason",
    "stored_message",
]

# A stored message: plain text (not translatable), or a Text's template and values.
type StoredMessage = str | dict[str, object]


class Text(str):
    """English text that remembers how it was made: an English `template` with ``%(name)s``
    placeholders and the `values` that fill them (texts, numbers, or other `Text`s, translated
    in their turn, or lists of them, read as their items), so that it can be shown in another
    language where it is read."""

    template: str
    values: dict[str, object]
    plural: str | None = None
    number: str | None = None

    def __new__(cls, template: str, /, **values: object) -> Text:
        text = super().__new__(
            cls, template % {k: _listed(v) for k, v in values.items()} if values else template
        )
        text.template, text.values = template, values
        return text

    @classmethod
    def ngettext(cls, singular: str, plural: str, number: str, /, **values: object) -> Text:
        """A message with a singular and a plural form, chosen by the value named `number`
        as `ngettext` chooses them in each language (`makemessages` reads the name: both
        forms must be literals)."""
        count = values[number]
        text = cls(singular if count == 1 else plural, **values)
        text.template, text.plural, text.number = singular, plural, number
        return text

    def fill(self, /, **values: object) -> Text:
        """The same message with `values`: a template declared once, as a `gettext_noop`
        literal (a history's comment, which its readers also match old texts against), and
        filled where the message is written."""
        return Text(self.template, **values)

    def as_json(self) -> dict[str, object]:
        """``{"text": template, "values": {...}}``, each value JSON (a Text as its own dict);
        a message with a plural adds ``"plural"`` and the ``"number"`` value's name."""
        stored: dict[str, object] = {
            "text": self.template,
            "values": {k: _json(v) for k, v in self.values.items()},
        }
        if self.plural is not None:
            stored |= {"plural": self.plural, "number": self.number}
        return stored


def listed(items: Iterable[object]) -> str:
    """Values read as one text: a message's list value, in English as in every translation."""
    return ", ".join(str(item) for item in items)


def _listed(value: object) -> object:
    return listed(value) if isinstance(value, list) else value


def _json(value: object) -> object:
    if isinstance(value, Text):
        return value.as_json()
    if isinstance(value, list):
        return [_json(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def gettext_noop(template: str, /, **values: object) -> Text:
    """`template` filled with `values`, in English now, translatable where it is shown.

    The name is the one Django's `makemessages` marks for the catalogue without translating
    (this module imports no Django): the template must be a literal."""
    return Text(template, **values)


def stored_message(message: str) -> StoredMessage:
    return message.as_json() if isinstance(message, Text) else str(message)


# Why a file could not be read, in the words Linux gives (strerror), translated where shown.
_OS_REASONS = {
    errno.ENOENT: gettext_noop("No such file or directory"),
    errno.EACCES: gettext_noop("Permission denied"),
    errno.EPERM: gettext_noop("Operation not permitted"),
    errno.EISDIR: gettext_noop("Is a directory"),
    errno.ENOTDIR: gettext_noop("Not a directory"),
    errno.ENAMETOOLONG: gettext_noop("File name too long"),
    errno.ELOOP: gettext_noop("Too many levels of symbolic links"),
    errno.EIO: gettext_noop("Input/output error"),
}


def os_error_reason(error: OSError) -> str:
    """Why `error` stopped a read, as a message translated where it is read (the system's
    own words for a reason not listed)."""
    known = _OS_REASONS.get(error.errno) if error.errno is not None else None
    return known if known is not None else error.strerror or str(error)
