"""The experts' side: submitted grades, turn grades and 1-5 ratings as rating rows, their
disagreements, the lookup tables a report names criteria and items with, and the states that
key the reports' cache."""

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np
from django.db.models import Count, Exists, Field, Max, OuterRef, Q, QuerySet, Sum

from core.analysis.ratings import (
    NA,
    CriterionInfo,
    ItemInfo,
    StudyRatings,
    ratings_from_rows,
)
from core.analysis.scales import ScaleRatings
from grading.models import (
    Assignment,
    Grade,
    LikertItem,
    LikertRating,
    Study,
    StudyItem,
    TurnGrade,
    Verdict,
)
from l2annot.db_routers import reports_alias
from rubrics.models import CriterionVersion, Response, Task, TaskContextValue
from taxonomy.models import ProficiencyLevel
from taxonomy.scales import reporting_label, reporting_levels

VALUE_INDEX: dict[str, int] = {Verdict.FAIL: 0, Verdict.PASS: 1}
GRADE_INDEX: dict[str, int] = VALUE_INDEX | {Verdict.NA: NA}


def submitted_grades(
    study: Study, using: str | None = None, *, with_na: bool = False, with_levels: bool = False
) -> QuerySet[Grade]:
    """The study's submitted pass and fail grades (and, `with_na`, the N/A grades of binary
    criteria: an ordinal criterion's N/A goes with its levels, `load_ordinal_ratings`; and,
    `with_levels`, the levels on ordinal criteria)."""
    wanted = Q(verdict__in=list(VALUE_INDEX))
    if with_levels:
        wanted |= Q(level__isnull=False)
    if with_na:
        wanted |= Q(
            verdict=Verdict.NA,
            criterion_version__scoring_type=CriterionVersion.ScoringType.BINARY,
        )
    return Grade.objects.using(using or reports_alias()).filter(
        wanted,
        assignment__study_item__study=study,
        assignment__study_item__gold_source__isnull=True,
        assignment__status=Assignment.Status.SUBMITTED,
    )


def submitted_grade_count(study: Study) -> int:
    return submitted_grades(study).count()


def last_graded_at(study: Study) -> datetime | None:
    """When the study's submitted data last changed: the newest submitted grade or 1-5 rating,
    or the latest submission (its grades may all be older), None before the first. Three
    aggregates over every submitted grade: a moment to report (an EEE record's evaluation
    time), not a cache key (grading.models.ResultsRevision is)."""
    db = reports_alias()
    graded = Grade.objects.using(db).filter(
        Q(verdict__in=list(GRADE_INDEX)) | Q(level__isnull=False),
        assignment__study_item__study=study,
        assignment__status=Assignment.Status.SUBMITTED,
    )
    grades = graded.aggregate(latest=Max("updated_at"), submitted=Max("assignment__submitted_at"))
    rated = LikertRating.objects.using(db).filter(
        assignment__study_item__study=study, assignment__status=Assignment.Status.SUBMITTED
    )
    scales = rated.aggregate(latest=Max("updated_at"))
    moments = (grades["latest"], grades["submitted"], scales["latest"])
    return max((moment for moment in moments if moment), default=None)


def scales_state(study: Study) -> str:
    """Changes whenever a proficiency level of the study's framework is added, edited (its
    mapping: the breakdowns by context value group on it) or deleted: a cache key part."""
    levels = ProficiencyLevel.objects.using(reports_alias()).filter(
        scale__framework_id=study.framework_id
    )
    state = levels.aggregate(n=Count("pk"), revisions=Sum("revision"), last=Max("pk"))
    return f"{state['n']}.{state['revisions'] or 0}.{state['last'] or 0}"


@dataclass(frozen=True)
class OrdinalRatings:
    """The submitted levels on one ordinal criterion version: (study item, level) pairs."""

    code: str
    scale: tuple[int, int]
    units: list[int]
    levels: list[int]
    n_na: int = 0  # N/A grades on the criterion: no level, left out


