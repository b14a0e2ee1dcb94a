"""A judge run's 1-5 ratings against the experts' ratings of a study, read from the database and
cached per state of both.

The judge names a question by its key; the study's LikertItem with that key is the question it
is compared on. The judge's first epoch is compared with the experts, as for verdicts; every
epoch is loaded for the judge's test-retest agreement with itself. Like `agreement.data`, every
query reads from `reports_alias()` (the read replica when one is configured).
"""

import numpy as np
from django.core.cache import cache
from django.db.models import Count, Max, Sum

from agreement.calibration import JudgeScale, ScaleScores, judge_scales
from agreement.data import judge_runs_for, study_state
from agreement.models import AnalysisSettings
from grading.models import Assignment, LikertItem, LikertRating, Study, StudyItem
from judging.models import JudgeRating, JudgeRun
from l2annot.db_routers import reports_alias

CACHE_SECONDS = 24 * 3600


def load_scale_scores(study: Study, run: JudgeRun) -> list[ScaleScores]:
    """For every 1-5 question of `study`: the judge's scores and the submitted expert scores,
    over the study items either side scored."""
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
        .filter(assignment__study_item__study=study, assignment__status=Assignment.Status.SUBMITTED)
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


def _ratings_state(run: JudgeRun) -> str:
    # Ratings are updated in place on re-import: a changed score changes the sum. Every epoch
    # is in the report (the judge's stability), so a rating moved to another epoch counts too.
    state = (
        JudgeRating.objects.using(reports_alias())
        .filter(run=run)
        .aggregate(n=Count("pk"), total=Sum("value"), epochs=Sum("epoch"), last=Max("pk"))
    )
    return f"{state['n']}:{state['total']}:{state['epochs']}:{state['last']}"


def judge_scale_report(study: Study, run: JudgeRun) -> tuple[JudgeScale, ...]:
    """The judge of `run` against the experts of `study` on each 1-5 question it scored."""
    settings = AnalysisSettings.for_study(study)
    count, latest = study_state(study)
    key = (
        f"judge-scales:{study.pk}:{run.pk}:{_ratings_state(run)}:{count}:{latest}:"
        f"{settings.resamples}:{settings.seed}"
    )
    report = cache.get(key)
    if report is None:
        report = judge_scales(
            load_scale_scores(study, run), n_resamples=settings.resamples, seed=settings.seed
        )
        cache.set(key, report, CACHE_SECONDS)
    return report


def calibration_runs(study: Study) -> list[JudgeRun]:
    """Judge runs with a verdict or a 1-5 rating on a response of the study."""
    db = reports_alias()
    responses = StudyItem.objects.using(db).filter(study=study).values("response_id")
    rated = JudgeRun.objects.using(db).filter(ratings__response_id__in=responses).distinct()
    runs = {run.pk: run for run in [*judge_runs_for(study), *rated]}
    return [runs[pk] for pk in sorted(runs)]


def judge_scales_by_run(study: Study) -> list[tuple[JudgeRun, tuple[JudgeScale, ...]]]:
    """Every judge run that rated the study's responses, with its comparison (for downloads)."""
    db = reports_alias()
    responses = StudyItem.objects.using(db).filter(study=study).values("response_id")
    runs = (
        JudgeRun.objects.using(db)
        .filter(ratings__response_id__in=responses)
        .distinct()
        .order_by("pk")
    )
    return [(run, judge_scale_report(study, run)) for run in runs]
