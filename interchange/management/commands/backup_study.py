from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from grading.models import Study
from interchange.backup import backup_study


class Command(BaseCommand):
    help = (
        "Write one study and everything it needs (taxonomy, tasks, criteria, rubric versions, "
        "responses, judge verdicts, assignments, grades, ratings, gold verdicts, annotators "
        "without passwords, analysis settings) to a JSON file that restore_study loads."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("study", type=int, help="The study's id.")
        parser.add_argument("--output", type=Path, required=True, metavar="FILE")

    def handle(self, *args: Any, **options: Any) -> None:
        study = Study.objects.filter(pk=options["study"]).first()
        if study is None:
            raise CommandError(f"No study with id {options['study']}.")
        path = Path(options["output"])
        with path.open("w", encoding="utf-8") as out:
            count = backup_study(study, out)
        self.stdout.write(f"Study {study.pk} ({study.name}): {count} rows written to {path}")
