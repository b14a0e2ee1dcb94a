"""The read replica for reports: the report loaders read from the `reports` alias when one is
configured, nothing is ever written there, and without one nothing changes.

In the tests `reports` is a TEST MIRROR of the test database: a second connection to the same
database, so the queries each connection runs can be told apart. The tests commit (transaction
=True) because a second connection does not see the first one's open transaction.
"""

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.db import connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.roles import Role
from agreement.cache import report_key
from agreement.data import disagreements
from agreement.models import AnalysisSettings
from agreement.services import study_report
from grading.models import Grade, ResultsRevision
from judging.calibration import judge_report, judge_scale_report, study_leaderboard
from judging.data import calibration_runs, judge_runs_for
from judging.models import JudgeRun, JudgeVerdict
from l2annot.db_routers import ReportsReplicaRouter, reports_alias, reports_from_primary
from tests.factories import graded_study, rubric_of

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "reports"])

REPORT_TABLES = (
    "grading_grade",
    "grading_likertrating",
    "judging_judgeverdict",
    "judging_judgerating",
    "grading_resultsrevision",
)


@pytest.fixture
def replica(settings):
    settings.REPORTS_DATABASE = "reports"


@pytest.fixture
def study(make_user):
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    study = graded_study(graders, ["pass", "fail"])
    item = study.items.order_by("pk").first()
    run = JudgeRun.objects.create(judge_model="always-pass", prompt_version="v1")
    for version in rubric_of(item.assignments.first()):
        JudgeVerdict.objects.create(
            run=run, response=item.response, criterion_version=version, epoch=1, verdict=True
        )
    cache.clear()
    return study


def every_report(study):
    run = JudgeRun.objects.get()
    report = study_report(study)
    return (
        report,
        judge_report(study, run),
        study_leaderboard(study, run),
        disagreements(study, [c.criterion.key for c in report.criteria]),
        [r.pk for r in judge_runs_for(study)],
        judge_scale_report(study, run),
        [r.pk for r in calibration_runs(study)],
    )


def reads_of(queries, tables=REPORT_TABLES):
    return [q["sql"] for q in queries if any(table in q["sql"] for table in tables)]


def test_report_loaders_read_from_the_replica(study, replica):
    with (
        CaptureQueriesContext(connections["reports"]) as on_replica,
        CaptureQueriesContext(connections["default"]) as on_primary,
    ):
        on_replica_reports = every_report(study)
    assert reads_of(on_replica) and not reads_of(on_primary)
    assert all(q["sql"].lstrip().upper().startswith("SELECT") for q in on_replica)
    # the same figures as when everything is read from the primary
    cache.clear()
    with reports_from_primary():
        assert every_report(study) == on_replica_reports


def test_without_a_replica_reports_read_from_default(study):
    assert reports_alias() == "default"
    with CaptureQueriesContext(connections["reports"]) as on_replica:
        every_report(study)
    assert on_replica.captured_queries == []


def test_reads_right_after_a_write_in_a_transaction_stay_on_default(study, replica):
    settings = AnalysisSettings.for_study(study)
    before = report_key(study, settings)
    grade = Grade.objects.filter(assignment__study_item__study=study).first()
    with CaptureQueriesContext(connections["reports"]) as on_replica, transaction.atomic():
        Grade.objects.filter(pk=grade.pk).update(verdict="fail", updated_at=timezone.now())
        ResultsRevision.objects.bump(study.pk)
        during = report_key(study, settings)  # sees the write not yet committed
        study_report(study)
    assert on_replica.captured_queries == []
    assert during != before


def test_reports_from_primary_keeps_the_loaders_on_default(study, replica):
    with CaptureQueriesContext(connections["reports"]) as on_replica, reports_from_primary():
        assert reports_alias() == "default"
        every_report(study)
    assert on_replica.captured_queries == []
    assert reports_alias() == "reports"


def test_an_instance_read_from_the_replica_is_written_to_default(study, replica):
    run = JudgeRun.objects.using("reports").get()
    run.prompt_version = "v2"
    with (
        CaptureQueriesContext(connections["reports"]) as on_replica,
        CaptureQueriesContext(connections["default"]) as on_primary,
    ):
        run.save()
        JudgeVerdict.objects.create(
            run=run,
            response=study.items.first().response,
            criterion_version=JudgeVerdict.objects.first().criterion_version,
            epoch=2,
            verdict=False,
        )
    assert on_replica.captured_queries == []
    assert any("UPDATE" in q["sql"] for q in on_primary)
    assert any("INSERT" in q["sql"] for q in on_primary)
    assert JudgeRun.objects.using("default").get().prompt_version == "v2"


def test_the_replica_is_never_migrated():
    router = ReportsReplicaRouter()
    assert router.allow_migrate("reports", "grading") is False
    assert router.allow_migrate("default", "grading") is None


def settings_with(environment):
    """DATABASES, DATABASE_ROUTERS and REPORTS_DATABASE of l2annot.settings read in a fresh
    process (outside pytest) under `environment`."""
    code = (
        "import json; from l2annot import settings as s; print(json.dumps("
        "[sorted(s.DATABASES), getattr(s, 'DATABASE_ROUTERS', []), s.REPORTS_DATABASE, "
        "s.DATABASES.get('reports', {}).get('HOST')]))"
    )
    env = {k: v for k, v in os.environ.items() if k != "REPORTS_DATABASE_URL"}
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, **environment},
        cwd=django_settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def test_without_reports_database_url_there_is_one_database_and_no_router():
    assert settings_with({}) == [["default"], [], "default", None]


def test_reports_database_url_adds_the_replica_alias_and_the_router():
    found = settings_with({"REPORTS_DATABASE_URL": "postgres://reader@replica.internal/l2annot"})
    assert found == [
        ["default", "reports"],
        ["l2annot.db_routers.ReportsReplicaRouter"],
        "reports",
        "replica.internal",
    ]
