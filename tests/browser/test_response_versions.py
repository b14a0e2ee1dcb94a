"""A graded response re-imported with a new text, in the browser: the maintainer uploads the
file and reads which response got a new version; the task page keeps the earlier version; the
grader's page says which version the study grades. Every page is checked with axe-core."""

import json

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading.models import Assignment
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_reimported_graded_response_is_a_new_version_shown_as_such(
    new_page, log_in, settings, tmp_path
):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    settings.IMPORTS_ROOT = tmp_path / "imports"
    desk, phone = new_page(width=1280), new_page(width=390)
    log_in(desk, Role.MAINTAINER)
    grader = log_in(phone, Role.ANNOTATOR)
    study = factories.graded_imported_study([grader], name="Pilot study")
    graded = study.items.get().response
    line = {"task_key": graded.task.key, "model": "model-a", "family": "family-a",
            "version": "1.0", "id": "r1", "response": "A **rewritten** answer."}  # fmt: skip
    upload = tmp_path / "answers.jsonl"
    upload.write_text(json.dumps(line) + "\n", encoding="utf-8")

    desk.goto(reverse("interchange:index"))
    desk.get_by_label("Kind").select_option("responses")
    desk.get_by_label("File").set_input_files(str(upload))
    desk.get_by_role("button", name="Upload and import").click()
    desk.get_by_role("heading", name="Responses given a new version").wait_for()
    table = desk.get_by_role("table", name="Responses given a new version")
    assert table.get_by_role("row").nth(1).inner_text().split("\t") == [
        "1", graded.task.key, "r1", "1 → 2", "text", "Pilot study",
    ]  # fmt: skip

    desk.goto(reverse("rubrics:task_detail", args=[graded.task.pk]))
    desk.get_by_text("1 earlier version, kept as it was graded or judged").click()
    desk.get_by_text("Version 1, superseded on").wait_for()

    mine = Assignment.objects.get(annotator=grader)
    phone.goto(reverse("grading:assignment", args=[mine.pk]))
    phone.get_by_text("Version 1 of 2: this study grades version 1.").wait_for()
    assert phone.locator("#response strong").first.inner_text() == "Version one"
