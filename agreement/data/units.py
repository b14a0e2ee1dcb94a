"""The final labels an export of the study's data carries: each response x criterion with its
experts' verdicts and its gold answer."""

from django.db.models import Q

from agreement.data.experts import (
    criteria_info,
    item_info,
    rater_names,
)
from core.analysis.labels import ExpertVerdict, Gold, LabelUnit
from grading.models import (
    Assignment,
    GoldVerdict,
    Grade,
    Study,
    StudyItem,
    Verdict,
    split_reason_label,
)
from l2annot.db_routers import reports_alias


def load_label_units(study: Study, *, blind: bool = True) -> list[LabelUnit]:
    """Every (response, criterion) of `study` that has a submitted grade (N/A and levels
    included) or a gold verdict or level, with its experts' verdicts and levels (named as
    `load_study_ratings` names raters) and its gold answer, in task, response and criterion
    order."""
    db = reports_alias()
    grades = list(
        Grade.objects.using(db)
        .filter(
            assignment__study_item__study=study,
            assignment__study_item__gold_source__isnull=True,
            assignment__status=Assignment.Status.SUBMITTED,
        )
        .filter(Q(verdict__in=[Verdict.PASS, Verdict.FAIL, Verdict.NA]) | Q(level__isnull=False))
        .order_by("assignment__annotator_id", "pk")
        .values_list(
            "assignment__study_item_id",
            "criterion_version_id",
            "assignment__annotator_id",
            "assignment__annotator__username",
            "verdict",
            "rationale",
            "assignment__submitted_at",
            "level",
        )
    )
    rows = (
        GoldVerdict.objects.using(db)
        .filter(study_item__study=study)
        .values_list(
            "study_item_id",
            "criterion_version_id",
            "verdict",
            "by__username",
            "at",
            "note",
            "level",
            "split_reason",
            "confidence",
        )
    )
    golds = {
        (item, version): Gold(
            verdict,
            by or "",
            at.isoformat(),
            note,
            level,
            split_reason=reason,
            split_reason_label=split_reason_label(reason),
            confidence=confidence,
        )
        for item, version, verdict, by, at, note, level, reason, confidence in rows
    }
    names = rater_names(sorted({(row[2], row[3]) for row in grades}), blind)
    experts: dict[tuple[int, int], list[ExpertVerdict]] = {}
    for item, version, rater, _, verdict, rationale, submitted_at, level in grades:
        experts.setdefault((item, version), []).append(
            ExpertVerdict(
                names[rater],
                verdict,
                rationale,
                submitted_at.isoformat() if submitted_at else "",
                level,
            )
        )
    keys = set(experts) | set(golds)
    items = {info.key: info for info in item_info(sorted({item for item, _ in keys}), db)}
    criteria = {info.key: info for info in criteria_info(sorted({v for _, v in keys}), db)}
    responses = dict(
        StudyItem.objects.using(db).filter(pk__in=items).values_list("pk", "response_id")
    )
    units = [
        LabelUnit(
            item=items[item],
            response_id=responses[item],
            criterion=criteria[version],
            experts=tuple(experts.get((item, version), ())),
            gold=golds.get((item, version)),
        )
        for item, version in keys
    ]
    return sorted(
        units,
        key=lambda u: (u.item.task_key, u.response_id, u.criterion.layer, u.criterion.code),
    )