def load_ordinal_ratings(study: Study) -> list[OrdinalRatings]:
    """Every submitted level of `study`, per ordinal criterion version, in code order, with
    each version's N/A grades counted. Two queries."""
    rows = (
        Grade.objects.using(reports_alias())
        .filter(
            assignment__study_item__study=study,
            assignment__study_item__gold_source__isnull=True,
            assignment__status=Assignment.Status.SUBMITTED,
            level__isnull=False,
        )
        .values_list(
            "criterion_version_id",
            "criterion_version__criterion__code",
            "criterion_version__scale_min",
            "criterion_version__scale_max",
            "assignment__study_item_id",
            "level",
        )
        .order_by("criterion_version__criterion__code", "criterion_version_id", "pk")
    )
    found: dict[int, OrdinalRatings] = {}
    for version, code, low, high, item, level in rows:
        # An ordinal version has its scale (a check constraint) and these grades a level.
        scale = (int(low), int(high))  # type: ignore[arg-type]
        ratings = found.setdefault(version, OrdinalRatings(code, scale, [], []))
        ratings.units.append(item)
        ratings.levels.append(int(level))  # type: ignore[arg-type]
    not_applicable = (
        Grade.objects.using(reports_alias())
        .filter(
            assignment__study_item__study=study,
            assignment__study_item__gold_source__isnull=True,
            assignment__status=Assignment.Status.SUBMITTED,
            verdict=Verdict.NA,
            criterion_version__scoring_type=CriterionVersion.ScoringType.ORDINAL,
        )
        .values_list(
            "criterion_version_id",
            "criterion_version__criterion__code",
            "criterion_version__scale_min",
            "criterion_version__scale_max",
        )
        .annotate(n=Count("pk"))
        .order_by()
    )
    for version, code, low, high, n in not_applicable:
        scale = (int(low), int(high))
        found[version] = replace(
            found.get(version) or OrdinalRatings(code, scale, [], []), n_na=int(n)
        )
    return sorted(found.values(), key=lambda o: o.code)


def load_study_ratings(study: Study, *, blind: bool = True) -> StudyRatings:
    """Every submitted pass/fail grade of `study`, where its N/A grades fall (counted as left
    out), and every submitted level on an ordinal criterion. With `blind`, raters are named
    "Annotator 1", "Annotator 2", ... in a stable order instead of by user name."""
    db = reports_alias()
    rows = list(
        submitted_grades(study, db, with_na=True, with_levels=True).values_list(
            "assignment__study_item_id",
            "criterion_version_id",
            "assignment__annotator_id",
            "assignment__annotator__username",
            "verdict",
            "level",
        )
    )
    item_ids = sorted({row[0] for row in rows})
    version_ids = sorted({row[1] for row in rows})
    # Raters are those with a pass or fail (N/A is no rating): numbered as `disagreements` does;
    # those who gave levels only come after them.
    rater_ids = sorted({(row[2], row[3]) for row in rows if row[4] in VALUE_INDEX})
    level_only = sorted({(row[2], row[3]) for row in rows if row[5] is not None} - set(rater_ids))
    names = rater_names(rater_ids, blind)
    item_index = {pk: i for i, pk in enumerate(item_ids)}
    version_index = {pk: i for i, pk in enumerate(version_ids)}
    rater_index = {pk: i for i, (pk, _) in enumerate([*rater_ids, *level_only])}
    return ratings_from_rows(
        [
            (
                item_index[item],
                version_index[version],
                rater_index.get(rater, -1),
                GRADE_INDEX[verdict],
            )
            for item, version, rater, _, verdict, level in rows
            if level is None
        ],
        criteria=criteria_info(version_ids, db),
        items=item_info(item_ids, db),
        raters=[names[pk] for pk, _ in rater_ids],
        levels=[
            (item_index[item], version_index[version], rater_index[rater], level)
            for item, version, rater, _, _, level in rows
            if level is not None
        ],
        level_raters=[
            f"Annotator {len(rater_ids) + n}" if blind else username
            for n, (_, username) in enumerate(level_only, start=1)
        ],
    )


