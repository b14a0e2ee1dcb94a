"""What an annotator's queue offers in an open study: grading only while something is left."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts.roles import Role
from grading import services
from tests.factories import complete, study

pytestmark = [pytest.mark.django_db, pytest.mark.http]

PAGES = [reverse("home"), reverse("grading:index")]


def queue_of(grader) -> list[str]:
    client = Client()
    client.force_login(grader)
    return [client.get(url).content.decode() for url in PAGES]


def test_with_everything_submitted_nothing_is_offered_and_nothing_left_is_said(make_user):
    grader = make_user(Role.ANNOTATOR)
    done = study([grader], responses=1, overlap=1)
    services.assign_study(done)
    assignment = services.claim_next(done, grader)
    complete(assignment, grader)
    services.submit(assignment, by=grader)
    for page in queue_of(grader):
        assert "Continue grading" not in page and "Start grading" not in page
        assert reverse("grading:next", args=[done.pk]) not in page
        assert "Nothing is left for you to grade here." in page


def test_with_responses_left_grading_continues(make_user):
    grader = make_user(Role.ANNOTATOR)
    started = study([grader], responses=2, overlap=1)
    services.assign_study(started)
    assignment = services.claim_next(started, grader)
    complete(assignment, grader)
    services.submit(assignment, by=grader)
    for page in queue_of(grader):
        assert "Continue grading" in page and "Nothing is left" not in page
