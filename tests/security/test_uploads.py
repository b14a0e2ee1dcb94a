"""Uploads are limited in size and type, and what is uploaded is only ever handed back through a
view that checks the reader's role, as an attachment, under a name the server chose."""

import importlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import Resolver404, clear_url_caches, resolve, reverse

from accounts.roles import Role
from interchange.models import ImportJob
from rubrics.models import TaskResource
from taxonomy.models import Framework
from tests import factories
from tests.conftest import htmx

pytestmark = pytest.mark.django_db


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def _import(client, kind: str, upload: SimpleUploadedFile):
    framework = Framework.objects.first() or factories.framework()
    data = {"kind": kind, "framework": framework.pk, "file": upload}
    return client.post(reverse("interchange:index"), data)


def test_an_oversized_import_is_refused_with_the_limit(client_as, settings, media) -> None:
    settings.IMPORT_MAX_UPLOAD_BYTES = 2 * 2**20
    big = SimpleUploadedFile("r.jsonl", b"{}\n" * (2**20))

    response = _import(client_as(Role.MAINTAINER), "responses", big)

    assert "The file is over 2 MB." in response.text
    assert not ImportJob.objects.exists()


@pytest.mark.parametrize(
    ("kind", "name", "content", "message"),
    [
        ("responses", "r.exe", b"{}", "This kind of import takes a file ending in .jsonl, .json."),
        ("responses", "r.jsonl", b"<html>", "The file does not start with a JSON object"),
        ("benchmark", "b.zip", b"not a zip", "The file is not a ZIP archive."),
        ("eval_log", "e.html", b"<script>", "This kind of import takes a file ending in .eval."),
    ],
)
def test_an_import_of_the_wrong_type_is_refused(
    client_as, media, kind, name, content, message
) -> None:
    response = _import(client_as(Role.MAINTAINER), kind, SimpleUploadedFile(name, content))

    assert message in response.text
    assert not ImportJob.objects.exists()


def test_an_uploaded_file_lands_under_a_server_chosen_path(client_as, media) -> None:
    task = factories.published_task()
    upload = SimpleUploadedFile("../../../l2annot/evil.txt", b"<script>alert(1)</script>")
    client = htmx(client_as(Role.AUTHOR))

    client.post(reverse("rubrics:resource_create", args=[task.pk]), {"title": "X", "file": upload})

    resource = TaskResource.objects.get()
    assert resource.file.name.startswith("task_resources/") and ".." not in resource.file.name
    assert resource.file.path.startswith(str(media))


def test_an_uploaded_file_is_downloaded_as_an_attachment(client_as, media) -> None:
    task = factories.published_task()
    client = htmx(client_as(Role.AUTHOR))
    upload = SimpleUploadedFile("page.txt", b"<script>alert(1)</script>", "text/html")
    client.post(reverse("rubrics:resource_create", args=[task.pk]), {"title": "X", "file": upload})

    response = client.get(reverse("rubrics:resource_file", args=[TaskResource.objects.get().pk]))

    assert response.headers["Content-Disposition"].startswith("attachment;")
    assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("name", ["page.html", "logo.svg", "tool.exe", "app.js", "noext"])
def test_a_resource_of_the_wrong_type_is_refused(client_as, media, name) -> None:
    task = factories.published_task()
    upload = SimpleUploadedFile(name, b"<script>alert(1)</script>")
    url = reverse("rubrics:resource_create", args=[task.pk])

    response = htmx(client_as(Role.AUTHOR)).post(url, {"title": "X", "file": upload})

    assert response.status_code == 422
    assert f"{name} is not a file type taken here; upload one of .pdf" in response.text
    assert not TaskResource.objects.exists()


def test_media_files_are_not_served_by_url_even_in_debug(settings) -> None:
    """Everything uploaded (task resources, import files) goes through a view that checks roles:
    a MEDIA_URL route would hand it to anyone who guessed the path."""
    import l2annot.urls

    settings.DEBUG = True
    try:
        importlib.reload(l2annot.urls)
        clear_url_caches()
        with pytest.raises(Resolver404):
            resolve("/" + settings.MEDIA_URL.lstrip("/") + "task_resources/2026/handout.pdf")
    finally:
        settings.DEBUG = False
        importlib.reload(l2annot.urls)
        clear_url_caches()


@pytest.mark.parametrize("kind", ["responses", "verdicts"])
def test_a_json_lines_file_over_its_own_limit_is_refused(client_as, settings, media, kind) -> None:
    """The importer holds every line until all are checked: its files have a lower limit than
    a benchmark archive's, so the worker stays under 300 MB (docs/deploy.md)."""
    settings.IMPORT_MAX_JSONL_BYTES = 2**20
    big = SimpleUploadedFile("r.jsonl", b"{}\n" * (2**19))

    response = _import(client_as(Role.MAINTAINER), kind, big)

    assert "A JSON Lines file is at most 1 MB here: split it" in response.text
    assert not ImportJob.objects.exists()
