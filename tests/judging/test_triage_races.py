"""Triage under real concurrency (threads with a connection each, tests/concurrency.py), on
SQLite and PostgreSQL: reopening one run's "the experts were wrong" while another run resolves
the same unit so never leaves the second resolution without its adjudication request."""

import pytest

from accounts.roles import Role
from grading.models import AdjudicationRequest, StudyItem
from judging import resolution
from judging.calibration import triage
from judging.models import TriageResolution
from rubrics.models import CriterionVersion
from tests.concurrency import run_together, threads_share_one_database
from tests.factories import graded_demo_study, judge_run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("attempt", range(3))
def test_reopening_while_another_run_resolves_the_same_unit_keeps_its_request(make_user, attempt):
    study = graded_demo_study(responses=2)
    item = study.items.order_by("pk").first()
    code = next(
        line.version.criterion.code
        for line in item.rubric_version.effective_rubric()
        if line.layer == "task" and line.applicable
    )
    first = judge_run(study, "v1", fails_universal=False, fails_code=code)
    second = judge_run(study, "v2", fails_universal=False, fails_code=code)
    found = triage(study, first)
    item_id, version_id = found.pair(found.units[0])
    unit = StudyItem.objects.get(pk=item_id), CriterionVersion.objects.get(pk=version_id)
    maintainer = make_user(Role.MAINTAINER)
    resolution.resolve(first, *unit, kind="experts_wrong", note="", by=maintainer)

    with threads_share_one_database():
        raised = run_together(
            lambda: resolution.reopen(first, *unit, by=maintainer),
            lambda: resolution.resolve(second, *unit, kind="experts_wrong", note="", by=maintainer),
        )

    assert raised == [None, None]
    assert TriageResolution.objects.get(run=second).kind == "experts_wrong"
    assert not TriageResolution.objects.filter(run=first).exists()
    assert AdjudicationRequest.objects.filter(study_item=item_id, criterion_version=version_id)
