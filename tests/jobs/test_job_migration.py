"""The migrations that give every import and every judge run made here its `jobs.Job`,
carrying over who ran it and its last sign of life; and back."""

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from accounts.roles import Role

BEFORE = [("interchange", "0001_initial"), ("judging", "0001_initial")]
# Imports and runs have their job, and their lease has moved there: the migrations under test,
# without the later ones (each migration there and back again is a fraction of a second).
AFTER = [
    ("interchange", "0004_import_job_lease_moved"),
    ("judging", "0003_judge_run_heartbeat_moved"),
]


def migrate(targets):
    """Migrate to `targets`: the project's state there, which renders its models when asked."""
    return MigrationExecutor(connection).migrate(targets)


def latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


@pytest.mark.django_db(transaction=True)
def test_existing_imports_and_runs_get_their_job_and_give_it_back(starter_framework, make_user):
    now = timezone.now().replace(microsecond=0)
    beat = now - timedelta(seconds=30)
    person = make_user(Role.MAINTAINER, "uploader")
    try:
        old = migrate(BEFORE).apps
        OldImport = old.get_model("interchange", "ImportJob")
        running = OldImport.objects.create(
            kind="benchmark", token="a", file="x.zip", framework_id=starter_framework.pk,
            status="running", worker="host:12:34", heartbeat_at=beat, started_at=now,
            created_by_id=person.pk,
        )  # fmt: skip
        done = OldImport.objects.create(
            kind="responses", token="b", file="y.jsonl", framework_id=starter_framework.pk,
            status="succeeded", started_at=now, finished_at=now,
        )  # fmt: skip
        OldRun = old.get_model("judging", "JudgeRun")
        made = OldRun.objects.create(
            judge_model="made-here", status="running", started=now, heartbeat=beat
        )
        imported = OldRun.objects.create(judge_model="imported", status="imported")

        new = migrate(AFTER).apps
        Import = new.get_model("interchange", "ImportJob")
        job = Import.objects.select_related("job").get(pk=running.pk).job
        assert (job.kind, job.state, job.worker, job.heartbeat_at) == (
            "import", "running", "host:12:34", beat,
        )  # fmt: skip
        assert (job.started_at, job.created_by_id) == (now, person.pk)
        job = Import.objects.select_related("job").get(pk=done.pk).job
        assert (job.state, job.finished_at) == ("finished", now)
        JudgeRun = new.get_model("judging", "JudgeRun")
        job = JudgeRun.objects.select_related("job").get(pk=made.pk).job
        assert (job.kind, job.state, job.heartbeat_at, job.started_at) == (
            "judge_run", "running", beat, now,
        )  # fmt: skip
        assert JudgeRun.objects.get(pk=imported.pk).job is None
        assert new.get_model("jobs", "Job").objects.count() == 3

        back = migrate(BEFORE).apps
        assert back.get_model("interchange", "ImportJob").objects.get(pk=running.pk).worker == (
            "host:12:34"
        )
        assert back.get_model("judging", "JudgeRun").objects.get(pk=made.pk).heartbeat == beat
        assert back.get_model("jobs", "Job").objects.count() == 0
    finally:
        migrate(latest())
