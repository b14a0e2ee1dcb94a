"""The squashed migrations: a new database gets the models' schema, and a database migrated by
the migrations they replace (every database made before the squash) has nothing to apply."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

# What `django_migrations` lists for these apps in a database at the last release before the
# squash: the migrations, since deleted, that each app's 0001_initial now stands for.
BEFORE_THE_SQUASH = {
    "accounts": [
        "0001_initial",
        "0002_api_token",
        "0003_alter_capability_options",
        "0004_user_language",
        "0005_model_names",
        "0006_field_labels",
        "0007_username_key",
        "0008_invitation_unsent",
    ],
    "agreement": [
        "0001_initial",
        "0002_analysissettings_epsilon_and_more",
        "0003_analysis_minimum_units",
        "0004_judge_family_to_runs",
        "0005_model_names",
        "0006_field_labels",
    ],
    "audit": ["0001_initial", "0002_model_names", "0003_field_labels"],
    "grading": [
        "0001_initial",
        "0002_gold_verdict_revisions",
        "0003_likert_item_key",
        "0004_adjudication_request",
        "0005_study_name_unique_ignoring_case",
        "0006_turn_level_criteria",
        "0007_ordinal_levels",
        "0008_flags_and_criterion_time",
        "0009_language_codes",
        "0010_adaptive_overlap_and_gold_checks",
        "0011_pair_tally",
        "0012_sub_competency_label",
        "0013_results_revision",
        "0014_model_names",
        "0015_field_labels",
    ],
    "interchange": [
        "0001_initial",
        "0002_import_storage",
        "0003_import_job_lease",
        "0004_import_job_create_missing",
        "0005_offline_import_jobs",
        "0006_import_job_notes",
        "0007_model_names",
        "0008_field_labels",
        "0009_import_job_new_versions",
    ],
    "judging": [
        "0001_initial",
        "0002_judge_rating",
        "0003_prompts_configs_run_progress",
        "0004_shipped_prompts",
        "0005_triage_resolution",
        "0006_judge_run_heartbeat",
        "0007_judge_run_family_help",
        "0008_ordinal_levels",
        "0009_verdict_turn",
        "0010_model_names",
        "0011_field_labels",
        "0012_capped_judge_output",
    ],
    "rubrics": [
        "0001_initial",
        "0002_response_epoch",
        "0003_published_resources_and_context",
        "0004_author_input_bounds",
        "0005_turn_level_criteria",
        "0006_language_codes",
        "0007_sub_competency_label",
        "0008_model_names",
        "0009_field_labels",
        "0010_response_versions",
    ],
    "taxonomy": [
        "0001_initial",
        "0002_context_variable_whole_numbers",
        "0003_proficiency_scales",
        "0004_sub_competency_label",
        "0005_model_names",
        "0006_field_labels",
    ],
}


@pytest.mark.django_db
def test_the_migrations_make_the_schema_the_models_describe():
    # Exits (SystemExit) when a model differs from what the migrations leave.
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_each_app_starts_from_one_initial_migration_standing_for_all_it_replaced():
    graph = MigrationExecutor(None).loader.graph
    for app, names in BEFORE_THE_SQUASH.items():
        initial = graph.nodes[app, "0001_initial"]
        # Its own name is the first migration's: a migration cannot replace itself.
        assert [(app, name) for name in names[1:]] == initial.replaces, app


@pytest.mark.django_db
def test_a_database_migrated_before_the_squash_has_nothing_of_it_to_apply():
    recorded = MigrationRecorder(connection).migration_qs
    recorded.filter(app__in=BEFORE_THE_SQUASH).delete()
    recorded.bulk_create(
        MigrationRecorder.Migration(app=app, name=name)
        for app, names in BEFORE_THE_SQUASH.items()
        for name in names
    )

    executor = MigrationExecutor(connection)
    planned = executor.migration_plan(executor.loader.graph.leaf_nodes())
    # Migrations added after the squash are to apply; the squashed ones count as applied.
    assert not {(m.app_label, m.name) for m, _backwards in planned if m.replaces}
    assert all(
        (app, "0001_initial") in executor.loader.applied_migrations for app in BEFORE_THE_SQUASH
    )
    out = StringIO()
    # migrate's own check of the recorded history, then what it would apply.
    call_command("migrate", plan=True, stdout=out)
    assert not [app for app in BEFORE_THE_SQUASH if f"{app}.0001_initial" in out.getvalue()]


@pytest.mark.django_db
def test_a_database_stopped_half_way_through_the_squashed_migrations_is_refused():
    recorded = MigrationRecorder.Migration.objects
    recorded.filter(app="judging").exclude(name="0001_initial").delete()
    for name in BEFORE_THE_SQUASH["judging"][1:4]:
        recorded.create(app="judging", name=name)

    with pytest.raises(SystemCheckError) as refused:
        call_command("migrate", "--plan", skip_checks=False, stdout=StringIO())

    message = str(refused.value)
    assert "l2annot.E001" in message
    assert "judging.0005_triage_resolution" in message
    assert "judging.0004_shipped_prompts" not in message


@pytest.mark.django_db
def test_a_database_at_the_squash_passes_the_check():
    assert call_command("check", "--database", "default") is None
