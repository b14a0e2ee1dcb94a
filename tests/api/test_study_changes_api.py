"""The API changes a running study as the pages do: pool, settings, questions; and previews a
study's load before creating it."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading import services
from grading.models import Assignment, Study
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(make_user) -> Study:
    graders = [make_user(Role.ANNOTATOR, "ana"), make_user(Role.ANNOTATOR, "ben")]
    study = factories.study(graders, responses=4, overlap=1, seed=2)
    services.assign_study(study)
    return study


def url(study: Study, name: str) -> str:
    return reverse(f"api:study-{name}", args=[study.pk])


def test_annotators_are_added_and_removed(api_as, study, make_user):
    make_user(Role.ANNOTATOR, "carl")
    api = api_as(Role.MAINTAINER)
    added = api.post(url(study, "add-annotators"), {"annotators": ["carl"]}, format="json")
    assert added.status_code == 200, added.json()
    assert added.json()["annotators"] == ["ana", "ben", "carl"]
    assert Assignment.objects.filter(study_item__study=study, annotator__username="carl").exists()
    removed = api.post(url(study, "remove-annotators"), {"annotators": ["ana"]}, format="json")
    assert removed.status_code == 200 and removed.json()["annotators"] == ["ben", "carl"]
    assert not Assignment.objects.filter(annotator__username="ana").exists()
    assert Assignment.objects.filter(study_item__study=study).count() == 4


def test_removing_someone_outside_the_pool_is_a_400(api_as, study, make_user):
    make_user(Role.ANNOTATOR, "carl")
    api = api_as(Role.MAINTAINER)
    response = api.post(url(study, "remove-annotators"), {"annotators": ["carl"]}, format="json")
    assert response.status_code == 400


def test_settings_change_through_patch(api_as, study):
    api = api_as(Role.MAINTAINER)
    response = api.patch(
        reverse("api:study-detail", args=[study.pk]),
        {"match_expertise": True, "description": "Round 2"},
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["match_expertise"] is True
    unknown = api.patch(reverse("api:study-detail", args=[study.pk]), {"overlap": 5}, format="json")
    assert unknown.status_code == 400


def test_questions_are_replaced_until_answered(api_as, study):
    api = api_as(Role.MAINTAINER)
    response = api.post(url(study, "questions"), {"prompts": ["Level right?"]}, format="json")
    assert response.status_code == 200
    assert response.json() == [{"key": "level-right", "prompt": "Level right?"}]
    assignment = Assignment.objects.filter(study_item__study=study).first()
    item = study.likert_items.get()
    services.save_likert(assignment, item.pk, 4, by=assignment.annotator)
    refused = api.post(url(study, "questions"), {"prompts": ["Other?"]}, format="json")
    assert refused.status_code == 409


def test_the_preview_gives_each_annotators_load(api_as, make_user):
    make_user(Role.ANNOTATOR, "ana")
    make_user(Role.ANNOTATOR, "ben")
    answers = [factories.response(factories.published_task()) for _ in range(3)]
    body = {"responses": [r.pk for r in answers], "annotators": ["ana", "ben"], "overlap": 2}
    response = api_as(Role.MAINTAINER).post(reverse("api:study-preview"), body, format="json")
    assert response.status_code == 200, response.json()
    data = response.json()
    assert (data["units"], data["gradings"], data["short"]) == (3, 6, 0)
    assert data["loads"] == [
        {"annotator": "ana", "responses": 3},
        {"annotator": "ben", "responses": 3},
    ]
    assert not Study.objects.exists()


def test_the_preview_of_a_sampled_study_is_of_its_expected_draw(api_as, make_user):
    make_user(Role.ANNOTATOR, "ana")
    task = factories.published_task()
    answers = [factories.response(task, "model-a") for _ in range(5)]
    answers += [factories.response(task, "model-b") for _ in range(2)]
    body = {
        "responses": [r.pk for r in answers],
        "annotators": ["ana"],
        "overlap": 1,
        "sampling_budget": 3,
    }
    response = api_as(Role.MAINTAINER).post(reverse("api:study-preview"), body, format="json")
    assert response.status_code == 200, response.json()
    data = response.json()
    assert data["drawn"] == [
        {"model": "model-a", "expected": 3, "selected": 5},
        {"model": "model-b", "expected": 2, "selected": 2},
    ]
    assert (data["selected"], data["units"], data["loads"]) == (
        7,
        5,
        [{"annotator": "ana", "responses": 5}],
    )
    unsampled = api_as(Role.MAINTAINER).post(
        reverse("api:study-preview"), body | {"sampling_budget": None}, format="json"
    )
    assert (unsampled.json()["units"], unsampled.json()["drawn"]) == (7, [])
