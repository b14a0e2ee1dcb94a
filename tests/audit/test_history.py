import pytest
from django.urls import reverse

from accounts.roles import Role
from audit import services as audit
from audit.models import AuditEvent
from taxonomy.models import SubCompetency
from tests import factories
from tests.conftest import htmx
from tests.factories import make_framework

pytestmark = pytest.mark.django_db


def test_the_history_page_shows_who_changed_what(client_as):
    make_framework()
    sub = SubCompetency.objects.get(code="01a")
    author = htmx(client_as(Role.AUTHOR))
    author.post(
        reverse("taxonomy:subcompetency_edit", args=[sub.pk]),
        {"code": "01a", "name": "Objectives and outcomes", "description": "", "revision": 1},
    )
    response = client_as(Role.VIEWER).get(
        reverse("audit:history", args=["taxonomy", "subcompetency", sub.pk])
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "Updated" in body and "author" in body
    assert "Objectives and outcomes" in body


def test_history_of_an_account_is_not_published(client_as, make_user):
    user = make_user(Role.VIEWER)
    response = client_as(Role.ADMIN).get(
        reverse("audit:history", args=["accounts", "user", user.pk])
    )
    assert response.status_code == 404


def test_a_studys_history_reads_its_stored_english_in_spanish(client_as, make_user):
    """Comments stored in English (old ones, and those stored once for every reader), gold
    checks named as they once were and reasons stored by key read in the reader's language."""
    study = factories.study([], responses=1, overlap=1)
    reasons = [["criterion_unclear"], ["criterion_unclear", "Task badly translated"]]
    for comment, changes in [
        ("1 gold checks added", {"gold_checks": [None, ["item 7 of Pilot"]]}),
        ("Escalated T-3 (item 9): graders disagree on U1, U2; ana added.", {"graders": [2, 3]}),
        ("ana removed; 2 unfinished assignments planned again", {"split_reasons": reasons}),
    ]:
        audit.record(study, AuditEvent.Kind.UPDATED, None, changes, comment=comment)
    reader = make_user(Role.MAINTAINER)
    reader.language = "es"
    reader.save(update_fields=["language"])
    client = client_as(Role.MAINTAINER)
    client.force_login(reader)
    page = client.get(reverse("grading:study_manage", args=[study.pk])).content.decode()
    assert "1 control de referencia añadido" in page and "Pilot #7" in page
    assert "Escalada T-3 (elemento 9): los calificadores discrepan en U1, U2" in page
    assert "calificadores de la respuesta" in page
    assert "ana retirado/a; 2 asignaciones sin terminar planificadas de nuevo" in page
    assert "Criterio poco claro, Task badly translated" in page  # a study's own reason as written
    for english in ("gold checks added", "item 7", "Escalated", "graders", "criterion_unclear"):
        assert english not in page
