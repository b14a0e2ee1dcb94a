"""The Django admin's webhook pages: a hook is added and changed through the same service as
the Webhooks page (URL checked, history written), its secret never shown; deliveries and their
answers are read-only, and "Send again" queues a delivery that ended as the page does."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from jobs.models import Job
from tests.factories import make_delivery, make_hook
from webhooks.models import Delivery, Hook

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client_as):
    return client_as(Role.ADMIN)


def test_a_hook_added_in_the_admin_is_checked_and_in_the_history(admin_client):
    add = reverse("admin:webhooks_hook_add")
    refused = admin_client.post(
        add, {"url": "http://169.254.169.254/x", "events": ["study.closed"]}
    )
    assert refused.status_code == 200 and not Hook.objects.exists()
    assert "does not call" in refused.content.decode()
    data = {"url": "https://hooks.example.org/l2", "events": ["study.closed"], "active": "on"}
    assert admin_client.post(add, data).status_code == 302
    hook = Hook.objects.get()
    assert hook.events == ["study.closed"] and hook.active
    event = AuditEvent.objects.get(kind=AuditEvent.Kind.CREATED)
    assert event.changes["url"] == [None, "https://hooks.example.org/l2"]
    assert hook.secret not in str(event.changes)


def test_a_change_in_the_admin_goes_through_the_service_and_never_shows_the_secret(admin_client):
    hook = make_hook(events=["study.closed"])
    change = reverse("admin:webhooks_hook_change", args=[hook.pk])
    page = admin_client.get(change).content.decode()
    assert hook.secret not in page and 'name="secret"' not in page
    assert (
        hook.secret
        not in admin_client.get(reverse("admin:webhooks_hook_changelist")).content.decode()
    )
    data = {"url": hook.url, "events": ["study.closed", "import.finished"], "description": "CI"}
    assert admin_client.post(change, data).status_code == 302  # "active" unticked
    hook.refresh_from_db()
    assert (hook.events, hook.active, hook.revision) == (
        ["import.finished", "study.closed"],
        False,
        2,
    )
    event = AuditEvent.objects.get(kind=AuditEvent.Kind.UPDATED)
    assert set(event.changes) == {"events", "description", "active"}


def test_deleting_a_hook_in_the_admin_is_in_the_history(admin_client):
    hook = make_hook()
    delete = reverse("admin:webhooks_hook_delete", args=[hook.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not Hook.objects.exists()
    assert AuditEvent.objects.filter(kind=AuditEvent.Kind.DELETED).count() == 1


def test_deliveries_are_read_only_with_their_answers(admin_client, django_assert_max_num_queries):
    hook = make_hook()
    for _n in range(5):
        make_delivery(hook, answers=2)
    with django_assert_max_num_queries(12):
        listing = admin_client.get(reverse("admin:webhooks_delivery_changelist"))
    assert listing.status_code == 200
    delivery = Delivery.objects.first()
    assert delivery is not None
    page = admin_client.get(reverse("admin:webhooks_delivery_change", args=[delivery.pk]))
    assert page.status_code == 200 and page.content.decode().count("broken") == 2
    assert 'name="_save"' not in page.content.decode() and hook.secret not in page.content.decode()
    assert admin_client.get(reverse("admin:webhooks_delivery_add")).status_code == 403
    delete = reverse("admin:webhooks_delivery_delete", args=[delivery.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403


def test_send_again_is_an_admin_action_queuing_what_ended(
    admin_client, django_capture_on_commit_callbacks
):
    hook = make_hook()
    failed = make_delivery(hook, answers=3)
    waiting = make_delivery(hook, state=Delivery.State.PENDING, answers=0)
    data = {"action": "send_again", "_selected_action": [failed.pk, waiting.pk], "index": 0}
    with django_capture_on_commit_callbacks() as callbacks:
        answer = admin_client.post(reverse("admin:webhooks_delivery_changelist"), data, follow=True)
    text = answer.content.decode()
    assert "1 delivery queued to be sent again." in text
    assert "1 delivery is already waiting to be sent." in text
    assert len(callbacks) == 1  # the failed one's attempt, enqueued once committed
    failed.refresh_from_db()
    assert (failed.state, failed.attempts, failed.answers.count()) == (Delivery.State.PENDING, 0, 3)
    assert Job.objects.get(pk=failed.job_id).state == Job.State.QUEUED
