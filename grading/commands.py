"""How management commands name a study: by id or by name, as people type it."""

from django.core.management.base import CommandError
from django.utils.translation import gettext, gettext_noop

from grading.models import Study

STUDY_HELP = gettext_noop("The study's id or name (names are matched ignoring case).")


def study_argument(key: object) -> Study:
    """The study `key` names, or the command's error saying none does."""
    study = Study.objects.find(str(key))
    if study is None:
        raise CommandError(gettext("No study with id or name '%(key)s'.") % {"key": key})
    return study
