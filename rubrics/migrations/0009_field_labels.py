"""Field labels (verbose names), translatable; nothing changes in the database."""

from django.conf import settings
from django.db import migrations

from l2annot.migration_operations import LabelFields


class Migration(migrations.Migration):
    dependencies = [
        ("rubrics", "0008_model_names"),
        ("taxonomy", "0006_field_labels"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        LabelFields(
            {
                "criterion": {
                    "code": "code",
                    "created_at": "created at",
                    "framework": "framework",
                    "layer": "layer",
                    "order": "order",
                    "retired": "retired",
                    "revision": "revision",
                    "task": "task",
                },
                "criterionversion": {
                    "applies_to": "applies to",
                    "created_at": "created at",
                    "created_by": "created by",
                    "criterion": "criterion",
                    "fail_example": "fail example",
                    "frozen": "frozen",
                    "number": "number",
                    "pass_example": "pass example",
                    "scale_max": "scale maximum",
                    "scale_min": "scale minimum",
                    "scoring_type": "scoring type",
                    "turn_rule": "turn rule",
                    "turn_share": "turn share",
                    "weight": "weight",
                    "wording": "wording",
                },
                "publishedcontextvalue": {
                    "number": "number",
                    "rubric_version": "rubric version",
                    "text": "text",
                    "value": "value",
                    "variable": "variable",
                },
                "publishedresource": {
                    "file": "file",
                    "kind": "kind",
                    "order": "order",
                    "rubric_version": "rubric version",
                    "text": "text",
                    "title": "title",
                },
                "response": {
                    "created_at": "created at",
                    "epoch": "epoch",
                    "external_id": "external id",
                    "kind": "kind",
                    "model_family": "model family",
                    "model_name": "model name",
                    "model_version": "model version",
                    "task": "task",
                    "text": "text",
                },
                "review": {
                    "action": "action",
                    "at": "reviewed at",
                    "by": "by",
                    "comment": "comment",
                    "rubric_version": "rubric version",
                    "task": "task",
                },
                "rubricitem": {
                    "applicable": "applicable",
                    "criterion_version": "criterion version",
                    "layer": "layer",
                    "na_reason": "why it does not apply",
                    "order": "order",
                    "rubric_version": "rubric version",
                },
                "rubricversion": {
                    "instruction": "instruction",
                    "number": "number",
                    "published_at": "published at",
                    "published_by": "published by",
                    "reference_answer": "reference answer",
                    "system_prompt": "system prompt",
                    "task": "task",
                },
                "scalepoint": {"label": "label", "value": "value", "version": "version"},
                "task": {
                    "created_at": "created at",
                    "created_by": "created by",
                    "difficulty": "difficulty",
                    "framework": "framework",
                    "instruction": "instruction",
                    "key": "key",
                    "language": "language",
                    "reference_answer": "reference answer",
                    "revision": "revision",
                    "status": "status",
                    "system_prompt": "system prompt",
                    "task_type": "task type",
                    "updated_at": "updated at",
                },
                "taskcontextvalue": {
                    "number": "number",
                    "revision": "revision",
                    "task": "task",
                    "text": "text",
                    "value": "value",
                    "variable": "variable",
                },
                "taskresource": {
                    "file": "file",
                    "kind": "kind",
                    "order": "order",
                    "revision": "revision",
                    "task": "task",
                    "text": "text",
                    "title": "title",
                },
                "turn": {
                    "content": "content",
                    "index": "index",
                    "response": "response",
                    "role": "role",
                },
                "universalexclusion": {
                    "created_at": "created at",
                    "created_by": "created by",
                    "criterion": "criterion",
                    "reason": "reason",
                    "task": "task",
                },
            }
        ),
    ]
