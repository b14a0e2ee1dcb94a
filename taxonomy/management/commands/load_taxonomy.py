from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from taxonomy import services
from taxonomy.models import Framework
from taxonomy.seedfile import SeedFileError, read_context_variables, read_scales, read_taxonomy


class Command(BaseCommand):
    help = (
        "Load a competency framework (taxonomy.json layout) and optionally its context variables "
        "(context_variables.json layout) and proficiency scales (proficiency_scales.json layout). "
        "Items are matched by code and updated in place."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("taxonomy", type=Path, nargs="?", help="taxonomy JSON file")
        parser.add_argument(
            "--context-variables", type=Path, help="context variables JSON file to load with it"
        )
        parser.add_argument(
            "--scales", type=Path, help="proficiency scales JSON file, loaded before the variables"
        )
        parser.add_argument(
            "--framework",
            help="framework code for --context-variables when no taxonomy file is given",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not any(options[name] for name in ("taxonomy", "context_variables", "scales")):
            raise CommandError("Give a taxonomy file, --context-variables FILE or --scales FILE.")
        try:
            framework = None
            if options["taxonomy"]:
                framework, report = services.load_framework(read_taxonomy(options["taxonomy"]))
                self.stdout.write(f"Taxonomy {framework.code}: {report.summary()}")
            if options["scales"]:
                scales = read_scales(options["scales"])
                if framework is None:
                    framework = self._framework(options["framework"])
                report = services.load_scales(framework, scales)
                self.stdout.write(f"Proficiency scales of {framework.code}: {report.summary()}")
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
        raise CommandError("Say which framework the file belongs to: --framework CODE.")
