from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from interchange.exporters import BenchmarkNotExportable, export_l2bench
from interchange.formats.l2bench_csv import TASKS_FILE
from interchange.management.commands._common import add_framework_argument, framework_from


class Command(BaseCommand):
    help = "Write the benchmark in the L2-Bench layout (l2-bench_tasks.csv, resources_for_tasks/)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("folder", type=Path)
        add_framework_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        folder: Path = options["folder"]
        if (folder / TASKS_FILE).exists():
            raise CommandError(f"{folder / TASKS_FILE} exists: choose an empty folder.")
        try:
            benchmark = export_l2bench(framework_from(options["framework"]), folder)
        except BenchmarkNotExportable as error:
            lines = "\n".join(f"  {problem}" for problem in error.problems)
            raise CommandError(
                f"Nothing written: the L2-Bench layout cannot carry these:\n{lines}"
            ) from error
        self.stdout.write(
            f"{len(benchmark.tasks)} tasks and {len(benchmark.resources)} resource files "
            f"written to {folder}"
        )
