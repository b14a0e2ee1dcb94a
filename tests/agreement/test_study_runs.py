"""A study shows only its own judge runs: those made for it, and imported ones that judged its
own responses. Gold checks drawn from another study bring none of that study's runs with them
(its agreement page, leaderboard, compare picker, calibration pages, API and exports)."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from grading import adjudication, gold
from grading import services as grading_services
from grading.models import Study
from judging import data
from judging.eee_export import ExportProblem, judge_run_for
from judging.models import JudgeRating, JudgeRun
from tests import factories

pytestmark = pytest.mark.django_db


def _adjudicated_source(make_user) -> tuple[Study, JudgeRun, JudgeRun]:
    """An earlier study with a gold verdict on every criterion of its response, an imported
    judge run with verdicts on it and an imported run with 1-5 ratings of it."""
    earlier = factories.study([], responses=1, overlap=1)
    item = earlier.items.get()
    adjudicator = make_user(Role.MAINTAINER)
    for line in item.rubric_version.effective_rubric():
        if line.applicable:
            adjudication.record_gold_verdict(
                item, line.version.pk, verdict="pass", note="", by=adjudicator, base_revision=0
            )
    verdicts = factories.judge_run(earlier, "v1", fails_universal=False)
    ratings = JudgeRun.objects.create(judge_model="rater", prompt_version="demo")
    JudgeRating.objects.create(run=ratings, response=item.response, question="clarity", value=4)
    return earlier, verdicts, ratings


@pytest.fixture
def with_gold(make_user) -> dict[str, object]:
    earlier, verdicts, ratings = _adjudicated_source(make_user)
    study = factories.study([make_user(Role.ANNOTATOR)], responses=2, overlap=1, gold_rate=25)
    gold.add_gold_checks(study, earlier.items.all(), by=None)
    return {"earlier": earlier, "study": study, "verdicts": verdicts, "ratings": ratings}


def test_gold_checks_bring_no_judge_run_of_their_source_study(with_gold):
    study, earlier = with_gold["study"], with_gold["earlier"]
    assert data.judge_runs_for(study) == []
    assert data.rating_runs_for(study) == []
    assert data.calibration_runs(study) == []
    assert data.judge_runs_for(earlier) == [with_gold["verdicts"]]
    assert data.calibration_runs(earlier) == [with_gold["verdicts"], with_gold["ratings"]]


def test_the_studys_pages_neither_list_nor_open_the_runs_of_its_gold_checks(with_gold, client_as):
    study, run = with_gold["study"], with_gold["verdicts"]
    client = client_as(Role.MAINTAINER)
    agreement = client.get(reverse("agreement:study", args=[study.pk])).content.decode()
    assert reverse("judging:calibration", args=[study.pk, run.pk]) not in agreement
    board = client.get(reverse("judging:leaderboard", args=[study.pk])).content.decode()
    assert f'<option value="{run.pk}"' not in board
    compare = client.get(reverse("judging:compare", args=[study.pk])).content.decode()
    assert f'value="{run.pk}"' not in compare
    for name in ("judging:calibration", "judging:calibration_json", "judging:triage"):
        assert client.get(reverse(name, args=[study.pk, run.pk])).status_code == 404, name
    rated = with_gold["ratings"]
    assert client.get(reverse("judging:calibration", args=[study.pk, rated.pk])).status_code == 404
    family = client.post(reverse("judging:calibration_family", args=[study.pk, run.pk]))
    assert family.status_code == 404
    # The study the runs belong to still shows and opens them.
    earlier = with_gold["earlier"]
    own = client.get(reverse("agreement:study", args=[earlier.pk])).content.decode()
    assert reverse("judging:calibration", args=[earlier.pk, run.pk]) in own
    assert client.get(reverse("judging:calibration", args=[earlier.pk, run.pk])).status_code == 200


def test_the_api_answers_a_run_of_another_study_as_not_found(with_gold, make_user):
    study, run = with_gold["study"], with_gold["verdicts"]
    _, key = ApiToken.issue(make_user(Role.VIEWER), "tests")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    board = api.get(reverse("api:study-leaderboard", args=[study.pk]), {"judge": run.pk})
    assert board.status_code == 404
    calibration = api.get(reverse("api:study-calibration", args=[study.pk, run.pk]))
    assert calibration.status_code == 404
    earlier = with_gold["earlier"]
    own = api.get(reverse("api:study-calibration", args=[earlier.pk, run.pk]))
    assert own.status_code == 200


def test_the_eee_export_knows_no_run_of_the_gold_checks(with_gold):
    study, run = with_gold["study"], with_gold["verdicts"]
    with pytest.raises(ExportProblem, match="not one of this study's judge runs"):
        judge_run_for(study, run.pk)
    with pytest.raises(ExportProblem, match="No judge run"):
        judge_run_for(study, None)


def test_a_run_made_for_one_study_stays_its_own_where_studies_share_responses(make_user):
    first = factories.study([], responses=2, overlap=1)
    second = grading_services.create_study(
        name="Second round",
        framework=first.framework,
        responses=[item.response for item in first.items.all()],
        annotators=[],
        overlap=1,
    )
    made_here = factories.judge_run(first, "made", fails_universal=False)
    made_here.parameters = {"study": first.pk}
    made_here.save()
    imported = factories.judge_run(first, "imported", fails_universal=False)
    assert data.judge_runs_for(first) == [made_here, imported]
    assert data.judge_runs_for(second) == [imported]  # it judged the second study's responses
