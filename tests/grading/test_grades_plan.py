"""How many expert grades a study needs, on the setup page: from an assumed judge accuracy, or
from the framework's latest judge run measured against the experts' unanimous verdicts."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from core.stats.ppi_planning import assumed_judge_agreement, expert_grades_needed
from grading import services
from grading.models import PairTally
from judging.models import JudgeRun, JudgeVerdict
from rubrics.models import Response
from tests import factories

pytestmark = pytest.mark.http

TASKS = 30


@pytest.fixture
def maintainer(db) -> Client:
    sync_roles()
    client = Client()
    client.force_login(create_user_with_role("lead", "pw", Role.MAINTAINER))
    return client


@pytest.fixture
def framework(db):
    """30 published tasks of one criterion, each answered by two models."""
    fw = factories.framework()
    for _ in range(TASKS):
        task = factories.published_task(fw, criteria=1)
        factories.response(task, model="model-a")
        factories.response(task, model="model-b")
    return fw


def measured_run(framework) -> JudgeRun:
    """A study of the framework's responses whose experts agreed on each (a pass on 3 of 4),
    and a run of two epochs: right on every response but the last, split on every fourth."""
    grader = create_user_with_role("grader", "pw", Role.ANNOTATOR)
    study = services.create_study(
        name="Measured",
        framework=framework,
        responses=list(Response.objects.filter(task__framework=framework).order_by("pk")),
        annotators=[grader],
        overlap=1,
    )
    run = JudgeRun.objects.create(judge_model="judge-m")
    items = list(study.items.select_related("rubric_version").order_by("pk"))
    for n, item in enumerate(items):
        [line] = [line for line in item.rubric_version.effective_rubric() if line.applicable]
        passed = n % 4 != 0
        PairTally.objects.create(
            study=study,
            study_item=item,
            criterion_version=line.version,
            passes=int(passed),
            fails=int(not passed),
        )
        judged = passed if n < len(items) - 1 else not passed
        for epoch in (1, 2):
            verdict = not judged if (n % 4 == 1 and epoch == 2) else judged
            JudgeVerdict.objects.create(
                run=run,
                response_id=item.response_id,
                criterion_version=line.version,
                epoch=epoch,
                verdict=verdict,
            )
    return run


def _text(html: str, element: str) -> str:
    found = re.search(rf'id="{element}">(.*?)</p>', html, re.S)
    assert found, html
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", found.group(1))).strip()


def answer(html: str) -> str:
    return _text(html, "grades-plan-answer")


def source(html: str) -> str:
    return _text(html, "grades-plan-source")


def test_the_page_answers_from_an_assumed_accuracy_with_the_defaults(maintainer, framework):
    html = maintainer.get(reverse("grading:study_create")).content.decode()
    assert re.search(r'name="plan_half_width" value="0.05"', html)
    assert re.search(r'name="plan_accuracy" value="0.85"', html)
    # ± 0.05 on 30 responses a model is out of reach, even with every one graded.
    assert "± 0.05" in answer(html)
    assert "experts must grade more than the 30 responses each model has, drawn at random" in (
        answer(html)
    )
    assert "assumed to be 0.85" in source(html)


def test_the_fragment_answers_for_the_half_width_and_accuracy_asked(maintainer, framework):
    data = {"framework": framework.pk, "plan_half_width": "0.2", "plan_accuracy": "0.95"}
    response = maintainer.post(reverse("grading:study_preview"), data, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    expected = expert_grades_needed(assumed_judge_agreement(0.95, 0.5), half_width=0.2, pool=TASKS)
    assert expected.uniform is not None and expected.uniform < expected.without_judge
    text = answer(html)
    assert f"about {expected.uniform} responses of each model drawn at random." in text
    assert f"Without the judge: {expected.without_judge}." in text
    assert "uncertainty" not in text  # no run measured: no active sampling
    assert "assumed to be 0.95" in source(html)


def test_a_measured_run_gives_the_accuracy_and_active_sampling(maintainer, framework):
    measured_run(framework)
    plan = services.plan_expert_grades(framework, half_width=0.2, pool=TASKS, accuracy=0.6)
    # 60 pairs, the last judged wrong by both epochs, every other right by its majority
    # (a split of two epochs counts as a pass, and every fourth split is on a pass).
    assert plan.judge.n == 2 * TASKS
    assert plan.judge.accuracy == pytest.approx(59 / 60)
    assert plan.judge.run is not None and plan.needed.active is not None
    html = maintainer.post(
        reverse("grading:study_preview"),
        {"framework": framework.pk, "plan_half_width": "0.2", "plan_accuracy": "0.6"},
    ).content.decode()
    assert "<html" in html  # without htmx: the whole page
    text = answer(html)
    assert f"about {plan.needed.uniform} response" in text
    assert f"or {plan.needed.active} drawn by the judge's uncertainty." in text
    assert f"measured on {2 * TASKS} verdicts of its latest run (judge-m)" in source(html)


def test_without_two_responses_of_a_model_there_is_no_answer(maintainer):
    html = maintainer.get(reverse("grading:study_create")).content.decode()
    assert "Select at least two responses of each model" in answer(html)


def test_an_invalid_target_falls_back_to_the_defaults(maintainer, framework):
    data = {"framework": framework.pk, "plan_half_width": "7", "plan_accuracy": "x"}
    html = maintainer.post(
        reverse("grading:study_preview"), data, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "± 0.05" in answer(html)
    assert "assumed to be 0.85" in source(html)


def wrong_run(framework) -> JudgeRun:
    """A later run of one epoch whose verdict on every pair is the experts' opposite."""
    run = JudgeRun.objects.create(judge_model="judge-later")
    for tally in PairTally.objects.filter(study__framework=framework).select_related("study_item"):
        JudgeVerdict.objects.create(
            run=run,
            response_id=tally.study_item.response_id,
            criterion_version_id=tally.criterion_version_id,
            verdict=tally.passes == 0,
        )
    return run


