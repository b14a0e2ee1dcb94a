"""Adjudication: the (response, criterion) pairs whose submitted grades disagree, and the gold
verdict a maintainer records for a pair.

A pair disagrees when its submitted verdicts (drafts do not count) are not all the same. Gold
verdicts are never overwritten silently: a save names the revision it was based on, a stale one
is refused, and every replaced value is kept as a GoldVerdictRevision and in the audit history.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import (
    Case,
    Count,
    F,
    FilteredRelation,
    IntegerField,
    Max,
    Q,
    QuerySet,
    When,
)
from django.utils.translation import gettext

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from core.refusals import Conflict
from grading.models import (
    AdjudicationRequest,
    Confidence,
    GoldVerdict,
    GoldVerdictRevision,
    PairTally,
    ResultsRevision,
    Study,
    StudyItem,
    Verdict,
)
from rubrics.models import CriterionVersion, RubricItem
from rubrics.models.criteria import LAYER_RANK, Layer

GOLD_FIELDS = ["verdict", "level", "note", "split_reason", "confidence"]  # in the history


class AdjudicationError(ValidationError):
    """A gold verdict that cannot be recorded; the message is shown to the adjudicator."""


class StaleGoldVerdict(Conflict):
    """Someone saved this pair's gold verdict after the adjudicator loaded it."""

    current: GoldVerdict

    def __init__(self, current: GoldVerdict) -> None:
        values = {"verdict": current.get_verdict_display()}
        if current.by is None:
            message = gettext(
                "Another adjudicator recorded “%(verdict)s” meanwhile. "
                "Read it, then save again to replace it."
            )
        else:
            message = gettext(
                "%(adjudicator)s recorded “%(verdict)s” meanwhile. "
                "Read it, then save again to replace it."
            )
            values["adjudicator"] = str(current.by)
        super().__init__(message % values)
        self.current = current


class GoldVerdictGone(Conflict):
    """The gold verdict the adjudicator changed was removed meanwhile (409)."""


@dataclass(frozen=True)
class Filters:
    criterion: str = ""  # a criterion code
    layer: str = ""

    @classmethod
    def from_query(cls, query: Any) -> "Filters":
        layer = query.get("layer", "")
        return cls(
            criterion=query.get("criterion", "").strip(),
            layer=layer if layer in Layer.values else "",
        )

    def as_query(self) -> dict[str, str]:
        return {k: v for k, v in (("criterion", self.criterion), ("layer", self.layer)) if v}


def _pairs(study: Study, filters: Filters) -> QuerySet[Any]:  # PairTally, annotated
    """The study's pairs (item, criterion version) whose submitted verdicts differ or that were
    sent to adjudication, from their counted verdicts (PairTally, kept in step with the grades
    when they are submitted or changed), each with `gold` (its gold verdict or None) and
    `requested`, read through a LEFT JOIN on the pair."""
    # Gold checks (items with a gold source) are not study data.
    tallies = PairTally.objects.filter(study=study, study_item__gold_source__isnull=True)
    if filters.criterion:
        tallies = tallies.filter(criterion_version__criterion__code=filters.criterion)
    if filters.layer:
        tallies = tallies.filter(criterion_version__criterion__layer=filters.layer)
    return (
        tallies.annotate(
            pair_gold=FilteredRelation(
                "study_item__gold",
                condition=Q(study_item__gold__criterion_version=F("criterion_version")),
            ),
            pair_request=FilteredRelation(
                "study_item__adjudication_requests",
                condition=Q(
                    study_item__adjudication_requests__criterion_version=F("criterion_version")
                ),
            ),
        )
        .annotate(
            item=F("study_item_id"),
            version=F("criterion_version_id"),
            gold=F("pair_gold__verdict"),
            gold_level=F("pair_gold__level"),
            requested=Q(pair_request__id__isnull=False),
        )
        .filter(Q(split=True) | Q(requested=True))
    )


