import json
from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext, gettext_noop

from agreement.judge_parts import judge_parts
from agreement.services import study_report
from core.analysis.export import report_to_dict, write_report_xlsx
from grading.commands import STUDY_HELP, study_argument
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Write the agreement report of a study (every figure with its CI) as JSON or XLSX."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help=STUDY_HELP)
        parser.add_argument("--format", choices=["json", "xlsx"], default="json")
        parser.add_argument("--output", type=Path, required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_argument(options["study"])
        report = study_report(study)
        judges = judge_parts(study)
        parts = (judges.scales, judges.calibrations, judges.leaderboards)
        output: Path = options["output"]
        if options["format"] == "json":
            data = report_to_dict(study.name, report, *parts)
            output.write_text(json.dumps(data, indent=2), encoding="utf-8")
        else:
            with output.open("wb") as stream:
                write_report_xlsx(study.name, report, stream, *parts)
        self.stdout.write(
            gettext("Wrote the agreement report of %(study)s to %(path)s")
            % {"study": study.name, "path": output}
        )
