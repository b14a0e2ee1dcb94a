"""The migration that names the judge runs made before runs had names: each by its
configuration and its version among that configuration's runs on the study."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from judging.models import JudgeRun

BEFORE = [("judging", "0003_judge_run_heartbeat_moved")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


@pytest.mark.django_db(transaction=True)
def test_runs_made_before_are_named_by_configuration_and_version():
    try:
        old = migrate(BEFORE)
        template = old.get_model("judging", "PromptTemplate").objects.create(name="strict")
        prompt = old.get_model("judging", "PromptVersion").objects.create(
            template=template, number=1, text="{response}"
        )
        Config = old.get_model("judging", "JudgeConfig")
        config = Config.objects.create(name="strict-sonnet", model="m/x", prompt=prompt)
        Run = old.get_model("judging", "JudgeRun")
        made = [
            Run.objects.create(judge_model="m/x", run_id=f"r{n}", config=config,
                               parameters={"study": study})
            for n, study in enumerate([1, 2, 1])
        ]  # fmt: skip
        imported = Run.objects.create(judge_model="m/x", prompt_version="strict@1", run_id="abc")

        migrate(latest())
        names = [JudgeRun.objects.get(pk=run.pk).name for run in made]
        assert names == ["strict-sonnet v1", "strict-sonnet v1", "strict-sonnet v2"]
        assert str(JudgeRun.objects.get(pk=imported.pk)) == "m/x · strict@1 · abc"
    finally:
        migrate(latest())
