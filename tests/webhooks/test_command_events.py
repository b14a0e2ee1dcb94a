"""Imports run by a command in a shell are told as the upload page's are (`import.finished`,
`import` null), and a benchmark they publish as `benchmark.published`: received by a server
on the loopback through the worker's task."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.factories import benchmark_folder, generated, make_hook
from tests.webhook_receiver import running_receiver
from webhooks.models import Delivery, Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver(settings):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    with running_receiver() as server:
        make_hook(server.url("/ok"), events=[Event.BENCHMARK_PUBLISHED, Event.IMPORT_FINISHED])
        yield server


def received(receiver) -> list[dict]:
    return [json.loads(request.body) for request in receiver.received]


def test_a_benchmark_imported_by_the_command_is_told(
    receiver, starter_framework, tmp_path, django_capture_on_commit_callbacks
):
    folder = benchmark_folder(tmp_path / "bench", generated(2))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_l2bench", str(folder), "--dry-run", verbosity=0, stdout=StringIO())
        call_command("import_l2bench", str(folder), verbosity=0, stdout=StringIO())
    documents = received(receiver)
    assert [d["event"] for d in documents] == [
        "import.finished",  # the dry run
        "benchmark.published",
        "import.finished",
    ]
    dry, published, done = (d["data"] for d in documents)
    assert dry["dry_run"] and dry["status"] == "succeeded"
    assert published["count"] == 2
    assert done == {
        "import": None,
        "kind": "benchmark",
        "status": "succeeded",
        "dry_run": False,
        "file": "bench",
        "counts": done["counts"],
    }
    assert done["counts"]["tasks"]["created"] == 2
    assert set(Delivery.objects.values_list("state", flat=True)) == {Delivery.State.DELIVERED}


def test_a_refused_import_by_the_command_is_told_refused(
    receiver, starter_framework, tmp_path, django_capture_on_commit_callbacks
):
    path = tmp_path / "answers.jsonl"
    path.write_text('{"task": "nowhere"}\n')
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(CommandError):
        call_command("import_responses", str(path), verbosity=0, stderr=StringIO())
    ((document),) = received(receiver)
    assert document["event"] == "import.finished"
    assert document["data"]["status"] == "refused" and document["data"]["kind"] == "responses"
    assert document["data"]["file"] == "answers.jsonl" and document["data"]["import"] is None
