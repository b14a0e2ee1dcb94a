"""A judge's 1-5 ratings against the experts' in a real study: report, page and downloads."""

import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from openpyxl import load_workbook

from accounts.roles import Role
from grading import services as grading
from grading.models import Study, Verdict
from judging.calibration import judge_scale_report
from judging.data import calibration_runs, load_scale_scores, unmatched_questions
from judging.models import JudgeRating, JudgeRun
from rubrics.models import Response
from tests.factories import demo_benchmark_and_graders, grade_study

pytestmark = pytest.mark.django_db

PROMPTS = ["Is this task authentic?", "Are these criteria clear and fair?"]
N_RESPONSES = 10  # asked for; the study holds those whose task has a published rubric


def true_score(position: int) -> int:
    return position % 5 + 1


def expert_score(position: int, grader: int) -> int:
    """Graders agree on the true score, except the third, who is one point lower on every
    other response (never below 1)."""
    lower = grader == 2 and position % 2 == 1
    return max(1, true_score(position) - lower)


@pytest.fixture(scope="module")
def rated_study(module_db: None) -> Study:
    """Three annotators grade and rate the demo responses; built once, read by every test."""
    starter_framework, graders = demo_benchmark_and_graders(3)
    responses = list(Response.objects.order_by("pk")[:N_RESPONSES])
    study = grading.create_study(
        name="Ratings",
        framework=starter_framework,
        responses=responses,
        annotators=graders,
        overlap=3,
        seed=1,
        require_rationale_on_fail=False,
        likert_prompts=PROMPTS,
    )
    grading.assign_study(study)
    # Responses to a task without a published rubric stay out of the study.
    responses = [item.response for item in study.items.order_by("pk")]
    assert len(responses) >= 8
    position = {r.pk: n for n, r in enumerate(responses)}
    authentic = study.likert_items.get(order=0)

    def likert(index, assignment, item):
        n = position[assignment.study_item.response_id]
        return expert_score(n, index) if item == authentic else 3

    grade_study(study, graders, lambda *_: Verdict.PASS, likert)
    return study


@pytest.fixture
def study(rated_study: Study) -> Study:
    """The shared study read again, with its responses in study order as `study.responses`."""
    study = Study.objects.get(pk=rated_study.pk)
    study.responses = [item.response for item in study.items.order_by("pk")]
    return study


@pytest.fixture
def generous_judge(study):
    """A judge one point above the true score (clipped at 5), rating authenticity only."""
    run = JudgeRun.objects.create(judge_model="generous", prompt_version="v1")
    key = study.likert_items.get(order=0).key
    JudgeRating.objects.bulk_create(
        JudgeRating(
            run=run, response=response, question=key, value=min(5, true_score(n) + 1), epoch=1
        )
        for n, response in enumerate(study.responses)
    )
    return run


@pytest.fixture
def two_epoch_judge(study):
    """The generous judge run twice on authenticity: the second epoch skips the last response
    and scores the first two one point lower; the rest are the same."""
    run = JudgeRun.objects.create(judge_model="twice", prompt_version="v1")
    key = study.likert_items.get(order=0).key
    scores = [min(5, true_score(n) + 1) for n in range(len(study.responses))]
    ratings = [
        JudgeRating(run=run, response=response, question=key, value=scores[n], epoch=1)
        for n, response in enumerate(study.responses)
    ]
    ratings += [
        JudgeRating(run=run, response=response, question=key, value=scores[n] - (n < 2), epoch=2)
        for n, response in enumerate(study.responses[:-1])
    ]
    JudgeRating.objects.bulk_create(ratings)
    return run


def expected_bias(n_responses: int) -> float:
    differences = [
        min(5, true_score(n) + 1) - sum(expert_score(n, g) for g in range(3)) / 3
        for n in range(n_responses)
    ]
    return sum(differences) / n_responses


def test_questions_get_keys_and_the_judges_scores_line_up_with_the_experts(study, generous_judge):
    questions = load_scale_scores(study, generous_judge)
    assert [q.key for q in questions] == [
        "is-this-task-authentic",
        "are-these-criteria-clear-and-fair",
    ]
    authentic = questions[0]
    assert authentic.experts.shape == (3, len(study.responses))
    assert sorted(authentic.judge.tolist()) == sorted(
        min(5, true_score(n) + 1) for n in range(len(study.responses))
    )


