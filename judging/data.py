"""The judges' side: a study's judge runs, their verdicts and 1-5 ratings lined up with the
experts' units, and the states that key the calibration's cache."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db.models import Count, Exists, F, Max, OuterRef, Q, Sum

from agreement.data.experts import (
    VALUE_INDEX,
    criteria_info,
    response_item_info,
    submitted_scale_ratings,
)
from core.analysis.calibration import MISSING, FloatArray, JudgeData, ScaleScores
from core.analysis.comparison import UNPARSEABLE, RunVerdicts
from core.analysis.dataset import JudgeAnswer
from core.analysis.leaderboard import JudgedResponses
from core.analysis.ratings import (
    FAIL,
    PASS,
    IntArray,
    StudyRatings,
    ratings_from_rows,
)
from grading.models import (
    GoldVerdict,
    LikertItem,
    Study,
    StudyItem,
)
from judging.models import JudgeRating, JudgeRun, JudgeVerdict
from l2annot.db_routers import reports_alias
from rubrics.models import Response


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


def _level_pairs(
    ratings: StudyRatings, units: _Units
) -> tuple[IntArray, dict[tuple[int, int], int]]:
    """The (item, criterion) pairs with an expert level (rows, in order), and where each
    (response, criterion version) sits among them."""
    level_pairs = np.unique(
        np.stack([ratings.level_item, ratings.level_criterion], axis=1).reshape(-1, 2), axis=0
    ).astype(np.int64)
    pair_of = {
        (units.response_of[ratings.items[i].key], ratings.criteria[c].key): n
        for n, (i, c) in enumerate(level_pairs.tolist())
    }
    return level_pairs, pair_of


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
    level_pairs, pair_of = _level_pairs(ratings, units)
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


def load_judge_answers(
    runs: Sequence[JudgeRun], responses: Sequence[int], criteria: Sequence[int]
) -> list[JudgeAnswer]:
    """Every verdict (or level) of `runs` on whole responses among `responses` and criterion
    versions among `criteria`, every epoch, in run, response, criterion and epoch order: the
    calibration set of a study's dataset."""
    names = {run.pk: (str(run), run.judge_model) for run in runs}
    rows = (
        JudgeVerdict.objects.using(reports_alias())
        .per_response()
        .filter(run__in=list(names), response_id__in=responses, criterion_version_id__in=criteria)
        .order_by("run_id", "response_id", "criterion_version_id", "epoch")
        .values_list("run_id", "response_id", "criterion_version_id", "epoch", "verdict", "level")
    )
    return [
        JudgeAnswer(*names[run], response, version, epoch, verdict, level)
        for run, response, version, epoch, verdict, level in rows.iterator(chunk_size=5000)
    ]


def study_judge_answers(
    study: Study, responses: Sequence[int], criteria: Sequence[int]
) -> list[JudgeAnswer]:
    """load_judge_answers of the study's judge runs (judge_runs_for)."""
    return load_judge_answers(judge_runs_for(study), responses, criteria)


