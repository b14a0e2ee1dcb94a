"""The domain tells the hooks of its events, in the transaction where they happen: a benchmark
published (here through an upload, whose import's end is told too, both received by a server
on the loopback through the worker's task), a study closed."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.roles import Role
from grading import services as grading_services
from grading.models import Study
from tests.factories import benchmark_folder, generated, make_hook, study
from tests.interchange.test_import_page import zipped
from tests.webhook_receiver import running_receiver
from webhooks.models import Delivery, Event

pytestmark = pytest.mark.django_db


def test_an_uploaded_benchmark_tells_its_publishing_and_the_import_s_end(
    client_as, starter_framework, tmp_path, settings, django_capture_on_commit_callbacks
):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    settings.IMPORTS_ROOT = tmp_path / "imports"
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    content = zipped(benchmark_folder(tmp_path / "b", generated(2)))
    data = {
        "kind": "benchmark",
        "framework": starter_framework.pk,
        "file": SimpleUploadedFile("bench.zip", content),
    }
    with running_receiver() as receiver:
        make_hook(receiver.url("/ok"), events=[Event.BENCHMARK_PUBLISHED, Event.IMPORT_FINISHED])
        with django_capture_on_commit_callbacks(execute=True):
            client_as(Role.MAINTAINER).post(reverse("interchange:index"), data)
    events = {document["event"]: document["data"] for document in
              (json.loads(request.body) for request in receiver.received)}  # fmt: skip
    assert set(events) == {"benchmark.published", "import.finished"}
    assert events["benchmark.published"]["count"] == 2
    assert events["import.finished"]["status"] == "succeeded"
    assert set(Delivery.objects.values_list("state", flat=True)) == {Delivery.State.DELIVERED}


def test_closing_a_study_is_told_once(make_user):
    hook = make_hook(events=[Event.STUDY_CLOSED])
    found = study([make_user(Role.ANNOTATOR)])
    grading_services.set_status(found, Study.Status.CLOSED)
    grading_services.set_status(found, Study.Status.CLOSED)  # already closed: nothing new
    grading_services.set_status(found, Study.Status.OPEN)
    (delivery,) = hook.deliveries.all()
    assert delivery.payload == {"study": found.pk, "name": found.name, "closed_by": "maintainer"}
