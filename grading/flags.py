"""Flags: a grader says a criterion is unclear, a response broken, or something else is wrong,
and may set the response aside; a maintainer resolves the flag.

Blindness: a grader reads only the flags they raised (`flags_of`); the study's maintainers
read them all. A skipped response leaves its grader's queue but is never lost: resolving its
flag returns it to them or gives it to another grader of the pool. A criterion found unclear
can open the draft of its next version through rubrics.services.open_draft_version, the path
the judge's triage takes.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from core.messages import gettext_noop
from core.refusals import Conflict
from grading import tallies
from grading.models import (
    Assignment,
    Flag,
    FlagQuerySet,
    Grade,
    LikertRating,
    PoolMember,
    ResultsRevision,
    Study,
    StudyItem,
)
from grading.services.refusals import check_study_open, own_locked
from rubrics import services as rubrics
from rubrics.models import CriterionVersion, RubricItem
from rubrics.models.responses import versions_count

# Why a flag opened a draft of its criterion's next version, in the criterion's history
# (grading.history_text registers them, audit.history).
FLAGGED = {
    Flag.Kind.CRITERION_UNCLEAR: gettext_noop("flagged criterion unclear: %(note)s"),
    Flag.Kind.RESPONSE_BROKEN: gettext_noop("flagged response broken: %(note)s"),
    Flag.Kind.OTHER: gettext_noop("flagged other: %(note)s"),
}


class AlreadyFlagged(Conflict):
    def __init__(self) -> None:
        super().__init__(
            gettext(
                "You have already flagged this and a maintainer has not resolved it yet: "
                "your first flag stands."
            )
        )


class CannotSetAside(Conflict):
    """The assignment's state refuses setting its response aside: it is submitted, or it is
    set aside already (409)."""


class FlagClosed(Conflict):
    def __init__(self, flag: Flag) -> None:
        if flag.resolved_by is None:
            message = gettext("This flag was resolved by another maintainer meanwhile.")
        else:
            message = gettext("This flag was resolved by %(maintainer)s meanwhile.") % {
                "maintainer": flag.resolved_by
            }
        super().__init__(message)
        self.flag = flag


def flags_of(assignment: Assignment) -> FlagQuerySet:
    """The flags the assignment's grader raised on its response: all a grader may see."""
    return Flag.objects.filter(study_item=assignment.study_item_id, by=assignment.annotator_id)


@transaction.atomic
def raise_flag(
    assignment: Assignment,
    *,
    kind: str,
    comment: str,
    criterion_version_id: int | None = None,
    skip: bool = False,
    by: User,
) -> Flag:
    """Flag the assignment's response, or one criterion of its rubric, and with `skip` set the
    response aside (it leaves the grader's queue until a maintainer resolves the flag).

    "Criterion unclear" names a criterion; "Other" says what in its comment. One open flag per
    grader, response and criterion (AlreadyFlagged); a submitted response cannot be skipped."""
    now = timezone.now()
    assignment = own_locked(assignment, by)
    check_study_open(assignment, now)
    comment = comment.strip()
    if kind not in Flag.Kind.values:
        raise ValidationError(
            {"kind": gettext("Choose what is wrong: criterion unclear, response broken or other.")}
        )
    if kind == Flag.Kind.CRITERION_UNCLEAR and criterion_version_id is None:
        raise ValidationError({"criterion_version": gettext("Say which criterion is unclear.")})
    if kind == Flag.Kind.OTHER and not comment:
        raise ValidationError(
            {"comment": gettext("Say what is wrong: a flag of kind “other” needs a comment.")}
        )
    if "\x00" in comment:
        raise ValidationError({"comment": gettext("The comment contains a NUL character.")})
    if (
        criterion_version_id is not None
        and not RubricItem.objects.filter(
            rubric_version_id=assignment.study_item.rubric_version_id,
            criterion_version_id=criterion_version_id,
        ).exists()
    ):
        raise ValidationError(
            {"criterion_version": gettext("This criterion is not part of this response's rubric.")}
        )
    if flags_of(assignment).open().filter(criterion_version_id=criterion_version_id).exists():
        raise AlreadyFlagged()
    if skip:
        if assignment.is_submitted:
            raise CannotSetAside(
                gettext("This response is submitted: it can be flagged but no longer set aside.")
            )
        if assignment.skipped_at is not None:
            raise CannotSetAside(gettext("This response is already set aside."))
        assignment.skipped_at = now
        assignment.save(update_fields=["skipped_at"])
    flag = Flag.objects.create(
        study_item=assignment.study_item,
        criterion_version_id=criterion_version_id,
        kind=kind,
        comment=comment,
        skipped=skip,
        by=by,
    )
    audit.record_creation(flag, ["kind", "criterion_version", "comment", "skipped"], actor=by)
    return flag


