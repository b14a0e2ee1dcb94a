from pathlib import Path
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext, gettext_noop

from core.formats.l2bench_csv import TASKS_FILE
from interchange.exporters import BenchmarkNotExportable, export_l2bench
from interchange.management.commands._common import add_framework_argument, framework_from
from interchange.problem_text import message_text
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Write the benchmark in the L2-Bench layout (l2-bench_tasks.csv, resources_for_tasks/)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("folder", type=Path)
        add_framework_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        folder: Path = options["folder"]
        if (folder / TASKS_FILE).exists():
            raise CommandError(
                gettext("%(path)s exists: choose an empty folder.") % {"path": folder / TASKS_FILE}
            )
        try:
            benchmark = export_l2bench(framework_from(options["framework"]), folder)
        except BenchmarkNotExportable as error:
            lines = "\n".join(f"  {message_text(problem)}" for problem in error.problems)
            raise CommandError(
                gettext("Nothing written: the L2-Bench layout cannot carry these:\n%(lines)s")
                % {"lines": lines}
            ) from error
        self.stdout.write(
            gettext("%(tasks)s tasks and %(files)s resource files written to %(folder)s")
            % {"tasks": len(benchmark.tasks), "files": len(benchmark.resources), "folder": folder}
        )
