"""Escalation: when the submitted graders of a response disagree, one more grader is assigned,
up to the study's cap (Study.escalation, escalation_threshold, escalation_cap).

Race safety: `escalate` runs in the submitting transaction and first locks the study item's
row, so two graders submitting the same response at once are handled one after the other; the
second sees the first's submission (and any grader it added) and counts against the cap under
the lock. A response escalates only when every grader it has has submitted, so a grader just
added (not yet submitted) stops further escalation until they have.
"""

import random
from collections import defaultdict

import numpy as np
from django.db.models import Count, Q

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from core.stats.alpha import alpha_from_counts
from grading.expertise import expertise_tags, study_item_tags
from grading.models import Assignment, Escalation, Grade, PoolMember, Study, StudyItem, Verdict


def disagreeing_criteria(item: StudyItem) -> dict[int, str]:
    """The criteria (id: code) on which the submitted graders of `item` gave different
    verdicts (Pass, Fail and N/A all count). One query."""
    verdicts: dict[int, set[str]] = defaultdict(set)
    codes: dict[int, str] = {}
    for criterion, code, verdict in (
        Grade.objects.filter(assignment__study_item=item, assignment__status="submitted")
        .exclude(verdict="")
        .values_list(
            "criterion_version__criterion_id", "criterion_version__criterion__code", "verdict"
        )
    ):
        verdicts[criterion].add(verdict)
        codes[criterion] = code
    return {c: codes[c] for c, seen in verdicts.items() if len(seen) > 1}


def criterion_alpha(study: Study, criterion_ids: list[int]) -> dict[int, float]:
    """Nominal Krippendorff's alpha on pass/fail of each criterion over the study's submitted
    data (gold checks left out; units with one grade add nothing); NaN when undefined (fewer
    than two graded units, or no variation). One query."""
    counts: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for criterion, item, verdict, n in (
        Grade.objects.filter(
            assignment__study_item__study=study,
            assignment__study_item__gold_source__isnull=True,
            assignment__status=Assignment.Status.SUBMITTED,
            criterion_version__criterion__in=criterion_ids,
            verdict__in=[Verdict.FAIL, Verdict.PASS],
        )
        .values_list("criterion_version__criterion_id", "assignment__study_item_id", "verdict")
        .annotate(n=Count("pk"))
        .order_by()
    ):
        counts[criterion][item][verdict == Verdict.PASS] += n
    return {
        c: _value(alpha_from_counts(np.array(list(counts[c].values()) or [[0, 0]])).value)
        for c in criterion_ids
    }


def escalate(item_id: int, *, by: User | None) -> Assignment | None:
    """Assign one more grader to the item if its submitted graders disagree (on any criterion,
    or on one whose alpha is below the study's threshold; an undefined alpha counts as below)
    and it is under the cap. Call inside the transaction that submitted a grade. Returns the
    new assignment, or None."""
    item = (
        StudyItem.objects.select_for_update(of=("self",))
        .select_related("study", "response__task")
        .get(pk=item_id)
    )
    study = item.study
    if study.escalation == Escalation.OFF or item.gold_source_id is not None:
        return None
    statuses = list(item.assignments.values_list("annotator_id", "status"))
    graders = len(statuses)
    submitted = sum(1 for _, status in statuses if status == Assignment.Status.SUBMITTED)
    cap = study.escalation_cap or 0
    if submitted < 2 or submitted < graders or graders >= cap:
        return None
    criteria = disagreeing_criteria(item)
    if study.escalation == Escalation.LOW and criteria:
        threshold = study.escalation_threshold if study.escalation_threshold is not None else 1
        alphas = criterion_alpha(study, list(criteria))
        criteria = {
            c: code
            for c, code in criteria.items()
            if not alphas[c] >= threshold  # NaN: below
        }
    if not criteria:
        return None
    grader = _next_grader(study, item, {annotator for annotator, _ in statuses})
    if grader is None:
        return None
    held = Assignment.objects.filter(study_item__study=study, annotator=grader)
    added = Assignment.objects.create(study_item=item, annotator=grader, position=held.next_order())
    item.graders_wanted = graders + 1
    item.save(update_fields=["graders_wanted"])
    codes = ", ".join(sorted(criteria.values()))
    audit.record(
        study,
        AuditEvent.Kind.UPDATED,
        by,
        {"graders": [graders, graders + 1]},
        comment=f"Escalated {item.response.task.key} (item {item.pk}): graders disagree on "
        f"{codes}; {grader.username} added.",
    )
    return added


def _next_grader(study: Study, item: StudyItem, taken: set[int]) -> User | None:
    """The pool member with room and the expertise, not grading the item yet, who holds the
    least unfinished work (ties broken by the study's seed and the item)."""
    in_study = Q(annotator__assignments__study_item__study=study)
    members = list(
        PoolMember.objects.filter(study=study, annotator__is_active=True)
        .exclude(annotator__in=taken)
        .select_related("annotator")
        .annotate(
            held=Count("annotator__assignments", filter=in_study),
            open_=Count(
                "annotator__assignments",
                filter=in_study & ~Q(annotator__assignments__status=Assignment.Status.SUBMITTED),
            ),
        )
    )
    tags = expertise_tags(study, [m.annotator for m in members])
    needed = study_item_tags(study, item)
    rng = random.Random(study.seed + item.pk)
    ranked = sorted(
        (
            m
            for m in members
            if (m.capacity is None or m.held < m.capacity)
            and _may_grade(tags[m.annotator_id], needed)
        ),
        key=lambda m: (m.open_, rng.random()),
    )
    return ranked[0].annotator if ranked else None


def _value(value: float | None) -> float:
    return float("nan") if value is None else value


def _may_grade(tags: frozenset[str] | None, needed: frozenset[str]) -> bool:
    return tags is None or needed <= tags
