"""Reading a study's ratings out of the database for the pure report code: the only module of
the app that queries the grades, 1-5 ratings, verdicts and judge ratings a report is computed
from, and the state of each that keys the report cache (`agreement.cache`).

The grades come back as one row per rating (no ORM objects), so a 100k-grade study costs one
query for the ratings plus one per lookup table, never one per grade.

Every query here reads from `reports_alias()`: the read replica when one is configured
(docs/deploy.md), so heavy reports do not load the primary. The states that key the report
cache are read from the same database as the ratings (and so is the study's results revision,
in agreement.cache), so a replica that lags gives a report that is a few seconds old, never one
cached under a newer state than its data.
"""

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np
from django.db.models import Count, Exists, F, Field, Max, OuterRef, Q, Sum

from core.analysis.calibration import MISSING, FloatArray, JudgeData, ScaleScores
from core.analysis.comparison import UNPARSEABLE, RunVerdicts
from core.analysis.labels import ExpertVerdict, Gold, LabelUnit
from core.analysis.ratings import (
    FAIL,
    NA,
    PASS,
    CriterionInfo,
    IntArray,
    ItemInfo,
    StudyRatings,
    ratings_from_rows,
)
from core.analysis.scales import ScaleRatings
from grading.models import (
    Assignment,
    GoldVerdict,
    Grade,
    LikertItem,
    LikertRating,
    Study,
    StudyItem,
    TurnGrade,
    Verdict,
)
from judging.models import JudgeRating, JudgeRun, JudgeVerdict
from l2annot.db_routers import reports_alias
from rubrics.models import CriterionVersion, Task, TaskContextValue
from taxonomy.models import ProficiencyLevel
from taxonomy.scales import reporting_label, reporting_levels

VALUE_INDEX: dict[str, int] = {Verdict.FAIL: 0, Verdict.PASS: 1}
GRADE_INDEX: dict[str, int] = VALUE_INDEX | {Verdict.NA: NA}


def submitted_grades(  # type: ignore[no-untyped-def]
    study: Study, using: str | None = None, *, with_na: bool = False, with_levels: bool = False
):
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
        scale = (int(low), int(high))  # type: ignore[arg-type]
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
    names = _rater_names(rater_ids, blind)
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
        criteria=_criteria(version_ids, db),
        items=_items(item_ids, db),
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
    names = _rater_names(rater_ids, blind)
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
        criteria=tuple(_criteria(version_ids, db)) if rows else (),
        items=tuple(_items(item_ids, db)) if rows else (),
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


def _rater_names(rater_ids: list[tuple[int, str]], blind: bool) -> dict[int, str]:
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
    names = _rater_names(sorted(raters), blind)
    units: dict[tuple[int, int], list[tuple]] = {}
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


def _criteria(version_ids: list[int], db: str) -> list[CriterionInfo]:
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


def _items(item_ids: list[int], db: str) -> list[ItemInfo]:
    task = "response__task__"
    found = (
        StudyItem.objects.using(db)
        .filter(pk__in=item_ids)
        .values_list(
            "pk",
            "response__task_id",
            f"{task}key",
            f"{task}sub_competency__code",
            f"{task}sub_competency__competency__code",
            "response__model_family",
            "response__model_name",
            f"{task}difficulty",
            f"{task}task_type",
            f"{task}language",
            "response__version",
        )
    )
    rows = list(found)
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
    return [by_pk[pk] for pk in item_ids]


def _study_runs(study: Study, answers: type[JudgeVerdict] | type[JudgeRating]) -> list[JudgeRun]:
    """The study's own runs with at least one answer (verdict or 1-5 rating) on its data: a run
    made here for this study, or one imported (made for no study) that answered one of the
    study's own responses. Gold checks do not count: they are another study's responses, and
    that study's runs judged them, not this one's. A run made here for another study stays
    that study's, even where the two share responses."""
    db = reports_alias()
    responses = StudyItem.objects.using(db).filter(study=study).data().values("response_id")
    answered = answers.objects.using(db).filter(run=OuterRef("pk"), response_id__in=responses)
    own = Q(parameters__study=study.pk) | ~Q(parameters__has_key="study")
    return list(JudgeRun.objects.using(db).filter(own, Exists(answered)).order_by("pk"))


