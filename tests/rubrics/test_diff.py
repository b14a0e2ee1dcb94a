import pytest

from rubrics import services
from rubrics.diff import diff_rubric_versions, diff_rubrics

pytestmark = pytest.mark.django_db


def republish(task, author, maintainer):
    services.submit_for_review(task, author)
    return services.approve(task, maintainer)


def test_diff_reports_changed_fields_of_a_criterion(task, published, author, maintainer):
    criterion = task.criteria.get(code="t101-01")
    services.edit_criterion(criterion, {"weight": 6}, criterion.revision, author)
    second = republish(task, author, maintainer)
    diff = diff_rubric_versions(published, second)
    [change] = diff.criteria
    assert (change.code, change.change) == ("t101-01", "changed")
    assert change.fields == {"version": (1, 2), "weight": (3, 6)}


def test_diff_reports_added_and_removed_criteria(task, published, author, maintainer):
    services.add_criterion(task, "Ends with a summary.", 2, author)
    retired = task.criteria.get(code="t101-02")
    services.edit_criterion(retired, {"retired": True}, retired.revision, author)
    second = republish(task, author, maintainer)
    changes = {c.code: c.change for c in diff_rubric_versions(published, second).criteria}
    assert changes == {"t101-03": "added", "t101-02": "removed"}


def test_diff_reports_task_text_and_exclusions(task, published, universal, author, maintainer):
    services.exclude_universal(task, universal[0], "All learners are adults.", author)
    task.refresh_from_db()
    services.edit_task(task, {"system_prompt": "Be brief."}, task.revision, author)
    second = republish(task, author, maintainer)
    diff = diff_rubric_versions(published, second)
    assert diff.task_fields == {"system_prompt": ("", "Be brief.")}
    [change] = diff.criteria
    assert change.fields == {
        "applicable": (True, False),
        "na_reason": ("", "All learners are adults."),
    }


def test_a_draft_compared_with_its_published_version_shows_no_change_until_edited(task, published):
    assert diff_rubrics(published.effective_rubric(), task.effective_rubric()) == []
