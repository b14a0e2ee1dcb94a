"""User names that read alike are one name: `admin` with a dotless i beside `admin` is refused
on the People page, in the API, in the Django admin and by `createsuperuser`, and the database
refuses it too."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, transaction
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.roles import Role
from accounts.usernames import username_key

DOTLESS = "adm\N{LATIN SMALL LETTER DOTLESS I}n"
CYRILLIC = "\N{CYRILLIC SMALL LETTER A}dmin"
LOOK_ALIKES = [
    DOTLESS,
    CYRILLIC,
    "\N{FULLWIDTH LATIN CAPITAL LETTER A}DMIN",
    "a\N{COMBINING ACUTE ACCENT}dmin",  # an accent
    "adrnin",  # r and n pass for an m
    "Admin",
]


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_names_that_read_alike_have_one_key(name):
    assert username_key(name) == username_key("admin")


@pytest.mark.parametrize("name", ["adm1n", "admins", "adnim", "ana"])
def test_names_a_reader_tells_apart_have_their_own_keys(name):
    assert username_key(name) != username_key("admin")


@pytest.fixture
def admin(make_user):
    return make_user(Role.ADMIN, "admin")


@pytest.mark.django_db
@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_the_people_page_refuses_a_name_that_reads_like_another(admin, client, name):
    client.force_login(admin)
    data = {"username": name, "email": "x@example.org", "role": "Annotator"}
    response = client.post(reverse("people:invite"), data)
    assert response.status_code == 422
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_the_refusal_names_the_account_it_reads_like(admin, client):
    # PostgreSQL's case-insensitive match already takes the dotless i for an i: "already used"
    client.force_login(admin)
    data = {"username": CYRILLIC, "email": "x@example.org", "role": "Annotator"}
    page = client.post(reverse("people:invite"), data).content.decode()
    assert "reads like admin, another account&#x27;s" in page


@pytest.mark.django_db
def test_the_api_refuses_a_name_that_reads_like_another(admin):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(admin, 'script')[1]}")
    body = {"username": DOTLESS, "email": "x@example.org", "role": "Annotator"}
    response = api.post(reverse("api:person-list"), body, format="json")
    assert response.status_code == 400
    assert "reads like admin" in str(response.json()["errors"]["username"])
    assert not User.objects.filter(username=DOTLESS).exists()


@pytest.mark.django_db
def test_the_django_admin_refuses_a_name_that_reads_like_another(admin, client):
    client.force_login(admin)
    refusals = {}
    for name in LOOK_ALIKES:
        data = {"username": name, "password1": "Long-enough-2026", "password2": "Long-enough-2026"}
        response = client.post(reverse("admin:accounts_user_add"), data)
        assert response.status_code == 200  # the form again, with the error
        refusals[name] = response.content.decode()
    assert "reads like admin" in refusals["adrnin"]  # no case-insensitive match takes it
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_createsuperuser_refuses_a_name_that_reads_like_another(admin, monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "Long-enough-2026")
    with pytest.raises(CommandError, match="reads like admin"):
        call_command(
            "createsuperuser",
            interactive=False,
            username=CYRILLIC,
            email="x@example.org",
            stdout=StringIO(),
        )
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_the_database_refuses_a_name_that_reads_like_another(admin):
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username=DOTLESS)


@pytest.mark.django_db
def test_an_account_keeps_its_own_name_on_a_save(admin):
    admin.first_name = "Root"
    admin.full_clean(exclude=["password"])
    admin.save()
    admin.save(update_fields=["first_name"])
    assert User.objects.get(pk=admin.pk).username_key == "admin"


@pytest.mark.django_db
def test_a_renamed_account_takes_its_new_names_key(admin):
    admin.username = "root"
    admin.save(update_fields=["username"])
    assert User.objects.get(pk=admin.pk).username_key == "root"
    assert User.objects.create(username="admin").username_key == "admin"