def judge_runs_for(study: Study) -> list[JudgeRun]:
    """The study's judge runs with at least one verdict on its data (see _study_runs)."""
    return _study_runs(study, JudgeVerdict)


def verdicts_state(run: JudgeRun) -> str:
    """Changes whenever a verdict of `run` is added or flipped: a cache key part. Verdicts are
    updated in place on re-import, so a flipped verdict must change the pass or fail count (an
    unparseable answer, no verdict, counts in neither) and a changed level the levels' sum."""
    state = (
        JudgeVerdict.objects.using(reports_alias())
        .filter(run=run.pk)
        .aggregate(
            n=Count("pk"),
            passes=Count("pk", filter=Q(verdict=True)),
            fails=Count("pk", filter=Q(verdict=False)),
            # A level changed in place changes its weighted sum (weighted, so two swapped
            # levels do too).
            levels=Sum(F("level") * F("pk")),
            last=Max("pk"),
        )
    )
    return f"{state['n']}:{state['passes']}:{state['fails']}:{state['levels']}:{state['last']}"


@dataclass(frozen=True)
class _Units:
    """Where each (response, criterion version) of a study's ratings sits among its units."""

    items: Any  # the study items of the ratings (a queryset)
    response_of: dict[int, int]  # study item -> response
    unit_of: dict[tuple[int, int], int]  # (response, criterion version) -> unit


def _units(ratings: StudyRatings, db: str) -> _Units:
    items = StudyItem.objects.using(db).filter(pk__in=[item.key for item in ratings.items])
    response_of = dict(items.values_list("pk", "response_id"))
    unit_of = {
        (response_of[ratings.items[i].key], ratings.criteria[c].key): unit
        for unit, (i, c) in enumerate(
            zip(ratings.unit_item.tolist(), ratings.unit_criterion.tolist(), strict=True)
        )
    }
    return _Units(items, response_of, unit_of)


def _gold(ratings: StudyRatings, units: _Units, db: str) -> IntArray:
    gold = np.full(ratings.n_units, MISSING, dtype=np.int64)
    golds = GoldVerdict.objects.using(db).filter(study_item__in=units.items)
    for item, version, gold_verdict in golds.values_list(
        "study_item_id", "criterion_version_id", "verdict"
    ):
        unit = units.unit_of.get((units.response_of[item], version))
        if unit is not None and gold_verdict in VALUE_INDEX:
            gold[unit] = VALUE_INDEX[gold_verdict]
    return gold


def _gold_levels(
    units: _Units, pair_of: dict[tuple[int, int], int], n_pairs: int, db: str
) -> FloatArray:
    """Per (response, criterion) pair with an expert level: the gold level, NaN where none."""
    levels = np.full(n_pairs, np.nan)
    golds = GoldVerdict.objects.using(db).filter(study_item__in=units.items, level__isnull=False)
    for item, version, level in golds.values_list("study_item_id", "criterion_version_id", "level"):
        pair = pair_of.get((units.response_of[item], version))
        if pair is not None:
            levels[pair] = level
    return levels


def _families(ratings: StudyRatings, units: _Units) -> tuple[str, ...]:
    families = dict(units.items.values_list("pk", "response__model_family"))
    return tuple(families[item.key] for item in ratings.items)


