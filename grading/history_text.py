"""How a study's history reads its stored texts in the reader's language (audit.history).

A history event keeps the comment and the values it was written with: in English, from before
their words were translated (gold checks named "item 7 of Pilot", "3 gold checks added") or
because a comment is stored once for every reader (an escalation, an annotator removed). These
patterns read them again, through the catalogue, whatever the event's age."""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from audit import history
from audit.history import Reading
from grading.models import Study, split_reason_label

# User name -> the name shown, for the names met while a page of history is read.
_names_met: ContextVar[dict[str, str] | None] = ContextVar("names_met", default=None)


@contextmanager
def names_looked_up_once() -> Iterator[None]:
    """While a page reads a study's history: each user name its events hold (annotators'
    lists, escalations, removals) is looked up once, not once per event."""
    token = _names_met.set({})
    try:
        yield
    finally:
        _names_met.reset(token)


def shown_names(usernames: list[str]) -> list[str]:
    """People the history stores by user name, named as the page names the one who made the
    change (User.__str__: the display name); a user name no account holds any more as is."""
    met = _names_met.get()
    known = {} if met is None else met
    missing = [name for name in dict.fromkeys(usernames) if name not in known]
    if missing:
        users = {u.username: str(u) for u in User.objects.filter(username__in=missing)}
        known.update({name: users.get(name, name) for name in missing})
    return [known[name] for name in usernames]


def _shown_name(username: str) -> str:
    [shown] = shown_names([username])
    return shown


def _gold_checks_added(found: re.Match[str]) -> str:
    n = int(found["n"])
    return ngettext("%(n)s gold check added", "%(n)s gold checks added", n) % {"n": n}


def _annotator_removed(found: re.Match[str]) -> str:
    n = int(found["n"])
    return ngettext(
        "%(username)s removed; %(n)s unfinished assignment planned again",
        "%(username)s removed; %(n)s unfinished assignments planned again",
        n,
    ) % {"username": _shown_name(found["username"]), "n": n}


def _escalated(found: re.Match[str]) -> str:
    return gettext(
        "Escalated %(task)s (item %(item)s): graders disagree on %(codes)s; %(username)s added."
    ) % (found.groupdict() | {"username": _shown_name(found["username"])})


# The comments the study's services write (grading.escalation, grading.services.changes) and
# the one gold checks were once added with.
COMMENTS: list[Reading] = [
    (re.compile(r"(?P<n>\d+) gold checks? added"), _gold_checks_added),
    (
        re.compile(r"(?P<username>.+) removed; (?P<n>\d+) unfinished assignments planned again"),
        _annotator_removed,
    ),
    (
        re.compile(
            r"Escalated (?P<task>.+) \(item (?P<item>\d+)\): graders disagree on "
            r"(?P<codes>.*); (?P<username>.+) added\."
        ),
        _escalated,
    ),
]

# A gold check was once named "item 7 of Pilot" (added) or "item 7" (removed): now "Pilot #7".
GOLD_CHECKS: list[Reading] = [
    (re.compile(r"item (?P<item>\d+) of (?P<study>.+)"), lambda f: f"{f['study']} #{f['item']}"),
    (re.compile(r"item (?P<item>\d+)"), lambda f: f"#{f['item']}"),
]


def _gold_check_name(text: str) -> str:
    return history.read_text(text, GOLD_CHECKS)


def register() -> None:
    """The study's changes that are no field, the values its changes hold (split reasons by
    key, gold checks by their old names) and its comments, and why a flag opened a draft of a
    criterion (grading.apps)."""
    from grading.flags import FLAGGED
    from rubrics.models import Criterion

    history.register(Criterion, messages=FLAGGED.values())
    history.register(
        Study,
        labels={
            "gold_checks": _("gold checks"),
            "annotators": _("annotators"),
            "graders": _("graders of the response"),
            "likert_questions": _("rating questions"),
        },
        values={"split_reasons": split_reason_label, "gold_checks": _gold_check_name},
        lists={"annotators": shown_names},
        comments=COMMENTS,
    )
