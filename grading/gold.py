"""Gold checks: responses whose verdicts are known (adjudicated gold of another study), mixed
unannounced into annotators' queues, and each annotator's accuracy on them.

A gold check is a StudyItem whose `gold_source` is the adjudicated item; it is graded against
the source's rubric version, so its grades and the source's GoldVerdict rows name the same
criterion versions. Its grades are not study data: agreement, adjudication and exports of the
study's data leave them out (`StudyItem.objects.data()`).

Accuracy counts criteria: each verdict given on a criterion that has a gold verdict is right or
wrong; n is the number of such verdicts in submitted gold checks. Its interval is Wilson's
(core.stats.intervals, pure).
"""

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, QuerySet
from django.utils.translation import gettext

from accounts.models import User
from accounts.names import person_name
from audit import services as audit
from audit.models import AuditEvent
from core.refusals import Conflict
from core.stats.intervals import wilson_bounds
from grading.models import Assignment, GoldVerdict, Grade, Study, StudyItem
from rubrics.models import CriterionVersion


class GoldCheckGraded(Conflict):
    """A gold check somebody has started or submitted stays: its grades are their record."""


def gold_candidates(study: Study) -> QuerySet[StudyItem]:
    """Adjudicated items of other studies of the same framework, with `.gold_count` (criteria
    with a gold verdict), whose response is not yet in `study`: what may become a gold check."""
    present = study.items.values("response_id")
    return (
        StudyItem.objects.filter(study__framework_id=study.framework_id, gold_source__isnull=True)
        .exclude(study=study)
        .exclude(response_id__in=present)
        .annotate(gold_count=Count("gold"))
        .filter(gold_count__gt=0)
        .select_related("study", "response__task")
        .order_by("study_id", "pk")
    )


@transaction.atomic
def add_gold_checks(study: Study, sources: Iterable[StudyItem], *, by: User | None) -> int:
    """Make gold checks of these adjudicated items (see gold_candidates; anything else is
    refused, naming it) and mix them into the queues from now on. Returns how many were added."""
    sources = list(sources)
    allowed = {item.pk for item in gold_candidates(study).filter(pk__in=[s.pk for s in sources])}
    refused = [s for s in sources if s.pk not in allowed]
    if refused:
        names = ", ".join(
            gettext("%(study)s item %(item)s") % {"study": s.study.name, "item": s.pk}
            for s in refused[:5]
        )
        raise ValidationError(
            gettext(
                "Not a gold check for this study (no gold verdict, another framework, or its "
                "response is already in the study): %(items)s."
            )
            % {"items": names}
        )
    created = StudyItem.objects.bulk_create(
        StudyItem(
            study=study,
            response_id=s.response_id,
            rubric_version_id=s.rubric_version_id,
            gold_source=s,
        )
        for s in sources
    )
    if created:
        audit.record(
            study,
            AuditEvent.Kind.UPDATED,
            by,
            {"gold_checks": [None, [f"{s.study.name} #{s.pk}" for s in sources]]},
        )
    return len(created)


@transaction.atomic
def remove_gold_check(study: Study, item: StudyItem, *, by: User | None) -> None:
    """Take a gold check out of the study while nobody has opened it (its planned assignments
    go with it); one already graded stays, its grades being someone's record."""
    item = StudyItem.objects.select_for_update(of=("self",)).get(pk=item.pk, study=study)
    if item.gold_source_id is None:
        raise ValidationError(gettext("This response is study data, not a gold check."))
    opened = item.assignments.exclude(status=Assignment.Status.ASSIGNED, started_at__isnull=True)
    if opened.exists():
        raise GoldCheckGraded(
            gettext("Somebody has graded this gold check: it stays in the study.")
        )
    item.assignments.all().delete()
    item.delete()
    audit.record(study, AuditEvent.Kind.UPDATED, by, {"gold_checks": [f"#{item.pk}", None]})


@dataclass(frozen=True)
class Accuracy:
    """One annotator's verdicts on gold checks: `correct` of `n` match the gold verdict."""

    annotator_id: int
    username: str
    n: int
    correct: int
    low: float | None  # Wilson 95% interval; None when n = 0
    high: float | None
    below_warning: bool = False
    name: str = ""  # as the pages name the annotator (accounts.names)

    @property
    def rate(self) -> float | None:
        return self.correct / self.n if self.n else None


def _scored(
    study: Study, annotator_ids: Sequence[int] | None = None
) -> list[tuple[int, int, bool]]:
    """(annotator id, assignment position, right?) for each verdict on a criterion with a gold
    verdict, in submitted gold checks. Two queries."""
    grades = Grade.objects.filter(
        assignment__study_item__study=study,
        assignment__study_item__gold_source__isnull=False,
        assignment__status=Assignment.Status.SUBMITTED,
    ).exclude(verdict="")
    if annotator_ids is not None:
        grades = grades.filter(assignment__annotator__in=annotator_ids)
    rows = list(
        grades.values_list(
            "assignment__annotator_id",
            "assignment__position",
            "assignment__study_item__gold_source_id",
            "criterion_version_id",
            "verdict",
        )
    )
    gold: dict[tuple[int | None, int], str] = {
        (item, version): verdict
        for item, version, verdict in GoldVerdict.objects.filter(
            study_item__in={row[2] for row in rows}
        ).values_list("study_item_id", "criterion_version_id", "verdict")
    }
    return [
        (annotator, position, verdict == gold[(source, version)])
        for annotator, position, source, version, verdict in rows
        if (source, version) in gold
    ]