def load_judge_data(study: Study, run: JudgeRun, ratings: StudyRatings) -> JudgeData:
    """The judge's verdicts and levels (every epoch) and the gold verdicts on the units of
    `ratings` (levels: on the (response, criterion) pairs with an expert level).

    A verdict counts only when the judge saw the same criterion version the experts graded.
    An unparseable answer (no verdict) is left out, as a unit the judge did not rate."""
    db = reports_alias()
    units = _units(ratings, db)
    level_pairs = np.unique(
        np.stack([ratings.level_item, ratings.level_criterion], axis=1).reshape(-1, 2), axis=0
    )
    pair_of = {
        (units.response_of[ratings.items[i].key], ratings.criteria[c].key): n
        for n, (i, c) in enumerate(level_pairs.tolist())
    }
    verdicts = list(
        JudgeVerdict.objects.using(db)
        .per_response()
        .filter(
            run=run.pk,
            response_id__in=units.response_of.values(),
            criterion_version_id__in=[c.key for c in ratings.criteria],
        )
        .values_list("response_id", "criterion_version_id", "epoch", "verdict", "level")
    )
    n_epochs = max((row[2] for row in verdicts), default=1)
    epochs = np.full((n_epochs, ratings.n_units), MISSING, dtype=np.int64)
    levels = np.full((n_epochs, len(level_pairs)), np.nan)
    for response, version, epoch, verdict, level in verdicts:
        unit = units.unit_of.get((response, version))
        if unit is not None and verdict is not None:  # an unparseable answer is no verdict
            epochs[epoch - 1, unit] = PASS if verdict else FAIL
        pair = pair_of.get((response, version))
        if pair is not None and level is not None:
            levels[epoch - 1, pair] = level
    return JudgeData(
        ratings=ratings,
        judge_name=str(run),
        judge=epochs[0],
        judge_epochs=epochs,
        gold=_gold(ratings, units, db),
        item_family=_families(ratings, units),
        level_pairs=level_pairs.astype(np.int64),
        judge_levels=levels,
        gold_levels=_gold_levels(units, pair_of, len(level_pairs), db),
    )


def load_turn_judge(run: JudgeRun, turns: StudyRatings) -> IntArray:
    """The judge's first-epoch verdict on each unit of `turns` (load_turn_ratings: a tutor
    turn on a turn-level criterion): PASS, FAIL, UNPARSEABLE where its answer could not be
    read, MISSING where it gave none. One query."""
    db = reports_alias()
    unit_of = {
        (turns.criteria[c].key, turn): unit
        for unit, (c, turn) in enumerate(
            zip(turns.unit_criterion.tolist(), turns.unit_turn.tolist(), strict=True)
        )
    }
    judge = np.full(turns.n_units, MISSING, dtype=np.int64)
    if not unit_of:
        return judge
    rows = (
        JudgeVerdict.objects.using(db)
        .per_turn()
        .filter(
            run=run.pk,
            epoch=1,
            turn_id__in={turn for _, turn in unit_of},
            criterion_version_id__in=[c.key for c in turns.criteria],
        )
        .values_list("criterion_version_id", "turn_id", "verdict")
    )
    for version, turn, verdict in rows:
        unit = unit_of.get((version, turn))
        if unit is not None:
            judge[unit] = UNPARSEABLE if verdict is None else PASS if verdict else FAIL
    return judge


@dataclass(frozen=True)
class RunsData:
    """Several judge runs' first-epoch answers on the units of one study's ratings."""

    runs: list[RunVerdicts]
    gold: IntArray
    item_family: tuple[str, ...]


def load_runs_data(runs: Sequence[JudgeRun], ratings: StudyRatings) -> RunsData:
    """Every run's first-epoch answer on the units of `ratings` (UNPARSEABLE where the judge
    answered neither pass nor fail), the gold verdicts and each item's model family. One query
    for the verdicts of all runs."""
    db = reports_alias()
    units = _units(ratings, db)
    index = {run.pk: n for n, run in enumerate(runs)}
    answers = np.full((len(runs), ratings.n_units), MISSING, dtype=np.int64)
    rows = (
        JudgeVerdict.objects.using(db)
        .per_response()
        .filter(
            run__in=list(index),
            epoch=1,
            response_id__in=units.response_of.values(),
            criterion_version_id__in=[c.key for c in ratings.criteria],
        )
        .values_list("run_id", "response_id", "criterion_version_id", "verdict")
    )
    for run, response, version, verdict in rows:
        unit = units.unit_of.get((response, version))
        if unit is not None:
            answers[index[run], unit] = (
                UNPARSEABLE if verdict is None else PASS if verdict else FAIL
            )
    return RunsData(
        runs=[
            RunVerdicts(
                name=str(run),
                verdicts=answers[n],
                family=run.model_family,
                tokens=run.total_tokens or None,  # an imported run records no usage: 0
                seconds=run.duration,
            )
            for n, run in enumerate(runs)
        ],
        gold=_gold(ratings, units, db),
        item_family=_families(ratings, units),
    )


