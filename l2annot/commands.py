"""Management commands speak the language of the shell that runs them."""

import argparse
import os
from collections.abc import Mapping
from typing import Any, NoReturn

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation
from django.utils.translation import gettext

from l2annot.argparse_text import argparse_in


def environment_language(environ: Mapping[str, str] = os.environ) -> str:
    """The interface language the shell asks for (LANGUAGE, LC_ALL, LC_MESSAGES, LANG, in the
    order gettext reads them: `es_ES.UTF-8` is Spanish) when the app ships it; else
    LANGUAGE_CODE."""
    shipped = {code for code, _ in settings.LANGUAGES}
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for wanted in environ.get(name, "").split(":"):
            code = wanted.split(".")[0].split("@")[0].split("_")[0].lower()
            if code in shipped:
                return code
    return settings.LANGUAGE_CODE


class Command(BaseCommand):
    """A command whose help, output and errors are in the shell's language
    (`environment_language`), from the command line and from call_command alike.

    Its `help` and its arguments' `help=` are marked with gettext_noop (argparse takes plain
    strings) and translated as the parser is made; what it prints and the errors it raises go
    through gettext."""

    def run_from_argv(self, argv: list[str]) -> None:
        with translation.override(environment_language()):
            super().run_from_argv(argv)

    def execute(self, *args: Any, **options: Any) -> str | None:
        with translation.override(environment_language()):
            return super().execute(*args, **options)

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        language = environment_language()
        with argparse_in(language):
            parser = super().create_parser(prog_name, subcommand, **kwargs)
        if parser.description:
            parser.description = gettext(parser.description)
        for action in parser._actions:
            if action.help:
                action.help = gettext(action.help)
        _speak(parser, language)
        return parser


def _speak(parser: CommandParser, language: str) -> None:
    """Have `parser` refuse arguments and print its usage in `language`: call_command parses
    before `execute` chooses the language, and Python's argparse speaks English only."""
    parse_args, format_usage, format_help = (
        parser.parse_args,
        parser.format_usage,
        parser.format_help,
    )

    def parsed(*args: Any, **kwargs: Any) -> Any:
        with argparse_in(language):
            return parse_args(*args, **kwargs)

    def usage() -> str:
        with argparse_in(language):
            return format_usage()

    def help_text() -> str:
        with argparse_in(language):
            return format_help()

    def error(message: str) -> NoReturn:
        if parser.called_from_command_line:
            with argparse_in(language):
                argparse.ArgumentParser.error(parser, message)
        with translation.override(language):
            raise CommandError(gettext("Error: %(message)s") % {"message": message})

    parser.parse_args = parsed  # type: ignore[method-assign]
    parser.format_usage = usage  # type: ignore[method-assign]
    parser.format_help = help_text  # type: ignore[method-assign]
    parser.error = error  # type: ignore[method-assign]
