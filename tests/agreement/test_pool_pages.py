"""The annotator pool over time and a study's drift, from grades in the database to the pages:
two studies a month apart, a gold check, measured times."""

from datetime import datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from agreement.pool import annotator_history, pool_overview, study_drift
from grading import adjudication, services
from grading import gold as gold_checks
from grading.models import Assignment, Grade, Study
from tests import factories

pytestmark = pytest.mark.django_db

JANUARY = timezone.make_aware(datetime(2026, 1, 14, 10))


def _grade_all(study: Study, grader, verdict: str) -> None:
    while (assignment := services.claim_next(study, grader)) is not None:
        factories.complete(assignment, grader, verdict)
        services.submit(assignment, by=grader)


@pytest.fixture(scope="module")
def pool(module_db: None) -> dict[str, int]:
    """January: ann and bea pass everything, cid fails everything, cid a week after the
    others. Later: ann and bea disagree on every criterion and grade a gold check (passed by
    the adjudicator on an item of January), which ann gets right."""
    sync_roles()
    ann, bea, cid = (create_user_with_role(n, f"pw-{n}", Role.ANNOTATOR) for n in "abc")
    for user, name in zip((ann, bea, cid), ("Ann", "Bea", "Cid"), strict=True):
        user.username, user.display_name = name.lower(), name
        user.save()
    earlier = factories.graded_study([ann, bea, cid], ["pass", "pass", "fail"])
    mine = Assignment.objects.filter(study_item__study=earlier)
    mine.update(submitted_at=JANUARY)
    mine.filter(annotator=cid).update(submitted_at=JANUARY + timedelta(days=7))
    source = earlier.items.first()
    adjudicator = create_user_with_role("adj", "pw-adj", Role.MAINTAINER)
    for line in source.rubric_version.effective_rubric():
        if line.applicable:
            adjudication.record_gold_verdict(
                source, line.version.pk, verdict="pass", note="", by=adjudicator, base_revision=0
            )
    later = factories.study([ann, bea], responses=2, overlap=2, gold_rate=25)
    gold_checks.add_gold_checks(later, [source], by=None)
    services.assign_study(later)
    _grade_all(later, ann, "pass")
    _grade_all(later, bea, "fail")
    Grade.objects.filter(assignment__annotator=ann).update(active_ms=4000)
    return {"earlier": earlier.pk, "later": later.pk, "ann": ann.pk, "cid": cid.pk}


def test_an_annotators_agreement_is_given_per_month_and_study(pool):
    history = annotator_history(pool["ann"])
    assert history.person.name == "Ann (ann)"
    january, later = (figures for _, figures in history.months)
    assert history.months[0][0] == JANUARY.date().replace(day=1)
    assert january.agreement == 0.5 and january.n_pairs == 2 * january.n_grades
    assert later.agreement == 0.0 and later.n_pairs > 0
    assert [study_id for study_id, _, _ in history.studies] == [pool["earlier"], pool["later"]]
    assert history.overall.n_pairs == january.n_pairs + later.n_pairs


def test_gold_accuracy_and_time_are_the_annotators_own(pool):
    rows = {row.person.pk: row for row in pool_overview()}
    ann = rows[pool["ann"]].overall
    assert ann.n_gold > 0 and ann.gold_accuracy == 1.0
    assert (ann.median_seconds, ann.n_timed) == (4.0, ann.n_grades)
    bea = next(row for row in rows.values() if row.person.name == "Bea (bea)").overall
    assert bea.gold_accuracy == 0.0 and bea.n_timed == 0
    assert rows[pool["cid"]].n_studies == 1
    assert annotator_history(pool["ann"]).times[0][1] == 4.0


def test_drift_places_each_verdict_in_the_week_it_was_submitted(pool):
    found = study_drift(Study.objects.get(pk=pool["earlier"]))
    assert len(found.weeks) == 2 and found.weeks[1] - found.weeks[0] == timedelta(days=7)
    raters = dict(found.drift.raters)
    assert [c.agreement for c in raters["Annotator 1"]] == [0.5, None]
    assert [c.agreement for c in raters["Annotator 3"]] == [None, 0.0]
    # Every unit was complete in the second week, when cid submitted.
    assert found.drift.overall[0].n_pairs == 0


def test_the_pool_page_lists_every_annotator_in_a_fixed_number_of_queries(
    pool, client, make_user, django_assert_max_num_queries
):
    client.force_login(make_user(Role.VIEWER))
    with django_assert_max_num_queries(12):
        page = client.get(reverse("agreement:pool"))
    assert page.status_code == 200
    for name in ("Ann (ann)", "Bea (bea)", "Cid (cid)"):
        assert name in page.text
    assert reverse("agreement:annotator", args=[pool["ann"]]) in page.text


def test_the_annotator_and_drift_pages_open_for_a_maintainer(pool, client, make_user):
    client.force_login(make_user(Role.MAINTAINER))
    page = client.get(reverse("agreement:annotator", args=[pool["ann"]]))
    assert page.status_code == 200 and "50%" in page.text
    assert client.get(reverse("agreement:drift", args=[pool["earlier"]])).status_code == 200
    nobody = make_user(Role.ANNOTATOR, "nobody")
    page = client.get(reverse("agreement:annotator", args=[nobody.pk]))
    assert page.status_code == 200 and "No submitted grades yet." in page.text


def test_the_drift_tables_name_their_first_column(pool, client, make_user):
    """No empty header cell (axe-core's empty-table-header, a rule the browser tests hold)."""
    client.force_login(make_user(Role.MAINTAINER))
    page = client.get(reverse("agreement:drift", args=[pool["earlier"]])).text
    assert '<th scope="col"></th>' not in page
    assert '<th scope="col">Criterion</th>' in page and '<th scope="col">Annotator</th>' in page


def test_an_annotator_sees_nobodys_figures_not_even_their_own(pool, client):
    client.force_login(User.objects.get(pk=pool["ann"]))
    for url in (
        reverse("agreement:pool"),
        reverse("agreement:annotator", args=[pool["cid"]]),
        reverse("agreement:annotator", args=[pool["ann"]]),
        reverse("agreement:drift", args=[pool["earlier"]]),
    ):
        assert client.get(url).status_code == 403


def test_the_api_gives_a_studys_drift_as_the_page_does(pool, client, make_user):
    client.force_login(make_user(Role.VIEWER))
    found = client.get(reverse("api:study-drift", args=[pool["earlier"]])).json()
    weeks = study_drift(Study.objects.get(pk=pool["earlier"])).weeks
    assert found["periods"] == [str(week) for week in weeks]
    raters = dict(found["raters"])
    assert [cell["agreement"] for cell in raters["Annotator 3"]] == [None, 0.0]