def load_scale_ratings(study: Study) -> ScaleRatings:
    """Every submitted 1-5 rating of the study's task-level items (e.g. authenticity)."""
    db = reports_alias()
    items = LikertItem.objects.using(db).filter(study=study.pk).order_by("order", "pk")
    prompts = list(items.values_list("pk", "prompt"))
    prompt_index = {pk: n for n, (pk, _) in enumerate(prompts)}
    rows = (
        LikertRating.objects.using(db)
        .filter(
            assignment__study_item__study=study,
            assignment__study_item__gold_source__isnull=True,
            assignment__status=Assignment.Status.SUBMITTED,
        )
        .values_list("assignment__study_item_id", "item_id", "assignment__annotator_id", "value")
    )
    return ScaleRatings.from_rows(
        [prompt for _, prompt in prompts],
        [(item, prompt_index[prompt], rater, value) for item, prompt, rater, value in rows],
    )


def load_scale_scores(study: Study, run: JudgeRun) -> list[ScaleScores]:
    """For every 1-5 question of `study`: the judge's scores and the submitted expert scores,
    over the study items either side scored.

    The judge names a question by its key; the study's LikertItem with that key is the question
    it is compared on. The judge's first epoch is compared with the experts, as for verdicts;
    every epoch is loaded for the judge's test-retest agreement with itself."""
    db = reports_alias()
    questions = list(
        LikertItem.objects.using(db)
        .filter(study=study)
        .order_by("order", "pk")
        .values_list("pk", "key", "prompt")
    )
    item_of_response = dict(
        StudyItem.objects.using(db).filter(study=study).values_list("response", "pk")
    )
    judge_rows = (
        JudgeRating.objects.using(db)
        .filter(
            run=run,
            response_id__in=item_of_response,
            question__in=[key for _, key, _ in questions],
        )
        .values_list("response_id", "question", "epoch", "value")
    )
    expert_rows = (
        LikertRating.objects.using(db)
        .filter(
            assignment__study_item__study=study,
            assignment__study_item__gold_source__isnull=True,
            assignment__status=Assignment.Status.SUBMITTED,
        )
        .values_list("assignment__study_item_id", "item_id", "assignment__annotator_id", "value")
    )
    judge = [(item_of_response[response], key, e, v) for response, key, e, v in judge_rows]
    experts = list(expert_rows)
    items = sorted({row[0] for row in judge} | {row[0] for row in experts})
    raters = sorted({row[2] for row in experts})
    # Epoch numbers need not be consecutive: the rows of the matrix follow their order.
    epochs = sorted({row[2] for row in judge}) or [1]
    item_index = {pk: n for n, pk in enumerate(items)}
    rater_index = {pk: n for n, pk in enumerate(raters)}
    epoch_index = {epoch: n for n, epoch in enumerate(epochs)}
    out = []
    for pk, key, prompt in questions:
        judge_epochs = np.full((len(epochs), len(items)), np.nan)
        for item, question, epoch, value in judge:
            if question == key:
                judge_epochs[epoch_index[epoch], item_index[item]] = value
        first = (~np.isnan(judge_epochs)).argmax(axis=0)  # each item's lowest scored epoch
        judge_scores = judge_epochs[first, np.arange(len(items))]
        expert_scores = np.full((len(raters), len(items)), np.nan)
        for item, question_pk, rater, value in experts:
            if question_pk == pk:
                expert_scores[rater_index[rater], item_index[item]] = value
        out.append(ScaleScores(key, prompt, judge_scores, expert_scores, judge_epochs))
    return out


def unmatched_questions(study: Study, run: JudgeRun) -> list[str]:
    """Question keys `run` scored on the study's responses that no question of the study has:
    those ratings are compared with nothing, and the page says so."""
    db = reports_alias()
    asked = LikertItem.objects.using(db).filter(study=study).values("key")
    responses = StudyItem.objects.using(db).filter(study=study).values("response_id")
    return list(
        JudgeRating.objects.using(db)
        .filter(run=run, response_id__in=responses)
        .exclude(question__in=asked)
        .order_by("question")
        .values_list("question", flat=True)
        .distinct()
    )


def ratings_state(run: JudgeRun) -> str:
    """Changes whenever a 1-5 rating of `run` is added or changed: a cache key part. Ratings are
    updated in place on re-import: a changed score changes the sum. Every epoch is in the report
    (the judge's stability), so a rating moved to another epoch counts too."""
    state = (
        JudgeRating.objects.using(reports_alias())
        .filter(run=run)
        .aggregate(n=Count("pk"), total=Sum("value"), epochs=Sum("epoch"), last=Max("pk"))
    )
    return f"{state['n']}:{state['total']}:{state['epochs']}:{state['last']}"