@transaction.atomic
def resolve_flag(
    flag: Flag,
    *,
    note: str,
    by: User,
    outcome: str = "",
    reassign_to: User | None = None,
    open_draft: bool = False,
) -> Flag:
    """Resolve an open flag with a note, in the flag's history with who and when.

    A flag that set its response aside says what becomes of it (`outcome`): returned to its
    grader, or given to `reassign_to`, another annotator of the pool who does not grade it yet
    (the grader's unfinished work on it, drafts included, is deleted, as when they leave the
    pool). `open_draft`, on a flag naming a criterion, opens the draft of that criterion's next
    version (rubrics.services.open_draft_version, as the judge's triage does)."""
    locked = (
        Flag.objects.select_for_update(of=("self",))
        .select_related("study_item__study")
        .get(pk=flag.pk)
    )
    if not locked.is_open:
        raise FlagClosed(locked)
    note = note.strip()
    if not note:
        raise ValidationError({"note": gettext("Write what was done about this flag.")})
    skipped = (
        Assignment.objects.select_for_update(of=("self",))
        .filter(study_item=locked.study_item_id, annotator=locked.by_id, skipped_at__isnull=False)
        .first()
        if locked.skipped
        else None
    )
    if not locked.skipped and (outcome or reassign_to):
        raise ValidationError(
            {"outcome": gettext("This flag set no response aside: nothing to return.")}
        )
    # A response set aside whose grader has since left the pool is no longer theirs to return:
    # their unfinished work went back to the planner then.
    if skipped is not None:
        if outcome == Flag.Outcome.RETURNED:
            skipped.skipped_at = None
            skipped.save(update_fields=["skipped_at"])
        elif outcome == Flag.Outcome.REASSIGNED:
            _reassign(skipped, reassign_to, by=by)
        else:
            raise ValidationError(
                {
                    "outcome": gettext(
                        "Say what becomes of the skipped response: return it to its grader "
                        "or give it to another grader."
                    )
                }
            )
        locked.outcome = outcome
        locked.reassigned_to = reassign_to if outcome == Flag.Outcome.REASSIGNED else None
    if open_draft:
        if locked.criterion_version_id is None:
            raise ValidationError({"open_draft": gettext("This flag names no criterion.")})
        version = CriterionVersion.objects.select_related("criterion").get(
            pk=locked.criterion_version_id
        )
        reason = FLAGGED[Flag.Kind(locked.kind)].fill(note=note)
        locked.draft = rubrics.open_draft_version(version.criterion, by, reason=reason)
    locked.status = Flag.Status.RESOLVED
    locked.resolution_note, locked.resolved_by, locked.resolved_at = note, by, timezone.now()
    locked.save()
    audit.record(
        locked,
        AuditEvent.Kind.STATUS,
        by,
        {"status": [Flag.Status.OPEN.value, Flag.Status.RESOLVED.value]}
        | {
            name: [None, value]
            for name, value in audit.snapshot(locked, ["outcome", "reassigned_to", "draft"]).items()
            if value
        },
        comment=note,
    )
    return locked


