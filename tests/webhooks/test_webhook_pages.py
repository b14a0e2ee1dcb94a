"""The admins' webhook pages: adding a hook (http(s) only, no internal address unless allowed),
its page with the deliveries and their answers, sending one again, deactivating."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from jobs.models import Job
from tests.factories import make_delivery, make_hook
from webhooks.models import Delivery, Hook

pytestmark = pytest.mark.django_db


def test_an_admin_adds_a_webhook_with_history_and_sees_its_secret(client_as):
    client = client_as(Role.ADMIN)
    data = {"url": "https://hooks.example.org/l2", "events": ["study.closed", "import.finished"]}
    response = client.post(reverse("webhooks:hook_create"), data)
    hook = Hook.objects.get()
    assert response.status_code == 302 and response.url == reverse("webhooks:hook", args=[hook.pk])
    assert hook.events == ["import.finished", "study.closed"] and hook.active
    event = AuditEvent.objects.get(kind=AuditEvent.Kind.CREATED)
    assert hook.secret not in str(event.changes)  # the history never holds the secret
    page = client.get(response.url).content.decode()
    assert hook.secret in page and "A study is closed" in page


@pytest.mark.parametrize(
    "url",
    ["ftp://hooks.example.org/x", "http://127.0.0.1:8000/x", "http://169.254.169.254/latest",
     "http://10.0.0.5/x", "http://[::1]/x"],
)  # fmt: skip
def test_other_schemes_and_internal_addresses_are_refused(client_as, url):
    response = client_as(Role.ADMIN).post(
        reverse("webhooks:hook_create"), {"url": url, "events": ["study.closed"]}
    )
    assert response.status_code == 422
    assert not Hook.objects.exists()


def test_the_loopback_is_accepted_where_the_deployment_allows_it(client_as, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    response = client_as(Role.ADMIN).post(
        reverse("webhooks:hook_create"), {"url": "http://127.0.0.1:9/x", "events": ["study.closed"]}
    )
    assert response.status_code == 302 and Hook.objects.count() == 1


def test_a_failed_delivery_is_sent_again_from_the_page(
    client_as, django_capture_on_commit_callbacks
):
    hook = make_hook()
    delivery = make_delivery(hook, answers=3)
    client = client_as(Role.ADMIN)
    page = client.get(reverse("webhooks:hook", args=[hook.pk])).content.decode()
    assert page.count("broken") == 3 and "Send again" in page
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(reverse("webhooks:delivery_resend", args=[delivery.pk]))
    assert response.status_code == 302 and len(callbacks) == 1  # enqueued once committed
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == (Delivery.State.PENDING, 0)
    assert Job.objects.get(pk=delivery.job_id).state == Job.State.QUEUED
    assert delivery.answers.count() == 3  # the earlier answers stay logged
    client.post(reverse("webhooks:delivery_resend", args=[delivery.pk]))  # already queued
    assert Job.objects.filter(kind=Job.Kind.WEBHOOK).count() == 1


def test_an_admin_deactivates_a_hook(client_as):
    hook = make_hook()
    client_as(Role.ADMIN).post(
        reverse("webhooks:hook_active", args=[hook.pk]), {"active": "", "revision": hook.revision}
    )
    hook.refresh_from_db()
    assert not hook.active
