import pytest
from django.core.exceptions import ValidationError

from rubrics import bulk, services
from rubrics.models import Criterion, CriterionVersion, Task

pytestmark = pytest.mark.django_db


def test_approval_freezes_every_criterion_version_in_the_rubric(task, published):
    versions = [line.version.pk for line in published.effective_rubric()]
    assert CriterionVersion.objects.filter(pk__in=versions, frozen=False).count() == 0
    assert len(versions) == 6


def test_editing_a_draft_version_changes_it_in_place(task, author):
    criterion = task.criteria.get(code="t101-01")
    version = services.edit_criterion(
        criterion, {"wording": "Asks about goals at work."}, criterion.revision, author
    )
    assert version.number == 1
    assert criterion.versions.get().wording == "Asks about goals at work."


def test_editing_a_frozen_version_creates_a_new_draft_and_leaves_the_frozen_one(
    task, published, author
):
    criterion = task.criteria.get(code="t101-01")
    new = services.edit_criterion(criterion, {"weight": 7}, criterion.revision, author)
    first = criterion.versions.get(number=1)
    assert (first.weight, first.frozen) == (3, True)
    assert (new.number, new.weight, new.frozen) == (2, 7, False)
    assert new.wording == first.wording


def test_second_edit_after_publication_changes_the_new_draft_not_a_third_version(
    task, published, author
):
    criterion = task.criteria.get(code="t101-01")
    services.edit_criterion(criterion, {"weight": 7}, criterion.revision, author)
    criterion.refresh_from_db()
    services.edit_criterion(criterion, {"fails": "Never asks."}, criterion.revision, author)
    assert list(criterion.versions.values_list("number", "weight", "fails")) == [
        (1, 3, ""),
        (2, 7, "Never asks."),
    ]


def test_published_rubric_is_unchanged_by_later_edits(task, published, author):
    before = [
        (line.code, line.weight, line.version.wording) for line in published.effective_rubric()
    ]
    criterion = task.criteria.get(code="t101-01")
    services.edit_criterion(criterion, {"weight": 9, "wording": "New."}, criterion.revision, author)
    services.edit_task(task, {"instruction": "Changed."}, task.revision, author)
    published.refresh_from_db()
    after = [
        (line.code, line.weight, line.version.wording) for line in published.effective_rubric()
    ]
    assert after == before
    assert published.instruction == "Plan a five-minute diagnostic chat for a new adult learner."


def test_editing_a_published_task_puts_it_back_to_draft(task, published, author):
    services.edit_task(task, {"instruction": "Changed."}, task.revision, author)
    task.refresh_from_db()
    assert task.status == Task.Status.DRAFT


def test_editing_one_of_its_criteria_puts_a_published_task_back_to_draft(task, published, author):
    criterion = task.criteria.get(code="t101-02")
    services.edit_criterion(
        criterion, {"passes": "A plan with minutes."}, criterion.revision, author
    )
    task.refresh_from_db()
    assert task.status == Task.Status.DRAFT


def test_an_edit_that_changes_nothing_keeps_the_version_and_the_status(task, published, author):
    criterion = task.criteria.get(code="t101-02")
    services.edit_criterion(criterion, {"weight": 1}, criterion.revision, author)
    task.refresh_from_db()
    assert (task.status, criterion.versions.count()) == (Task.Status.PUBLISHED, 1)


def test_the_code_of_a_published_criterion_cannot_change(task, published, author):
    criterion = task.criteria.get(code="t101-02")
    with pytest.raises(services.RubricError, match="cannot change"):
        services.edit_criterion(criterion, {"code": "t101-09"}, criterion.revision, author)


def test_overwriting_a_version_frozen_meanwhile_is_refused(task, author):
    version = task.criteria.get(code="t101-01").versions.get()
    CriterionVersion.objects.filter(pk=version.pk).update(frozen=True)
    with pytest.raises(services.VersionFrozen):
        bulk.overwrite_drafts([version])


def test_second_publication_numbers_the_rubric_version_two(task, published, author, maintainer):
    services.edit_task(task, {"instruction": "Changed."}, task.revision, author)
    services.submit_for_review(task, author)
    second = services.approve(task, maintainer)
    assert (published.number, second.number) == (1, 2)
    assert second.instruction == "Changed."


def test_ordinal_criterion_keeps_its_scale_and_point_labels_in_a_new_version(
    task, published, author
):
    criterion = task.criteria.get(code="t101-02")
    changes = {
        "scoring_type": "ordinal",
        "scale_min": 0,
        "scale_max": 2,
        "scale_labels": {0: "no plan", 2: "a timed plan"},
    }
    version = services.edit_criterion(criterion, changes, criterion.revision, author)
    assert (version.number, version.scale_min, version.scale_max) == (2, 0, 2)
    assert list(version.scale_points.values_list("value", "label")) == [
        (0, "no plan"),
        (2, "a timed plan"),
    ]


def test_ordinal_criterion_without_a_scale_is_refused(task, author):
    criterion = task.criteria.get(code="t101-02")
    with pytest.raises(ValidationError, match="scale minimum below"):
        services.edit_criterion(criterion, {"scoring_type": "ordinal"}, criterion.revision, author)


def test_a_weight_of_zero_is_refused(task, author):
    with pytest.raises(ValidationError, match="count for nothing"):
        services.add_criterion(task, "Counts for nothing.", 0, author)


def test_a_consensus_criterion_moves_among_its_siblings(consensus, author):
    moved = services.move_criterion(consensus[1], -1, author)
    assert (moved.pk, moved.order) == (consensus[1].pk, 1)


def test_a_task_criterion_moved_reopens_its_published_task(task, published, author):
    _, second = task.criteria.order_by("order")
    services.move_criterion(second, -1, author)
    task.refresh_from_db()
    assert task.status == Task.Status.DRAFT


def test_an_unpublished_universal_criterion_is_deleted_when_removed(universal, author):
    assert services.remove_criterion(universal[0], author) is True
    assert not Criterion.objects.filter(pk=universal[0].pk).exists()
