from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext, gettext_noop

from agreement.dataset import write_study_dataset
from grading.commands import STUDY_HELP, study_argument
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Write a study as a Hugging Face dataset folder: its final labels, the judges' verdicts "
        "beside the experts' labels and the prediction-powered scores as Parquet files, and a "
        "README.md dataset card (design, n, coefficients, licence)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help=STUDY_HELP)
        parser.add_argument(
            "folder", type=Path, help=gettext_noop("the folder to write (made if missing)")
        )
        parser.add_argument(
            "--license",
            help=gettext_noop(
                "the dataset's licence, as the Hub names it (cc-by-4.0, other...); "
                "DATASET_LICENSE by default"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_argument(options["study"])
        folder: Path = options["folder"]
        files = write_study_dataset(study, folder, options["license"])
        self.stdout.write(
            gettext("Wrote the dataset of %(study)s to %(folder)s: %(files)s")
            % {
                "study": study.name,
                "folder": folder,
                "files": ", ".join(path.relative_to(folder).as_posix() for path in files),
            }
        )
