"""Tasks (with their effective rubric), criteria and the review workflow through the API: the
rules are rubrics.services', so the API refuses what the authoring screens refuse."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from rubrics import services
from rubrics.models import Task
from taxonomy.models import SubCompetency

pytestmark = pytest.mark.django_db


@pytest.fixture
def author(api_as):
    return api_as(Role.AUTHOR)


@pytest.fixture
def maintainer(api_as):
    return api_as(Role.MAINTAINER)


@pytest.fixture
def sub(framework) -> SubCompetency:
    return SubCompetency.objects.get(competency__framework=framework, code="01a")


@pytest.fixture
def task(framework, sub) -> Task:
    """A draft task ready for review, with a universal, a consensus and two task criteria."""
    services.add_criterion(framework, "Suits the learners' age.", 4, None, "01u1")
    services.add_criterion(sub, "States a measurable objective.", 2, None)
    task = services.create_task(
        sub, "t1", "Plan a lesson.", None, reference_answer="A plan with objectives."
    )
    services.add_criterion(task, "Gives a time plan.", 3, None)
    services.add_criterion(task, "Needs a projector.", -1, None)
    return task


def detail(task: Task) -> str:
    return reverse("api:task-detail", args=[task.pk])


def test_a_task_carries_its_effective_rubric_in_rubric_order(task, author):
    body = author.get(detail(task)).json()
    assert [(line["code"], line["layer"], line["weight"]) for line in body["rubric"]] == [
        ("01u1", "universal", 4),
        ("01a-01", "consensus", 2),
        ("t1-01", "task", 3),
        ("t1-02", "task", -1),
    ]
    assert {line["version"] for line in body["rubric"]} == {1}
    assert body["published_version"] is None and body["status"] == "draft"


def test_an_excluded_universal_criterion_is_marked_in_the_api(task, author):
    universal = task.effective_rubric()[0].criterion
    services.exclude_universal(task, universal, "No age given.", None)
    [line] = [r for r in author.get(detail(task)).json()["rubric"] if r["code"] == "01u1"]
    assert line["applicable"] is False and line["na_reason"] == "No age given."


def test_creating_a_task_goes_through_the_service_and_records_history(framework, sub, author):
    response = author.post(
        reverse("api:task-list"),
        {"key": "t9", "sub_competency": sub.pk, "instruction": "Write a dialogue."},
    )
    assert response.status_code == 201, response.json()
    task = Task.objects.get(key="t9")
    assert task.framework == framework and task.status == Task.Status.DRAFT
    assert response.headers["ETag"] == '"1"'
    assert AuditEvent.objects.for_object(task).get().kind == AuditEvent.Kind.CREATED


def test_a_duplicate_task_key_is_400_by_field(task, sub, author):
    response = author.post(
        reverse("api:task-list"), {"key": "t1", "sub_competency": sub.pk, "instruction": "Again."}
    )
    assert response.status_code == 400
    assert "key" in response.json()["errors"] or "non_field_errors" in response.json()["errors"]


def test_a_stale_put_of_a_task_is_409_with_the_current_task(task, sub, author):
    body = author.get(detail(task)).json()
    change = {"key": "t1", "sub_competency": sub.pk, "revision": body["revision"]}
    first = author.put(detail(task), change | {"instruction": "First edit."})
    assert first.status_code == 200, first.json()
    second = author.put(detail(task), change | {"instruction": "Second edit."})
    assert second.status_code == 409
    assert second.json()["current"]["instruction"] == "First edit."
    task.refresh_from_db()
    assert task.instruction == "First edit."


def test_a_stale_if_match_on_a_task_is_412(task, author):
    etag = author.get(detail(task)).headers["ETag"]
    assert author.patch(detail(task), {"language": "de"}, HTTP_IF_MATCH=etag).status_code == 200
    stale = author.patch(detail(task), {"language": "fr"}, HTTP_IF_MATCH=etag)
    assert stale.status_code == 412
    assert stale.json()["current"]["language"] == "de"


def test_a_change_without_a_revision_is_428(task, author):
    assert author.patch(detail(task), {"language": "de"}).status_code == 428


def test_submit_approve_publishes_the_rubric(task, author, maintainer):
    submitted = author.post(reverse("api:task-submit", args=[task.pk]), {})
    assert submitted.status_code == 200, submitted.json()
    assert submitted.json()["status"] == "in_review"
    approved = maintainer.post(reverse("api:task-approve", args=[task.pk]), {"comment": "Good."})
    assert approved.status_code == 200
    assert approved.json()["status"] == "published"
    assert approved.json()["published_version"] == 1
    assert task.rubric_versions.get().items.count() == 4


def test_an_incomplete_task_cannot_be_submitted_and_the_problems_say_why(sub, author):
    task = services.create_task(sub, "t2", "Plan.", None)
    response = author.post(reverse("api:task-submit", args=[task.pk]), {})
    assert response.status_code == 409
    problems = response.json()["problems"]
    assert any("no reference answer" in p for p in problems)
    assert any("no task criteria" in p for p in problems)
    task.refresh_from_db()
    assert task.status == Task.Status.DRAFT


def test_a_task_in_review_is_locked_against_edits(task, author, make_user):
    services.submit_for_review(task, make_user(Role.AUTHOR))
    response = author.patch(detail(task), {"language": "de", "revision": task.revision})
    assert response.status_code == 409
    assert "in review" in response.json()["problems"][0]


def test_returning_needs_a_comment_and_then_reopens_the_draft(task, author, maintainer):
    author.post(reverse("api:task-submit", args=[task.pk]), {})
    url = reverse("api:task-return", args=[task.pk])
    missing = maintainer.post(url, {})
    assert missing.status_code == 400 and "comment" in missing.json()["errors"]
    returned = maintainer.post(url, {"comment": "Add a second objective."})
    assert returned.status_code == 200 and returned.json()["status"] == "draft"


def test_approving_a_draft_is_409(task, maintainer):
    response = maintainer.post(reverse("api:task-approve", args=[task.pk]), {})
    assert response.status_code == 409
    assert "not in review" in response.json()["problems"][0]


def test_an_author_cannot_approve(task, author):
    author.post(reverse("api:task-submit", args=[task.pk]), {})
    assert author.post(reverse("api:task-approve", args=[task.pk]), {}).status_code == 403


def test_tasks_filter_by_status_and_sub_competency_code(task, sub, viewer_api, make_user):
    services.create_task(sub, "t3", "Other.", None)
    services.submit_for_review(task, make_user(Role.AUTHOR))
    response = viewer_api.get(reverse("api:task-list"), {"status": "in_review"})
    assert [row["key"] for row in response.json()["results"]] == ["t1"]
    response = viewer_api.get(reverse("api:task-list"), {"sub_competency_code": "01a"})
    assert [row["key"] for row in response.json()["results"]] == ["t1", "t3"]
    assert "rubric" not in response.json()["results"][0]


@pytest.mark.parametrize(
    ("params", "codes"),
    [
        ({"layer": "universal"}, ["01u1"]),
        ({"layer": "consensus", "sub_competency_code": "01a"}, ["01a-01"]),
        ({"task_key": "t1"}, ["t1-01", "t1-02"]),
    ],
)
def test_criteria_filter_by_layer_sub_competency_and_task(params, codes, task, viewer_api):
    response = viewer_api.get(reverse("api:criterion-list"), params | {"ordering": "code"})
    assert [row["code"] for row in response.json()["results"]] == codes


def test_a_criterion_shows_its_latest_version(task, viewer_api):
    criterion = task.criteria.get(code="t1-01")
    services.edit_criterion(criterion, {"weight": 5}, criterion.revision, None)
    body = viewer_api.get(reverse("api:criterion-detail", args=[criterion.pk])).json()
    assert (body["version"], body["weight"], body["task_key"]) == (1, 5, "t1")


def test_task_and_criterion_lists_do_not_grow_in_queries(
    task, sub, viewer_api, django_assert_max_num_queries
):
    for n in range(10, 30):
        extra = services.create_task(sub, f"t{n}", "Plan.", None)
        services.add_criterion(extra, "Gives a time plan.", 1, None)
    for name in ("api:task-list", "api:criterion-list"):
        with django_assert_max_num_queries(6):
            response = viewer_api.get(reverse(name), {"page_size": 100})
        assert response.json()["count"] > 20
