"""Guidance written for one wording is never carried silently into another: an edit changing
the wording or the sign of the weight without saying anything of the guidance (an import, an
API call) clears it and marks the version as needing guidance, shown to authors and graders;
writing guidance for the new wording, through the same edit, takes the mark away."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from grading import services as grading_services
from rubrics import services
from rubrics.models import Criterion, CriterionVersion
from tests import factories

pytestmark = pytest.mark.django_db

GUIDANCE = {"passes": "Asks what the learner needs the language for.", "fail_example": "Hi!"}
NEEDS = "has no grader guidance yet"


@pytest.fixture
def guided(task, author, maintainer) -> Criterion:
    """A task criterion whose published version 1 has guidance."""
    criterion = task.criteria.get(code="t101-01")
    services.edit_criterion(criterion, GUIDANCE, criterion.revision, author)
    services.submit_for_review(task, author)
    services.approve(task, maintainer)
    criterion.refresh_from_db()
    return criterion


def versions(criterion: Criterion) -> list[CriterionVersion]:
    return list(criterion.versions.order_by("number"))


def test_a_new_wording_alone_clears_the_guidance_of_the_new_draft_only(guided, author):
    services.edit_criterion(guided, {"wording": "Asks about needs."}, guided.revision, author)
    published, draft = versions(guided)
    assert (published.passes, published.fail_example, published.needs_guidance) == (
        GUIDANCE["passes"],
        "Hi!",
        False,
    )
    assert (draft.wording, draft.passes, draft.fail_example, draft.needs_guidance) == (
        "Asks about needs.",
        "",
        "",
        True,
    )
    event = (
        AuditEvent.objects.for_object(guided)
        .filter(kind=AuditEvent.Kind.UPDATED)
        .order_by("pk")
        .last()
    )
    assert event.changes["needs_guidance"] == [False, True]
    assert event.changes["passes"] == [GUIDANCE["passes"], ""]


def test_a_weight_turned_into_a_penalty_clears_the_guidance(guided, author):
    services.edit_criterion(guided, {"weight": -3}, guided.revision, author)
    assert versions(guided)[-1].needs_guidance


def test_a_weight_of_the_same_sign_keeps_the_guidance(guided, author):
    services.edit_criterion(guided, {"weight": 5}, guided.revision, author)
    draft = versions(guided)[-1]
    assert (draft.weight, draft.passes, draft.needs_guidance) == (5, GUIDANCE["passes"], False)


def test_an_edit_giving_guidance_with_the_wording_keeps_it_as_written(guided, author):
    changes = {"wording": "Asks about needs.", "passes": "Names a need."}
    services.edit_criterion(guided, changes, guided.revision, author)
    draft = versions(guided)[-1]
    assert (draft.passes, draft.fail_example, draft.needs_guidance) == (
        "Names a need.",
        "Hi!",
        False,
    )


def test_writing_guidance_for_the_new_wording_takes_the_mark_away(guided, author):
    services.edit_criterion(guided, {"wording": "Asks about needs."}, guided.revision, author)
    guided.refresh_from_db()
    services.edit_criterion(guided, {"passes": "Names a need."}, guided.revision, author)
    draft = versions(guided)[-1]
    assert (draft.number, draft.passes, draft.needs_guidance) == (2, "Names a need.", False)


def test_the_criteria_page_says_which_version_needs_guidance(client_as, guided, author):
    services.edit_criterion(guided, {"wording": "Asks about needs."}, guided.revision, author)
    url = reverse("rubrics:task_criteria", args=[guided.task_id])
    page = client_as(Role.AUTHOR).get(url).content.decode()
    assert f"Version 2 {NEEDS}" in page


def test_the_grading_page_says_the_version_graded_has_no_guidance_yet(make_user):
    grader = make_user(Role.ANNOTATOR)
    study = factories.study([grader], responses=1, overlap=1)
    grading_services.assign_study(study)
    assignment = study.items.get().assignments.get()
    version = factories.rubric_of(assignment)[0]
    client = Client()
    client.force_login(grader)
    url = reverse("grading:assignment", args=[assignment.pk])
    assert NEEDS not in client.get(url).content.decode()
    # A version published with its mark (an import, then an approval without guidance).
    CriterionVersion.objects.filter(pk=version.pk).update(needs_guidance=True)
    assert f"Version {version.number} {NEEDS}" in client.get(url).content.decode()
