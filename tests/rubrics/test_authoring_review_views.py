"""Review pages: submit (with the problems when refused), the queue, approve, return with a
comment, the history on the task page; and the diff between versions."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from rubrics import services
from rubrics.models import Review, Task

pytestmark = pytest.mark.django_db


def post(client, name, task, **data):
    return client.post(reverse(f"rubrics:{name}", args=[task.pk]), data)


def test_submission_refused_lists_every_problem(client_as, sub_competency, author):
    bare = services.create_task(sub_competency, "bare", "Do something.", author)
    response = post(client_as(Role.AUTHOR), "task_submit", bare)
    assert response.status_code == 409  # the task's state refuses it, as the API says
    page = response.content.decode()
    for problem in services.submission_problems(bare):
        assert f"<li>{problem}</li>" in page
    bare.refresh_from_db()
    assert bare.status == Task.Status.DRAFT


def test_submitted_task_waits_in_the_queue_and_is_approved(client_as, task, maintainer):
    response = post(client_as(Role.AUTHOR), "task_submit", task, comment="Ready.")
    assert response.status_code == 302
    reviewer = client_as(Role.MAINTAINER)
    queue = reviewer.get(reverse("rubrics:review_queue")).content.decode()
    assert ">t101<" in queue and "Ready." in queue
    assert post(reviewer, "task_approve", task).status_code == 302
    task.refresh_from_db()
    assert task.status == Task.Status.PUBLISHED and task.rubric_versions.count() == 1
    assert ">t101<" not in reviewer.get(reverse("rubrics:review_queue")).content.decode()


def test_returning_needs_a_comment_and_shows_in_the_history(client_as, task, author):
    services.submit_for_review(task, author)
    reviewer = client_as(Role.MAINTAINER)
    response = post(reviewer, "task_return", task, comment="  ")
    assert response.status_code == 422
    assert "Say what needs changing" in response.content.decode()
    assert post(reviewer, "task_return", task, comment="Add a time limit.").status_code == 302
    task.refresh_from_db()
    assert task.status == Task.Status.DRAFT
    assert task.reviews.last().action == Review.Action.RETURNED
    page = client_as(Role.VIEWER).get(reverse("rubrics:task_detail", args=[task.pk]))
    assert "Returned for changes" in page.content.decode()
    assert "Add a time limit." in page.content.decode()


def test_approving_a_draft_is_refused(client_as, task):
    assert post(client_as(Role.MAINTAINER), "task_approve", task).status_code == 409
    task.refresh_from_db()
    assert task.status == Task.Status.DRAFT


def test_task_page_offers_the_actions_of_each_role(client_as, task, author):
    detail = reverse("rubrics:task_detail", args=[task.pk])
    assert "Submit for review" in client_as(Role.AUTHOR).get(detail).content.decode()
    assert "Submit for review" not in client_as(Role.VIEWER).get(detail).content.decode()
    services.submit_for_review(task, author)
    assert "Approve and publish" in client_as(Role.MAINTAINER).get(detail).content.decode()
    assert "Approve and publish" not in client_as(Role.AUTHOR).get(detail).content.decode()


def test_diff_with_the_draft_shows_changed_criteria_and_fields(client_as, published, author):
    task = published.task
    criterion = task.criteria.get(code="t101-01")
    services.edit_criterion(criterion, {"wording": "Asks about goals."}, criterion.revision, author)
    services.edit_task(task, {"reference_answer": "A new answer."}, task.revision, author)
    services.add_criterion(task, "Ends with a summary.", 2, author)
    page = client_as(Role.VIEWER).get(reverse("rubrics:task_diff", args=[task.pk]))
    text = page.content.decode()
    assert "Version 1 → current draft" in text
    assert "Asks about the learner&#x27;s goals." in text and "Asks about goals." in text
    assert "A new answer." in text
    assert "t101-03" in text and ">added<" in text and ">changed<" in text


def test_diff_between_two_published_versions(client_as, published, author, maintainer):
    task = published.task
    criterion = task.criteria.get(code="t101-02")
    services.edit_criterion(criterion, {"weight": 2}, criterion.revision, author)
    services.submit_for_review(task, author)
    services.approve(task, maintainer)
    url = reverse("rubrics:task_diff", args=[task.pk])
    text = client_as(Role.VIEWER).get(url, {"from": 1, "to": 2}).content.decode()
    assert "Version 1 → version 2" in text
    assert "t101-02" in text and "<del>1</del>" in text and "<ins>2</ins>" in text
    assert "t101-01" not in text.split("Version 1 → version 2")[1]


def test_diff_of_an_unpublished_task_says_there_is_nothing_to_compare(client_as, task):
    page = client_as(Role.VIEWER).get(reverse("rubrics:task_diff", args=[task.pk]))
    assert page.status_code == 200 and "no published version yet" in page.content.decode()