def rating_runs_for(study: Study) -> list[JudgeRun]:
    """The study's judge runs with at least one 1-5 rating on its data (see _study_runs)."""
    return _study_runs(study, JudgeRating)


def calibration_runs(study: Study) -> list[JudgeRun]:
    """The study's judge runs with a verdict or a 1-5 rating on its data."""
    runs = {run.pk: run for run in [*judge_runs_for(study), *rating_runs_for(study)]}
    return [runs[pk] for pk in sorted(runs)]


def study_run(study: Study, run_id: int) -> JudgeRun | None:
    """The run `run_id` if it is the study's: made for it (with or without answers yet), or one
    of its calibration runs; else None."""
    run = JudgeRun.objects.using(reports_alias()).filter(pk=run_id).first()
    if run is None or run.parameters.get("study") == study.pk:
        return run
    return next((own for own in calibration_runs(study) if own.pk == run_id), None)


def gold_state(study: Study) -> str:
    """Changes whenever a gold verdict of the study is recorded or changed: a cache key part."""
    state = (
        GoldVerdict.objects.using(reports_alias())
        .filter(study_item__study=study)
        .aggregate(n=Count("pk"), latest=Max("at"))
    )
    latest = state["latest"].isoformat() if state["latest"] else "-"
    return f"{state['n']}:{latest}"


@dataclass(frozen=True)
class ExpertGrade:
    expert: str  # "Expert A", "Expert B", ... in a stable order for the study
    verdict: str
    rationale: str


@dataclass(frozen=True)
class TurnLine:
    """One tutor turn of a dialogue on a turn-level criterion: the judge's verdict on it and
    the experts' grades of it, so a maintainer sees which turn a disagreement comes from."""

    index: int  # the turn's index in the dialogue (shown as "Turn index + 1")
    judge: bool | None  # None: no verdict (not judged, or the answer could not be read)
    experts: tuple[tuple[str, str], ...]  # (expert, verdict) in the study's expert order

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def majority(self) -> str:
        """The experts' strict majority of pass and fail on the turn, "" when none."""
        votes = [verdict for _, verdict in self.experts]
        passes, fails = votes.count("pass"), votes.count("fail")
        return "pass" if passes > fails else "fail" if fails > passes else ""

    @property
    def disagrees(self) -> bool:
        return (
            self.judge is not None
            and self.majority != ""
            and (self.majority != ("pass" if self.judge else "fail"))
        )


@dataclass(frozen=True)
class UnitDetail:
    """What a maintainer reads to resolve one triage unit."""

    study_item: StudyItem  # with its response (and turns) and task
    criterion_version: CriterionVersion  # with its criterion
    experts: tuple[ExpertGrade, ...]
    judge_rationale: str
    turns: tuple[TurnLine, ...] = ()  # a turn-level criterion on a dialogue: turn by turn


def expert_label(n: int) -> str:
    """ "Expert A" for 0, ... "Expert Z", then "Expert 27" and on."""
    return f"Expert {chr(ord('A') + n)}" if n < 26 else f"Expert {n + 1}"