def reassign_candidates(study: Study, flagged: list[Flag]) -> dict[int, list[User]]:
    """For each flag that set a response aside, the active annotators of the study's pool who
    could take the response: not grading it already. Two queries."""
    items = {flag.study_item_id for flag in flagged if flag.skipped and flag.is_open}
    if not items:
        return {}
    graders: dict[int, set[int]] = defaultdict(set)
    for item_id, user_id in Assignment.objects.filter(study_item__in=items).values_list(
        "study_item", "annotator"
    ):
        graders[item_id].add(user_id)
    pool = [
        member.annotator
        for member in PoolMember.objects.filter(study=study, annotator__is_active=True)
        .select_related("annotator")
        .order_by("annotator__username")
    ]
    return {
        flag.pk: [user for user in pool if user.pk not in graders[flag.study_item_id]]
        for flag in flagged
        if flag.study_item_id in items
    }


def _reassign(skipped: Assignment, to: User | None, *, by: User) -> None:
    if to is None:
        raise ValidationError({"reassign_to": gettext("Choose the grader who takes the response.")})
    item = StudyItem.objects.select_for_update(of=("self",)).get(pk=skipped.study_item_id)
    in_pool = PoolMember.objects.filter(study=item.study_id, annotator=to).exists()
    if not in_pool or not to.is_active:
        raise ValidationError(
            {
                "reassign_to": gettext("%(username)s is not in this study's pool.")
                % {"username": to.username}
            }
        )
    if Assignment.objects.filter(study_item=item, annotator=to).exists():
        raise ValidationError(
            {
                "reassign_to": gettext("%(username)s already grades this response.")
                % {"username": to.username}
            }
        )
    held = Assignment.objects.filter(study_item__study=item.study_id, annotator=to)
    Assignment.objects.create(study_item=item, annotator=to, position=held.next_order())
    Grade.objects.filter(assignment=skipped).delete()
    LikertRating.objects.filter(assignment=skipped).delete()
    skipped.delete()
    if skipped.is_submitted:  # its verdicts were counted (PairTally)
        tallies.refresh([item.pk])
        ResultsRevision.objects.bump(item.study_id)


# ----- what maintainers read ------------------------------------------------------------------
@dataclass
class FlagGroup:
    """Open flags on one criterion (code) or one response (study item), newest first."""

    key: str
    label: str
    flags: list[Flag] = field(default_factory=list)


@dataclass(frozen=True)
class OpenFlags:
    flags: list[Flag]
    by_criterion: list[FlagGroup]
    by_response: list[FlagGroup]


def open_flags(study: Study) -> OpenFlags:
    """The study's open flags, grouped per criterion (flags on a response as a whole in a group
    keyed "") and per response. One query."""
    flags: list[Flag] = list(
        Flag.objects.open()
        .filter(study_item__study=study)
        .select_related("by", "criterion_version__criterion", "study_item__response__task")
        .annotate(response_versions=versions_count("study_item__response__"))
        .order_by("-created_at", "pk")
    )
    by_criterion: dict[str, FlagGroup] = {}
    by_response: dict[int, FlagGroup] = defaultdict(lambda: FlagGroup("", ""))
    for flag in flags:
        if flag.criterion_version is not None:
            code = flag.criterion_version.criterion.code
            by_criterion.setdefault(code, FlagGroup(code, code)).flags.append(flag)
        else:
            whole = by_criterion.setdefault("", FlagGroup("", "The response as a whole"))
            whole.flags.append(flag)
        item = flag.study_item
        group = by_response[item.pk]
        if not group.key:
            group.key = f"item-{item.pk}"
            group.label = gettext("%(task)s, response %(number)s") % {
                "task": item.response.task.key,
                "number": item.pk,
            }
        group.flags.append(flag)
    return OpenFlags(
        flags,
        sorted(by_criterion.values(), key=lambda g: (-len(g.flags), g.key)),
        sorted(by_response.values(), key=lambda g: (-len(g.flags), g.key)),
    )


def open_flag_counts() -> list[tuple[int, str, int]]:
    """(study id, study name, open flags) of every study with open flags, most first: the
    maintainers' home page. One query."""
    rows = (
        Flag.objects.open()
        .values_list("study_item__study", "study_item__study__name")
        .annotate(n=Count("pk"))
        .order_by("-n", "study_item__study__name")
    )
    return [(int(pk), str(name), int(n)) for pk, name, n in rows]
