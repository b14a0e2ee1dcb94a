"""The migration that gives rubric versions their own resources and context values copies, for
versions published before it, the task's rows (what graders were shown until then)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

# Taxonomy too: a later taxonomy migration adds a column the old models here do not fill.
BEFORE = [("rubrics", "0002_response_epoch"), ("taxonomy", "0001_initial")]
AFTER = [("rubrics", "0003_published_resources_and_context")]


def migrate(targets):  # type: ignore[no-untyped-def]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_existing_versions_get_a_copy_of_their_tasks_resources_and_values():
    old = migrate(BEFORE)
    framework = old.get_model("taxonomy", "Framework").objects.create(code="fw", name="Fw")
    competency = old.get_model("taxonomy", "Competency").objects.create(
        framework=framework, code="01", name="Planning", order=1
    )
    sub = old.get_model("taxonomy", "SubCompetency").objects.create(
        competency=competency, code="01a", name="Aims", order=1
    )
    variable = old.get_model("taxonomy", "ContextVariable").objects.create(
        framework=framework, key="class_size", label="Class size", kind="number", order=1
    )
    task = old.get_model("rubrics", "Task").objects.create(
        framework=framework, key="7", sub_competency=sub, instruction="Plan."
    )
    resources = old.get_model("rubrics", "TaskResource").objects
    resources.create(task=task, order=5, title="Notes", kind="markdown", text="Hello.")
    resources.create(task=task, order=9, title="Sheet", kind="file", file="task_resources/a.pdf")
    old.get_model("rubrics", "TaskContextValue").objects.create(
        task=task, variable=variable, number=12
    )
    versions = old.get_model("rubrics", "RubricVersion").objects
    for number in (1, 2):
        versions.create(task=task, number=number, instruction="Plan.")
    try:
        new = migrate(AFTER)
        for version in new.get_model("rubrics", "RubricVersion").objects.all():
            copied = new.get_model("rubrics", "PublishedResource").objects.filter(
                rubric_version=version
            )
            assert [(r.order, r.title, r.text, r.file.name) for r in copied.order_by("order")] == [
                (1, "Notes", "Hello.", ""),
                (2, "Sheet", "", "task_resources/a.pdf"),
            ]
            values = new.get_model("rubrics", "PublishedContextValue").objects
            assert [v.number for v in values.filter(rubric_version=version)] == [12]
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
