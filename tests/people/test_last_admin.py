"""There is always an active admin: nobody demotes or deactivates themself, the last active
admin cannot be demoted or deactivated, and two admins doing it to each other at once leave one
of them (row lock on the Admin group, tests/concurrency.py); on the People page, in the API and
in the Django admin alike."""

import pytest
from django.urls import reverse

from accounts.models import User
from accounts.roles import Role
from accounts.services import role_of
from audit.models import AuditEvent
from people import services
from tests.concurrency import run_together, threads_share_one_database


def active_admins() -> list[str]:
    return sorted(
        User.objects.filter(is_active=True, groups__name=Role.ADMIN.value).values_list(
            "username", flat=True
        )
    )


@pytest.mark.django_db
def test_the_last_active_admin_cannot_be_deactivated_or_demoted(make_user):
    root = make_user(Role.ADMIN, "root")
    other = make_user(Role.ADMIN, "other")
    services.set_active(other, False, by=root)
    with pytest.raises(services.LastAdmin, match="root is the last active admin"):
        services.set_role(root, Role.MAINTAINER, by=None)  # a command acting for nobody
    with pytest.raises(services.LastAdmin):
        services.set_active(root, False, by=None)
    assert active_admins() == ["root"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("change", ["deactivate", "demote"])
def test_two_admins_changing_each_other_at_once_leave_one_active_admin(make_user, change):
    first, second = make_user(Role.ADMIN, "first"), make_user(Role.ADMIN, "second")

    def work(target: User, by: User) -> None:
        if change == "deactivate":
            services.set_active(target, False, by=by)
        else:
            services.set_role(target, Role.VIEWER, by=by)

    with threads_share_one_database():
        raised = run_together(lambda: work(second, first), lambda: work(first, second))

    refused = [error for error in raised if error is not None]
    assert len(refused) == 1, raised
    assert isinstance(refused[0], services.LastAdmin | services.Conflict)
    assert len(active_admins()) == 1


@pytest.mark.django_db
def test_the_django_admin_refuses_demoting_or_deactivating_yourself(make_user, client):
    root = make_user(Role.ADMIN, "root")
    make_user(Role.ADMIN, "other")
    client.force_login(root)
    url = reverse("admin:accounts_user_change", args=[root.pk])
    form = {"username": "root", "email": "", "role": Role.VIEWER.value, "active": "on"}
    answer = client.post(url, form)
    assert answer.status_code == 200 and "You cannot change your own role" in answer.text
    answer = client.post(url, form | {"role": Role.ADMIN.value, "active": ""})
    assert answer.status_code == 200 and "You cannot change your own access" in answer.text
    root.refresh_from_db()
    assert root.is_active and role_of(root) is Role.ADMIN and root.is_superuser


@pytest.mark.django_db
def test_the_django_admin_changes_role_and_access_through_the_same_service(make_user, client):
    root = make_user(Role.ADMIN, "root")
    ana = make_user(Role.ANNOTATOR, "ana")
    client.force_login(root)
    url = reverse("admin:accounts_user_change", args=[ana.pk])
    page = client.get(url).text
    for hidden in ("is_superuser", "is_staff", "user_permissions", 'name="groups"'):
        assert hidden not in page  # a role is one choice, applied with the same rules
    answer = client.post(url, {"username": "ana", "email": "", "role": Role.AUTHOR.value})
    assert answer.status_code == 302
    ana.refresh_from_db()
    assert role_of(ana) is Role.AUTHOR and not ana.is_active
    events = AuditEvent.objects.for_object(ana)
    assert {(e.kind, e.actor_id) for e in events} == {("updated", root.pk), ("status", root.pk)}
