"""The pages of flags and of time per criterion: a grader flags from the grading page (htmx or
a plain form), a maintainer reads the flags per criterion and per response and resolves them,
maintainers and researchers read the time per criterion; a fixed number of queries each."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from grading import flags, services
from grading.models import Assignment, Flag, Grade, Study
from tests import factories
from tests.conftest import htmx

pytestmark = [pytest.mark.django_db, pytest.mark.http]


@pytest.fixture(scope="module")
def world(module_db: None) -> dict[str, int]:
    """Three responses, k=2, ana and ben; ben has submitted one with measured times and
    flagged a criterion of it."""
    sync_roles()
    ana, ben = (create_user_with_role(n, "pw", Role.ANNOTATOR) for n in ("ana", "ben"))
    boss = create_user_with_role("boss", "pw", Role.MAINTAINER)
    reader = create_user_with_role("reader", "pw", Role.VIEWER)
    study = factories.study([ana, ben], responses=3, overlap=2, seed=2)
    services.assign_study(study)
    done = Assignment.objects.filter(study_item__study=study, annotator=ben).order_by("pk")[0]
    for n, version in enumerate(factories.rubric_of(done)):
        services.save_grade(
            done, version.pk, verdict="fail", rationale="r", by=ben, active_ms=1000 * (n + 2)
        )
    factories.complete(done, ben)
    services.submit(done, by=ben)
    flags.raise_flag(
        done,
        kind="criterion_unclear",
        comment="Ben's doubt",
        criterion_version_id=factories.rubric_of(done)[0].pk,
        by=ben,
    )
    return {"study": study.pk, "ana": ana.pk, "ben": ben.pk, "boss": boss.pk, "reader": reader.pk}


def client_of(world: dict[str, int], name: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(pk=world[name]))
    return client


def first_of(world: dict[str, int], name: str) -> Assignment:
    return Assignment.objects.filter(study_item__study=world["study"], annotator=world[name])[0]


def test_the_grading_page_offers_a_flag_on_each_criterion_and_the_response(world):
    mine = first_of(world, "ana")
    html = client_of(world, "ana").get(reverse("grading:assignment", args=[mine.pk])).text
    flag_url = reverse("grading:flag", args=[mine.pk])
    assert html.count(f'href="{flag_url}?criterion_version=') == len(factories.rubric_of(mine))
    assert 'id="flag-dialog"' in html and 'id="flag-response"' in html
    assert "Ben&#x27;s doubt" not in html and "Ben's doubt" not in html  # blind to others' flags


def test_a_flag_sent_with_htmx_comes_back_in_the_graders_own_list(world):
    mine = first_of(world, "ana")
    version = factories.rubric_of(mine)[1]
    client = htmx(client_of(world, "ana"))
    url = reverse("grading:flag", args=[mine.pk])
    refused = client.post(url, {"kind": "other", "comment": " "})
    assert refused.status_code == 422 and "needs a comment" in refused.text
    sent = client.post(
        url,
        {"kind": "criterion_unclear", "comment": "Which CEFR?", "criterion_version": version.pk},
    )
    assert sent.status_code == 200
    assert 'id="flag-sent"' in sent.text and 'hx-swap-oob="true"' in sent.text
    assert "Which CEFR?" in sent.text and "Ben&#x27;s doubt" not in sent.text
    again = client.post(
        url, {"kind": "criterion_unclear", "comment": "x", "criterion_version": version.pk}
    )
    assert again.status_code == 409 and "already flagged" in again.text


def test_setting_a_response_aside_goes_on_to_the_next_one(world):
    mine = first_of(world, "ana")
    reply = htmx(client_of(world, "ana")).post(
        reverse("grading:flag", args=[mine.pk]),
        {"kind": "response_broken", "comment": "Truncated", "skip": "on"},
    )
    following = Assignment.objects.get(annotator=world["ana"], status="in_progress")
    assert following.pk != mine.pk
    assert reply["HX-Redirect"] == reverse("grading:assignment", args=[following.pk])
    page = client_of(world, "ana").get(reverse("grading:assignment", args=[mine.pk])).text
    assert 'id="set-aside"' in page


def test_without_javascript_the_flag_form_is_a_page_and_a_plain_post(world):
    mine = first_of(world, "ana")
    version = factories.rubric_of(mine)[0]
    client = client_of(world, "ana")
    url = reverse("grading:flag", args=[mine.pk])
    form = client.get(url, {"criterion_version": version.pk}).text
    assert f"criterion {version.criterion.code}" in form and 'value="criterion_unclear"' in form
    reply = client.post(url, {"kind": "response_broken"})
    assert reply.status_code == 302 and reply.url.endswith("#my-flags")


def test_the_maintainer_reads_flags_per_criterion_and_per_response_in_fixed_queries(
    world, django_assert_num_queries
):
    ana = User.objects.get(pk=world["ana"])
    for assignment in Assignment.objects.filter(annotator=ana):
        flags.raise_flag(assignment, kind="response_broken", comment="", skip=True, by=ana)
    client = client_of(world, "boss")
    url = reverse("grading:study_flags", args=[world["study"]])
    client.get(url)
    # session, user, 2 permission lookups; the study; open flags; resolved flags; graders and
    # pool of the responses set aside
    with django_assert_num_queries(9):
        by_criterion = client.get(url).text
    assert by_criterion.count('class="flag-card"') == 4
    assert "The response as a whole" in by_criterion and "Ben&#x27;s doubt" in by_criterion
    by_response = client.get(url, {"by": "response"}).text
    assert by_response.count('class="flag-card"') == 4
    assert by_response.count('name="outcome" value="returned"') == 3


def test_resolving_a_flag_swaps_its_card_and_can_open_the_criterions_draft(world):
    flag = Flag.objects.get(comment="Ben's doubt")
    client = htmx(client_of(world, "boss"))
    url = reverse("grading:flag_resolve", args=[flag.pk])
    assert client.post(url, {"note": ""}).status_code == 422
    reply = client.post(url, {"note": "Reworded", "open_draft": "on"})
    assert reply.status_code == 200 and "Resolved by boss" in reply.text
    flag.refresh_from_db()
    assert flag.draft is not None and "Edit the draft of version 2" in reply.text
    assert client.post(url, {"note": "again"}).status_code == 409


def test_the_home_page_lists_open_flags_for_maintainers(world):
    html = client_of(world, "boss").get(reverse("home")).text
    study = Study.objects.get(pk=world["study"])
    assert reverse("grading:study_flags", args=[study.pk]) in html
    assert 'id="open-flags"' in html


def test_an_autosave_adds_the_time_the_page_measured(world):
    mine = first_of(world, "ana")
    version = factories.rubric_of(mine)[0]
    client = htmx(client_of(world, "ana"))
    url = reverse("grading:save_grade", args=[mine.pk, version.pk])
    assert client.post(url, {"verdict": "pass", "active_ms": "2500"}).status_code == 200
    assert client.post(url, {"verdict": "pass", "active_ms": "-4"}).status_code == 422
    assert Grade.objects.get(assignment=mine, criterion_version=version).active_ms == 2500


def test_researchers_read_the_time_per_criterion_in_fixed_queries(world, django_assert_num_queries):
    client = client_of(world, "reader")
    url = reverse("grading:study_times", args=[world["study"]])
    client.get(url)
    # session, user, 2 permission lookups; the study; the times
    with django_assert_num_queries(6):
        html = client.get(url).text
    first = factories.rubric_of(first_of(world, "ben"))[0]
    assert f"<code>{first.criterion.code}</code></th><td>2.0</td><td>1</td>" in html
    assert client_of(world, "ana").get(url).status_code == 403
