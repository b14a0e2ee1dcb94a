"""Hostile text in an uploaded file is a problem naming the file, line and field, never an
import stopped "on an error in L2 Annot itself" (nor a 500 or a hang).

Half of a UTF-16 surrogate pair (`"\\ud800"` in JSON) passed the JSON reader and reached the
database, whose driver could not encode it; other forms of hostile text are tested with their
readers (tests/interchange: test_jsonl, test_inspect_eval, test_backup, test_offline_workbook,
test_l2bench_csv) and with the API (tests/api/test_hostile_bodies, test_hostile_writes).
"""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.roles import Role
from interchange.models import ImportJob
from interchange.problem_text import problem_text
from rubrics.models import Response
from tests import factories

pytestmark = pytest.mark.django_db
HALF = "half of a surrogate pair and not a character, which cannot be stored"


@pytest.fixture(autouse=True)
def immediate_jobs(settings, tmp_path):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    settings.IMPORTS_ROOT = tmp_path / "imports"


@pytest.mark.parametrize(
    ("kind", "line", "field"),
    [
        ("responses", '{"task_key": "%s", "model": "m", "response": "x\\ud800y"}', "response"),
        ("responses", '{"task_key": "%s", "model": "m\\udc00", "response": "x"}', "model"),
        (
            "verdicts",
            '{"task_key": "%s", "model": "m", "criterion_id": "c", "verdict": "pass", '
            '"judge_model": "j", "rationale": "\\udfff"}',
            "rationale",
        ),
    ],
)
def test_an_uploaded_json_lines_file_with_half_a_surrogate_pair_names_line_and_field(
    client_as, django_capture_on_commit_callbacks, kind, line, field
):
    task = factories.published_task()
    content = ('{"task_key": "%s", "model": "m", "response": "fine"}\n' + line) % (
        task.key,
        task.key,
    )
    data = {
        "kind": kind,
        "framework": task.framework.pk,
        "file": SimpleUploadedFile("hostile.jsonl", content.encode()),
    }
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_as(Role.MAINTAINER).post(reverse("interchange:index"), data)
    assert answer.status_code == 302
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.REFUSED
    shown = [problem_text(problem) for problem in job.problems]
    assert any(
        text.startswith(f"hostile.jsonl: line 2: field '{field}': holds \\u") and HALF in text
        for text in shown
    ), shown
    assert not Response.objects.exists()


def test_a_form_post_with_the_bytes_of_half_a_surrogate_pair_stores_no_such_character(
    client_as, starter_framework
):
    """A browser cannot send one, but a crafted request can: the bytes of a UTF-8-encoded
    surrogate (ED A0 80) are not UTF-8, and Django reads them as replacement characters, so
    no page meets the character itself."""
    competency = starter_framework.competencies.first()
    body = f"name=Bad%ED%A0%80name&description=&revision={competency.revision}"
    answer = client_as(Role.MAINTAINER).generic(
        "POST",
        reverse("taxonomy:competency_edit", args=[competency.pk]),
        body,
        content_type="application/x-www-form-urlencoded",
        headers={"HX-Request": "true"},
    )
    assert answer.status_code < 500
    competency.refresh_from_db()
    assert "\ud800" not in competency.name
