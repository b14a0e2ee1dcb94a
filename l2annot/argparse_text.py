"""argparse's own messages (a missing argument, a value of the wrong type, the usage line)
and the help of the options Django gives every command, marked here so that `make messages`
keeps them in the catalogue, and `argparse_in` to have argparse say them in a language: Python
and Django ship them in English only (l2annot.commands translates every option's help)."""

import argparse
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.utils import translation
from django.utils.translation import gettext, gettext_noop, ngettext

# Python 3.12's argparse, as a person running a command may read them.
MESSAGES = [
    gettext_noop("usage: "),
    gettext_noop("%(prog)s: error: %(message)s\n"),
    gettext_noop("positional arguments"),
    gettext_noop("options"),
    gettext_noop("show this help message and exit"),
    gettext_noop("the following arguments are required: %s"),
    gettext_noop("one of the arguments %s is required"),
    gettext_noop("argument %(argument_name)s: %(message)s"),
    gettext_noop("invalid %(type)s value: %(value)r"),
    gettext_noop("invalid choice: %(value)r (choose from %(choices)s)"),
    gettext_noop("unrecognized arguments: %s"),
    gettext_noop("ambiguous option: %(option)s could match %(matches)s"),
    gettext_noop("not allowed with argument %s"),
    gettext_noop("ignored explicit argument %r"),
    gettext_noop("expected one argument"),
    gettext_noop("expected at most one argument"),
    gettext_noop("expected at least one argument"),
    gettext_noop("can't open '%(filename)s': %(error)s"),
]
# The help of the options every Django command has (BaseCommand.create_parser).
DJANGO_OPTIONS = [
    gettext_noop("Show program's version number and exit."),
    gettext_noop(
        "Verbosity level; 0=minimal output, 1=normal output, 2=verbose output, 3=very "
        "verbose output"
    ),
    gettext_noop(
        'The Python path to a settings module, e.g. "myproject.settings.main". If this '
        "isn't provided, the DJANGO_SETTINGS_MODULE environment variable will be used."
    ),
    gettext_noop('A directory to add to the Python path, e.g. "/home/djangoprojects/myproject".'),
    gettext_noop("Display a full stack trace on CommandError exceptions."),
    gettext_noop("Don't colorize the command output."),
    gettext_noop("Force colorization of the command output."),
    gettext_noop("Skip system checks."),
]


def _plurals() -> None:  # never called: marks argparse's plural message for the catalogue
    ngettext("expected %s argument", "expected %s arguments", 2)


# argparse reads its messages through module globals, so the swap is process-wide: one thread
# at a time holds it (a command parsed in a threaded web process, or by two tests at once).
_swap = threading.RLock()


@contextmanager
def argparse_in(language: str) -> Iterator[None]:
    """While inside, argparse's messages are in `language` (from this project's catalogue)."""
    with _swap:
        yield from _swapped(language)


def _swapped(language: str) -> Iterator[None]:
    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]

    def text(message: str) -> str:
        with translation.override(language):
            return gettext(message)

    def plural(singular: str, plural: str, n: int) -> str:
        with translation.override(language):
            return ngettext(singular, plural, n)

    argparse._, argparse.ngettext = text, plural  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]
