"""Deliveries sent by the worker's task to a real HTTP server on the loopback: one that
answers, one that is down (connection refused) and one that answers too slowly (a short
timeout); signed, logged, retried with backoff, and refused for an address the deployment does
not allow."""

import json
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from core.webhook_signature import HEADER, verify
from jobs.models import Job
from tests.factories import make_hook
from tests.webhook_receiver import refused_url, running_receiver
from webhooks.jobs import deliver
from webhooks.models import Delivery, Event, NoAnswer
from webhooks.services import notify

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def receiver():
    with running_receiver() as server:
        yield server


@pytest.fixture(autouse=True)
def loopback_allowed(settings, receiver):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    settings.WEBHOOK_TIMEOUT = 0.5
    settings.WEBHOOK_RETRY_SECONDS = 30
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    receiver.reset()
    yield
    receiver.release()  # a slow answer still held ends now


def one_delivery(url: str, event: Event = Event.STUDY_CLOSED) -> Delivery:
    make_hook(url, events=[event])
    (delivery,) = notify(event, {"study": 7, "name": "Pilot"})
    return delivery


def test_a_delivery_is_signed_sent_and_its_answer_logged(receiver):
    delivery = one_delivery(receiver.url("/ok"))
    deliver.call(delivery.pk)
    (request,) = receiver.received
    assert verify(delivery.hook.secret, request.headers[HEADER], request.body, now=time.time())
    document = json.loads(request.body)
    assert document["event"] == "study.closed" and document["data"] == {"study": 7, "name": "Pilot"}
    assert request.headers["X-L2Annot-Delivery"] == str(delivery.pk)
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.DELIVERED
    (answer,) = delivery.answers.all()
    assert (answer.status, answer.body, answer.attempt) == (200, "thanks", 1)
    assert Job.objects.get(pk=delivery.job_id).state == Job.State.FINISHED


def test_a_server_that_is_down_is_tried_again_after_a_backoff_then_given_up(
    django_capture_on_commit_callbacks,
):
    delivery = one_delivery(refused_url())
    with django_capture_on_commit_callbacks(execute=True):
        deliver.call(delivery.pk)
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.RETRYING
    (answer,) = delivery.answers.all()
    assert answer.status is None and answer.error == NoAnswer.REFUSED
    # The next attempt is enqueued for the worker 30 s later (the first backoff), job queued.
    queued = DBTaskResult.objects.get()
    assert queued.args_kwargs["args"] == [delivery.pk]
    expected = timezone.now() + timedelta(seconds=30)
    assert abs((queued.run_after - expected).total_seconds()) < 5
    assert Job.objects.get(pk=delivery.job_id).state == Job.State.QUEUED
    deliver.call(delivery.pk)  # the worker runs it when it is due
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.FAILED and delivery.answers.count() == 2
    assert Job.objects.get(pk=delivery.job_id).state == Job.State.FAILED


def test_a_slow_server_is_given_up_at_the_timeout(receiver):
    delivery = one_delivery(receiver.url("/slow"))
    deliver.call(delivery.pk)
    (answer,) = delivery.answers.all()
    assert answer.error == NoAnswer.TIMEOUT and answer.status is None
    assert 0.4 < answer.seconds < 3
    assert len(receiver.received) == 1  # it did reach the server


def test_an_error_status_is_logged_with_the_start_of_its_body(receiver):
    delivery = one_delivery(receiver.url("/fail"))
    deliver.call(delivery.pk)
    (answer,) = delivery.answers.all()
    assert (answer.status, answer.body) == (500, "broken")
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.RETRYING


def test_only_the_start_of_a_long_answer_is_read_and_kept(receiver):
    delivery = one_delivery(receiver.url("/big"))
    deliver.call(delivery.pk)
    (answer,) = delivery.answers.all()
    assert answer.status == 200 and answer.body == "x" * 1000


def test_loopback_is_refused_unless_the_deployment_allows_it(receiver, settings):
    delivery = one_delivery(receiver.url("/ok").replace("127.0.0.1", "localhost"))
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    deliver.call(delivery.pk)
    (answer,) = delivery.answers.all()
    assert answer.error == NoAnswer.NOT_ALLOWED and "127.0.0.1" in answer.detail
    assert receiver.received == []  # no connection was made


def test_an_inactive_hook_or_another_event_is_sent_nothing():
    make_hook("https://hooks.example.org/a", events=[Event.IMPORT_FINISHED])
    make_hook("https://hooks.example.org/b", active=False)
    assert notify(Event.STUDY_CLOSED, {"study": 1}) == []
    assert Delivery.objects.count() == 0


def test_without_a_worker_a_failed_attempt_waits_for_the_command_to_try_again(
    receiver, settings, django_capture_on_commit_callbacks
):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    hook = make_hook(receiver.url("/fail"), events=[Event.STUDY_CLOSED])
    with django_capture_on_commit_callbacks(execute=True):  # sent as the event commits
        (delivery,) = notify(Event.STUDY_CLOSED, {"study": 7})
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.RETRYING and delivery.next_attempt_at is not None
    out = StringIO()
    call_command("send_due_webhooks", stdout=out)  # not due yet
    assert "0 webhook deliveries" in out.getvalue() and delivery.answers.count() == 1

    hook.url = receiver.url("/ok")
    hook.save()
    Delivery.objects.filter(pk=delivery.pk).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )
    call_command("send_due_webhooks", stdout=out)
    assert "1 webhook delivery tried again." in out.getvalue()
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.DELIVERED
    assert [a.status for a in delivery.answers.order_by("attempt")] == [500, 200]
