from pathlib import Path
from typing import Any

from django.utils.translation import gettext_noop

from interchange.management.commands._common import (
    DRY_RUN_HELP,
    add_framework_argument,
    framework_from,
    run_import,
)
from interchange.models import ImportJob
from judging.verdict_import import import_verdicts
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Import judge verdicts from a JSONL file or an Inspect AI .eval log. All or nothing."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)
        parser.add_argument(
            "--judge-model", help=gettext_noop("The judge, when an .eval log does not name it.")
        )
        add_framework_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        framework = framework_from(options["framework"])
        file: Path = options["file"]
        run_import(
            self,
            lambda progress: import_verdicts(
                options["file"],
                framework,
                judge_model=options["judge_model"],
                dry_run=options["dry_run"],
                progress=progress,
            ),
            options,
            kind=ImportJob.Kind.EVAL_LOG if file.suffix == ".eval" else ImportJob.Kind.VERDICTS,
            file=file,
        )
