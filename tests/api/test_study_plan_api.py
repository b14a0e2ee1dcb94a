"""GET /api/v1/studies/plan/: how many expert grades a score needs, as the setup page says."""

import pytest

from accounts.roles import Role
from core.stats.ppi_planning import assumed_judge_agreement, expert_grades_needed
from grading import services
from tests.api.conformance import mismatches
from tests.grading.test_grades_plan import TASKS, measured_run, wrong_run
from tests.grading.test_grades_plan import framework as framework_with_responses  # noqa: F401

pytestmark = pytest.mark.django_db

PATH = "/api/v1/studies/plan/"


def test_an_assumed_accuracy_gives_the_uniform_number(api_as):
    answer = api_as(Role.MAINTAINER).get(
        PATH, {"half_width": 0.1, "accuracy": 0.9, "responses": 500}
    )
    assert answer.status_code == 200 and mismatches(answer, PATH) == []
    expected = expert_grades_needed(assumed_judge_agreement(0.9, 0.5), half_width=0.1, pool=500)
    assert answer.json() == {
        "half_width": 0.1,
        "responses": 500,
        "uniform": expected.uniform,
        "active": None,
        "without_judge": expected.without_judge,
        "accuracy": 0.9,
        "measured_on": 0,
        "judge_run": None,
    }


def test_a_framework_with_a_measured_run_gives_both_numbers(api_as, framework_with_responses):  # noqa: F811
    run = measured_run(framework_with_responses)
    code = framework_with_responses.code
    answer = api_as(Role.MAINTAINER).get(
        PATH, {"half_width": 0.2, "responses": TASKS, "framework": code}
    )
    assert answer.status_code == 200 and mismatches(answer, PATH) == []
    plan = services.plan_expert_grades(framework_with_responses, half_width=0.2, pool=TASKS)
    body = answer.json()
    assert (body["uniform"], body["active"]) == (plan.needed.uniform, plan.needed.active)
    assert body["active"] is not None
    assert (body["measured_on"], body["judge_run"]) == (2 * TASKS, run.pk)


def test_a_target_out_of_range_or_a_missing_pool_is_refused(api_as):
    client = api_as(Role.MAINTAINER)
    for query in ({"responses": 100, "half_width": 0}, {"half_width": 0.05}, {"responses": 1}):
        answer = client.get(PATH, query)
        assert answer.status_code == 400, query
        assert mismatches(answer, PATH) == []


def test_annotators_are_refused(api_as):
    answer = api_as(Role.ANNOTATOR).get(PATH, {"responses": 100})
    assert answer.status_code == 403


def test_the_run_chosen_to_sample_by_is_measured(api_as, framework_with_responses):  # noqa: F811
    chosen = measured_run(framework_with_responses)
    later = wrong_run(framework_with_responses)
    query = {"half_width": 0.2, "responses": TASKS, "framework": framework_with_responses.code}
    client = api_as(Role.MAINTAINER)
    assert client.get(PATH, query).json()["judge_run"] == later.pk
    answer = client.get(PATH, query | {"sampling_run": chosen.pk})
    assert answer.status_code == 200 and mismatches(answer, PATH) == []
    body = answer.json()
    assert (body["judge_run"], body["measured_on"]) == (chosen.pk, 2 * TASKS)
    assert body["accuracy"] == pytest.approx(59 / 60) and body["active"] is not None
    assert client.get(PATH, query | {"sampling_run": 0}).status_code == 400
