from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rubrics import services
from rubrics.seedfile import read_universal_criteria
from taxonomy.models import Framework
from taxonomy.seedfile import SeedFileError


class Command(BaseCommand):
    help = (
        "Load universal criteria (fixtures/universal_criteria.json layout) into a framework. "
        "Criteria are matched by code; a published one gets a new draft version."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--framework", help="framework code (default: the file's)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            seed = read_universal_criteria(options["file"])
        except SeedFileError as exc:
            raise CommandError("Nothing was loaded:\n" + "\n".join(exc.problems)) from exc
        code = options["framework"] or seed.framework
        try:
            framework = Framework.objects.get(code=code)
        except Framework.DoesNotExist:
            raise CommandError(
                f"No framework with code {code!r}; load the taxonomy first."
            ) from None
        report = services.load_universal_criteria(framework, seed.criteria)
        self.stdout.write(f"Universal criteria of {framework.code}: {report.summary()}")
