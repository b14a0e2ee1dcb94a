from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from taxonomy import services
from taxonomy.models import Framework
from taxonomy.seedfile import SeedFileError, read_context_variables, read_taxonomy


class Command(BaseCommand):
    help = (
        "Load a competency framework (taxonomy.json layout) and optionally its context variables "
        "(context_variables.json layout). Items are matched by code and updated in place."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("taxonomy", type=Path, nargs="?", help="taxonomy JSON file")
        parser.add_argument(
            "--context-variables", type=Path, help="context variables JSON file to load with it"
        )
        parser.add_argument(
            "--framework",
            help="framework code for --context-variables when no taxonomy file is given",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["taxonomy"] and not options["context_variables"]:
            raise CommandError("Give a taxonomy file, --context-variables FILE, or both.")
        try:
            framework = None
            if options["taxonomy"]:
                framework, report = services.load_framework(read_taxonomy(options["taxonomy"]))
                self.stdout.write(f"Taxonomy {framework.code}: {report.summary()}")
            if options["context_variables"]:
                specs = read_context_variables(options["context_variables"])
                if framework is None:
                    framework = self._framework(options["framework"])
                report = services.load_context_variables(framework, specs)
                self.stdout.write(f"Context variables of {framework.code}: {report.summary()}")
        except SeedFileError as exc:
            raise CommandError("Nothing was loaded:\n" + "\n".join(exc.problems)) from exc

    def _framework(self, code: str | None) -> Framework:
        try:
            return Framework.objects.chosen(code)
        except Framework.DoesNotExist:
            if code:
                raise CommandError(f"No framework with code {code!r}.") from None
        except Framework.MultipleObjectsReturned:
            pass
        raise CommandError("Say which framework the variables belong to: --framework CODE.")
