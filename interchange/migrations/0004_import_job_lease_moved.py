"""The lease fields an import job's Job now holds (0002) leave the import job; its Job is
required from now on. Apart from 0002: PostgreSQL alters no table whose rows that migration's
writes have left constraint checks pending for."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("interchange", "0003_import_job_in_jobs")]

    operations = [
        migrations.RemoveField(model_name="importjob", name="heartbeat_at"),
        migrations.RemoveField(model_name="importjob", name="worker"),
        migrations.AlterField(
            model_name="importjob",
            name="job",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="import_job",
                to="jobs.job",
                verbose_name="background job",
            ),
        ),
    ]
