"""A study sampled for the judge's scores: the draw by a judge run's epochs, the inclusion
probabilities it stores, the setup page's and the API's option, and the leaderboard's weights."""

import re

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from core.analysis.leaderboard import prediction_powered
from core.scoring import Judgement, task_score
from grading import services
from grading.models import Study, Verdict
from judging.calibration import study_leaderboard
from judging.models import JudgeRun, JudgeVerdict
from rubrics.models import Response
from taxonomy.models import Framework
from tests import factories

MODELS = ("kestrel", "osprey")
PER_MODEL = 30
EPOCHS = 3


# Each response's place in the pool, by primary key: the judge's answers follow the place, not
# the key, which on PostgreSQL depends on the tests that ran before (sequences are not rolled back).
PLACE: dict[int, int] = {}


def split(response: Response) -> bool:
    """The judge's epochs disagree on the first criterion of every third response."""
    return PLACE[response.pk] % 3 == 0


def judge_passes(response: Response, position: int, epoch: int) -> bool:
    if position == 0 and split(response):
        return epoch != 1  # two passes of three
    return PLACE[response.pk] % 4 != 0 or position != 0


@pytest.fixture(scope="module")
def pool(module_db: None) -> dict[str, object]:
    """Two models' 30 responses each to published tasks of two criteria, judged by a run of
    three epochs; a run that judged none of them; an annotator and a maintainer."""
    sync_roles()
    fw = factories.framework()
    tasks = [factories.published_task(fw, criteria=2) for _ in range(3)]
    responses = [
        factories.response(tasks[n % 3], model) for model in MODELS for n in range(PER_MODEL)
    ]
    PLACE.update((response.pk, place) for place, response in enumerate(responses))
    run = JudgeRun.objects.create(judge_model="judge-m", prompt_version="v1", run_id="epochs")
    JudgeVerdict.objects.bulk_create(
        JudgeVerdict(
            run=run,
            response=response,
            criterion_version=line.version,
            epoch=epoch,
            verdict=judge_passes(response, position, epoch),
        )
        for response in responses
        for position, line in enumerate(response.task.effective_rubric())
        for epoch in range(1, EPOCHS + 1)
    )
    elsewhere = JudgeRun.objects.create(judge_model="judge-m", prompt_version="v1", run_id="none")
    other = factories.response(factories.published_task(fw), "kestrel")
    JudgeVerdict.objects.create(
        run=elsewhere,
        response=other,
        criterion_version=other.task.effective_rubric()[0].version,
        verdict=True,
    )
    grader = create_user_with_role("sampler-grader", "pw", Role.ANNOTATOR)
    create_user_with_role("sampler-lead", "pw", Role.MAINTAINER)
    return {
        "framework": fw.pk,
        "responses": [r.pk for r in responses],
        "run": run.pk,
        "elsewhere": elsewhere.pk,
        "grader": grader.pk,
    }


def responses_of(pool) -> list[Response]:
    return list(Response.objects.filter(pk__in=pool["responses"]).order_by("pk"))


def sampled_study(pool, name: str = "Sampled", seed: int = 7, budget: int = 8) -> Study:
    return services.create_study(
        name=name,
        framework=_framework(pool),
        responses=responses_of(pool),
        annotators=[User.objects.get(pk=pool["grader"])],
        overlap=1,
        seed=seed,
        require_rationale_on_fail=False,
        sampling_run=JudgeRun.objects.get(pk=pool["run"]),
        sampling_budget=budget,
    )


def _framework(pool) -> Framework:
    return Framework.objects.get(pk=pool["framework"])


@pytest.mark.django_db
def test_the_experts_grade_the_responses_drawn_each_with_its_probability(pool):
    study = sampled_study(pool)
    items = list(study.items.select_related("response"))
    assert 0 < len(items) < 2 * PER_MODEL
    found = services.draw_for_judge(
        responses_of(pool), run_id=pool["run"], budget=8, floor_share=0.2, seed=7
    )
    assert {item.response_id for item in items} == {r.pk for r in found.drawn}
    for item in items:
        assert item.inclusion_probability == pytest.approx(found.probability[item.response_id])
        assert 0 < item.inclusion_probability <= 1
    # Each model expects the budget; the responses whose epochs split are likelier.
    for model in MODELS:
        mine = [i for i, r in enumerate(responses_of(pool)) if r.model_name == model]
        assert found.sample.probabilities[mine].sum() == pytest.approx(8)
    doubtful = {r.pk: split(r) for r in responses_of(pool)}
    by_kind = {
        kind: {
            round(float(p), 9)
            for p, r in zip(found.sample.probabilities, responses_of(pool), strict=True)
            if doubtful[r.pk] is kind
        }
        for kind in (True, False)
    }
    assert min(by_kind[True]) > max(by_kind[False])