def disagreements(study: Study, filters: Filters = Filters()) -> QuerySet[Any, dict[str, Any]]:
    """One dict per disagreeing pair (or pair sent to adjudication: `requested`), unresolved
    pairs first, then in item and rubric order: item, version (the criterion version), code,
    layer, weight, graders, passes, fails, nas, gold (the gold verdict or None), requested. One
    query to evaluate (two through a paginator); `with_task_keys` adds each row's task."""
    rank = Case(
        *(When(criterion_version__criterion__layer=k, then=v) for k, v in LAYER_RANK.items()),
        output_field=IntegerField(),
    )
    rows: QuerySet[Any, dict[str, Any]] = (
        _pairs(study, filters)
        .annotate(
            code=F("criterion_version__criterion__code"),
            layer=F("criterion_version__criterion__layer"),
            order=F("criterion_version__criterion__order"),
            weight=F("criterion_version__weight"),
            rank=rank,
            graders=F("passes") + F("fails") + F("nas") + F("levels"),
        )
        .values(
            "item",
            "version",
            "code",
            "layer",
            "order",
            "weight",
            "rank",
            "graders",
            "passes",
            "fails",
            "nas",
            "gold",
            "gold_level",
            "requested",
        )
        .order_by(F("gold").asc(nulls_first=True), "item", "rank", "order", "code")
    )
    return rows


