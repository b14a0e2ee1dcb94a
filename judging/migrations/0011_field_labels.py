"""Field labels (verbose names), translatable; nothing changes in the database."""

from django.conf import settings
from django.db import migrations

from l2annot.migration_operations import LabelFields


class Migration(migrations.Migration):
    dependencies = [
        ("judging", "0010_model_names"),
        ("rubrics", "0009_field_labels"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        LabelFields(
            {
                "judgeconfig": {
                    "created_at": "created at",
                    "epochs": "epochs",
                    "max_connections": "max connections",
                    "model": "model",
                    "model_family": "model family",
                    "name": "name",
                    "parse_retries": "parse retries",
                    "prompt": "prompt",
                    "retry_temperature": "retry temperature",
                    "revision": "revision",
                    "temperature": "temperature",
                },
                "judgerating": {
                    "epoch": "epoch",
                    "question": "question",
                    "rationale": "rationale",
                    "response": "response",
                    "run": "run",
                    "value": "value",
                },
                "judgerun": {
                    "calls_done": "calls done",
                    "calls_total": "calls total",
                    "config": "judge configuration",
                    "created_at": "created at",
                    "duration": "duration",
                    "errors": "errors",
                    "finished": "finished",
                    "heartbeat": "heartbeat",
                    "input_tokens": "input tokens",
                    "judge_model": "judge model",
                    "log_path": "log path",
                    "model_family": "model family",
                    "output_tokens": "output tokens",
                    "parameters": "parameters",
                    "problems": "problems",
                    "prompt": "prompt",
                    "prompt_version": "prompt version",
                    "run_id": "run id",
                    "started": "started",
                    "status": "status",
                    "total_tokens": "total tokens",
                    "unparseable": "unparseable",
                },
                "judgeverdict": {
                    "criterion_version": "criterion version",
                    "epoch": "epoch",
                    "level": "level",
                    "rationale": "rationale",
                    "response": "response",
                    "run": "run",
                    "turn": "turn",
                    "verdict": "verdict",
                },
                "prompttemplate": {
                    "created_at": "created at",
                    "description": "description",
                    "name": "name",
                    "revision": "revision",
                },
                "promptversion": {
                    "created_at": "created at",
                    "created_by": "created by",
                    "note": "note",
                    "number": "number",
                    "style": "style",
                    "template": "template",
                    "text": "text",
                },
                "triageresolution": {
                    "by": "by",
                    "created_at": "created at",
                    "criterion_version": "criterion version",
                    "draft": "draft",
                    "kind": "kind",
                    "note": "note",
                    "prompt": "prompt",
                    "response": "response",
                    "run": "run",
                },
            }
        ),
    ]