@pytest.mark.django_db
def test_the_same_seed_draws_the_same_responses(pool):
    first = sampled_study(pool, "First", seed=21)
    again = sampled_study(pool, "Again", seed=21)
    other = sampled_study(pool, "Other", seed=22, budget=20)

    def drawn(study: Study) -> set[int]:
        return set(study.items.values_list("response_id", flat=True))

    assert drawn(first) == drawn(again)
    assert drawn(first) != drawn(other)


@pytest.mark.django_db
def test_a_run_that_judged_none_of_the_responses_is_refused(pool):
    with pytest.raises(ValidationError) as refused:
        services.create_study(
            name="Nothing judged",
            framework=_framework(pool),
            responses=responses_of(pool),
            annotators=[User.objects.get(pk=pool["grader"])],
            sampling_run=JudgeRun.objects.get(pk=pool["elsewhere"]),
            sampling_budget=5,
        )
    assert "judged none of the responses" in str(refused.value.message_dict["sampling_run"])
    assert not Study.objects.filter(name="Nothing judged").exists()


@pytest.mark.django_db
def test_a_draw_of_no_response_is_refused(pool):
    # One model's 30 responses, an expected 2 of them drawn: some seeds draw none.
    some = [r for r in responses_of(pool) if r.model_name == "kestrel"]
    seed = next(
        seed
        for seed in range(500)
        if not services.draw_for_judge(
            some, run_id=pool["run"], budget=2, floor_share=0.2, seed=seed
        ).drawn
    )
    with pytest.raises(ValidationError) as refused:
        services.create_study(
            name="Nothing drawn",
            framework=_framework(pool),
            responses=some,
            annotators=[User.objects.get(pk=pool["grader"])],
            sampling_run=JudgeRun.objects.get(pk=pool["run"]),
            sampling_budget=2,
            seed=seed,
        )
    assert "No response was drawn" in str(refused.value.message_dict["sampling_budget"])


@pytest.mark.django_db
def test_a_run_s_stated_probabilities_draw_instead_of_its_epochs(pool):
    """One epoch, every verdict a pass: the judge said 0.5 on every third response, 0.99 on
    the others (and nothing on the second criterion, which then counts as one even epoch)."""
    run = JudgeRun.objects.create(judge_model="judge-p", prompt_version="v1", run_id="stated")
    responses = responses_of(pool)
    JudgeVerdict.objects.bulk_create(
        JudgeVerdict(
            run=run,
            response=response,
            criterion_version=line.version,
            verdict=True,
            pass_probability=(0.5 if split(response) else 0.99) if position == 0 else None,
        )
        for response in responses
        for position, line in enumerate(response.task.effective_rubric())
    )
    found = services.draw_for_judge(responses, run_id=run.pk, budget=8, floor_share=0.2, seed=7)
    assert found.sample.informative
    doubtful = [p for p, r in zip(found.sample.probabilities, responses, strict=True) if split(r)]
    sure = [p for p, r in zip(found.sample.probabilities, responses, strict=True) if not split(r)]
    assert min(doubtful) > 2 * max(sure)


@pytest.mark.django_db
def test_sampling_without_a_budget_is_refused(pool):
    with pytest.raises(ValidationError) as refused:
        services.create_study(
            name="No budget",
            framework=_framework(pool),
            responses=responses_of(pool),
            annotators=[User.objects.get(pk=pool["grader"])],
            sampling_run=JudgeRun.objects.get(pk=pool["run"]),
        )
    assert "sampling_budget" in refused.value.message_dict


