"""The upload page: who may use it, uploads checked, the job run in the background, the
polling fragment, the result or every error; and the export downloads."""

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from accounts.roles import Role
from interchange.importers import import_l2bench
from interchange.jobs import UnsafeArchive, unpack_benchmark
from interchange.models import ImportJob
from rubrics.models import Task
from tests.conftest import htmx
from tests.factories import benchmark_folder, generated, make_job
from tests.interchange.db_helpers import row_counts

pytestmark = [pytest.mark.django_db, pytest.mark.http]
URL = reverse("interchange:index")


@pytest.fixture(autouse=True)
def immediate_jobs(settings, tmp_path):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    settings.IMPORTS_ROOT = tmp_path / "imports"


def zipped(folder) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in folder.rglob("*"):
            archive.write(path, "bench/" + path.relative_to(folder).as_posix())
    return buffer.getvalue()


def upload(client, kind, name, content, framework, capture, **extra):
    data = {"kind": kind, "framework": framework.pk, "file": SimpleUploadedFile(name, content)}
    with capture(execute=True):
        return client.post(URL, data | extra)


def test_a_maintainer_uploads_a_benchmark_and_sees_the_counts(
    client_as, starter_framework, tmp_path, django_capture_on_commit_callbacks
):
    client = client_as(Role.MAINTAINER)
    content = zipped(benchmark_folder(tmp_path / "b", generated(3)))
    response = upload(
        client,
        "benchmark",
        "bench.zip",
        content,
        starter_framework,
        django_capture_on_commit_callbacks,
    )
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response.url == reverse("interchange:job", args=[job.pk])
    assert job.status == "succeeded", job.problems
    assert Task.objects.count() == 3
    page = client.get(response.url)
    assert "tasks: 3 created, 0 updated, 0 unchanged" in page.content.decode()
    assert job.file.path.startswith(str(tmp_path / "imports"))


def test_a_failed_import_lists_every_error_and_writes_nothing(
    client_as, starter_framework, tmp_path, django_capture_on_commit_callbacks
):
    client = client_as(Role.MAINTAINER)
    lines = (
        b'{"task_key": "404", "model": "m", "response": "x"}\n{"task_key": "405", "model": "m"}\n'
    )
    before = row_counts()
    response = upload(
        client, "responses", "r.jsonl", lines, starter_framework, django_capture_on_commit_callbacks
    )
    job = ImportJob.objects.get()
    assert job.status == "refused"
    assert len(job.problems) == 2
    assert row_counts() == before
    page = client.get(response.url).content.decode()
    assert "Nothing was imported" in page
    assert "r.jsonl: line 1: field &#x27;task_key&#x27;: no task &#x27;404&#x27;" in page


@pytest.mark.parametrize(
    ("language", "shown"),
    [
        ("en", "r.jsonl: line 2: field &#x27;response&#x27;: expected a string, got an integer"),
        (
            "es",
            "r.jsonl: línea 2: campo &#x27;response&#x27;: se esperaba una cadena y hay un entero",
        ),
    ],
)
def test_a_failed_imports_problems_are_shown_in_the_readers_language(
    client_as, make_user, starter_framework, django_capture_on_commit_callbacks, language, shown
):
    lines = b'{"task_key": "1", "model": "m", "response": "x"}\n'
    lines += b'{"task_key": "1", "model": "m", "response": 5}\n'
    upload(
        client_as(Role.MAINTAINER),
        "responses",
        "r.jsonl",
        lines,
        starter_framework,
        django_capture_on_commit_callbacks,
    )
    reader = make_user(Role.MAINTAINER)
    reader.language = language
    reader.save()
    client = Client()
    client.force_login(reader)
    page = client.get(reverse("interchange:job", args=[ImportJob.objects.get().pk])).content
    assert shown in page.decode()


def test_a_problem_stored_as_text_before_translation_is_shown_as_it_was(
    make_user, starter_framework
):
    job = make_job(starter_framework, status="refused", problems=["r.jsonl: line 1: is empty"])
    reader = make_user(Role.MAINTAINER)
    reader.language = "es"
    reader.save()
    client = Client()
    client.force_login(reader)
    page = client.get(reverse("interchange:job", args=[job.pk])).content.decode()
    assert "r.jsonl: line 1: is empty" in page and "No se ha importado nada" in page


def test_the_polling_fragment_polls_while_running_and_stops_when_finished(
    client_as, starter_framework
):
    client = htmx(client_as(Role.MAINTAINER))
    running = make_job(starter_framework, status="running", progress=40, stage="checking tasks")
    fragment = client.get(reverse("interchange:job", args=[running.pk])).content.decode()
    assert fragment.lstrip().startswith('<div id="job-status"')
    assert 'hx-trigger="every 1s"' in fragment and 'value="40"' in fragment
    assert "<h1>" not in fragment
    done = make_job(starter_framework)
    fragment = client.get(reverse("interchange:job", args=[done.pk])).content.decode()
    assert "hx-trigger" not in fragment and "1 created" in fragment


@pytest.mark.parametrize(
    ("kind", "name", "content", "message"),
    [
        ("benchmark", "bench.jsonl", b"{}", "takes a file ending in .zip"),
        ("benchmark", "bench.zip", b"not a zip", "not a ZIP archive"),
        ("responses", "r.jsonl", b"task_key,model\n", "does not start with a JSON object"),
    ],
)
def test_wrong_files_are_refused_before_any_job(
    client_as, starter_framework, kind, name, content, message, django_capture_on_commit_callbacks
):
    client = client_as(Role.MAINTAINER)
    response = upload(
        client, kind, name, content, starter_framework, django_capture_on_commit_callbacks
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not ImportJob.objects.exists()


def test_an_upload_over_the_size_limit_is_refused(
    client_as, starter_framework, settings, django_capture_on_commit_callbacks
):
    settings.IMPORT_MAX_UPLOAD_BYTES = 10
    client = client_as(Role.MAINTAINER)
    response = upload(
        client,
        "responses",
        "r.jsonl",
        b'{"a": 1}\n' * 5,
        starter_framework,
        django_capture_on_commit_callbacks,
    )
    assert "over 0 MB" in response.content.decode()
    assert not ImportJob.objects.exists()


@pytest.mark.parametrize("role", [Role.AUTHOR, Role.ANNOTATOR, Role.VIEWER])
def test_other_roles_cannot_upload(
    client_as, starter_framework, role, django_capture_on_commit_callbacks
):
    response = upload(
        client_as(role),
        "responses",
        "r.jsonl",
        b"{}\n",
        starter_framework,
        django_capture_on_commit_callbacks,
    )
    assert response.status_code == 403
    assert not ImportJob.objects.exists()


def test_a_zip_with_a_path_outside_its_folder_is_refused(tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("../escape.csv", "x")
    with pytest.raises(UnsafeArchive, match="unsafe path"):
        unpack_benchmark(archive, tmp_path / "out")


def test_exports_download_the_workbook_and_the_zip(client_as, starter_framework, tmp_path):
    client = client_as(Role.MAINTAINER)
    import_l2bench(benchmark_folder(tmp_path, generated(2)), starter_framework)
    workbook = client.get(reverse("interchange:export_rubrics"))
    assert workbook.status_code == 200
    assert workbook["Content-Disposition"].startswith('attachment; filename="rubrics-')
    bundle = client.get(
        reverse("interchange:export_benchmark"), {"framework": starter_framework.code}
    )
    names = zipfile.ZipFile(io.BytesIO(b"".join(bundle.streaming_content))).namelist()
    assert "l2-bench_tasks.csv" in names