def load_turn_ratings(study: Study, *, blind: bool = True) -> StudyRatings:
    """Every submitted pass/fail verdict on a tutor turn of a dialogue (turn-level criteria),
    as StudyRatings whose units are (response, criterion, turn): `unit_item` stays the
    response, so intervals resample responses (a dialogue's turns move together). Raters are
    named as in load_study_ratings; a turn graded N/A is no rating, counted as left out (its
    response and criterion in `na_item`, `na_criterion`). Three queries."""
    db = reports_alias()
    rows = list(
        TurnGrade.objects.using(db)
        .filter(
            assignment__study_item__study=study,
            assignment__study_item__gold_source__isnull=True,
            assignment__status=Assignment.Status.SUBMITTED,
            verdict__in=list(GRADE_INDEX),
        )
        .values_list(
            "assignment__study_item_id",
            "criterion_version_id",
            "turn_id",
            "assignment__annotator_id",
            "assignment__annotator__username",
            "verdict",
        )
    )
    item_ids = sorted({row[0] for row in rows})
    version_ids = sorted({row[1] for row in rows})
    # Every grader of the study names the same rater as in the per-response report.
    rater_ids = sorted(
        set(
            submitted_grades(study, db).values_list(
                "assignment__annotator_id", "assignment__annotator__username"
            )
        )
        | {(row[3], row[4]) for row in rows}
    )
    names = rater_names(rater_ids, blind)
    item_index = {pk: i for i, pk in enumerate(item_ids)}
    version_index = {pk: i for i, pk in enumerate(version_ids)}
    rater_index = {pk: i for i, (pk, _) in enumerate(rater_ids)}
    units: dict[tuple[int, int, int], int] = {}
    rating_unit, rating_rater, rating_value = [], [], []
    na_item, na_criterion = [], []
    for item, version, turn, rater, _, verdict in rows:
        if verdict == Verdict.NA:
            na_item.append(item_index[item])
            na_criterion.append(version_index[version])
            continue
        key = (item_index[item], version_index[version], turn)
        rating_unit.append(units.setdefault(key, len(units)))
        rating_rater.append(rater_index[rater])
        rating_value.append(VALUE_INDEX[verdict])
    keys = list(units)
    return StudyRatings(
        criteria=tuple(criteria_info(version_ids, db)) if rows else (),
        items=tuple(item_info(item_ids, db)) if rows else (),
        raters=tuple(names[pk] for pk, _ in rater_ids),
        unit_item=np.asarray([k[0] for k in keys], dtype=np.int64),
        unit_criterion=np.asarray([k[1] for k in keys], dtype=np.int64),
        rating_unit=np.asarray(rating_unit, dtype=np.int64),
        rating_rater=np.asarray(rating_rater, dtype=np.int64),
        rating_value=np.asarray(rating_value, dtype=np.int64),
        na_item=np.asarray(na_item, dtype=np.int64),
        na_criterion=np.asarray(na_criterion, dtype=np.int64),
        unit_turn=np.asarray([k[2] for k in keys], dtype=np.int64),
    )


def rater_names(rater_ids: list[tuple[int, str]], blind: bool) -> dict[int, str]:
    return {
        pk: f"Annotator {n}" if blind else username
        for n, (pk, username) in enumerate(sorted(rater_ids), start=1)
    }


@dataclass(frozen=True)
class Disagreement:
    task_key: str
    criterion_code: str
    wording: str
    grades: tuple[tuple[str, str, str], ...]  # (annotator, verdict, rationale)
    weight: int  # the criterion's: a penalty's verdicts read Present and Absent


def disagreements(
    study: Study, version_ids: list[int], *, blind: bool = True, limit: int = 20
) -> list[Disagreement]:
    """Units of the given criterion versions on which submitted grades differ, with every
    grade and its rationale, so an author can see why graders split."""
    db = reports_alias()
    grades = list(
        submitted_grades(study, db)
        .filter(criterion_version_id__in=version_ids)
        .values_list(
            "assignment__study_item_id",
            "criterion_version_id",
            "assignment__annotator_id",
            "assignment__annotator__username",
            "verdict",
            "rationale",
            "assignment__study_item__response__task__key",
            "criterion_version__criterion__code",
            "criterion_version__wording",
            "criterion_version__weight",
        )
    )
    # The graders with a submitted pass or fail, as the report numbers them; asked of their
    # assignments (DISTINCT over every grade of the study took longer than the rest together).
    graded = submitted_grades(study, db).filter(assignment=OuterRef("pk"))
    raters = set(
        Assignment.objects.using(db)
        .filter(study_item__study=study, status=Assignment.Status.SUBMITTED)
        .filter(Exists(graded), study_item__gold_source__isnull=True)
        .values_list("annotator_id", "annotator__username")
        .order_by()
        .distinct()
    )
    names = rater_names(sorted(raters), blind)
    units: dict[tuple[int, int], list[tuple[Any, ...]]] = {}
    for grade in grades:
        units.setdefault((grade[0], grade[1]), []).append(grade)
    out = []
    for (_, _), rows in sorted(units.items()):
        if len({row[4] for row in rows}) < 2:
            continue
        first = rows[0]
        out.append(
            Disagreement(
                task_key=first[6],
                criterion_code=first[7],
                wording=first[8],
                weight=first[9],
                grades=tuple(
                    (names[row[2]], row[4], row[5])
                    for row in sorted(rows, key=lambda r: names[r[2]])
                ),
            )
        )
        if len(out) >= limit:
            break
    return out


def criteria_info(version_ids: list[int], db: str) -> list[CriterionInfo]:
    versions = (
        CriterionVersion.objects.using(db)
        .filter(pk__in=version_ids)
        .select_related(
            "criterion__sub_competency__competency", "criterion__task__sub_competency__competency"
        )
    )
    by_pk = {}
    for version in versions:
        criterion = version.criterion
        task = criterion.task
        sub = criterion.sub_competency or (task.sub_competency if task else None)
        by_pk[version.pk] = CriterionInfo(
            key=version.pk,
            code=criterion.code,
            wording=version.wording,
            layer=criterion.layer,
            sub_competency=sub.code if sub else "",
            competency=sub.competency.code if sub else "",
            weight=version.weight,
            scale=(
                (version.scale_min, version.scale_max)
                if version.scale_min is not None and version.scale_max is not None
                else None
            ),
        )
    return [by_pk[pk] for pk in version_ids]


