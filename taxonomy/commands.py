"""What the commands that load seed files share."""

from django.utils.translation import gettext

from l2annot.shown import message_text
from taxonomy.seedfile import SeedFileError


def nothing_loaded(error: SeedFileError) -> str:
    """A seed file's problems, one per line, in the active language."""
    problems = "\n".join(message_text(problem) for problem in error.problems)
    return gettext("Nothing was loaded:\n%(problems)s") % {"problems": problems}