def with_task_keys(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`rows` of `disagreements` (a page of them), each with its task's key. One query."""
    keys = dict(
        StudyItem.objects.filter(pk__in={row["item"] for row in rows}).values_list(
            "pk", "response__task__key"
        )
    )
    for row in rows:
        row["task"] = keys[row["item"]]
    return rows


SUMMARY_SECONDS = 24 * 3600  # the cached counts of disagreeing pairs


def unresolved_count(study: Study, filters: Filters = Filters()) -> int:
    """How many pairs of `disagreements(study, filters)` have no gold verdict yet. One query
    with filters; without, cached as `disagreement_summary` is, and under the study's gold
    verdicts too (their count and newest id: a revised verdict keeps its pair resolved)."""
    if filters != Filters():
        return _pairs(study, filters).filter(gold__isnull=True).count()
    gold = GoldVerdict.objects.filter(study_item__study=study).aggregate(
        n=Count("pk"), last=Max("pk")
    )
    key = f"unresolved:{_pairs_state(study)}:{gold['n']}:{gold['last']}"
    found: int | None = cache.get(key)
    if found is None:
        found = _pairs(study, filters).filter(gold__isnull=True).count()
        cache.set(key, found, SUMMARY_SECONDS)
    return found


def _pairs_state(study: Study) -> str:
    """What makes a pair one of `disagreements(study)`: the study's results revision (bumped
    wherever its counted pairs change) and its adjudication requests (their count and newest
    id). Two queries."""
    requests = AdjudicationRequest.objects.filter(study_item__study=study).aggregate(
        n=Count("pk"), last=Max("pk")
    )
    revision = ResultsRevision.objects.of(study.pk)
    return f"{study.pk}:{revision}:{requests['n']}:{requests['last']}"


def disagreeing_codes(study: Study) -> list[str]:
    """The criterion codes with a disagreement in the study, for the filter. Two queries."""
    return disagreement_summary(study)[1]


def disagreement_summary(study: Study) -> tuple[int, list[str]]:
    """How many pairs `disagreements(study)` holds, and the criterion codes among them (the
    list page needs both), from one reading of the study's counted pairs grouped by criterion
    version (joining the criteria to every pair would cost more than the pairs). Cached under
    what makes a pair one of them (`_pairs_state`; a gold verdict names no new pair). Three
    queries when cached (the two of its key, the cache's row), five more otherwise."""
    key = f"disagreements:{_pairs_state(study)}"
    found: tuple[int, list[str]] | None = cache.get(key)
    if found is not None:
        return found
    per_version = dict(
        _pairs(study, Filters()).values_list("criterion_version").annotate(n=Count("pk")).order_by()
    )
    codes = CriterionVersion.objects.filter(pk__in=list(per_version)).values_list(
        "criterion__code", flat=True
    )
    found = (sum(per_version.values()), sorted(set(codes)))
    cache.set(key, found, SUMMARY_SECONDS)
    return found


def next_unresolved(study: Study, filters: Filters = Filters()) -> dict[str, Any] | None:
    """The first disagreeing pair with no gold verdict yet, or None."""
    return disagreements(study, filters).filter(gold__isnull=True).first()


def rubric_item(study_item: StudyItem, criterion_version_id: int) -> RubricItem | None:
    """The line of the item's frozen rubric for this criterion version (None if not in it)."""
    return (
        RubricItem.objects.filter(
            rubric_version_id=study_item.rubric_version_id,
            criterion_version_id=criterion_version_id,
        )
        .select_related("criterion_version__criterion")
        .first()
    )


@transaction.atomic
@transaction.atomic
def request_adjudication(
    study_item: StudyItem, criterion_version_id: int, *, reason: str, by: User | None
) -> AdjudicationRequest:
    """Send a pair to adjudication whatever its grades say (the queue shows it until its gold
    verdict is recorded). Asking again keeps the first request, locked until the asker's
    transaction ends, so a withdrawal (`withdraw_request`) waits and then sees what the asker
    built on it."""
    if rubric_item(study_item, criterion_version_id) is None:
        raise AdjudicationError(
            gettext("This criterion is not in the rubric this response is graded on.")
        )
    pair = {"study_item": study_item, "criterion_version_id": criterion_version_id}
    found = AdjudicationRequest.objects.select_for_update(of=("self",)).filter(**pair).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            found = AdjudicationRequest.objects.create(**pair, reason=reason.strip(), by=by)
    except IntegrityError:  # asked at the same time by someone else: theirs is the first
        return AdjudicationRequest.objects.select_for_update(of=("self",)).get(**pair)
    audit.record_creation(found, ["reason"], actor=by)
    return found


@transaction.atomic
def withdraw_request(
    study_item: StudyItem,
    criterion_version_id: int,
    *,
    by: User | None,
    still_wanted: Callable[[], bool] | None = None,
) -> bool:
    """Take a pair's adjudication request back while it waits: True when one was withdrawn.
    A pair already adjudicated keeps its request (its gold verdict stands), as does a pair
    never requested, and a pair the caller's `still_wanted` says something else still sends
    to adjudication (another judge run's resolution "the experts were wrong": the judge app
    deletes its own first and asks about the others, judging); then nothing changes and the
    answer is False. The request's row is locked before `still_wanted` is asked, so a
    resolution being made at the same time is either seen or finds no request and makes one."""
    request = (
        AdjudicationRequest.objects.select_for_update(of=("self",))
        .filter(study_item=study_item, criterion_version_id=criterion_version_id)
        .first()
    )
    if request is None or (still_wanted is not None and still_wanted()):
        return False
    adjudicated = GoldVerdict.objects.filter(
        study_item=study_item, criterion_version_id=criterion_version_id
    ).exists()
    if adjudicated:
        return False
    audit.record_deletion(request, ["reason"], actor=by)
    request.delete()
    return True


@transaction.atomic
def record_gold_verdict(
    study_item: StudyItem,
    criterion_version_id: int,
    *,
    verdict: str,
    note: str,
    by: User,
    base_revision: int,
    level: int | None = None,
    split_reason: str | None = None,
    confidence: str | None = None,
) -> GoldVerdict:
    """Record or change the gold verdict of a pair. `base_revision` is the revision the
    adjudicator saw (0: none yet); a stale one raises StaleGoldVerdict with the current value.
    A change keeps the old value as a GoldVerdictRevision and in the audit history.
    `split_reason` (one of the study's `split_reasons`) and `confidence` say why the experts
    split and how sure the adjudicator is; both may be empty, and None keeps what the gold
    verdict holds (a caller that does not ask for them, such as the API, never clears them)."""
    reasons = study_item.study.split_reasons or []
    if split_reason and split_reason not in reasons:
        raise AdjudicationError(gettext("Choose a reason from the study's list."))
    if confidence and confidence not in Confidence.values:
        raise AdjudicationError(gettext("Choose a confidence: low, medium or high."))
    item = rubric_item(study_item, criterion_version_id)
    if item is None:
        raise AdjudicationError(
            gettext("This criterion is not in the rubric this response is graded on.")
        )
    version = item.criterion_version
    if level is not None:
        error = version.level_error(level)
        if error:
            raise AdjudicationError(error)
        verdict = ""
    elif verdict not in Verdict.values:
        raise AdjudicationError(gettext("Choose Pass, Fail or N/A."))
    elif version.is_ordinal and verdict != Verdict.NA:
        low, high = version.scale_min, version.scale_max
        raise AdjudicationError(
            gettext("Choose a level from %(low)s to %(high)s or N/A.") % {"low": low, "high": high}
        )
    note = note.strip()
    current = (
        GoldVerdict.objects.select_for_update(of=("self",))
        .select_related("by")
        .filter(study_item=study_item, criterion_version_id=criterion_version_id)
        .first()
    )
    if split_reason is None:
        split_reason = current.split_reason if current else ""
    if confidence is None:
        confidence = current.confidence if current else ""
    if current is None:
        if base_revision != 0:
            raise GoldVerdictGone(gettext("This gold verdict no longer exists; reload the page."))
        try:
            with transaction.atomic():
                gold = GoldVerdict.objects.create(
                    study_item=study_item,
                    criterion_version_id=criterion_version_id,
                    verdict=verdict,
                    level=level,
                    note=note,
                    split_reason=split_reason,
                    confidence=confidence,
                    by=by,
                )
        except IntegrityError:  # another adjudicator created it between our read and write
            raise StaleGoldVerdict(
                GoldVerdict.objects.select_related("by").get(
                    study_item=study_item, criterion_version_id=criterion_version_id
                )
            ) from None
        audit.record_creation(gold, [*GOLD_FIELDS], actor=by)
        return gold
    if current.revision != base_revision:
        raise StaleGoldVerdict(current)
    answer = (verdict, level, note, split_reason, confidence)
    if (current.verdict, current.level, current.note, current.split_reason, current.confidence) == (
        answer
    ):
        return current
    GoldVerdictRevision.objects.create(
        gold=current,
        revision=current.revision,
        verdict=current.verdict,
        level=current.level,
        note=current.note,
        by=current.by,
        written_at=current.at,
        replaced_by=by,
    )
    before = audit.snapshot(current, GOLD_FIELDS)
    current.verdict, current.level, current.note, current.by = verdict, level, note, by
    current.split_reason, current.confidence = split_reason, confidence
    current.revision += 1
    current.save()
    after = audit.snapshot(current, GOLD_FIELDS)
    audit.record(current, AuditEvent.Kind.UPDATED, by, audit.diff(before, after))
    return current


@dataclass(frozen=True)
class SplitSummary:
    """Why the experts split on one criterion, as its adjudicators recorded it: how many gold
    verdicts gave each of the study's reasons, and how many were given with low confidence."""

    code: str
    counts: list[tuple[str, int]]  # (reason, gold verdicts), in the study's order
    low_confidence: int

    @property
    def given(self) -> list[tuple[str, int]]:
        """The reasons adjudicators gave, with their counts, in the study's order."""
        return [(reason, n) for reason, n in self.counts if n]

    @property
    def total(self) -> int:
        return sum(n for _, n in self.counts)

    @property
    def unclear(self) -> bool:
        """The criterion itself is the trouble: "criterion unclear" is the reason of at least
        two of its adjudicated splits and of at least half of them."""
        unclear = dict(self.counts).get("criterion_unclear", 0)
        return unclear >= 2 and 2 * unclear >= self.total


def split_reasons_per_criterion(study: Study) -> list[SplitSummary]:
    """Per criterion code with a reason recorded, in the study's data (gold checks are not),
    the count of each reason; the criteria whose experts split for being unclear first, then
    by the number of reasons recorded. One query."""
    reasons = list(study.split_reasons or [])
    rows = (
        GoldVerdict.objects.filter(study_item__study=study, study_item__gold_source__isnull=True)
        .exclude(split_reason="")
        .values_list("criterion_version__criterion__code", "split_reason", "confidence")
    )
    counts: dict[str, dict[str, int]] = {}
    low: dict[str, int] = {}
    for code, reason, confidence in rows:
        per_reason = counts.setdefault(code, {})
        per_reason[reason] = per_reason.get(reason, 0) + 1
        low[code] = low.get(code, 0) + (confidence == Confidence.LOW)
    extra = sorted({r for per in counts.values() for r in per} - set(reasons))  # since removed
    summaries = [
        SplitSummary(code, [(r, per.get(r, 0)) for r in [*reasons, *extra]], low[code])
        for code, per in counts.items()
    ]
    return sorted(summaries, key=lambda s: (not s.unclear, -s.total, s.code))
