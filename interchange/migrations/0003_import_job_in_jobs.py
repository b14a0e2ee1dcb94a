"""Each import job's worker and heartbeat move to its own `jobs.Job`, the one record of
background work (the reverse puts them back)."""

import django.db.models.deletion
from django.db import migrations, models

STATES = {"queued": "queued", "running": "running", "succeeded": "finished", "failed": "failed"}


def give_each_import_its_job(apps, schema_editor):
    ImportJob = apps.get_model("interchange", "ImportJob")
    Job = apps.get_model("jobs", "Job")
    imports = list(ImportJob.objects.order_by("pk"))
    made = Job.objects.bulk_create(
        Job(
            kind="import",
            state=STATES.get(job.status, "failed"),
            worker=job.worker,
            heartbeat_at=job.heartbeat_at,
            created_by_id=job.created_by_id,
            created_at=job.created_at,
            started_at=job.started_at,
            finished_at=job.finished_at,
        )
        for job in imports
    )
    for job, record in zip(imports, made, strict=True):
        job.job_id = record.pk
    ImportJob.objects.bulk_update(imports, ["job"], batch_size=500)


def take_back_the_lease(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        # Checked as written: the column dropped next must leave no check pending.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    ImportJob = apps.get_model("interchange", "ImportJob")
    imports = list(ImportJob.objects.select_related("job").order_by("pk"))
    for job in imports:
        job.worker, job.heartbeat_at = job.job.worker, job.job.heartbeat_at
        job.job = None
    ImportJob.objects.bulk_update(imports, ["worker", "heartbeat_at", "job"], batch_size=500)
    # Plain SQL: a queryset's delete would look in other apps' tables, which may not be in the
    # state this step's models describe.
    schema_editor.execute("DELETE FROM jobs_job WHERE kind = %s", ["import"])


class Migration(migrations.Migration):
    dependencies = [
        ("interchange", "0002_import_job_changed_criteria"),
        ("jobs", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="importjob",
            name="job",
            field=models.OneToOneField(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="import_job",
                to="jobs.job",
                verbose_name="background job",
            ),
        ),
        migrations.RunPython(give_each_import_its_job, take_back_the_lease),
    ]
