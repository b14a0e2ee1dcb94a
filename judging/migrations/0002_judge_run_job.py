"""Each judge run made here gets its `jobs.Job`, the one record of background work, which
takes over its heartbeat (an imported run has no job; the reverse puts the heartbeat back)."""

import django.db.models.deletion
from django.db import migrations, models

STATES = {
    "queued": "queued",
    "running": "running",
    "succeeded": "finished",
    "failed": "failed",
    "cancelled": "cancelled",
}


def give_each_run_its_job(apps, schema_editor):
    JudgeRun = apps.get_model("judging", "JudgeRun")
    Job = apps.get_model("jobs", "Job")
    runs = list(JudgeRun.objects.exclude(status="imported").order_by("pk"))
    made = Job.objects.bulk_create(
        Job(
            kind="judge_run",
            # A run cancelled while it ran is still its worker's until it ends it.
            state="running"
            if run.status == "cancelled" and run.finished is None and run.started is not None
            else STATES.get(run.status, "failed"),
            # Runs named no worker: their heartbeat (or start) alone said they were alive.
            heartbeat_at=run.heartbeat or run.started,
            created_at=run.created_at,
            started_at=run.started,
            finished_at=run.finished,
        )
        for run in runs
    )
    for run, job in zip(runs, made, strict=True):
        run.job_id = job.pk
    JudgeRun.objects.bulk_update(runs, ["job"], batch_size=500)


def take_back_the_heartbeat(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        # Checked as written: the column dropped next must leave no check pending.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    JudgeRun = apps.get_model("judging", "JudgeRun")
    runs = list(JudgeRun.objects.filter(job__isnull=False).select_related("job").order_by("pk"))
    for run in runs:
        run.heartbeat, run.job = run.job.heartbeat_at, None
    JudgeRun.objects.bulk_update(runs, ["heartbeat", "job"], batch_size=500)
    # Plain SQL: a queryset's delete would look in other apps' tables, which may not be in the
    # state this step's models describe.
    schema_editor.execute("DELETE FROM jobs_job WHERE kind = %s", ["judge_run"])


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0001_initial"),
        ("judging", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="judgerun",
            name="job",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="judge_run",
                to="jobs.job",
                verbose_name="background job",
            ),
        ),
        migrations.RunPython(give_each_run_its_job, take_back_the_heartbeat),
    ]
