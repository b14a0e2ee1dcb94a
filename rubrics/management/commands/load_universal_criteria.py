from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from l2annot.commands import Command as TranslatedCommand
from rubrics import services
from rubrics.seedfile import read_universal_criteria
from taxonomy.commands import nothing_loaded
from taxonomy.models import Framework
from taxonomy.seedfile import SeedFileError


class Command(TranslatedCommand):
    help = gettext_noop(
        "Load universal criteria (fixtures/universal_criteria.json layout) into a framework. "
        "Criteria are matched by code; a published one gets a new draft version."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--framework", help=gettext_noop("framework code (default: the file's)")
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            seed = read_universal_criteria(options["file"])
        except SeedFileError as exc:
            raise CommandError(nothing_loaded(exc)) from exc
        code = options["framework"] or seed.framework
        try:
            framework = Framework.objects.get(code=code)
        except Framework.DoesNotExist:
            raise CommandError(
                gettext("No framework with code '%(code)s'; load the taxonomy first.")
                % {"code": code}
            ) from None
        report = services.load_universal_criteria(framework, seed.criteria)
        self.stdout.write(
            gettext("Universal criteria of %(code)s: %(summary)s")
            % {"code": framework.code, "summary": report.summary()}
        )
