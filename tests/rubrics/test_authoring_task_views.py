"""The task editor: create, edit with the revision check, context values, resources and
universal exclusions."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.roles import Role
from rubrics import services
from rubrics.models import Task, TaskResource
from taxonomy.models import ContextVariable
from tests.conftest import htmx

pytestmark = pytest.mark.django_db


def edit_url(task):
    return reverse("rubrics:task_edit", args=[task.pk])


def task_data(task, **changes):
    data = {name: getattr(task, name) for name in Task.CONTENT_FIELDS}
    data["sub_competency"] = task.sub_competency_id
    data["revision"] = task.revision
    return data | changes


def test_author_creates_a_draft_task_and_lands_in_its_editor(client_as, sub_competency):
    response = client_as(Role.AUTHOR).post(
        reverse("rubrics:task_create"),
        {
            "sub_competency": sub_competency.pk,
            "key": "t900",
            "instruction": "Design a warm-up.",
            "system_prompt": "You are a teacher.",
            "reference_answer": "A two-minute warm-up ...",
            "difficulty": "easy",
            "language": "en",
            "task_type": "open_ended",
        },
    )
    task = Task.objects.get(key="t900")
    assert response.status_code == 302 and response.url == edit_url(task)
    assert (task.status, task.difficulty, task.framework_id) == (
        "draft",
        "easy",
        sub_competency.competency.framework_id,
    )


def test_a_key_used_in_the_framework_is_refused_with_a_message(client_as, task):
    data = task_data(task, instruction="Another.")
    response = client_as(Role.AUTHOR).post(reverse("rubrics:task_create"), data)
    assert response.status_code == 422
    assert "This key is already used by another task." in response.content.decode()
    assert Task.objects.filter(key=task.key).count() == 1


def test_edit_saves_and_answers_htmx_with_the_fields_fragment(client_as, task):
    client = htmx(client_as(Role.AUTHOR))
    response = client.post(edit_url(task), task_data(task, instruction="Plan a new chat."))
    assert response.status_code == 200
    assert "<html" not in response.content.decode() and "Saved" in response.content.decode()
    task.refresh_from_db()
    assert (task.instruction, task.revision) == ("Plan a new chat.", 2)


def test_second_save_with_the_same_revision_is_a_conflict_showing_both_texts(client_as, task):
    first, second = client_as(Role.AUTHOR), client_as(Role.AUTHOR)
    loaded = task_data(task)
    assert first.post(edit_url(task), loaded | {"instruction": "Theirs."}).status_code == 302
    response = second.post(edit_url(task), loaded | {"instruction": "Mine."})
    assert response.status_code == 409
    page = response.content.decode()
    assert "Someone else saved this" in page and "Theirs." in page and "Mine." in page
    assert "Save mine over theirs" in page
    task.refresh_from_db()
    assert task.instruction == "Theirs."
    # The form now carries the current revision: saving again is a deliberate overwrite.
    assert f'name="revision" value="{task.revision}"' in page


def test_a_task_in_review_cannot_be_edited(client_as, task, author):
    services.submit_for_review(task, author)
    response = client_as(Role.AUTHOR).post(edit_url(task), task_data(task, instruction="No."))
    assert response.status_code == 409
    assert "is in review" in response.content.decode()
    task.refresh_from_db()
    assert task.instruction != "No."


def test_context_widgets_follow_the_variable_kind(client_as, task, starter_framework):
    page = client_as(Role.AUTHOR).get(edit_url(task)).content.decode()
    level = ContextVariable.objects.get(framework=starter_framework, key="cefr_level")
    labels = [value.label for value in level.values.all()]
    select = page[page.index('name="context-cefr_level"') :]
    select = select[: select.index("</select>")]
    assert [select.index(f">{label}<") for label in labels] == sorted(
        select.index(f">{label}<") for label in labels
    )
    number = ContextVariable.objects.filter(framework=starter_framework, kind="number").first()
    tag = page[page.index(f'name="context-{number.key}"') - 200 :][:400]
    assert 'type="number"' in tag
    if number.maximum is not None:
        assert f'max="{number.maximum}"' in tag
    text = ContextVariable.objects.filter(framework=starter_framework, kind="text").first()
    if text is not None:
        assert f'type="text" name="context-{text.key}"' in page
    assert f'<label for="id_context-{level.key}">' in page


def test_context_values_are_saved_and_bad_ones_named_in_the_message(
    client_as, task, starter_framework
):
    number = ContextVariable.objects.filter(
        framework=starter_framework, kind="number", maximum__isnull=False
    ).first()
    url = reverse("rubrics:task_context", args=[task.pk])
    client = htmx(client_as(Role.AUTHOR))
    too_big = str(number.maximum + 1)
    response = client.post(url, {"context-cefr_level": "b1", f"context-{number.key}": too_big})
    assert response.status_code == 422
    assert f"{number.label} ({number.key}) must be from" in response.content.decode()
    assert not task.context_values.exists()  # nothing saved when any value is wrong

    response = client.post(url, {"context-cefr_level": "b1", f"context-{number.key}": "3"})
    assert response.status_code == 200
    values = {item.variable.key: item.display_value for item in task.context_values.all()}
    assert values == {"cefr_level": "B1", number.key: "3"}

    response = client.post(url, {"context-cefr_level": "z9"})
    assert "is not an allowed value of CEFR level (cefr_level)" in response.content.decode()


def test_markdown_resources_are_added_edited_and_deleted(client_as, task):
    client = htmx(client_as(Role.AUTHOR))
    add = reverse("rubrics:resource_create", args=[task.pk])
    assert client.post(add, {"title": "Text", "text": "# Hello"}).status_code == 200
    resource = task.resources.get()
    response = client.post(
        reverse("rubrics:resource_edit", args=[resource.pk]),
        {"title": "Reading text", "text": "Changed", "revision": resource.revision},
    )
    assert response.status_code == 200
    resource.refresh_from_db()
    assert (resource.title, resource.text) == ("Reading text", "Changed")
    client.post(reverse("rubrics:resource_delete", args=[resource.pk]))
    assert not task.resources.exists()


def test_a_resource_needs_a_text_or_a_file(client_as, task):
    add = reverse("rubrics:resource_create", args=[task.pk])
    response = htmx(client_as(Role.AUTHOR)).post(add, {"title": "Empty"})
    assert response.status_code == 422
    assert "Give either a text or a file." in response.content.decode()


def test_files_are_uploaded_within_the_size_limit(client_as, task, settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = tmp_path
    monkeypatch.setattr("rubrics.forms.RESOURCE_MAX_BYTES", 10)
    client = htmx(client_as(Role.AUTHOR))
    add = reverse("rubrics:resource_create", args=[task.pk])
    small = SimpleUploadedFile("cards.txt", b"0123456789")
    assert client.post(add, {"title": "Cards", "file": small}).status_code == 200
    big = SimpleUploadedFile("big.txt", b"01234567890")
    response = client.post(add, {"title": "Big", "file": big})
    assert response.status_code == 422
    assert "big.txt is 11" in response.content.decode()
    assert list(task.resources.values_list("title", "kind")) == [("Cards", TaskResource.Kind.FILE)]


def test_universal_criterion_marked_not_applicable_needs_a_reason(client_as, task, universal):
    client = htmx(client_as(Role.AUTHOR))
    url = reverse("rubrics:task_exclude", args=[task.pk])
    response = client.post(url, {"criterion": universal[1].pk, "reason": ""})
    assert response.status_code == 422
    assert not task.universal_exclusions.exists()
    response = client.post(url, {"criterion": universal[1].pk, "reason": "No projector here."})
    assert response.status_code == 200 and "No projector here." in response.content.decode()
    line = next(x for x in task.effective_rubric() if x.criterion == universal[1])
    assert (line.applicable, line.na_reason) == (False, "No projector here.")
    client.post(reverse("rubrics:task_include", args=[task.pk]), {"criterion": universal[1].pk})
    assert not task.universal_exclusions.exists()
