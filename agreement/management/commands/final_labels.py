import json
from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext_noop, ngettext

from agreement.services import final_labels
from core.analysis.export import labels_to_dict, write_labels_csv, write_labels_xlsx
from grading.commands import STUDY_HELP, study_argument
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Write a study's final labels: each graded response and criterion with the experts' "
        "verdicts, how its label was reached (adjudicated, unanimous, majority, single, tied) "
        "and the label, as CSV, XLSX or JSON."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help=STUDY_HELP)
        parser.add_argument("--format", choices=["csv", "xlsx", "json"], default="csv")
        parser.add_argument("--output", type=Path, required=True)
        parser.add_argument(
            "--without-single",
            action="store_true",
            help=gettext_noop("leave out the labels resting on a single expert's verdict"),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_argument(options["study"])
        labels = final_labels(study, single=not options["without_single"])
        output: Path = options["output"]
        if options["format"] == "json":
            text = json.dumps(labels_to_dict(study.name, labels), indent=2)
            output.write_text(text, encoding="utf-8")
        elif options["format"] == "csv":
            with output.open("w", encoding="utf-8", newline="") as stream:
                write_labels_csv(labels, stream)
        else:
            with output.open("wb") as stream:
                write_labels_xlsx(labels, stream)
        self.stdout.write(
            ngettext(
                "Wrote %(count)s final label of %(study)s to %(path)s",
                "Wrote %(count)s final labels of %(study)s to %(path)s",
                len(labels),
            )
            % {"count": len(labels), "study": study.name, "path": output}
        )