@pytest.mark.django_db
def test_the_setup_page_creates_a_sampled_study(pool):
    client = Client()
    client.force_login(User.objects.get(username="sampler-lead"))
    body = client.get(reverse("grading:study_create")).content.decode()
    assert "Sample for the judge&#x27;s scores" in body
    assert 'name="sampling_floor"' in body
    data = {
        "name": "From the page",
        "framework": pool["framework"],
        "overlap": 1,
        "annotators": [pool["grader"]],
        "scope": "matching",
        "sampling_run": pool["run"],
        "sampling_budget": 6,
        "sampling_floor": 0.5,
    }
    response = client.post(reverse("grading:study_create"), data, follow=True)
    study = Study.objects.get(name="From the page")
    assert (study.sampling_run_id, study.sampling_budget, study.sampling_floor) == (
        pool["run"],
        6,
        0.5,
    )
    drawn = study.items.count()
    assert 0 < drawn < 2 * PER_MODEL + 1
    assert not study.items.filter(inclusion_probability__isnull=True).exists()
    # The floor: no probability under half of the even rate 6 / 30.
    assert min(study.items.values_list("inclusion_probability", flat=True)) >= 0.1 - 1e-9
    text = response.content.decode()
    assert f"{drawn} of the {2 * PER_MODEL + 1} responses selected were drawn" in text
    assert "Sampled for the judge's scores: about 6 responses of each model" in text
    assert f"judge run {study.sampling_run} (floor 0.5)" in text


@pytest.mark.django_db
def test_the_api_creates_a_sampled_study_and_reads_its_settings(pool):
    _, key = ApiToken.issue(User.objects.get(username="sampler-lead"), "tests")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    answer = api.post(
        reverse("api:study-list"),
        {
            "name": "From the API",
            "framework": _framework(pool).code,
            "annotators": ["sampler-grader"],
            "responses": pool["responses"],
            "overlap": 1,
            "sampling_run": pool["run"],
            "sampling_budget": 8,
        },
        format="json",
    )
    assert answer.status_code == 201, answer.content
    data = answer.json()
    assert (data["sampling_run"], data["sampling_budget"], data["sampling_floor"]) == (
        pool["run"],
        8,
        0.2,
    )
    assert 0 < data["items"] < 2 * PER_MODEL


@pytest.mark.django_db
def test_the_api_names_a_sampling_run_that_judged_none_of_the_responses(pool):
    _, key = ApiToken.issue(User.objects.get(username="sampler-lead"), "tests")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    body = {
        "name": "Refused",
        "framework": _framework(pool).code,
        "annotators": ["sampler-grader"],
        "responses": pool["responses"],
        "sampling_run": pool["elsewhere"],
        "sampling_budget": 8,
    }
    answer = api.post(reverse("api:study-list"), body, format="json")
    assert answer.status_code == 400
    assert "sampling_run" in answer.json()["errors"], answer.content


@pytest.mark.django_db
def test_a_study_from_filters_is_sampled_among_the_matching_responses(
    pool, django_assert_max_num_queries
):
    _, key = ApiToken.issue(User.objects.get(username="sampler-lead"), "tests")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    body = {
        "name": "From filters",
        "framework": _framework(pool).code,
        "annotators": ["sampler-grader"],
        "model": "osprey",
        "overlap": 1,
        "sampling_run": pool["run"],
        # The API draws the study's seed at random: ten expected of thirty leaves a draw of none
        # (or of all) a chance below one in twenty thousand.
        "sampling_budget": 10,
    }
    with django_assert_max_num_queries(45):  # not one more query per response (30)
        answer = api.post(reverse("api:study-from-filters"), body, format="json")
    assert answer.status_code == 201, answer.content
    study = Study.objects.get(name="From filters")
    models = set(study.items.values_list("response__model_name", flat=True))
    assert models == {"osprey"} and 0 < study.items.count() < PER_MODEL


def score(response: Response, passes) -> float:
    rubric = [line for line in response.task.effective_rubric() if line.applicable]
    found = task_score(
        Judgement(line.version.weight, passes(response, position))
        for position, line in enumerate(rubric)
    )
    assert found.value is not None
    return max(found.value, 0.0)


def expert_passes(response: Response, position: int) -> bool:
    return not (position == 0 and PLACE[response.pk] % 2 == 0)


