from pathlib import Path
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext, gettext_noop

from agreement.services import study_report
from grading.commands import study_argument
from interchange.exporters import Validation, export_rubrics_xlsx
from interchange.management.commands._common import add_framework_argument, framework_from
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Write the rubrics to an .xlsx workbook: a task sheet and one sheet per layer."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        add_framework_argument(parser)
        parser.add_argument(
            "--validated-by",
            metavar="STUDY",
            help=gettext_noop("add each criterion's validation in this study (id or exact name)"),
        )
        parser.add_argument(
            "--only-validated",
            action="store_true",
            help=gettext_noop("with --validated-by: keep only the criteria the study validated"),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if path.suffix.lower() != ".xlsx":
            raise CommandError(gettext("The file name must end in .xlsx."))
        if options["only_validated"] and not options["validated_by"]:
            raise CommandError(gettext("--only-validated needs --validated-by STUDY."))
        validation = self._validation(options["validated_by"]) if options["validated_by"] else None
        export_rubrics_xlsx(
            framework_from(options["framework"]),
            path,
            validation,
            only_validated=options["only_validated"],
        )
        self.stdout.write(gettext("Rubrics written to %(path)s") % {"path": path})

    def _validation(self, key: str) -> Validation:
        study = study_argument(key)
        return {c.criterion.key: (c.validated, c.verdict) for c in study_report(study).criteria}
