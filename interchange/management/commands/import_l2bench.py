from pathlib import Path
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext, gettext_noop

from core.formats.l2bench_csv import lacks_sub_competencies
from interchange.importers import import_l2bench
from interchange.importers.report import ImportReport, Progress
from interchange.management.commands._common import (
    DRY_RUN_HELP,
    add_framework_argument,
    framework_from,
    run_import,
)
from interchange.models import ImportJob
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Import an L2-Bench folder (l2-bench_tasks.csv and resources_for_tasks/). All or nothing."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("folder", type=Path)
        parser.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)
        parser.add_argument(
            "--create-missing",
            action="store_true",
            help=gettext_noop(
                "Create the sub-competencies the file names by a code the framework lacks "
                "(like 02x, under competency 02), as placeholders to be named."
            ),
        )
        add_framework_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        folder: Path = options["folder"]
        if not folder.is_dir():
            raise CommandError(gettext("%(path)s is not a folder.") % {"path": folder})
        framework = framework_from(options["framework"])
        reports: list[ImportReport] = []

        def run(progress: Progress) -> ImportReport:
            report = import_l2bench(
                folder,
                framework,
                dry_run=options["dry_run"],
                create_missing=options["create_missing"],
                progress=progress,
            )
            reports.append(report)
            return report

        try:
            run_import(self, run, options, kind=ImportJob.Kind.BENCHMARK, file=folder)
        except CommandError:
            if (
                not options["create_missing"]
                and reports
                and lacks_sub_competencies(reports[0].problems)
            ):
                self.stderr.write(
                    gettext(
                        "To create the missing sub-competencies as placeholders to be named, "
                        "run the import again with --create-missing."
                    )
                )
            raise