def test_the_report_recovers_the_judges_known_bias(study, generous_judge):
    (scale,) = judge_scale_report(study, generous_judge)  # the judge rated one question
    found = scale.agreement
    assert scale.key == "is-this-task-authentic" and found.n_items == len(study.responses)
    limits = found.bland_altman
    assert limits.mean_difference == pytest.approx(expected_bias(len(study.responses)))
    # About +1: less where a 5 cannot go higher, more where the third expert scored lower.
    assert limits.mean_difference == pytest.approx(1.0, abs=0.25)
    assert limits.bias_low < limits.mean_difference < limits.bias_high
    assert found.judge_mean > found.experts_mean
    assert found.linear.judge.estimate.value < found.linear.experts.estimate.value
    assert len(found.linear.leave_one_out) == 3


def test_a_changed_rating_refreshes_the_cached_report(study, generous_judge):
    before = judge_scale_report(study, generous_judge)[0].agreement.bland_altman.mean_difference
    JudgeRating.objects.filter(run=generous_judge).update(value=1)
    after = judge_scale_report(study, generous_judge)[0].agreement.bland_altman.mean_difference
    assert after < 0 < before


def test_a_run_with_only_ratings_is_listed_and_its_page_shows_the_ratings_section(
    study, generous_judge, client_as
):
    assert calibration_runs(study) == [generous_judge]
    client = client_as(Role.VIEWER)
    page = client.get(reverse("agreement:study", args=[study.pk])).content.decode()
    url = reverse("judging:calibration", args=[study.pk, generous_judge.pk])
    assert url in page
    response = client.get(url)
    assert response.status_code == 200
    body = response.content.decode()
    assert "1-5 ratings: the judge against the experts" in body
    assert "Is this task authentic?" in body
    assert f"{expected_bias(len(study.responses)):.2f}" in body
    assert "Experts among themselves" in body
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in body and "limits of agreement" in body
    assert "nan" not in body.lower()
    assert "style=" not in body.split("<svg", 1)[1].split("</svg>", 1)[0]  # CSP: no inline style


def test_a_question_the_judge_did_not_rate_shows_no_section(study, client_as):
    run = JudgeRun.objects.create(judge_model="silent")
    url = reverse("judging:calibration", args=[study.pk, run.pk])
    body = client_as(Role.VIEWER).get(url).content.decode()
    assert "1-5 ratings: the judge against the experts" not in body


def test_scores_on_a_question_the_study_does_not_ask_are_named_not_dropped_silently(
    study, client_as
):
    run = JudgeRun.objects.create(judge_model="wider")
    key = study.likert_items.get(order=0).key
    JudgeRating.objects.bulk_create(
        JudgeRating(run=run, response=response, question=question, value=3)
        for response in study.responses[:2]
        for question in (key, "fluency", "tone")
    )
    assert unmatched_questions(study, run) == ["fluency", "tone"]
    body = client_as(Role.VIEWER).get(reverse("judging:calibration", args=[study.pk, run.pk]))
    text = body.content.decode()
    assert "The judge also scored 2 questions this study does not ask" in text
    assert "<code>fluency</code>, <code>tone</code>" in text


def test_no_notice_when_every_scored_question_is_asked(study, generous_judge, client_as):
    assert unmatched_questions(study, generous_judge) == []
    url = reverse("judging:calibration", args=[study.pk, generous_judge.pk])
    assert "this study does not ask" not in client_as(Role.VIEWER).get(url).content.decode()


def test_an_undefined_figure_shows_its_reason_not_a_number(study, client_as):
    run = JudgeRun.objects.create(judge_model="once")
    key = study.likert_items.get(order=0).key
    JudgeRating.objects.create(run=run, response=study.responses[0], question=key, value=3)
    body = client_as(Role.VIEWER).get(reverse("judging:calibration", args=[study.pk, run.pk]))
    text = body.content.decode()
    assert "fewer than two items with both scores" in text
    assert "nan" not in text.lower()


