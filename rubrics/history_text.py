"""What the histories of tasks, criteria and responses say of the changes the app makes, as
stored messages (core.messages), and how they read the same comments stored as English text
before (audit.history; rubrics.apps registers them)."""

import re

from audit import history
from core.messages import Text, gettext_noop
from l2annot.shown import message_text

PUBLISHED = gettext_noop("Published as version %(number)s.")
REOPENED = gettext_noop("Edited after publication.")
SUPERSEDED = gettext_noop(
    "Superseded by a new version; what was graded or judged on it stays with it."
)
VERSION = gettext_noop("version %(number)s")
VERSION_CREATED = gettext_noop("version %(number)s created")
VERSION_CREATED_BECAUSE = gettext_noop("version %(number)s created: %(reason)s")
# An edit's comment followed by what it did to the criterion's versions.
COMMENT_AND_NOTE = gettext_noop("%(comment)s %(note)s")


def version_note(number: int, *, created: bool) -> Text:
    return (VERSION_CREATED if created else VERSION).fill(number=number)


def with_note(comment: str, note: str) -> str:
    """`comment` followed by `note`, either of them empty."""
    if comment and note:
        return COMMENT_AND_NOTE.fill(comment=comment, note=note)
    return comment or note


# A criterion's comment stored as English text: an importer's comment (or none) before what it
# did to the versions, and a new version's reason.
_OLD_VERSION_NOTE = re.compile(
    r"(?:(?P<comment>.+) )?version (?P<number>\d+)(?P<created> created)?(?:: (?P<reason>.+))?",
    re.DOTALL,
)


def _old_version_note(found: re.Match[str]) -> str:
    from rubrics.models import Criterion

    comments = history.readings_of(Criterion).comments
    number = int(found["number"])
    if found["reason"]:
        reason = history.read_text(found["reason"], comments)
        note = VERSION_CREATED_BECAUSE.fill(number=number, reason=reason)
    else:
        note = version_note(number, created=bool(found["created"]))
    comment = history.read_text(found["comment"] or "", comments)
    return message_text(with_note(comment, note))


def register() -> None:
    from rubrics.models import Criterion, Response, Task

    history.register(Task, messages=[PUBLISHED, REOPENED])
    history.register(Response, messages=[SUPERSEDED])
    history.register(Criterion, comments=[(_OLD_VERSION_NOTE, _old_version_note)])