@pytest.mark.django_db
def test_the_leaderboard_weighs_each_expert_grade_by_its_inverse_probability(pool):
    study = sampled_study(pool, "Weighed", seed=3, budget=10)
    grader = User.objects.get(pk=pool["grader"])
    services.assign_study(study)
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
    board = study_leaderboard(Study.objects.get(pk=study.pk), JudgeRun.objects.get(pk=pool["run"]))
    items = {i.response_id: i.inclusion_probability for i in study.items.all()}
    first_epoch = lambda r, position: judge_passes(r, position, 1)  # noqa: E731
    for model in MODELS:
        mine = [r for r in responses_of(pool) if r.model_name == model]
        graded = [r for r in mine if r.pk in items]
        others = [r for r in mine if r.pk not in items]
        expected = prediction_powered(
            [score(r, expert_passes) for r in graded],
            [score(r, first_epoch) for r in graded],
            [score(r, first_epoch) for r in others],
            [items[r.pk] for r in graded],
        )
        row = next(r for r in board.rows if r.model == model)
        assert row.ppi is not None and expected is not None
        assert row.ppi.score.estimate == pytest.approx(expected.score.estimate)
        assert (row.ppi.score.low, row.ppi.score.high) == pytest.approx(
            (expected.score.low, expected.score.high)
        )
        assert (row.ppi.score.n_labeled, row.ppi.score.n_unlabeled) == (len(graded), len(others))
        # Unweighted, the estimate would differ: the draw favoured the doubtful responses.
        plain = prediction_powered(
            [score(r, expert_passes) for r in graded],
            [score(r, first_epoch) for r in graded],
            [score(r, first_epoch) for r in others],
        )
        assert plain is not None
        assert not np.isclose(plain.score.estimate, row.ppi.score.estimate)


def _setup_form(pool, **extra: object) -> dict[str, object]:
    return {
        "name": "Previewed",
        "framework": pool["framework"],
        "overlap": 1,
        "annotators": [pool["grader"]],
        "scope": "matching",
        "sampling_run": pool["run"],
        "sampling_budget": 6,
    } | extra


def _lead(pool) -> Client:
    client = Client()
    client.force_login(User.objects.get(username="sampler-lead"))
    return client


def _hidden(html: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert found, html
    return found.group(1)


@pytest.mark.django_db
def test_the_preview_counts_the_responses_expected_to_be_drawn(pool):
    client = _lead(pool)
    selected = 2 * PER_MODEL + 1  # kestrel has one more, judged by the other run
    html = client.post(
        reverse("grading:study_preview"), _setup_form(pool), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert f"about 12 of the {selected} responses selected will be drawn for the experts" in html
    models = re.search(r'<table id="preview-models">(.*?)</table>', html, re.S)
    assert models is not None
    cells = re.findall(r"<td>([^<]*)</td>", models.group(1))
    assert cells == ["kestrel", str(PER_MODEL + 1), "6", "osprey", str(PER_MODEL), "6"]
    assert "<strong>12</strong> responses to grade" in html
    loads = re.search(r'<table id="preview-loads">(.*?)</table>', html, re.S)
    assert loads is not None and "<td>12</td>" in loads.group(1)
    # The selection the draw is made from is what the creation compares with.
    assert _hidden(html, "shown_responses") == str(selected)
    # A budget above a model's responses draws them all.
    html = client.post(
        reverse("grading:study_preview"),
        _setup_form(pool, sampling_budget=PER_MODEL + 5),
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert f"<strong>{selected}</strong> responses to grade" in html
    # Without a budget nothing is drawn: the preview counts the whole selection.
    html = client.post(
        reverse("grading:study_preview"),
        _setup_form(pool, sampling_budget=""),
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "preview-drawn" not in html
    assert f"<strong>{selected}</strong> responses to grade" in html


@pytest.mark.django_db
def test_a_sampled_study_is_created_from_the_selection_the_preview_showed(pool):
    client = _lead(pool)
    html = client.post(reverse("grading:study_preview"), _setup_form(pool)).content.decode()
    shown = _hidden(html, "shown_responses")
    created = client.post(reverse("grading:study_create"), _setup_form(pool, shown_responses=shown))
    assert created.status_code == 302
    assert Study.objects.get(name="Previewed").items.exists()
    refused = client.post(
        reverse("grading:study_create"),
        _setup_form(pool, name="Stale", shown_responses=int(shown) - 1),
    )
    assert refused.status_code == 422
    assert (
        f"The selection now holds {shown} responses, not the {int(shown) - 1} the preview"
        in refused.content.decode()
    )
