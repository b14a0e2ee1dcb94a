"""The judge's model family moves from a study's analysis settings to the judge: each run
(and its configuration) that judged a study's responses and names no family takes the one the
study's settings gave, which self-preference used for it until now."""

from django.db import migrations


def carry_family_to_runs(apps, schema_editor):
    AnalysisSettings = apps.get_model("agreement", "AnalysisSettings")
    JudgeRun = apps.get_model("judging", "JudgeRun")
    JudgeConfig = apps.get_model("judging", "JudgeConfig")
    StudyItem = apps.get_model("grading", "StudyItem")
    for settings in AnalysisSettings.objects.exclude(judge_family="").order_by("pk"):
        responses = StudyItem.objects.filter(study_id=settings.study_id).values("response_id")
        runs = JudgeRun.objects.filter(verdicts__response_id__in=responses).distinct()
        unnamed = runs.filter(model_family="")
        JudgeConfig.objects.filter(
            pk__in=unnamed.exclude(config=None).values("config_id"), model_family=""
        ).update(model_family=settings.judge_family)
        JudgeRun.objects.filter(pk__in=unnamed.values("pk")).update(
            model_family=settings.judge_family
        )


def carry_family_back(apps, schema_editor):
    """Back: each study's settings take the family its runs name, when they name one."""
    AnalysisSettings = apps.get_model("agreement", "AnalysisSettings")
    JudgeRun = apps.get_model("judging", "JudgeRun")
    StudyItem = apps.get_model("grading", "StudyItem")
    for settings in AnalysisSettings.objects.order_by("pk"):
        responses = StudyItem.objects.filter(study_id=settings.study_id).values("response_id")
        family = (
            JudgeRun.objects.filter(verdicts__response_id__in=responses)
            .exclude(model_family="")
            .order_by("pk")
            .values_list("model_family", flat=True)
            .first()
        )
        if family:
            settings.judge_family = family
            settings.save(update_fields=["judge_family"])


class Migration(migrations.Migration):
    dependencies = [
        ("agreement", "0003_analysis_minimum_units"),
        ("grading", "0001_initial"),
        ("judging", "0006_judge_run_heartbeat"),
    ]

    operations = [
        migrations.RunPython(carry_family_to_runs, carry_family_back),
        migrations.RemoveField(model_name="analysissettings", name="judge_family"),
    ]
