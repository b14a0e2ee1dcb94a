"""The study and annotator arguments the offline grading commands share."""

from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext

from accounts.models import User
from grading.commands import STUDY_HELP, study_argument
from grading.models import Study


def add_study_and_annotator(parser: Any) -> None:
    parser.add_argument("--study", required=True, metavar="STUDY", help=STUDY_HELP)
    parser.add_argument("--annotator", required=True, metavar="USERNAME")


def study_and_annotator(options: dict[str, Any]) -> tuple[Study, User]:
    study = study_argument(options["study"])
    annotator = User.objects.filter(username=options["annotator"]).first()
    if annotator is None:
        raise CommandError(gettext("No user '%(username)s'.") % {"username": options["annotator"]})
    return study, annotator
