"""A judge run's heartbeat, now its Job's (0002), leaves the run. Apart from 0002: PostgreSQL
alters no table whose rows that migration's writes have left constraint checks pending for."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("judging", "0002_judge_run_job")]

    operations = [migrations.RemoveField(model_name="judgerun", name="heartbeat")]
