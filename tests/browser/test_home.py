"""Where a person lands after logging in: an annotator on their queue, one click from grading."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading import services as grading
from grading.models import Assignment
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_annotator_lands_on_their_queue_and_starts_grading_from_it(new_page, log_in):
    page = new_page(width=390)
    grader = log_in(page, Role.ANNOTATOR)
    study = factories.study([grader], responses=2, overlap=1)
    grading.assign_study(study)

    page.goto(reverse("home"))
    queue = page.get_by_role("region", name="Your grading")
    assert queue.get_by_role("heading", name=study.name).is_visible()
    assert queue.get_by_text("0 of 2 responses submitted").is_visible()
    assert queue.get_by_text("2 responses left").is_visible()
    queue.get_by_role("button", name="Start grading").click()

    page.wait_for_url("**/grading/assignments/*/")
    started = Assignment.objects.get(annotator=grader, status=Assignment.Status.IN_PROGRESS)
    assert page.url.endswith(reverse("grading:assignment", args=[started.pk]))
    assert page.csp_errors == []


def test_a_maintainer_and_a_researcher_land_on_what_needs_them(new_page, log_in, make_user):
    study = factories.study([make_user(Role.ANNOTATOR)], responses=1, overlap=1)
    maintainer = new_page()
    log_in(maintainer, Role.MAINTAINER)
    needs = maintainer.get_by_role("region", name="What needs you")
    assert needs.get_by_role("link", name="Review queue").is_visible()
    assert maintainer.get_by_role("link", name=study.name, exact=True).is_visible()
    researcher = new_page(width=390)
    log_in(researcher, Role.VIEWER)
    assert researcher.get_by_role("region", name="The LLM judge").is_visible()
    assert researcher.get_by_role("link", name=f"Agreement of {study.name}").is_visible()
