"""How a study's history reads its stored texts in the reader's language (audit.AuditEvent).

A history event keeps the comment and the values it was written with: in English, from before
their words were translated (gold checks named "item 7 of Pilot", "3 gold checks added") or
because a comment is stored once for every reader (an escalation, an annotator removed). These
patterns read them again, through the catalogue, whatever the event's age."""

import re

from django.utils.translation import gettext, ngettext

from audit.models import Reading


def _gold_checks_added(found: re.Match[str]) -> str:
    n = int(found["n"])
    return ngettext("%(n)s gold check added", "%(n)s gold checks added", n) % {"n": n}


def _annotator_removed(found: re.Match[str]) -> str:
    n = int(found["n"])
    return ngettext(
        "%(username)s removed; %(n)s unfinished assignment planned again",
        "%(username)s removed; %(n)s unfinished assignments planned again",
        n,
    ) % {"username": found["username"], "n": n}


def _escalated(found: re.Match[str]) -> str:
    return (
        gettext(
            "Escalated %(task)s (item %(item)s): graders disagree on %(codes)s; %(username)s added."
        )
        % found.groupdict()
    )


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
