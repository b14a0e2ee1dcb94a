"""The migrations that make target languages ISO 639-1 codes: a task's or an annotator's
language name becomes its code; a name no one knows is reported and kept in the history."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [
    ("rubrics", "0005_turn_level_criteria"),
    ("grading", "0008_flags_and_criterion_time"),
    ("taxonomy", "0002_context_variable_whole_numbers"),
    ("accounts", "0004_user_language"),
]
AFTER = [("rubrics", "0006_language_codes"), ("grading", "0009_language_codes")]


def migrate(targets):  # type: ignore[no-untyped-def]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_language_names_become_codes_and_unknown_names_are_reported_not_lost(capsys):
    old = migrate(BEFORE)
    framework = old.get_model("taxonomy", "Framework").objects.create(code="fw", name="Fw")
    competency = old.get_model("taxonomy", "Competency").objects.create(
        framework=framework, code="01", name="Planning", order=1
    )
    sub = old.get_model("taxonomy", "SubCompetency").objects.create(
        competency=competency, code="01a", name="Aims", order=1
    )
    tasks = old.get_model("rubrics", "Task").objects
    for key, language in (("1", "English"), ("2", "spanish"), ("3", "Klingon"), ("4", "fr")):
        tasks.create(framework=framework, key=key, sub_competency=sub, language=language)
    ana = old.get_model("accounts", "User").objects.create(username="ana")
    for language in ("English", "en", "Elvish", "Mandarin"):
        old.get_model("grading", "Expertise").objects.create(annotator=ana, language=language)
    try:
        new = migrate(AFTER)
        task_languages = dict(
            new.get_model("rubrics", "Task").objects.values_list("key", "language")
        )
        assert task_languages == {"1": "en", "2": "es", "3": "und", "4": "fr"}
        expertise = new.get_model("grading", "Expertise").objects.values_list("language", flat=True)
        assert sorted(expertise) == ["en", "zh"]
        events = new.get_model("audit", "AuditEvent").objects.order_by("object_repr")
        assert [(e.object_repr, e.changes) for e in events] == [
            ("Task 3", {"language": ["Klingon", "und"]}),
            ("ana", {"language expertise": ["Elvish", ""]}),
        ]
        printed = capsys.readouterr().out
        assert "'Klingon'" in printed and "'Elvish'" in printed
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