def test_the_run_chosen_to_sample_by_is_measured_not_the_latest(maintainer, framework):
    chosen = measured_run(framework)
    later = wrong_run(framework)
    latest = services.plan_expert_grades(framework, half_width=0.2, pool=TASKS)
    assert latest.judge.run is not None and latest.judge.run.pk == later.pk
    assert latest.judge.accuracy == 0 and latest.judge.sampling_run is None
    plan = services.plan_expert_grades(
        framework, half_width=0.2, pool=TASKS, sampling_run=chosen.pk
    )
    assert plan.judge.run is not None and plan.judge.run.pk == chosen.pk
    assert plan.judge.accuracy == pytest.approx(59 / 60) and plan.needed.active is not None
    data = {
        "framework": framework.pk,
        "plan_half_width": "0.2",
        "sampling_run": chosen.pk,
        "sampling_budget": "10",
    }
    html = maintainer.post(
        reverse("grading:study_preview"), data, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert f"or {plan.needed.active} drawn by the judge's uncertainty." in answer(html)
    assert (
        f"measured on {2 * TASKS} verdicts of the run chosen to sample the study by (judge-m)"
        in source(html)
    )
    del data["sampling_run"], data["sampling_budget"]
    html = maintainer.post(
        reverse("grading:study_preview"), data, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "of its latest run (judge-later)" in source(html)


def test_a_chosen_run_too_thin_to_measure_assumes_the_accuracy(maintainer, framework):
    one = JudgeVerdict.objects.filter(run=measured_run(framework)).first()
    assert one is not None
    thin = JudgeRun.objects.create(judge_model="judge-thin")
    JudgeVerdict.objects.create(
        run=thin, response_id=one.response_id, criterion_version=one.criterion_version, verdict=True
    )
    plan = services.plan_expert_grades(
        framework, half_width=0.2, pool=TASKS, accuracy=0.9, sampling_run=thin.pk
    )
    assert (plan.judge.run, plan.judge.n, plan.judge.accuracy) == (None, 0, 0.9)
    assert plan.judge.sampling_run is not None and plan.judge.sampling_run.pk == thin.pk
    data = {
        "framework": framework.pk,
        "plan_half_width": "0.2",
        "plan_accuracy": "0.9",
        "sampling_run": thin.pk,
        "sampling_budget": "10",
    }
    html = maintainer.post(
        reverse("grading:study_preview"), data, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "The run chosen to sample the study by (judge-thin) has too few verdicts" in source(html)
    assert "assumed to be 0.9" in source(html)
