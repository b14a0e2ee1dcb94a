import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from accounts.roles import Role
from audit.models import AuditEvent
from rubrics import services
from rubrics.models import Review, Task

pytestmark = pytest.mark.django_db


def test_submitting_a_draft_puts_it_in_review_and_records_who(task, author):
    services.submit_for_review(task, author)
    task.refresh_from_db()
    assert task.status == Task.Status.IN_REVIEW
    assert task.reviews.get().action == Review.Action.SUBMITTED


def test_a_task_without_reference_answer_or_own_criteria_is_refused_with_both_reasons(
    sub_competency, author
):
    bare = services.create_task(sub_competency, "t200", "Do something useful.", author)
    with pytest.raises(services.WorkflowRefused) as refused:
        services.submit_for_review(bare, author)
    assert refused.value.problems == [
        "Task t200 has no reference answer: write one before submitting.",
        "Task t200 has no task criteria: add at least one of its own.",
    ]
    bare.refresh_from_db()
    assert bare.status == Task.Status.DRAFT


def test_a_task_whose_rubric_has_only_penalties_is_refused(sub_competency, author):
    task = services.create_task(
        sub_competency, "t201", "Do it.", author, reference_answer="Like this."
    )
    services.add_criterion(task, "Is rude.", -4, author)
    with pytest.raises(services.WorkflowRefused, match="positive weight"):
        services.submit_for_review(task, author)


def test_approval_publishes_a_rubric_version_and_records_the_approval(published, maintainer):
    task = published.task
    task.refresh_from_db()
    assert task.status == Task.Status.PUBLISHED
    approval = task.reviews.get(action=Review.Action.APPROVED)
    assert (approval.by, approval.rubric_version) == (maintainer, published)
    assert published.items.count() == 6


def test_returning_needs_a_comment_and_puts_the_task_back_to_draft(task, author, maintainer):
    services.submit_for_review(task, author)
    with pytest.raises(ValidationError, match="what needs changing"):
        services.return_for_changes(task, maintainer, "  ")
    services.return_for_changes(task, maintainer, "Add a fail example.")
    task.refresh_from_db()
    assert task.status == Task.Status.DRAFT
    assert [r.action for r in task.reviews.all()] == ["submitted", "returned"]


def test_only_a_task_in_review_can_be_approved_or_returned(task, maintainer):
    with pytest.raises(services.WorkflowRefused, match="not in review"):
        services.approve(task, maintainer)
    with pytest.raises(services.WorkflowRefused, match="not in review"):
        services.return_for_changes(task, maintainer, "No.")


def test_a_task_in_review_cannot_be_submitted_again_or_edited(task, author):
    services.submit_for_review(task, author)
    with pytest.raises(services.WorkflowRefused, match="only a draft"):
        services.submit_for_review(task, author)
    with pytest.raises(services.TaskLocked, match="in review"):
        services.edit_task(task, {"instruction": "Sneaky."}, task.revision, author)
    with pytest.raises(services.TaskLocked):
        services.add_criterion(task, "Sneaky.", 2, author)


def test_an_author_cannot_approve(task, author):
    services.submit_for_review(task, author)
    with pytest.raises(PermissionDenied):
        services.approve(task, author)


def test_a_viewer_cannot_submit(task, make_user):
    with pytest.raises(PermissionDenied):
        services.submit_for_review(task, make_user(Role.VIEWER))


def test_every_status_change_is_in_the_audit_trail(task, author, maintainer):
    services.submit_for_review(task, author)
    services.return_for_changes(task, maintainer, "Tighten criterion 2.")
    services.submit_for_review(task, author)
    services.approve(task, maintainer)
    events = AuditEvent.objects.for_object(task).filter(kind=AuditEvent.Kind.STATUS)
    assert [e.changes["status"] for e in events.order_by("at", "id")] == [
        ["draft", "in_review"],
        ["in_review", "draft"],
        ["draft", "in_review"],
        ["in_review", "published"],
    ]
    assert events.order_by("at", "id")[1].comment == "Tighten criterion 2."


def test_a_retired_task_cannot_be_edited(task, author, maintainer):
    services.retire_task(task, maintainer)
    with pytest.raises(services.TaskLocked, match="retired"):
        services.edit_task(task, {"instruction": "Again."}, task.revision, author)
