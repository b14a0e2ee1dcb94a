"""Counted submitted verdicts per pair (PairTally): exact after submitting, changing a submitted
grade and taking an annotator out; what the dashboard and adjudication list read."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading import adjudication, services, tallies
from grading.models import Assignment, PairTally
from tests import factories
from tests.conftest import htmx

pytestmark = pytest.mark.django_db


def counts(study) -> dict[int, tuple[int, int, int, bool]]:
    return {
        t.criterion_version_id: (t.passes, t.fails, t.nas, t.split)
        for t in PairTally.objects.filter(study=study)
    }


def test_the_counts_stay_exact_through_submit_change_and_reassignment(make_user):
    first, second, third = (make_user(Role.ANNOTATOR) for _ in range(3))
    study = factories.study([first, second, third], responses=1, overlap=2)
    services.assign_study(study)
    a, b = Assignment.objects.filter(study_item__study=study).order_by("pk")
    criteria = [v.pk for v in factories.rubric_of(a)]
    factories.complete(a, a.annotator, "pass")
    assert counts(study) == {}  # drafts are not counted
    services.submit(a, by=a.annotator)
    assert counts(study) == {v: (1, 0, 0, False) for v in criteria}
    factories.complete(b, b.annotator, "fail")
    services.submit(b, by=b.annotator)
    assert counts(study) == {v: (1, 1, 0, True) for v in criteria}
    assert adjudication.unresolved_count(study) == len(criteria)

    # A change after submission counts at once; a rationale alone changes nothing.
    services.save_grade(b, criteria[0], verdict="pass", rationale="on reflection", by=b.annotator)
    services.save_grade(b, criteria[1], verdict=None, rationale="still fails", by=b.annotator)
    assert counts(study)[criteria[0]] == (2, 0, 0, False)
    assert counts(study)[criteria[1]] == (1, 1, 0, True)
    assert adjudication.unresolved_count(study) == len(criteria) - 1

    # Taking out an annotator keeps what they submitted and drops their drafts, uncounted.
    item = study.items.get()
    [idle] = {first, second, third} - {a.annotator, b.annotator}
    extra = Assignment.objects.create(study_item=item, annotator=idle, position=9)
    services.save_grade(extra, criteria[0], verdict="fail", rationale="x", by=idle)
    services.remove_annotator(study, idle, by=None)
    services.remove_annotator(study, b.annotator, by=None)
    assert counts(study)[criteria[0]] == (2, 0, 0, False)
    assert tallies.check_study(study)

    # Rebuilding from the grades gives the same rows.
    PairTally.objects.filter(study=study).delete()
    assert not tallies.check_study(study)
    tallies.rebuild(study)
    assert tallies.check_study(study)
    assert counts(study)[criteria[0]] == (2, 0, 0, False)


def test_the_dashboard_shows_the_criteria_a_page_at_a_time(client_as, make_user, monkeypatch):
    monkeypatch.setattr("grading.views.study.CRITERIA_PER_PAGE", 2)
    study = factories.graded_study([make_user(Role.ANNOTATOR)], ["pass"], responses=1)
    codes = [row["code"] for row in services.progress_per_criterion(study)]
    assert len(codes) == 3
    client = client_as(Role.MAINTAINER)
    url = reverse("grading:study", args=[study.pk])
    html = client.get(url).content.decode()
    assert [c in html for c in codes] == [True, True, False]
    assert "Criteria 1 to 2 of 3." in html
    fragment = htmx(client).get(url, {"page": "2"}).content.decode()
    assert fragment.lstrip().startswith('<section id="criteria"')
    assert [c in fragment for c in codes] == [False, False, True]
    assert "<td>Task</td><td>1</td><td>1</td><td>1</td>" in fragment
