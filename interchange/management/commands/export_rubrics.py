from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.utils.translation import gettext, gettext_noop

from grading.commands import study_argument
from interchange.exporters import export_rubrics_xlsx
from interchange.management.commands._common import add_framework_argument, framework_from
from interchange.rubric_validation import validating_studies
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Write the rubrics to an .xlsx workbook: a task sheet and one sheet per layer; with "
        "--validated-by or --all-studies, each criterion's validation in those studies."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        add_framework_argument(parser)
        parser.add_argument(
            "--validated-by",
            metavar="STUDY",
            action="append",
            help=gettext_noop(
                "add each criterion's validation in this study (id or exact name): its "
                "decision, alpha with its interval and n, the threshold; may be repeated"
            ),
        )
        parser.add_argument(
            "--all-studies",
            action="store_true",
            help=gettext_noop(
                "add each criterion's validation in every study of the framework that graded it"
            ),
        )
        parser.add_argument(
            "--only-validated",
            action="store_true",
            help=gettext_noop("keep only the criteria a study validated (one row per study)"),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if path.suffix.lower() != ".xlsx":
            raise CommandError(gettext("The file name must end in .xlsx."))
        chosen, every = options["validated_by"], options["all_studies"]
        if chosen and every:
            raise CommandError(gettext("Give --validated-by STUDY or --all-studies, not both."))
        if options["only_validated"] and not (chosen or every):
            raise CommandError(
                gettext("--only-validated needs --validated-by STUDY or --all-studies.")
            )
        named = [study_argument(key) for key in chosen] if chosen else None
        if named and not options["framework"]:  # the studies say which framework
            framework = named[0].framework
        else:
            framework = framework_from(options["framework"])
        studies = None
        if chosen or every:
            try:
                studies = validating_studies(framework, named)
            except ValidationError as error:
                raise CommandError(" ".join(error.messages)) from error
        export_rubrics_xlsx(framework, path, studies, only_validated=options["only_validated"])
        self.stdout.write(gettext("Rubrics written to %(path)s") % {"path": path})
