"""rubrics.publishing.publish is the one way a rubric gets published: a reviewer's approval and a
bulk publication (as an import makes it) leave the same rows."""

import pytest

from audit.models import AuditEvent
from rubrics import publishing, services
from rubrics.models import Review, RubricVersion, Task, TaskContextValue, TaskResource
from taxonomy.models import ContextVariable

pytestmark = pytest.mark.django_db


def twin(task: Task, key: str, author) -> Task:
    """A second task built like `task`: same sub-competency, text and own criteria."""
    other = services.create_task(
        task.sub_competency, key, task.instruction, author, reference_answer=task.reference_answer
    )
    for criterion in task.criteria.order_by("order"):
        version = services.latest_version(criterion)
        services.add_criterion(other, version.wording, version.weight, author)
    return other


def published_rows(version: RubricVersion) -> dict[str, object]:
    """What publishing wrote for one task, with the task's own key taken out of codes."""
    task = version.task
    review = Review.objects.get(rubric_version=version)
    status = AuditEvent.objects.for_object(task).filter(kind=AuditEvent.Kind.STATUS).first()
    return {
        "version": (
            version.number,
            version.instruction,
            version.system_prompt,
            version.reference_answer,
            version.published_by,
        ),
        "items": [
            (
                item.criterion_version.criterion.code.replace(task.key, "<key>"),
                item.criterion_version.number,
                item.criterion_version.frozen,
                item.layer,
                item.order,
                item.applicable,
                item.na_reason,
            )
            for item in version.items.select_related("criterion_version__criterion")
        ],
        "status": Task.objects.get(pk=task.pk).status,
        "review": (review.action, review.by, review.comment),
        "status history": (status.changes["status"][1], status.actor, status.comment),
    }


def test_approve_and_a_bulk_publication_write_the_same_rows(task, author, maintainer, universal):
    other = twin(task, "t102", author)
    for each in (task, other):
        services.exclude_universal(each, universal[1], "No projector in this room.", author)
        services.submit_for_review(each, author)
    approved = services.approve(task, maintainer, "Fine.")
    (bulk,) = publishing.publish([Task.objects.get(pk=other.pk)], maintainer, "Fine.")
    assert published_rows(bulk) == published_rows(approved)
    assert [item.applicable for item in approved.items.all()].count(False) == 1


def test_a_current_rubric_is_not_published_again_unless_asked(published, maintainer):
    task = Task.objects.get(pk=published.task_id)
    assert publishing.publish([task], maintainer, skip_current=True) == []
    (again,) = publishing.publish([task], maintainer)
    assert again.number == published.number + 1


def test_a_version_keeps_the_resources_and_context_values_it_was_published_with(
    published, maintainer
):
    task = Task.objects.get(pk=published.task_id)
    level = ContextVariable.objects.get(framework=task.framework, key="cefr_level")
    # As an import rewrites them: the rows change, the task stays published.
    TaskResource.objects.create(task=task, title="Reading", text="A short text.", order=1)
    TaskContextValue.objects.create(task=task, variable=level, value=level.values.first())
    (again,) = publishing.publish([task], maintainer, skip_current=True)
    assert [(r.title, r.text) for r in again.resources.all()] == [("Reading", "A short text.")]
    assert [v.value_id for v in again.context_values.all()] == [level.values.first().pk]
    assert not published.resources.exists() and not published.context_values.exists()
    assert publishing.publish([task], maintainer, skip_current=True) == []

    TaskResource.objects.filter(task=task).update(text="Another text.")
    (third,) = publishing.publish([task], maintainer, skip_current=True)
    assert [r.text for r in third.resources.all()] == ["Another text."]
    assert [r.text for r in again.resources.all()] == ["A short text."]


def test_publishing_many_tasks_costs_the_queries_of_one(
    task, author, django_assert_max_num_queries
):
    one = [Task.objects.get(pk=task.pk)]
    many = [Task.objects.get(pk=twin(task, f"t2{n}", author).pk) for n in range(6)]
    with django_assert_max_num_queries(30) as one_task:
        publishing.publish(one, author)
    with django_assert_max_num_queries(len(one_task.captured_queries)):
        publishing.publish(many, author)


def test_published_tasks_are_marked_and_stamped_and_no_other_task(task, author):
    many = [Task.objects.get(pk=twin(task, f"t3{n}", author).pk) for n in range(3)]
    before = {t.pk: t.updated_at for t in Task.objects.all()}
    publishing.publish(many[:2], author)
    after = {t.pk: (t.status, t.updated_at) for t in Task.objects.all()}
    for each in many[:2]:
        assert after[each.pk][0] == Task.Status.PUBLISHED
        assert after[each.pk][1] > before[each.pk]
        assert (each.status, each.updated_at) == after[each.pk]  # the objects given, too
    for pk in set(before) - {each.pk for each in many[:2]}:
        assert after[pk] == (Task.objects.get(pk=pk).status, before[pk])
        assert after[pk][0] != Task.Status.PUBLISHED
