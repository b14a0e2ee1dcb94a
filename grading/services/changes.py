"""Changing a study after creation: its status, pool, settings and 1-5 questions."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from core.refusals import NotFound
from grading import deadlines
from grading.models import (
    Assignment,
    Grade,
    LikertItem,
    LikertRating,
    PoolMember,
    Study,
    check_graders,
    question_keys,
)
from grading.services.refusals import QuestionsAnswered, StudyClosed
from grading.services.setup import assign_study


@transaction.atomic
def set_status(study: Study, status: Study.Status, *, by: User | None = None) -> None:
    """Close or reopen the study; the webhooks are told of a closing (once: a study already
    closed by its deadline was told then, grading.deadlines)."""
    if study.status == status:
        return
    audit.record(study, AuditEvent.Kind.STATUS, by, {"status": [study.status, status.value]})
    study.status = status
    study.save(update_fields=["status"])
    deadlines.settle(study)


def _pool_names(study: Study) -> list[str]:
    return sorted(study.pool.values_list("annotator__username", flat=True))


def _replan_unstarted(study: Study) -> int:
    """Plan again every assignment nobody has opened or answered (no grade, no rating), with
    the pool as it is now: the planner balances the loads, counting the work already started.
    An assignment being opened meanwhile is kept (the delete re-reads its status)."""
    Assignment.objects.filter(
        study_item__study=study,
        status=Assignment.Status.ASSIGNED,
        started_at__isnull=True,
        grades__isnull=True,
        likert_ratings__isnull=True,
    ).delete()
    return assign_study(study)


@transaction.atomic
def add_annotators(study: Study, annotators: Iterable[User], *, by: User | None) -> int:
    """Add annotators to the pool and share the work nobody has started with them. Returns the
    number of assignments planned again."""
    if study.is_closed():
        raise StudyClosed(
            gettext("The study “%(study)s” is closed: reopen it to change the pool.")
            % {"study": study.name}
        )
    annotators = list(annotators)
    check_graders(annotators)
    before = _pool_names(study)
    present = set(study.pool.values_list("annotator_id", flat=True))
    PoolMember.objects.bulk_create(
        PoolMember(study=study, annotator=a) for a in annotators if a.pk not in present
    )
    after = _pool_names(study)
    if after == before:
        return 0
    audit.record(study, AuditEvent.Kind.UPDATED, by, {"annotators": [before, after]})
    return _replan_unstarted(study)


@transaction.atomic
def remove_annotator(study: Study, annotator: User, *, by: User | None) -> int:
    """Take an annotator out of the pool: what they submitted is kept (and counts towards k);
    their unfinished assignments, drafts included, are deleted and their responses planned for
    the rest of the pool. Returns the number of unfinished assignments taken from them."""
    member = PoolMember.objects.filter(study=study, annotator=annotator).first()
    if member is None:
        raise NotFound(
            gettext("%(username)s is not in this study's pool.") % {"username": annotator.username}
        )
    before = _pool_names(study)
    unfinished = Assignment.objects.filter(study_item__study=study, annotator=annotator).exclude(
        status=Assignment.Status.SUBMITTED
    )
    ids = list(
        unfinished.select_for_update(of=("self",)).order_by("pk").values_list("pk", flat=True)
    )
    Grade.objects.filter(assignment__in=ids).delete()
    LikertRating.objects.filter(assignment__in=ids).delete()
    Assignment.objects.filter(pk__in=ids).delete()
    member.delete()
    audit.record(
        study,
        AuditEvent.Kind.UPDATED,
        by,
        {"annotators": [before, _pool_names(study)]},
        comment=f"{annotator.username} removed; {len(ids)} unfinished assignments planned again",
    )
    if not study.is_closed():
        assign_study(study)
    return len(ids)


SETTINGS_FIELDS = (
    "description",
    "match_expertise",
    "deadline",
    "require_rationale_on_fail",
    "show_grader_names_to_adjudicator",
    "escalation",
    "escalation_threshold",
    "escalation_cap",
    "gold_rate",
    "gold_warning",
)


@transaction.atomic
def update_settings(study: Study, changes: Mapping[str, Any], *, by: User | None) -> None:
    """Change the study's settings (SETTINGS_FIELDS). Matching expertise applies to the work
    planned from now on: assignments already made stay."""
    unknown = set(changes) - set(SETTINGS_FIELDS)
    if unknown:
        raise ValidationError(
            gettext("Not a setting of a study: %(names)s.") % {"names": ", ".join(sorted(unknown))}
        )
    before = audit.snapshot(study, changes)
    for name, value in changes.items():
        setattr(study, name, value)
    study.full_clean(exclude=["name", "framework", "created_by"], validate_constraints=False)
    difference = audit.diff(before, audit.snapshot(study, changes))
    if not difference:
        return
    study.save(update_fields=list(changes))
    audit.record(study, AuditEvent.Kind.UPDATED, by, difference)
    if "deadline" in difference:
        deadlines.settle(study)


@transaction.atomic
def set_split_reasons(study: Study, reasons: Sequence[str], *, by: User | None) -> None:
    """Replace the study's reasons experts split (Study.split_reasons). A gold verdict that
    gave a reason now left out keeps it, and the agreement page still counts it."""
    reasons = list(dict.fromkeys(r.strip() for r in reasons if r.strip()))
    locked = Study.objects.select_for_update(of=("self",)).get(pk=study.pk)
    if locked.split_reasons == reasons:
        return
    before = locked.split_reasons
    locked.split_reasons = reasons
    locked.save(update_fields=["split_reasons"])
    study.split_reasons = reasons
    audit.record(locked, AuditEvent.Kind.UPDATED, by, {"split_reasons": [before, reasons]})


@transaction.atomic
def set_likert_prompts(study: Study, prompts: Sequence[str], *, by: User | None) -> None:
    """Replace the study's 1-5 questions while nobody has answered any. A question kept keeps
    its key (a judge's ratings are matched on it); a new one gets a key from its words."""
    prompts = [p.strip() for p in prompts if p.strip()]
    if len(set(prompts)) != len(prompts):
        raise ValidationError(gettext("The same question is asked twice."))
    locked = Study.objects.select_for_update(of=("self",)).get(pk=study.pk)
    if LikertRating.objects.filter(item__study=locked).exists():
        raise QuestionsAnswered(
            gettext("These questions have been answered: they can no longer change in this study.")
        )
    items = {item.prompt: item for item in locked.likert_items.all()}
    before = list(items)
    if before == prompts:
        return
    locked.likert_items.exclude(prompt__in=prompts).delete()
    taken = {items[p].key for p in prompts if p in items}
    for order, (prompt, key) in enumerate(zip(prompts, question_keys(prompts), strict=True)):
        item = items.get(prompt)
        if item is None:
            base, n = key, 2
            while key in taken:
                key, n = f"{base}-{n}", n + 1
            taken.add(key)
            LikertItem.objects.create(study=locked, order=order, key=key, prompt=prompt)
        elif item.order != order:
            item.order = order
            item.save(update_fields=["order"])
    audit.record(locked, AuditEvent.Kind.UPDATED, by, {"likert_questions": [before, prompts]})
