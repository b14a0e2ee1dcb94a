"""Field labels (verbose names), translatable; nothing changes in the database."""

from django.conf import settings
from django.db import migrations

from l2annot.migration_operations import LabelFields


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0014_model_names"),
        ("rubrics", "0009_field_labels"),
        ("taxonomy", "0006_field_labels"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        LabelFields(
            "adjudicationrequest",
            {
                "at": "requested at",
                "by": "by",
                "criterion_version": "criterion version",
                "reason": "reason",
                "study_item": "study item",
            },
        ),
        LabelFields(
            "assignment",
            {
                "annotator": "annotator",
                "last_activity_at": "last activity at",
                "position": "position",
                "skipped_at": "skipped at",
                "started_at": "started at",
                "status": "status",
                "study_item": "study item",
                "submitted_at": "submitted at",
                "time_spent_seconds": "time spent (seconds)",
            },
        ),
        LabelFields("expertise", {"annotator": "annotator", "language": "language"}),
        LabelFields(
            "flag",
            {
                "by": "by",
                "comment": "comment",
                "created_at": "created at",
                "criterion_version": "criterion version",
                "draft": "draft",
                "kind": "kind",
                "outcome": "outcome",
                "reassigned_to": "reassigned to",
                "resolution_note": "resolution note",
                "resolved_at": "resolved at",
                "resolved_by": "resolved by",
                "skipped": "skipped",
                "status": "status",
                "study_item": "study item",
            },
        ),
        LabelFields(
            "goldverdict",
            {
                "at": "recorded at",
                "by": "by",
                "criterion_version": "criterion version",
                "level": "level",
                "note": "note",
                "revision": "revision",
                "study_item": "study item",
                "verdict": "verdict",
            },
        ),
        LabelFields(
            "goldverdictrevision",
            {
                "by": "by",
                "gold": "gold",
                "level": "level",
                "note": "note",
                "replaced_at": "replaced at",
                "replaced_by": "replaced by",
                "revision": "revision",
                "verdict": "verdict",
                "written_at": "written at",
            },
        ),
        LabelFields(
            "grade",
            {
                "active_ms": "active time (ms)",
                "assignment": "assignment",
                "criterion_version": "criterion version",
                "level": "level",
                "rationale": "rationale",
                "updated_at": "updated at",
                "verdict": "verdict",
            },
        ),
        LabelFields(
            "graderevision",
            {
                "grade": "grade",
                "level": "level",
                "rationale": "rationale",
                "replaced_at": "replaced at",
                "replaced_by": "replaced by",
                "verdict": "verdict",
                "written_at": "written at",
            },
        ),
        LabelFields(
            "likertitem",
            {
                "key": "key",
                "label_1": "label 1",
                "label_2": "label 2",
                "label_3": "label 3",
                "label_4": "label 4",
                "label_5": "label 5",
                "order": "order",
                "prompt": "prompt",
                "study": "study",
            },
        ),
        LabelFields(
            "likertrating",
            {
                "assignment": "assignment",
                "item": "item",
                "updated_at": "updated at",
                "value": "value",
            },
        ),
        LabelFields(
            "pairtally",
            {
                "criterion_version": "criterion version",
                "fails": "fails",
                "high_level": "high level",
                "levels": "levels",
                "low_level": "low level",
                "nas": "not applicable",
                "passes": "passes",
                "split": "split",
                "study": "study",
                "study_item": "study item",
            },
        ),
        LabelFields(
            "poolmember", {"annotator": "annotator", "capacity": "capacity", "study": "study"}
        ),
        LabelFields("resultsrevision", {"study": "study", "value": "value"}),
        LabelFields(
            "study",
            {
                "annotators": "annotators",
                "created_at": "created at",
                "created_by": "created by",
                "deadline": "deadline",
                "description": "description",
                "escalation": "escalation",
                "escalation_cap": "escalation cap",
                "escalation_threshold": "escalation threshold",
                "framework": "framework",
                "gold_rate": "gold rate",
                "gold_warning": "gold warning",
                "match_expertise": "match expertise",
                "name": "name",
                "overlap": "overlap",
                "overlap_percent": "overlap percent",
                "qualification_accuracy": "qualification accuracy",
                "qualification_items": "qualification items",
                "require_rationale_on_fail": "require rationale on fail",
                "seed": "seed",
                "show_grader_names_to_adjudicator": "show grader names to adjudicator",
                "status": "status",
            },
        ),
        LabelFields(
            "studyitem",
            {
                "gold_source": "gold source",
                "graders_wanted": "graders wanted",
                "response": "response",
                "rubric_version": "rubric version",
                "study": "study",
            },
        ),
        LabelFields(
            "turngrade",
            {
                "assignment": "assignment",
                "criterion_version": "criterion version",
                "rationale": "rationale",
                "turn": "turn",
                "updated_at": "updated at",
                "verdict": "verdict",
            },
        ),
        LabelFields(
            "turngraderevision",
            {
                "rationale": "rationale",
                "replaced_at": "replaced at",
                "replaced_by": "replaced by",
                "turn_grade": "turn grade",
                "verdict": "verdict",
                "written_at": "written at",
            },
        ),
    ]