def load_unit_details(
    study: Study, run: JudgeRun, pairs: Sequence[tuple[int, int]]
) -> list[UnitDetail]:
    """For each (study item, criterion version) pair: the response, the criterion, every
    submitted grade with its rationale under an anonymous name, and the judge's output.
    On a turn-level criterion, each tutor turn with the judge's verdict on it and the
    experts' grades of it. Five queries, whatever the number of pairs, and two more when a
    pair's criterion is turn-level."""
    db = reports_alias()
    item_ids = {item for item, _ in pairs}
    version_ids = {version for _, version in pairs}
    items = (
        StudyItem.objects.using(db)
        .filter(pk__in=item_ids, study=study)
        .select_related("response__task")
        .prefetch_related("response__turns")
    )
    by_item = {item.pk: item for item in items}
    versions = CriterionVersion.objects.using(db).filter(pk__in=version_ids)
    by_version = {v.pk: v for v in versions.select_related("criterion")}
    graders = list(
        submitted_grades(study, db)
        .order_by("assignment__annotator_id")
        .values_list("assignment__annotator_id", flat=True)
        .distinct()
    )
    label = {pk: expert_label(n) for n, pk in enumerate(graders)}
    grades: dict[tuple[int, int], list[ExpertGrade]] = {}
    rows = (
        submitted_grades(study, db)
        .filter(assignment__study_item_id__in=item_ids, criterion_version_id__in=version_ids)
        .values_list(
            "assignment__study_item_id",
            "criterion_version_id",
            "assignment__annotator_id",
            "verdict",
            "rationale",
        )
    )
    for item, version, annotator, verdict, rationale in rows:
        grades.setdefault((item, version), []).append(
            ExpertGrade(label[annotator], verdict, rationale)
        )
    verdicts = (
        JudgeVerdict.objects.using(db)
        .per_response()
        .filter(
            run=run.pk,
            epoch=1,
            response_id__in=[item.response_id for item in by_item.values()],
            criterion_version_id__in=version_ids,
        )
    )
    rationales = {
        (response, version): rationale
        for response, version, rationale in verdicts.values_list(
            "response_id", "criterion_version_id", "rationale"
        )
    }
    per_turn = {pk for pk, version in by_version.items() if version.per_turn}
    turns = _turn_lines(study, run, by_item, per_turn, label, db) if per_turn else {}
    return [
        UnitDetail(
            study_item=by_item[item],
            criterion_version=by_version[version],
            experts=tuple(sorted(grades.get((item, version), []), key=lambda g: g.expert)),
            judge_rationale=rationales.get((by_item[item].response_id, version), ""),
            turns=turns.get((item, version), ()),
        )
        for item, version in pairs
        if item in by_item and version in by_version
    ]


def _turn_lines(
    study: Study,
    run: JudgeRun,
    by_item: dict[int, StudyItem],
    versions: set[int],
    label: dict[int, str],
    db: str,
) -> dict[tuple[int, int], tuple[TurnLine, ...]]:
    """(study item, criterion version) -> its tutor turns, each with the judge's first-epoch
    verdict and the experts' submitted grades. Two queries."""
    item_of = {item.response_id: pk for pk, item in by_item.items()}
    judge = {
        (turn, version): verdict
        for turn, version, verdict in JudgeVerdict.objects.using(db)
        .per_turn()
        .filter(run=run.pk, epoch=1, response_id__in=item_of, criterion_version_id__in=versions)
        .values_list("turn_id", "criterion_version_id", "verdict")
    }
    grades: dict[tuple[int, int, int, int], list[tuple[str, str]]] = defaultdict(list)
    for item, version, turn, index, annotator, verdict in (
        TurnGrade.objects.using(db)
        .filter(
            assignment__study_item__study=study,
            assignment__study_item_id__in=by_item,
            assignment__status=Assignment.Status.SUBMITTED,
            criterion_version_id__in=versions,
        )
        .exclude(verdict="")
        .values_list(
            "assignment__study_item_id",
            "criterion_version_id",
            "turn_id",
            "turn__index",
            "assignment__annotator_id",
            "verdict",
        )
    ):
        grades[item, version, turn, index].append((label.get(annotator, "?"), verdict))
    lines: dict[tuple[int, int], list[TurnLine]] = defaultdict(list)
    for (item, version, turn, index), experts in sorted(grades.items(), key=lambda g: g[0][3]):
        lines[item, version].append(
            TurnLine(index, judge.get((turn, version)), tuple(sorted(experts)))
        )
    return {key: tuple(found) for key, found in lines.items()}


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
    golds = {
        (item, version): Gold(verdict, by or "", at.isoformat(), note, level)
        for item, version, verdict, by, at, note, level in GoldVerdict.objects.using(db)
        .filter(study_item__study=study)
        .values_list(
            "study_item_id",
            "criterion_version_id",
            "verdict",
            "by__username",
            "at",
            "note",
            "level",
        )
    }
    names = _rater_names(sorted({(row[2], row[3]) for row in grades}), blind)
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
    items = {info.key: info for info in _items(sorted({item for item, _ in keys}), db)}
    criteria = {info.key: info for info in _criteria(sorted({v for _, v in keys}), db)}
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
