from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from l2annot.commands import Command as TranslatedCommand
from taxonomy import services
from taxonomy.commands import nothing_loaded
from taxonomy.models import Framework
from taxonomy.seedfile import SeedFileError, read_context_variables, read_scales, read_taxonomy


class Command(TranslatedCommand):
    help = gettext_noop(
        "Load a competency framework (taxonomy.json layout) and optionally its context variables "
        "(context_variables.json layout) and proficiency scales (proficiency_scales.json layout). "
        "Items are matched by code and updated in place."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "taxonomy", type=Path, nargs="?", help=gettext_noop("taxonomy JSON file")
        )
        parser.add_argument(
            "--context-variables",
            type=Path,
            help=gettext_noop("context variables JSON file to load with it"),
        )
        parser.add_argument(
            "--scales",
            type=Path,
            help=gettext_noop("proficiency scales JSON file, loaded before the variables"),
        )
        parser.add_argument(
            "--framework",
            help=gettext_noop(
                "framework code for --context-variables when no taxonomy file is given"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not any(options[name] for name in ("taxonomy", "context_variables", "scales")):
            raise CommandError(
                gettext("Give a taxonomy file, --context-variables FILE or --scales FILE.")
            )
        try:
            framework = None
            if options["taxonomy"]:
                framework, report = services.load_framework(read_taxonomy(options["taxonomy"]))
                self.stdout.write(
                    gettext("Taxonomy %(code)s: %(summary)s")
                    % {"code": framework.code, "summary": report.summary()}
                )
            if options["scales"]:
                scales = read_scales(options["scales"])
                if framework is None:
                    framework = self._framework(options["framework"])
                report = services.load_scales(framework, scales)
                self.stdout.write(
                    gettext("Proficiency scales of %(code)s: %(summary)s")
                    % {"code": framework.code, "summary": report.summary()}
                )
            if options["context_variables"]:
                specs = read_context_variables(options["context_variables"])
                if framework is None:
                    framework = self._framework(options["framework"])
                report = services.load_context_variables(framework, specs)
                self.stdout.write(
                    gettext("Context variables of %(code)s: %(summary)s")
                    % {"code": framework.code, "summary": report.summary()}
                )
        except SeedFileError as exc:
            raise CommandError(nothing_loaded(exc)) from exc

    def _framework(self, code: str | None) -> Framework:
        try:
            return Framework.objects.chosen(code)
        except Framework.DoesNotExist:
            if code:
                raise CommandError(
                    gettext("No framework with code '%(code)s'.") % {"code": code}
                ) from None
        except Framework.MultipleObjectsReturned:
            pass
        raise CommandError(gettext("Say which framework the file belongs to: --framework CODE."))
