import re

import pytest
from django.urls import reverse
from django.utils import translation

from accounts.roles import Role
from audit import history
from audit import services as audit
from audit.models import AuditEvent
from core.messages import Text
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


def test_a_studys_history_names_people_as_it_names_who_made_the_change(client_as, make_user):
    """The actor reads by display name, so the annotators added, removed or escalated to do too
    (the history stores their user names)."""
    study = factories.study([], responses=1, overlap=1)
    actor = make_user(Role.MAINTAINER, "lia")
    pau = make_user(Role.ANNOTATOR, "pau")
    for user, shown in ((actor, "Lía Tres"), (pau, "Pau Ros")):
        user.display_name = shown
        user.save(update_fields=["display_name"])
    for comment, changes in [
        ("", {"annotators": [["gone"], ["gone", "pau"]]}),
        ("Escalated T-3 (item 9): graders disagree on U1; pau added.", {"graders": [1, 2]}),
        ("pau removed; 2 unfinished assignments planned again", {"annotators": [["pau"], []]}),
    ]:
        audit.record(study, AuditEvent.Kind.UPDATED, actor, changes, comment=comment)
    page = client_as(Role.MAINTAINER).get(reverse("grading:study_manage", args=[study.pk]))
    html = page.content.decode()
    assert "Lía Tres" in html and "gone, Pau Ros" in html
    assert "graders disagree on U1; Pau Ros added." in html
    assert "Pau Ros removed; 2 unfinished assignments planned again" in html
    assert not re.search(r"\bpau\b", html)


def test_a_comment_the_code_writes_is_kept_as_its_message(db, monkeypatch):
    """A new event keeps its comment's template and values (read in the reader's language
    without parsing it back); an event stored with its English text alone is read against the
    same template; a person's own words stay as they were written."""
    sub = SubCompetency.objects.filter(competency__framework=make_framework()).first()
    queued = Text("Judge run queued on study '%(study)s' with configuration '%(config)s'.")
    readings = history.Readings(comments=[history.template_reading(queued.template)])
    monkeypatch.setitem(history._REGISTERED, "taxonomy.subcompetency", readings)
    written = audit.record(sub, "updated", None, comment=queued.fill(study="Pilot", config="c"))
    (bulk,) = audit.record_rows(SubCompetency, "updated", None, [(sub.pk, "s", {})], queued)
    old = audit.record(sub, "updated", None, comment=str(queued.fill(study="P", config="c")))
    own = audit.record(sub, "updated", None, comment="Judge run queued, said Ana.")
    assert written.comment == "Judge run queued on study 'Pilot' with configuration 'c'."
    assert written.message == {"text": queued.template, "values": {"study": "Pilot", "config": "c"}}
    assert AuditEvent.objects.get(pk=bulk).message == {"text": queued.template, "values": {}}
    assert old.message == {} and own.message == {}
    with translation.override("es"):
        assert written.shown_comment == (
            "Ejecución del juez en cola en el estudio 'Pilot' con la configuración 'c'."
        )
        assert old.shown_comment.startswith("Ejecución del juez en cola en el estudio 'P'")
        assert own.shown_comment == "Judge run queued, said Ana."
