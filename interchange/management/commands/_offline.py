"""The study and annotator arguments the offline grading commands share."""

from typing import Any

from django.core.management.base import CommandError

from accounts.models import User
from grading.models import Study


def add_study_and_annotator(parser: Any) -> None:
    parser.add_argument("--study", type=int, required=True, metavar="ID", help="The study's id.")
    parser.add_argument("--annotator", required=True, metavar="USERNAME")


def study_and_annotator(options: dict[str, Any]) -> tuple[Study, User]:
    study = Study.objects.filter(pk=options["study"]).first()
    if study is None:
        raise CommandError(f"No study with id {options['study']}.")
    annotator = User.objects.filter(username=options["annotator"]).first()
    if annotator is None:
        raise CommandError(f"No user '{options['annotator']}'.")
    return study, annotator
