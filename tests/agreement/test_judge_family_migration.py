"""The migration that moves the judge's model family from a study's analysis settings to the
judge: the runs that judged the study's responses (and their configurations) take the family
the settings gave, unless they name their own."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from judging.models import JudgeConfig, JudgeRun
from judging.services import default_prompt
from tests.factories import demo_study, judge_run

BEFORE = [("agreement", "0003_analysis_minimum_units")]


def migrate(targets):  # type: ignore[no-untyped-def]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_the_study_judge_family_moves_to_its_runs_and_their_configurations():
    study = demo_study(1)
    imported = judge_run(study, "v1", fails_universal=False)
    config = JudgeConfig.objects.create(name="made-here", model="a/b", prompt=default_prompt())
    made_here = judge_run(study, "v2", fails_universal=False)
    JudgeRun.objects.filter(pk=made_here.pk).update(config=config)
    named = judge_run(study, "v3", fails_universal=False)
    JudgeRun.objects.filter(pk=named.pk).update(model_family="its-own")
    elsewhere = JudgeRun.objects.create(judge_model="judged-nothing-here")
    try:
        old = migrate(BEFORE)
        old.get_model("agreement", "AnalysisSettings").objects.create(
            study_id=study.pk, judge_family="acme"
        )
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
        families = dict(JudgeRun.objects.values_list("pk", "model_family"))
        assert families == {
            imported.pk: "acme",
            made_here.pk: "acme",
            named.pk: "its-own",
            elsewhere.pk: "",
        }
        assert JudgeConfig.objects.get().model_family == "acme"
        back = migrate(BEFORE)  # and back: the study's settings take its runs' family
        settings = back.get_model("agreement", "AnalysisSettings").objects.get()
        assert settings.judge_family == "acme"
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
