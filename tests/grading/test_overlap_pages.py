"""The pages of adaptive overlap and gold checks: the new study form and its preview, the
settings, gold checks added on the pool and settings page, accuracy shown with its interval."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from grading import adjudication, services
from grading.models import Assignment, Study
from tests import factories

pytestmark = pytest.mark.django_db


def test_a_study_with_adaptive_overlap_is_previewed_and_created_from_the_form(client_as, make_user):
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    for _ in range(4):
        factories.response(factories.published_task(criteria=1))
    client = client_as(Role.MAINTAINER)
    data = {
        "name": "Adaptive",
        "framework": factories.framework().pk,
        "overlap": 2,
        "overlap_percent": 50,
        "escalation": "any",
        "escalation_cap": 3,
        "gold_rate": 10,
        "annotators": [g.pk for g in graders],
        "assign_now": "on",
    }
    fragment = client.post(reverse("grading:study_preview"), data, HTTP_HX_REQUEST="true")
    assert "2 graders on 2 (50%) and one on 2" in fragment.content.decode()
    response = client.post(reverse("grading:study_create"), data)
    assert response.status_code == 302
    study = Study.objects.get(name="Adaptive")
    assert (study.overlap_percent, study.escalation, study.escalation_cap) == (50, "any", 3)
    assert Assignment.objects.filter(study_item__study=study).count() == 2 * 2 + 2
    created = AuditEvent.objects.for_object(study).get(kind=AuditEvent.Kind.CREATED)
    assert created.changes["overlap_percent"] == [None, 50]


def test_escalation_without_a_cap_is_refused_on_the_settings_form(client_as, make_user):
    study = factories.study([make_user(Role.ANNOTATOR)], responses=1, overlap=2)
    client = client_as(Role.MAINTAINER)
    url = reverse("grading:study_settings", args=[study.pk])
    response = client.post(url, {"escalation": "low", "escalation_cap": 4})
    assert response.status_code == 422
    assert "Set the agreement below which" in response.content.decode()
    client.post(url, {"escalation": "low", "escalation_cap": 4, "escalation_threshold": 0.6})
    study.refresh_from_db()
    assert (study.escalation, study.escalation_threshold, study.gold_rate) == ("low", 0.6, 0)


def test_gold_checks_are_added_on_the_pool_page_and_accuracy_shown(
    client_as, make_user, django_assert_max_num_queries
):
    earlier = factories.study([], responses=1, overlap=1)
    source = earlier.items.get()
    adjudicator = make_user(Role.MAINTAINER)
    for line in source.rubric_version.effective_rubric():
        adjudication.record_gold_verdict(
            source, line.version.pk, verdict="pass", note="", by=adjudicator, base_revision=0
        )
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    study = factories.study(graders, responses=2, overlap=2, gold_rate=30, gold_warning=0.5)
    services.assign_study(study)
    client = client_as(Role.MAINTAINER)
    page = client.get(reverse("grading:study_manage", args=[study.pk])).content.decode()
    assert f'value="{source.pk}"' in page and earlier.name in page
    response = client.post(
        reverse("grading:study_gold_add", args=[study.pk]), {"sources": [source.pk]}
    )
    assert response.status_code == 302
    added = client.get(response.url).content.decode()
    assert "1 gold check added; 2 assignments planned." in added
    check = study.items.gold_checks().get()
    assert check.assignments.count() == 2
    mine = Assignment.objects.get(study_item=check, annotator=graders[0])
    factories.complete(mine, graders[0], "fail")
    services.submit(mine, by=graders[0])
    with django_assert_max_num_queries(25):
        page = client.get(reverse("grading:study_manage", args=[study.pk])).content.decode()
    assert "Accuracy on gold checks" in page
    assert "0.00 to" in page and "below 0.50" in page
    event = AuditEvent.objects.for_object(study).first()
    assert [label for label, _, _ in event.change_rows()] == ["gold checks"]
