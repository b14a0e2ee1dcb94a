"""Prediction-powered scores of a study whose judge run judged more responses than the
experts graded: from the database to the service, the page and the API."""

import dataclasses
import json
from io import BytesIO
from pathlib import Path

import jsonschema
import pytest
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from core.scoring import Judgement, task_score
from core.stats.ppi import ppi_mean
from grading import services as grading
from grading.models import Study, Verdict
from judging.calibration import study_leaderboard
from judging.eee_export import Options, export
from judging.models import JudgeRun, JudgeVerdict
from rubrics.models import Response
from tests import factories

pytestmark = pytest.mark.django_db

MODELS = ("kestrel", "osprey")
PER_MODEL = 6  # responses of each model; the study grades the first three of each


def expert_passes(response: Response, position: int) -> bool:
    """The experts fail the first criterion on every other response."""
    return not (position == 0 and response.pk % 2 == 0)


def judge_passes(response: Response, position: int) -> bool:
    """The judge fails the first criterion on every third response, whoever graded it."""
    return not (position == 0 and response.pk % 3 == 0)


@pytest.fixture
def setup(make_user):
    task = factories.published_task(criteria=3)
    responses = {
        model: [factories.response(task, model) for _ in range(PER_MODEL)] for model in MODELS
    }
    grader = make_user(Role.ANNOTATOR)
    study = grading.create_study(
        name="Scores",
        framework=task.framework,
        responses=[r for model in MODELS for r in responses[model][:3]],
        annotators=[grader],
        overlap=1,
        seed=1,
        require_rationale_on_fail=False,
    )
    grading.assign_study(study)
    factories.grade_study(
        study,
        [grader],
        lambda _, assignment, position, __: (
            Verdict.PASS
            if expert_passes(assignment.study_item.response, position)
            else Verdict.FAIL
        ),
        likert=lambda *_: 4,
    )
    rubric = [line for line in task.effective_rubric() if line.applicable]
    run = JudgeRun.objects.create(judge_model="judge-m", prompt_version="v1")
    JudgeVerdict.objects.bulk_create(
        JudgeVerdict(
            run=run,
            response=response,
            criterion_version=line.version,
            verdict=judge_passes(response, position),
        )
        for model in MODELS
        for response in responses[model]
        for position, line in enumerate(rubric)
    )
    return study, run, responses, rubric


def score(response: Response, rubric, passes) -> float:
    found = task_score(
        Judgement(line.version.weight, passes(response, position))
        for position, line in enumerate(rubric)
    )
    assert found.value is not None
    return max(found.value, 0.0)


def test_each_model_is_scored_from_every_response_the_run_judged(setup):
    study, run, responses, rubric = setup
    board = study_leaderboard(Study.objects.get(pk=study.pk), run)
    for model in MODELS:
        row = next(r for r in board.rows if r.model == model)
        graded, others = responses[model][:3], responses[model][3:]
        expected = ppi_mean(
            [score(r, rubric, expert_passes) for r in graded],
            [score(r, rubric, judge_passes) for r in graded],
            [score(r, rubric, judge_passes) for r in others],
        )
        assert row.ppi is not None
        # The same sums in another order: equal to the last bits.
        for field in dataclasses.fields(expected):
            found, wanted = getattr(row.ppi.score, field.name), getattr(expected, field.name)
            if isinstance(wanted, float):
                assert found == pytest.approx(wanted, rel=1e-12, abs=1e-12), field.name
            else:
                assert found == wanted, field.name
        assert (row.ppi.score.n_labeled, row.ppi.score.n_unlabeled) == (3, 3)
        assert row.ppi.judge_only.n_responses == PER_MODEL


def test_a_superseded_version_of_a_graded_response_is_not_counted_again(setup):
    study, run, responses, rubric = setup
    graded = responses["kestrel"][0]
    graded.external_id = "r1"
    graded.superseded_at = timezone.now()
    graded.save()
    newer = Response.objects.create(
        task=graded.task, model_name="kestrel", external_id="r1", version=2, text="again"
    )
    JudgeVerdict.objects.bulk_create(
        JudgeVerdict(run=run, response=newer, criterion_version=line.version, verdict=True)
        for line in rubric
    )
    board = study_leaderboard(Study.objects.get(pk=study.pk), run)
    row = next(r for r in board.rows if r.model == "kestrel")
    assert row.ppi is not None and row.ppi.score.n_unlabeled == 3


def test_the_page_shows_the_prediction_powered_score_and_its_worth(
    setup, client_as, django_assert_max_num_queries
):
    study, run, _, _ = setup
    client = client_as(Role.VIEWER)
    url = reverse("judging:leaderboard", args=[study.pk])
    client.get(url, {"judge": run.pk})  # computes and caches the leaderboard
    with django_assert_max_num_queries(25):
        body = client.get(url, {"judge": run.pk}).content.decode()
    assert "Prediction-powered [95% CI]" in body
    assert "(n = 3 graded + 3 judged only; λ = " in body
    assert "kestrel (prediction-powered, n = 3 + 3)" in body  # in the chart too
    board = study_leaderboard(Study.objects.get(pk=study.pk), run)
    for row in board.rows:
        assert row.ppi is not None
        if row.ppi.experts_alone:
            assert "score alone" in body
        else:
            assert f"worth about {row.ppi.gain} more expert-graded" in body


