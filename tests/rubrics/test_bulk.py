"""rubrics.bulk applies the rules of the single-edit services to many rows at once, and records
the same history."""

import pytest

from audit.models import AuditEvent
from rubrics import bulk, services
from rubrics.models import (
    Criterion,
    CriterionVersion,
    Task,
    TaskContextValue,
    TaskResource,
    UniversalExclusion,
)
from taxonomy.models import ContextVariable

pytestmark = pytest.mark.django_db


def events(obj, kind):
    return list(AuditEvent.objects.for_object(obj).filter(kind=kind).order_by("pk"))


def latest(criterion: Criterion) -> CriterionVersion:
    return services.latest_version(criterion)


def test_created_tasks_and_criteria_are_drafts_with_a_first_version_and_history(
    starter_framework, sub_competency, author
):
    (task,) = bulk.create_tasks(
        starter_framework,
        [bulk.NewTask("t900", sub_competency, "Plan a lesson.", reference_answer="A plan.")],
        author,
        kind=AuditEvent.Kind.IMPORTED,
        comment="From a file.",
    )
    (criterion,) = bulk.create_criteria(
        starter_framework,
        [bulk.NewCriterion("t900-01", "task", 1, "Gives a time plan.", 2, task=task)],
        author,
    )
    task.refresh_from_db()
    assert (task.status, task.created_by, criterion.task) == (Task.Status.DRAFT, author, task)
    version = latest(criterion)
    assert (version.number, version.wording, version.weight, version.frozen) == (
        1,
        "Gives a time plan.",
        2,
        False,
    )
    (imported,) = events(task, AuditEvent.Kind.IMPORTED)
    assert (imported.actor, imported.comment) == (author, "From a file.")
    (created,) = events(criterion, AuditEvent.Kind.CREATED)
    assert created.changes["wording"] == [None, "Gives a time plan."]


def test_editing_a_published_task_in_bulk_reopens_it_as_a_single_edit_does(task, published, author):
    other = services.create_task(task.sub_competency, "t102", "Another.", author)
    bulk.edit_tasks(
        [
            bulk.TaskEdit(task, {"instruction": "A new instruction."}, "From a file."),
            bulk.TaskEdit(other, {"instruction": "Another."}),
        ],
        author,
    )
    task.refresh_from_db()
    assert (task.status, task.instruction, task.revision) == (
        Task.Status.DRAFT,
        "A new instruction.",
        2,
    )
    update = events(task, AuditEvent.Kind.UPDATED)[-1]
    assert (update.changes, update.comment) == (
        {"instruction": [published.instruction, "A new instruction."]},
        "From a file.",
    )
    reopened = events(task, AuditEvent.Kind.STATUS)[-1]
    # The status change a single edit records (rubrics.services.edit_task).
    assert (reopened.changes, reopened.comment) == (
        {"status": [Task.Status.PUBLISHED, Task.Status.DRAFT]},
        "Edited after publication.",
    )
    other.refresh_from_db()
    assert (other.status, other.revision) == (Task.Status.DRAFT, 2)


def test_a_bulk_edit_of_a_task_in_review_is_refused(task, author):
    services.submit_for_review(task, author)
    task.refresh_from_db()
    with pytest.raises(services.TaskLocked, match="in review"):
        bulk.edit_tasks([bulk.TaskEdit(task, {"instruction": "Changed."})], author)


def test_new_content_edits_a_draft_in_place_and_follows_a_frozen_version_with_a_new_one(
    task, published, consensus, author
):
    draft_criterion = services.add_criterion(task.sub_competency, "A draft.", 2, author)
    frozen_criterion = consensus[0]
    written = bulk.edit_criteria(
        [
            bulk.CriterionEdit(
                draft_criterion,
                latest(draft_criterion),
                {"order": 7, "wording": "Reworded.", "weight": 3},
            ),
            bulk.CriterionEdit(
                frozen_criterion,
                latest(frozen_criterion),
                {"order": 1, "wording": "Reworded.", "weight": 3},
            ),
        ],
        author,
    )
    assert (written.drafts_edited, written.versions_created) == (1, 1)
    assert [(v.number, v.wording, v.weight) for v in draft_criterion.versions.all()] == [
        (1, "Reworded.", 3)
    ]
    assert [(v.number, v.wording, v.frozen) for v in frozen_criterion.versions.all()] == [
        (1, "Checks what learners can already do.", True),
        (2, "Reworded.", False),
    ]
    draft_criterion.refresh_from_db()
    assert (draft_criterion.order, draft_criterion.revision) == (7, 2)