def test_the_json_download_and_the_command_carry_the_judges_ratings(
    study, generous_judge, client_as, tmp_path
):
    url = reverse("agreement:study_report_json", args=[study.pk])
    data = json.loads(client_as(Role.MAINTAINER).get(url).content)
    (row,) = data["judge ratings"]
    assert row["judge"] == "generous · v1"
    assert row["question"] == "is-this-task-authentic"
    assert row["bias"] == pytest.approx(expected_bias(len(study.responses)))
    # Few responses: the kappas' intervals are withheld, with the reason (stats.ordinal).
    assert row["quadratic kappa judge vs experts CI low"] is None
    assert row["quadratic kappa judge vs experts interval unreliable because"].startswith(
        "interval unreliable:"
    )
    assert row["quadratic kappa judge vs experts n"] > 0
    assert row["bias CI low"] < row["bias"] < row["bias CI high"]
    out = tmp_path / "report.xlsx"
    call_command("agreement_report", str(study.pk), "--format", "xlsx", "--output", str(out))
    sheet = load_workbook(out)["Judge ratings"]
    header = [cell.value for cell in sheet[1]]
    values = dict(zip(header, [cell.value for cell in sheet[2]], strict=True))
    assert values["bias"] == pytest.approx(expected_bias(len(study.responses)))
    assert values["lower limit of agreement"] < values["bias"] < values["upper limit of agreement"]


def test_the_report_measures_the_judges_stability_across_epochs(study, two_epoch_judge):
    (scale,) = judge_scale_report(study, two_epoch_judge)
    n = len(study.responses)
    # The experts are compared with the first epoch only.
    assert scale.agreement.bland_altman.mean_difference == pytest.approx(expected_bias(n))
    stable = scale.stability
    assert (stable.epochs, stable.n_responses) == (2, n - 1)
    assert stable.identical == pytest.approx((n - 3) / (n - 1))
    assert 0.5 < stable.alpha.value < 1.0


def test_a_single_epoch_has_no_stability_figure(study, generous_judge):
    (scale,) = judge_scale_report(study, generous_judge)
    assert scale.stability.epochs == 1 and scale.stability.alpha.value is None


def test_a_second_epoch_refreshes_the_cached_stability(study, generous_judge):
    assert judge_scale_report(study, generous_judge)[0].stability.epochs == 1
    again = JudgeRating.objects.filter(run=generous_judge).order_by("pk")
    for rating in again:
        rating.pk, rating.epoch = None, 2
    JudgeRating.objects.bulk_create(again)
    stable = judge_scale_report(study, generous_judge)[0].stability
    assert stable.epochs == 2 and stable.identical == 1.0 and stable.alpha.value == 1.0


def test_the_page_shows_the_judges_stability_on_each_question(study, two_epoch_judge, client_as):
    (scale,) = judge_scale_report(study, two_epoch_judge)
    stable = scale.stability
    url = reverse("judging:calibration", args=[study.pk, two_epoch_judge.pk])
    body = client_as(Role.VIEWER).get(url).content.decode()
    assert (
        f"Across 2 epochs the judge gave the same score on {stable.identical * 100:.0f}% of "
        f"{stable.n_responses} responses (ordinal alpha across epochs {stable.alpha.value:.2f})"
    ) in body


def test_the_page_says_when_a_question_was_scored_in_one_epoch(study, generous_judge, client_as):
    url = reverse("judging:calibration", args=[study.pk, generous_judge.pk])
    body = client_as(Role.VIEWER).get(url).content.decode()
    assert "The judge scored this question in one epoch: no test-retest figure." in body


def test_the_downloads_carry_the_judges_stability(study, two_epoch_judge, client_as, tmp_path):
    stable = judge_scale_report(study, two_epoch_judge)[0].stability
    url = reverse("agreement:study_report_json", args=[study.pk])
    (row,) = json.loads(client_as(Role.MAINTAINER).get(url).content)["judge ratings"]
    assert row["epochs"] == 2
    assert row["responses scored in two epochs or more"] == len(study.responses) - 1
    assert row["same score in every epoch"] == pytest.approx(stable.identical)
    assert row["alpha across epochs"] == pytest.approx(stable.alpha.value)
    assert row["alpha across epochs undefined because"] == ""
    out = tmp_path / "report.xlsx"
    call_command("agreement_report", str(study.pk), "--format", "xlsx", "--output", str(out))
    sheet = load_workbook(out)["Judge ratings"]
    values = dict(zip([c.value for c in sheet[1]], [c.value for c in sheet[2]], strict=True))
    assert values["alpha across epochs"] == pytest.approx(stable.alpha.value)
    assert values["same score in every epoch"] == pytest.approx(stable.identical)
