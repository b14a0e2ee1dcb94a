"""The migration that puts existing CEFR levels on a scale: every value stays (tasks refer to
them), and the values become the levels of a CEFR scale the variable takes them from."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("taxonomy", "0002_context_variable_whole_numbers")]
AFTER = [("taxonomy", "0003_proficiency_scales")]


def migrate(targets):  # type: ignore[no-untyped-def]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_existing_cefr_values_become_levels_of_a_cefr_scale_without_loss():
    old = migrate(BEFORE)
    framework = old.get_model("taxonomy", "Framework").objects.create(code="fw", name="Fw")
    variables = old.get_model("taxonomy", "ContextVariable").objects
    cefr = variables.create(framework=framework, key="cefr_level", label="CEFR", kind="ordinal")
    age = variables.create(framework=framework, key="age", label="Age", kind="ordinal")
    values = old.get_model("taxonomy", "ContextValue").objects
    for order, label in enumerate(["A1", "B1", "C2"], start=1):
        values.create(variable=cefr, code=label.lower(), label=label, order=order)
    values.create(variable=age, code="teens", label="Teens", order=1)
    before = sorted(values.values_list("pk", "variable_id", "code", "label"))
    try:
        new = migrate(AFTER)
        scale = new.get_model("taxonomy", "ProficiencyScale").objects.get()
        assert (scale.code, scale.name, scale.framework_id) == ("cefr", "CEFR", framework.pk)
        levels = new.get_model("taxonomy", "ProficiencyLevel").objects.order_by("order")
        assert [level.label for level in levels] == ["A1", "B1", "C2"]
        moved = new.get_model("taxonomy", "ContextValue").objects
        assert sorted(moved.values_list("pk", "variable_id", "code", "label")) == before
        assert {v.label: v.level.label for v in moved.filter(variable_id=cefr.pk)} == {
            "A1": "A1",
            "B1": "B1",
            "C2": "C2",
        }
        assert moved.get(code="teens").level_id is None
        variables = new.get_model("taxonomy", "ContextVariable").objects
        assert variables.get(pk=cefr.pk).scale_id == scale.pk
        assert variables.get(pk=age.pk).scale_id is None
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