def report_context(task_ids: Iterable[int], db: str) -> dict[int, list[tuple[str, str]]]:
    """Each task's (variable, value) pairs, the groups of the breakdowns by context value. A
    value that is a proficiency level is grouped on the level it maps to (taxonomy.scales), named
    by its scale: a task stated in ACTFL Intermediate Mid and one in CEFR B1 are both in
    ("CEFR level", "B1")."""
    values = list(
        TaskContextValue.objects.using(db)
        .filter(task_id__in=list(task_ids))
        .select_related("variable", "value__level__scale", "value__level__corresponds_to__scale")
        .order_by("variable__order", "pk")
    )
    levels = reporting_levels((v.value.level for v in values if v.value and v.value.level), db)
    context: dict[int, list[tuple[str, str]]] = {}
    for value in values:
        level = value.value.level if value.value else None
        if level is not None:
            pair = reporting_label(levels[level.pk])
        else:
            pair = (value.variable.label, value.display_value)
        pairs = context.setdefault(value.task_id, [])
        if pair not in pairs:
            pairs.append(pair)
    return context


def _labels(field_name: str) -> dict[str, str]:
    """A Task choice field's labels by value, read once per report: get_FOO_display rebuilds
    the field's choice dictionary on every call (the language list has hundreds)."""
    field = Task._meta.get_field(field_name)
    assert isinstance(field, Field)  # a column of Task, not a relation
    choices = field.flatchoices
    return {value: str(label) for value, label in choices}


def item_info(item_ids: list[int], db: str) -> list[ItemInfo]:
    found = StudyItem.objects.using(db).filter(pk__in=item_ids)
    return _item_infos(found, "response__", item_ids, db)


def response_item_info(response_ids: list[int], db: str) -> list[ItemInfo]:
    """ItemInfo of responses themselves (keyed by response id), as `item_info` of study items."""
    found = Response.objects.using(db).filter(pk__in=response_ids)
    return _item_infos(found, "", response_ids, db)


def _item_infos(found: Any, response: str, keys: list[int], db: str) -> list[ItemInfo]:
    """ItemInfo of the rows of `found` (study items or responses, `response` the path from one
    to its response), in the order of `keys`."""
    task = f"{response}task__"
    rows = list(
        found.values_list(
            "pk",
            f"{response}task_id",
            f"{task}key",
            f"{task}sub_competency__code",
            f"{task}sub_competency__competency__code",
            f"{response}model_family",
            f"{response}model_name",
            f"{task}difficulty",
            f"{task}task_type",
            f"{task}language",
            f"{response}version",
        )
    )
    context = report_context({row[1] for row in rows}, db)
    difficulties, types = _labels("difficulty"), _labels("task_type")
    languages = _labels("language")
    by_pk = {}
    for row in rows:
        pk, task_id, key, sub, competency, family, model, difficulty, kind, language, version = row
        by_pk[pk] = ItemInfo(
            key=pk,
            task_key=key,
            sub_competency=sub,
            competency=competency,
            model_family=family,
            context=tuple(context.get(task_id, ())),
            model=model,
            difficulty=difficulties.get(difficulty, difficulty) if difficulty else "",
            task_type=types.get(kind, kind) if kind else "",
            language=languages.get(language, language),
            response_version=version,
        )
    return [by_pk[pk] for pk in keys]


def submitted_scale_ratings(
    study: Study, db: str
) -> QuerySet[LikertRating, tuple[int, int, int, int]]:
    """(study item, Likert item, annotator, value) of every submitted 1-5 rating of the study's
    own items (gold checks left out), read from `db`."""
    return (
        LikertRating.objects.using(db)
        .filter(
            assignment__study_item__study=study,
            assignment__study_item__gold_source__isnull=True,
            assignment__status=Assignment.Status.SUBMITTED,
        )
        .values_list("assignment__study_item_id", "item_id", "assignment__annotator_id", "value")
    )


def load_scale_ratings(study: Study) -> ScaleRatings:
    """Every submitted 1-5 rating of the study's task-level items (e.g. authenticity)."""
    db = reports_alias()
    items = LikertItem.objects.using(db).filter(study=study.pk).order_by("order", "pk")
    prompts = list(items.values_list("pk", "prompt"))
    prompt_index = {pk: n for n, (pk, _) in enumerate(prompts)}
    rows = submitted_scale_ratings(study, db)
    return ScaleRatings.from_rows(
        [prompt for _, prompt in prompts],
        [(item, prompt_index[prompt], rater, value) for item, prompt, rater, value in rows],
    )