def accuracy_per_annotator(study: Study) -> list[Accuracy]:
    """Every pool member's (and past grader's) accuracy on the gold checks, with its Wilson
    interval and n, flagged when below the study's warning threshold. Three queries."""
    n: dict[int, int] = defaultdict(int)
    correct: dict[int, int] = defaultdict(int)
    for annotator, _, right in _scored(study):
        n[annotator] += 1
        correct[annotator] += right
    people = {
        pk: (username, display_name)
        for pk, username, display_name in study.pool.values_list(
            "annotator_id", "annotator__username", "annotator__display_name"
        )
    }
    people |= {
        pk: (username, display_name)
        for pk, username, display_name in User.objects.filter(pk__in=list(n)).values_list(
            "pk", "username", "display_name"
        )
    }
    names = {pk: username for pk, (username, _) in people.items()}
    ids = sorted(names, key=lambda pk: names[pk])
    rates = [correct[pk] / n[pk] if n[pk] else float("nan") for pk in ids]
    lows, highs = wilson_bounds(rates, [n[pk] for pk in ids])
    warning = study.gold_warning
    return [
        Accuracy(
            annotator_id=pk,
            username=names[pk],
            n=n[pk],
            correct=correct[pk],
            low=float(low) if n[pk] else None,
            high=float(high) if n[pk] else None,
            below_warning=warning is not None and n[pk] > 0 and correct[pk] / n[pk] < warning,
            name=person_name(people[pk][1], names[pk]),
        )
        for pk, low, high in zip(ids, lows.tolist(), highs.tolist(), strict=True)
    ]


class Qualification:
    PASSED, PENDING, FAILED = "passed", "pending", "failed"


def qualification(study: Study, annotator: User) -> str:
    """Whether `annotator` may grade real responses: PASSED when the study has no
    qualification round or they reached its accuracy on their first `qualification_items`
    gold checks (by queue position); FAILED when they did not; PENDING while those are not all
    submitted."""
    needed = study.qualification_items
    if not needed:
        return Qualification.PASSED
    first = list(
        Assignment.objects.filter(
            study_item__study=study, study_item__gold_source__isnull=False, annotator=annotator
        )
        .order_by("position", "pk")
        .values_list("position", "status")[:needed]
    )
    if not first:
        has_gold = StudyItem.objects.filter(study=study).gold_checks().exists()
        return Qualification.PENDING if has_gold else Qualification.PASSED
    if any(status != Assignment.Status.SUBMITTED for _, status in first):
        return Qualification.PENDING
    # With fewer gold checks than the round asks, the round is the ones they were given.
    positions = {position for position, _ in first}
    scored = [right for _, at, right in _scored(study, [annotator.pk]) if at in positions]
    if not scored:
        return Qualification.PASSED  # the gold checks name no criterion it could be wrong on
    return (
        Qualification.PASSED
        if sum(scored) / len(scored) >= study.qualification_accuracy
        else Qualification.FAILED
    )


@dataclass(frozen=True)
class GoldDifference:
    """One criterion of a qualification gold check where its grader's answer and the gold
    answer differ, with the gold's rationale (its adjudicator's note; never who wrote it)."""

    version: CriterionVersion
    verdict: str  # the grader's
    level: int | None
    gold_verdict: str
    gold_level: int | None
    why: str


def qualification_feedback(assignment: Assignment) -> list[GoldDifference] | None:
    """Where a submitted gold check of the qualification round (its grader's first
    `qualification_items` gold checks) differs from the gold, in rubric order; None for any
    other assignment: study data, a gold check past the round (mixed in unannounced, it stays
    so) or one not submitted. Three queries."""
    item, study = assignment.study_item, assignment.study_item.study
    if item.gold_source_id is None or not assignment.is_submitted or not study.qualification_items:
        return None
    round_ = Assignment.objects.filter(
        study_item__study=study,
        study_item__gold_source__isnull=False,
        annotator_id=assignment.annotator_id,
    ).order_by("position", "pk")
    if assignment.pk not in set(round_.values_list("pk", flat=True)[: study.qualification_items]):
        return None
    gold = {
        g.criterion_version_id: g
        for g in GoldVerdict.objects.filter(study_item_id=item.gold_source_id).select_related(
            "criterion_version__criterion"
        )
    }
    order = {
        version: n
        for n, version in enumerate(
            item.rubric_version.items.values_list("criterion_version_id", flat=True)
        )
    }
    differences = [
        GoldDifference(
            gold[grade.criterion_version_id].criterion_version,
            grade.verdict,
            grade.level,
            gold[grade.criterion_version_id].verdict,
            gold[grade.criterion_version_id].level,
            gold[grade.criterion_version_id].note,
        )
        for grade in assignment.grades.all()
        if grade.criterion_version_id in gold
        and (grade.verdict, grade.level)
        != (gold[grade.criterion_version_id].verdict, gold[grade.criterion_version_id].level)
    ]
    return sorted(differences, key=lambda d: order.get(d.version.pk, len(order)))
