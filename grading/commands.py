"""How management commands name a study: by id or by name, as people type it."""

from django.core.management.base import CommandError

from grading.models import Study

STUDY_HELP = "The study's id or name (names are matched ignoring case)."


def study_argument(key: object) -> Study:
    """The study `key` names, or the command's error saying none does."""
    study = Study.objects.find(str(key))
    if study is None:
        raise CommandError(f"No study with id or name {str(key)!r}.")
    return study