def load_judged_responses(study: Study, run: JudgeRun, ratings: StudyRatings) -> JudgedResponses:
    """Every response of the study's models that `run` judged, with its first-epoch verdicts
    and levels on whole responses (the prediction-powered scores' judge values): the study's
    graded responses, and every current response of the same models that is not another
    version of one of them. An unparseable answer is left out, as for `load_judge_data`.
    A few queries, however many responses."""
    db = reports_alias()
    keys = [item.key for item in ratings.items]
    items = StudyItem.objects.using(db).filter(pk__in=keys)
    response_of = dict(items.values_list("pk", "response_id"))
    drawn_with = dict(
        items.filter(inclusion_probability__isnull=False).values_list("pk", "inclusion_probability")
    )
    graded = Response.objects.using(db).filter(pk__in=response_of.values())
    # Another version of a graded response is the same answer: neither labelled nor not.
    other_versions = (
        Response.objects.using(db).versions_of(graded).exclude(pk__in=graded.values("pk"))
    )
    rows = list(
        JudgeVerdict.objects.using(db)
        .per_response()
        .filter(
            run=run.pk, epoch=1, response__model_name__in={item.model for item in ratings.items}
        )
        .filter(Q(response__superseded_at__isnull=True) | Q(response__in=graded.values("pk")))
        .exclude(response__in=other_versions.values("pk"))
        .exclude(verdict__isnull=True, level__isnull=True)
        .values_list("response_id", "criterion_version_id", "verdict", "level")
    )
    response_ids = sorted({row[0] for row in rows})
    version_ids = sorted({row[1] for row in rows})
    index = {pk: n for n, pk in enumerate(response_ids)}
    version_index = {pk: n for n, pk in enumerate(version_ids)}
    found = ratings_from_rows(
        [
            (index[response], version_index[version], 0, PASS if verdict else FAIL)
            for response, version, verdict, level in rows
            if level is None
        ],
        criteria=criteria_info(version_ids, db),
        items=response_item_info(response_ids, db),
        raters=[str(run)],
        levels=[
            (index[response], version_index[version], 0, level)
            for response, version, _, level in rows
            if level is not None
        ],
    )
    return JudgedResponses(
        ratings=found,
        of_study_item=np.array([index.get(response_of[key], -1) for key in keys], dtype=np.int64),
        inclusion_probability=(
            np.array([drawn_with.get(key, np.nan) for key in keys], dtype=np.float64)
            if drawn_with
            else None
        ),
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
    # Ordinal criteria: the (item, criterion) pairs with an expert level, their gold levels.
    level_pairs: IntArray = field(default_factory=lambda: np.empty((0, 2), dtype=np.int64))
    gold_levels: FloatArray = field(default_factory=lambda: np.empty(0))


def load_runs_data(runs: Sequence[JudgeRun], ratings: StudyRatings) -> RunsData:
    """Every run's first-epoch answer on the units of `ratings` (UNPARSEABLE where the judge
    answered neither pass nor fail) and level on the pairs with an expert level, the gold
    verdicts and levels and each item's model family. One query for the verdicts of all
    runs."""
    db = reports_alias()
    units = _units(ratings, db)
    level_pairs, pair_of = _level_pairs(ratings, units)
    index = {run.pk: n for n, run in enumerate(runs)}
    answers = np.full((len(runs), ratings.n_units), MISSING, dtype=np.int64)
    levels = np.full((len(runs), len(level_pairs)), np.nan)
    rows = (
        JudgeVerdict.objects.using(db)
        .per_response()
        .filter(
            run__in=list(index),
            epoch=1,
            response_id__in=units.response_of.values(),
            criterion_version_id__in=[c.key for c in ratings.criteria],
        )
        .values_list("run_id", "response_id", "criterion_version_id", "verdict", "level")
    )
    for run, response, version, verdict, level in rows:
        unit = units.unit_of.get((response, version))
        if unit is not None:
            answers[index[run], unit] = (
                UNPARSEABLE if verdict is None else PASS if verdict else FAIL
            )
        pair = pair_of.get((response, version))
        if pair is not None and level is not None:
            levels[index[run], pair] = level
    return RunsData(
        runs=[
            RunVerdicts(
                name=str(run),
                verdicts=answers[n],
                family=run.model_family,
                tokens=run.total_tokens or None,  # an imported run records no usage: 0
                seconds=run.duration,
                levels=levels[n],
            )
            for n, run in enumerate(runs)
        ],
        gold=_gold(ratings, units, db),
        item_family=_families(ratings, units),
        level_pairs=level_pairs,
        gold_levels=(
            _gold_levels(units, pair_of, len(level_pairs), db) if len(level_pairs) else np.empty(0)
        ),
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
    expert_rows = submitted_scale_ratings(study, db)
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
