"""A study closed by its deadline is told once, as one a maintainer closes: the worker's task
runs at the deadline (grading.deadlines), a closing already told is not told again, and a
study reopened by a later deadline is told when that one passes."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.roles import Role
from grading import services as grading_services
from grading.deadlines import tell_deadlines, tell_passed_deadlines
from grading.models import Study
from tests.factories import make_hook, study
from tests.webhook_receiver import running_receiver
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def pilot(make_user):
    return study([make_user(Role.ANNOTATOR)], responses=1)


def passes(found: Study) -> None:
    """The deadline passes (time moves on: the deadline moves back)."""
    Study.objects.filter(pk=found.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    found.refresh_from_db()


def payloads(hook) -> list[dict]:
    return [d.payload for d in hook.deliveries.order_by("pk")]


def test_the_deadline_is_told_by_the_worker_s_task_received_on_the_loopback(
    pilot, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    deadline = timezone.now() + timedelta(days=3)
    with django_capture_on_commit_callbacks(execute=True):
        grading_services.update_settings(pilot, {"deadline": deadline}, by=None)
    (queued,) = DBTaskResult.objects.filter(task_path="grading.deadlines.tell_deadlines")
    assert queued.run_after == deadline  # the worker runs it when the deadline passes
    passes(pilot)
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    with running_receiver() as receiver:
        make_hook(receiver.url("/ok"), events=[Event.STUDY_CLOSED])
        with django_capture_on_commit_callbacks(execute=True):
            tell_deadlines.call()
    (request,) = receiver.received
    document = json.loads(request.body)
    assert document["event"] == "study.closed"
    assert document["data"] == {"study": pilot.pk, "name": pilot.name, "closed_by": "deadline"}


def test_a_closing_is_told_once_however_it_comes(pilot):
    hook = make_hook(events=[Event.STUDY_CLOSED])
    grading_services.update_settings(
        pilot, {"deadline": timezone.now() + timedelta(days=1)}, by=None
    )
    assert tell_passed_deadlines() == 0  # not yet
    passes(pilot)
    assert tell_passed_deadlines() == 1
    assert tell_passed_deadlines() == 0  # the next task finds it told
    grading_services.set_status(pilot, Study.Status.CLOSED)  # closed already, by its deadline
    assert payloads(hook) == [{"study": pilot.pk, "name": pilot.name, "closed_by": "deadline"}]


def test_a_study_open_again_by_a_later_deadline_is_told_when_that_one_passes(pilot):
    hook = make_hook(events=[Event.STUDY_CLOSED])
    grading_services.update_settings(
        pilot, {"deadline": timezone.now() + timedelta(days=1)}, by=None
    )
    passes(pilot)
    tell_passed_deadlines()
    later = timezone.now() + timedelta(days=7)
    grading_services.update_settings(pilot, {"deadline": later}, by=None)
    pilot.refresh_from_db()
    assert not pilot.is_closed() and not pilot.closing_told
    assert tell_passed_deadlines() == 0
    passes(pilot)
    assert tell_passed_deadlines() == 1
    assert [p["closed_by"] for p in payloads(hook)] == ["deadline", "deadline"]


def test_a_deadline_moved_into_the_past_closes_the_study_and_is_told_at_once(pilot):
    hook = make_hook(events=[Event.STUDY_CLOSED])
    grading_services.update_settings(
        pilot, {"deadline": timezone.now() - timedelta(hours=1)}, by=None
    )
    assert [p["closed_by"] for p in payloads(hook)] == ["deadline"]
    assert tell_passed_deadlines() == 0


def test_a_maintainer_closing_before_the_deadline_is_told_and_the_deadline_is_not(pilot):
    hook = make_hook(events=[Event.STUDY_CLOSED])
    grading_services.update_settings(
        pilot, {"deadline": timezone.now() + timedelta(days=1)}, by=None
    )
    grading_services.set_status(pilot, Study.Status.CLOSED)
    passes(pilot)
    assert tell_passed_deadlines() == 0  # closed, so not open any more
    grading_services.set_status(pilot, Study.Status.OPEN)  # the deadline has passed: still closed
    assert tell_passed_deadlines() == 0
    assert [p["closed_by"] for p in payloads(hook)] == ["maintainer"]


def test_the_command_tells_passed_deadlines_and_schedules_those_ahead(
    pilot, make_user, django_capture_on_commit_callbacks
):
    hook = make_hook(events=[Event.STUDY_CLOSED])
    ahead = study([make_user(Role.ANNOTATOR)], responses=1)
    # Deadlines given before this release: nothing scheduled for them.
    deadline = timezone.now() + timedelta(days=2)
    Study.objects.filter(pk=ahead.pk).update(deadline=deadline)
    Study.objects.filter(pk=pilot.pk).update(deadline=timezone.now() - timedelta(minutes=5))
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("tell_passed_deadlines", stdout=out)
    assert out.getvalue().splitlines() == [
        "1 study closed by its deadline told.",
        "1 deadline ahead scheduled.",
    ]
    assert [p["study"] for p in payloads(hook)] == [pilot.pk]
    (queued,) = DBTaskResult.objects.filter(task_path="grading.deadlines.tell_deadlines")
    assert queued.run_after == deadline


def test_a_study_closed_in_the_django_admin_is_told(pilot, make_user, rf):
    hook = make_hook(events=[Event.STUDY_CLOSED])
    request = rf.post("/")
    request.user = make_user(Role.ADMIN)
    study_admin = admin.site._registry[Study]
    form = study_admin.get_form(request, pilot)(instance=pilot)
    form.changed_data = ["status"]  # what the admin's form saw change
    pilot.status = Study.Status.CLOSED
    study_admin.save_model(request, pilot, form, change=True)
    assert [p["closed_by"] for p in payloads(hook)] == ["maintainer"]