def test_a_draft_frozen_after_it_was_read_is_not_changed(task, author, maintainer):
    criterion = task.criteria.order_by("order").first()
    read_before = latest(criterion)
    services.submit_for_review(task, author)
    services.approve(task, maintainer)
    bulk.edit_criteria(
        [
            bulk.CriterionEdit(
                criterion, read_before, {"order": 1, "wording": "Reworded.", "weight": 3}
            )
        ],
        author,
    )
    assert [(v.number, v.wording) for v in criterion.versions.all()] == [
        (1, "Asks about the learner's goals."),
        (2, "Reworded."),
    ]


def test_changing_a_task_criterion_in_bulk_reopens_its_published_task(task, published, author):
    criterion = task.criteria.order_by("order").first()
    bulk.edit_criteria([bulk.CriterionEdit(criterion, latest(criterion), {"order": 5})], author)
    task.refresh_from_db()
    assert task.status == Task.Status.DRAFT


def test_exclusions_are_set_exactly_with_the_events_of_the_single_services(task, universal, author):
    services.exclude_universal(task, universal[0], "Adults only.", author)
    bulk.set_exclusions({task: [universal[1]]}, "Not listed.", author)
    assert [(e.criterion, e.reason) for e in UniversalExclusion.objects.filter(task=task)] == [
        (universal[1], "Not listed.")
    ]
    (single,) = events(UniversalExclusion.objects.get(task=task), AuditEvent.Kind.CREATED)
    assert single.changes == {
        "task": [None, str(task)],
        "criterion": [None, "07u1"],
        "reason": [None, "Not listed."],
    }
    removed = AuditEvent.objects.filter(kind=AuditEvent.Kind.DELETED).get()
    assert removed.changes["reason"] == ["Adults only.", None]


def test_context_values_are_replaced_and_recorded_as_set_context_value_records_them(
    task, starter_framework, author
):
    cefr = ContextVariable.objects.get(framework=starter_framework, key="cefr_level")
    size = ContextVariable.objects.get(framework=starter_framework, key="class_size")
    services.set_context_value(task, cefr, "A1", author)
    single = events(task, AuditEvent.Kind.UPDATED)[-1]
    b1 = cefr.values.get(label="B1")
    bulk.set_context_values(
        {task: {cefr.pk: bulk.ContextSetting(value_id=b1.pk)}}, [cefr.pk, size.pk], author
    )
    assert [v.display_value for v in TaskContextValue.objects.filter(task=task)] == ["B1"]
    changed = events(task, AuditEvent.Kind.UPDATED)[-1]
    assert single.changes == {"context cefr_level": [None, "A1"]}
    assert changed.changes == {"context cefr_level": ["A1", "B1"]}


def test_unchanged_context_values_write_nothing(task, starter_framework, author):
    cefr = ContextVariable.objects.get(framework=starter_framework, key="cefr_level")
    services.set_context_value(task, cefr, "A1", author)
    setting = bulk.ContextSetting(value_id=cefr.values.get(label="A1").pk)
    before = AuditEvent.objects.count()
    bulk.set_context_values({task: {cefr.pk: setting}}, [cefr.pk], author)
    assert AuditEvent.objects.count() == before


def test_resources_are_replaced_in_the_order_given(task, author):
    old = services.add_resource(task, "Old handout", author, text="Old.")
    bulk.set_resources(
        {
            task: [
                TaskResource(title="Second", kind=TaskResource.Kind.MARKDOWN, text="2"),
                TaskResource(title="First", kind=TaskResource.Kind.MARKDOWN, text="1"),
            ]
        },
        author,
    )
    assert list(task.resources.order_by("order").values_list("order", "title")) == [
        (1, "Second"),
        (2, "First"),
    ]
    (deleted,) = AuditEvent.objects.filter(kind=AuditEvent.Kind.DELETED, object_id=str(old.pk))
    assert deleted.changes["title"] == ["Old handout", None]
    titles = [
        events(resource, AuditEvent.Kind.CREATED)[0].changes["title"]
        for resource in task.resources.order_by("order")
    ]
    assert titles == [[None, "Second"], [None, "First"]]
