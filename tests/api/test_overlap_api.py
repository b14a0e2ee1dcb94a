"""The API for adaptive overlap and gold checks: the study's settings, a study created from
the new study page's filters, gold checks added, each annotator's accuracy on them."""

import pytest
from django.db.models import Count
from django.urls import reverse

from accounts.roles import Role
from grading import adjudication, services
from grading.models import Assignment, Study
from tests import factories

pytestmark = pytest.mark.django_db


def test_a_study_is_created_from_filters_with_adaptive_overlap(api_as, make_user):
    make_user(Role.ANNOTATOR, "ana"), make_user(Role.ANNOTATOR, "ben")
    spanish = factories.published_task(criteria=1, language="Spanish")
    english = factories.published_task(criteria=1, language="English")
    for task in (spanish, spanish, english):
        factories.response(task)
    api = api_as(Role.MAINTAINER)
    body = {
        "name": "Spanish only",
        "framework": spanish.framework.code,
        "overlap": 2,
        "overlap_percent": 50,
        "escalation": "any",
        "escalation_cap": 3,
        "annotators": ["ana", "ben"],
        "language": "Spanish",
        "sub_competency": spanish.sub_competency.code,
    }
    created = api.post(reverse("api:study-from-filters"), body, format="json")
    assert created.status_code == 201, created.json()
    assert (created.json()["items"], created.json()["overlap_percent"]) == (2, 50)
    study = Study.objects.get(name="Spanish only")
    assert Assignment.objects.filter(study_item__study=study).count() == 2 + 1
    none = api.post(reverse("api:study-from-filters"), body | {"name": "X", "language": "Greek"})
    assert none.status_code == 400
    unknown = api.post(
        reverse("api:study-from-filters"), body | {"name": "Y", "competency": "zz"}, format="json"
    )
    assert unknown.status_code == 400 and "zz" in str(unknown.json())
    no_cap = api.patch(
        reverse("api:study-detail", args=[study.pk]),
        {"escalation_cap": None},
        format="json",
        HTTP_IF_MATCH="*",
    )
    assert no_cap.status_code == 400 and "cap" in str(no_cap.json())


def test_gold_checks_are_added_and_accuracy_read(api_as, make_user):
    earlier = factories.study([], responses=1, overlap=1)
    source = earlier.items.get()
    adjudicator = make_user(Role.MAINTAINER)
    for line in source.rubric_version.effective_rubric():
        adjudication.record_gold_verdict(
            source, line.version.pk, verdict="pass", note="", by=adjudicator, base_revision=0
        )
    ana = make_user(Role.ANNOTATOR, "ana")
    study = factories.study([ana], responses=2, overlap=1, gold_rate=20, gold_warning=0.9)
    services.assign_study(study)
    api = api_as(Role.MAINTAINER)
    listed = api.get(reverse("api:study-gold-checks", args=[study.pk])).json()
    assert listed["gold_checks"] == [] and [c["id"] for c in listed["candidates"]] == [source.pk]
    added = api.post(
        reverse("api:study-add-gold-checks", args=[study.pk]),
        {"sources": [source.pk]},
        format="json",
    )
    assert added.status_code == 200, added.json()
    assert added.json()[0]["gold_source"] == source.pk
    again = api.post(
        reverse("api:study-add-gold-checks", args=[study.pk]),
        {"sources": [source.pk]},
        format="json",
    )
    assert again.status_code == 400
    mine = Assignment.objects.get(study_item__study=study, study_item__gold_source=source)
    factories.complete(mine, ana, "fail")
    services.submit(mine, by=ana)
    [row] = api.get(reverse("api:study-gold-accuracy", args=[study.pk])).json()
    assert row["annotator"] == "ana" and row["accuracy"] == 0.0 and row["below_warning"]
    assert row["n"] > 0 and row["low"] == 0.0 and 0 < row["high"] < 1
    annotator = api_as(Role.ANNOTATOR)
    assert annotator.get(reverse("api:study-gold-accuracy", args=[study.pk])).status_code in (
        403,
        404,
    )


def test_gold_checks_are_removed_all_or_none(api_as, make_user):
    earlier = factories.study([], responses=2, overlap=1)
    adjudicator = make_user(Role.MAINTAINER)
    sources = list(earlier.items.order_by("pk"))
    for source in sources:
        for line in source.rubric_version.effective_rubric():
            adjudication.record_gold_verdict(
                source, line.version.pk, verdict="pass", note="", by=adjudicator, base_revision=0
            )
    ana = make_user(Role.ANNOTATOR, "ana")
    study = factories.study([ana], responses=2, overlap=1, gold_rate=50)
    api = api_as(Role.MAINTAINER)
    url = reverse("api:study-add-gold-checks", args=[study.pk])
    assert api.post(url, {"sources": [s.pk for s in sources]}, format="json").status_code == 200
    services.assign_study(study)
    checks = list(study.items.gold_checks().annotate(n=Count("assignments")).order_by("-n"))
    graded, untouched = checks[0], checks[1]  # the first is in ana's queue
    opened = graded.assignments.get()
    services.save_grade(
        opened, factories.rubric_of(opened)[0].pk, verdict="pass", rationale="", by=ana
    )
    remove = reverse("api:study-remove-gold-checks", args=[study.pk])

    refused = api.post(remove, {"gold_checks": [untouched.pk, graded.pk]}, format="json")
    assert refused.status_code == 409, refused.json()
    assert study.items.gold_checks().count() == 2  # all or none
    stranger = api.post(remove, {"gold_checks": [sources[0].pk]}, format="json")
    assert stranger.status_code == 400

    removed = api.post(remove, {"gold_checks": [untouched.pk]}, format="json")
    assert removed.status_code == 200, removed.json()
    assert [c["id"] for c in removed.json()] == [graded.pk]
    assert not Assignment.objects.filter(study_item_id=untouched.pk).exists()