def test_the_leaderboard_page_takes_a_fixed_number_of_queries_however_many_responses(
    setup, client_as, django_assert_max_num_queries
):
    study, run, responses, rubric = setup
    client = client_as(Role.VIEWER)
    url = reverse("judging:leaderboard", args=[study.pk])
    with django_assert_max_num_queries(60) as before:
        client.get(url, {"judge": run.pk})
    task = responses["kestrel"][0].task
    more = [factories.response(task, "kestrel") for _ in range(10)]
    JudgeVerdict.objects.bulk_create(
        JudgeVerdict(run=run, response=r, criterion_version=line.version, verdict=True)
        for r in more
        for line in rubric
    )
    with django_assert_max_num_queries(len(before.captured_queries)):
        client.get(url, {"judge": run.pk})


def test_the_api_gives_the_prediction_powered_figures(setup, make_user):
    study, run, _, _ = setup
    _, key = ApiToken.issue(make_user(Role.VIEWER), "tests")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    data = api.get(reverse("api:study-leaderboard", args=[study.pk]), {"judge": run.pk}).json()
    row = data["rows"][0]
    ppi = row["ppi"]
    assert set(ppi["score"]) >= {"estimate", "low", "high", "lam", "n_labeled", "n_unlabeled"}
    assert ppi["score"]["method"] == "prediction-powered, score interval"
    assert {"gain", "experts_alone", "effective_n", "judge_only"} <= set(ppi)
    layer = data["breakdowns"][1]
    assert layer[0] == "Layer" and layer[1][0]["rows"][0]["ppi"] is not None


def test_the_agreement_downloads_carry_the_prediction_powered_figures(setup, client_as):
    study, run, _, _ = setup
    client = client_as(Role.MAINTAINER)
    url = reverse("agreement:study_report_json", args=[study.pk])
    rows = json.loads(client.get(url).content)["prediction-powered scores"]
    board = study_leaderboard(Study.objects.get(pk=study.pk), run)
    overall = {row["model"]: row for row in rows if row["group"] == "overall"}
    for model_row in board.rows:
        found, ppi = overall[model_row.model], model_row.ppi
        assert ppi is not None
        assert found["judge"] == str(run)
        assert found["prediction-powered score"] == pytest.approx(ppi.score.estimate)
        assert found["prediction-powered score CI low"] == pytest.approx(ppi.score.low)
        assert found["lambda"] == pytest.approx(ppi.score.lam)
        assert found["expert-graded responses (labelled)"] == 3
        assert found["judged only responses (unlabelled)"] == 3
        assert found["method"] == ppi.score.method
        assert found["worth in more expert-graded responses"] == ppi.gain
    assert any(row["group"] == "Layer: task" for row in rows)
    xlsx = reverse("agreement:study_report_xlsx", args=[study.pk])
    sheet = load_workbook(BytesIO(client.get(xlsx).content))["Prediction-powered scores"]
    assert [cell.value for cell in sheet[1]] == list(rows[0])
    assert sheet.max_row == len(rows) + 1


EEE_SCHEMA = json.loads(
    (Path(__file__).parents[1] / "interchange" / "eee" / "eval.schema.json").read_text()
)


def test_a_judge_eee_export_adds_the_prediction_powered_scores(setup, tmp_path):
    study, run, _, _ = setup
    options = Options(source="judge", developers={model: "example" for model in MODELS})
    paths, _ = export(Study.objects.get(pk=study.pk), tmp_path, options, run=run)
    board = study_leaderboard(Study.objects.get(pk=study.pk), run)
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.Draft7Validator(EEE_SCHEMA).validate(data)
        row = next(r for r in board.rows if r.model == data["model_info"]["name"])
        assert row.ppi is not None
        results = {r["evaluation_result_id"]: r for r in data["evaluation_results"]}
        found = results["overall:prediction-powered"]["score_details"]
        assert found["score"] == row.ppi.score.estimate
        assert found["uncertainty"]["num_samples"] == 6
        assert found["uncertainty"]["standard_error"]["value"] == row.ppi.score.standard_error
        assert found["details"]["n_labeled"] == "3"
        assert found["details"]["n_unlabeled"] == "3"
        assert float(found["details"]["lambda"]) == row.ppi.score.lam
        assert found["details"]["method"] == "prediction-powered, score interval"
        # Three expert-graded responses: the interval is withheld, and the reason given.
        assert "confidence_interval" not in found["uncertainty"]
        assert "interval unreliable" in found["details"]["interval_withheld_because"]
        assert "layer:task:prediction-powered" in results
