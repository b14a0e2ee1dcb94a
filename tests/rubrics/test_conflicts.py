import pytest

from audit.editing import EditConflict
from audit.models import AuditEvent
from rubrics import services

pytestmark = pytest.mark.django_db


def test_second_save_of_stale_criterion_is_a_conflict_showing_their_text(task, author):
    criterion = task.criteria.get(code="t101-01")
    loaded = criterion.revision
    services.edit_criterion(criterion, {"wording": "Theirs."}, loaded, author)
    with pytest.raises(EditConflict) as conflict:
        services.edit_criterion(criterion, {"wording": "Mine."}, loaded, author)
    assert conflict.value.theirs == {"wording": "Theirs."}
    assert criterion.versions.get().wording == "Theirs."


def test_saving_again_on_the_current_revision_overwrites_deliberately(task, author):
    criterion = task.criteria.get(code="t101-01")
    loaded = criterion.revision
    services.edit_criterion(criterion, {"wording": "Theirs."}, loaded, author)
    with pytest.raises(EditConflict) as conflict:
        services.edit_criterion(criterion, {"wording": "Mine."}, loaded, author)
    services.edit_criterion(
        criterion, {"wording": "Mine."}, conflict.value.current.revision, author
    )
    assert criterion.versions.get().wording == "Mine."


def test_second_save_of_stale_task_is_a_conflict(task, author):
    loaded = task.revision
    services.edit_task(task, {"instruction": "Theirs."}, loaded, author)
    with pytest.raises(EditConflict) as conflict:
        services.edit_task(task, {"instruction": "Mine."}, loaded, author)
    assert conflict.value.theirs == {"instruction": "Theirs."}


def test_criterion_edits_are_recorded_with_before_and_after(task, author):
    criterion = task.criteria.get(code="t101-01")
    services.edit_criterion(criterion, {"weight": 8}, criterion.revision, author)
    event = AuditEvent.objects.for_object(criterion).filter(kind=AuditEvent.Kind.UPDATED).get()
    assert event.changes == {"weight": [3, 8]}
    assert event.actor == author
