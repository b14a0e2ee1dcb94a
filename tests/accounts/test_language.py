"""The interface language: chosen on the profile page and applied to every page after; the
browser's Accept-Language without a choice; English always for the API."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts.roles import Role

pytestmark = [pytest.mark.django_db, pytest.mark.http]


def test_a_person_chooses_spanish_on_their_profile_and_the_pages_follow(make_user):
    user = make_user(Role.ANNOTATOR)
    client = Client(headers={"accept-language": "en"})
    client.force_login(user)
    response = client.post(reverse("language"), {"language": "es"}, follow=True)
    user.refresh_from_db()
    assert user.language == "es"
    body = response.content.decode()
    assert '<html lang="es">' in body
    assert "Idioma de la interfaz guardado." in body
    assert "Calificar las respuestas asignadas" in body  # a role's action, translated where shown
    assert response.headers["Content-Language"] == "es"
    assert "/jsi18n/" in body  # the JavaScript messages too
    catalog = client.get(reverse("javascript-catalog"))
    assert "Su rol no permite esta acci" in catalog.content.decode()

    client.post(reverse("language"), {"language": ""})
    body = client.get(reverse("profile")).content.decode()
    assert '<html lang="en">' in body and "/jsi18n/" not in body


def test_without_a_choice_the_browser_language_decides(client):
    body = client.get(reverse("login"), headers={"accept-language": "es-ES,es;q=0.9"}).content
    assert '<html lang="es">' in body.decode()
    assert '<html lang="en">' in client.get(reverse("login")).content.decode()


def test_an_unknown_language_is_refused(client_as):
    client = client_as(Role.VIEWER)
    response = client.post(reverse("language"), {"language": "xx"})
    assert response.status_code == 422


def test_the_api_answers_in_english_whatever_the_person_chose(make_user):
    user = make_user(Role.VIEWER)
    user.language = "es"
    user.save()
    client = Client(headers={"accept-language": "es"})
    client.force_login(user)
    response = client.get("/api/v1/no-such-resource/")
    assert response.headers.get("Content-Language", "en") == "en"
    response = client.post("/api/v1/tasks/", {}, content_type="application/json")
    assert response.status_code in {400, 403}
    assert "requerido" not in response.content.decode()


def test_a_role_is_named_in_the_readers_language_wherever_it_is_shown(make_user):
    """The role groups' names are stored in English (data to the Spanish-pages rule, which let
    "Su rol: Annotator" through): every page names a role by its translated label."""
    annotator = make_user(Role.ANNOTATOR)
    admin = make_user(Role.ADMIN)
    for user in (annotator, admin):
        user.language = "es"
        user.save(update_fields=["language"])
    reader = Client()
    reader.force_login(annotator)
    assert "Su rol: <strong>Anotador/a</strong>." in reader.get(reverse("home")).content.decode()
    people = Client()
    people.force_login(admin)
    person = people.get(reverse("people:person", args=[annotator.pk])).content.decode()
    assert "<strong>Anotador/a</strong>." in person
    listed = people.get(reverse("people:people")).content.decode()
    assert "<td>Anotador/a</td>" in listed and "<td>Annotator</td>" not in listed
