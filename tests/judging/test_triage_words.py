"""What a triage card says about the experts and the validation threshold: no majority where
one expert graded, no threshold reached where the criterion has too few units to validate."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading import services
from tests import factories

pytestmark = pytest.mark.django_db


def test_a_unit_one_expert_graded_says_what_that_expert_said(client_as, make_user):
    grader = make_user(Role.ANNOTATOR)
    study = factories.study([grader], responses=1, overlap=1)
    services.assign_study(study)
    run = factories.disagreeing_run(study.pk)  # the expert passed every unit, the judge failed
    page = client_as(Role.MAINTAINER).get(reverse("judging:triage", args=[study.pk, run.pk]))
    text = page.content.decode()
    assert "the one expert who graded it said <strong>pass</strong>" in text
    assert "majority passed" not in text and "majority failed" not in text
    # One response graded once: the agreement page's words for a criterion too small to validate.
    assert "too few units (n = 0; 30 needed to validate)" in text
    assert "enough to reach the validation threshold" not in text
