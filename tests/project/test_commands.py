"""Every command-line tool speaks the language the shell asks for (l2annot.commands): its help,
what it prints and what it refuses."""

import importlib
import io
import json
from contextlib import redirect_stdout

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.core.management.base import BaseCommand
from django.utils import translation

from l2annot.commands import Command as TranslatedCommand


def project_commands() -> list[tuple[str, type[BaseCommand]]]:
    found = []
    for path in sorted(settings.BASE_DIR.glob("*/management/commands/[!_]*.py")):
        if ".venv" in path.parts:
            continue
        module = importlib.import_module(
            f"{path.parent.parent.parent.name}.management.commands.{path.stem}"
        )
        found.append((path.stem, module.Command))
    return found


COMMANDS = project_commands()


def test_the_check_sees_the_commands():
    assert {"import_l2bench", "load_taxonomy", "run_judge", "seed_demo"} <= dict(COMMANDS).keys()


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_a_commands_help_and_arguments_are_in_the_shells_language(name, command):
    assert issubclass(command, TranslatedCommand), f"{name}: subclass l2annot.commands.Command"

    def helps(language: str) -> dict[str, str]:
        with translation.override(language):
            parser = command().create_parser("manage.py", name)
        own = {a.dest: a.help for a in parser._actions if a.dest not in DJANGO_OPTIONS}
        return {"": parser.description} | {dest: text for dest, text in own.items() if text}

    english, spanish = helps("en"), helps("es")
    assert english[""], f"{name}: say what the command does in its help"
    untranslated = [text for dest, text in english.items() if spanish[dest] == text]
    assert untranslated == [], f"{name}: mark these with gettext_noop and translate them"


# The options every command has (--verbosity, --settings, ...): Django's, in English.
DJANGO_OPTIONS = {action.dest for action in BaseCommand().create_parser("manage.py", "x")._actions}


def test_help_is_printed_in_the_shells_language(monkeypatch):
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    printed = io.StringIO()
    with redirect_stdout(printed), pytest.raises(SystemExit):
        TranslatedCommand.run_from_argv(
            importlib.import_module("taxonomy.management.commands.load_taxonomy").Command(),
            ["manage.py", "load_taxonomy", "--help"],
        )
    assert "Carga un marco de competencias" in printed.getvalue()
    assert "archivo JSON de la taxonomía" in printed.getvalue()


@pytest.mark.django_db
def test_a_seed_files_problems_are_listed_in_the_shells_language(tmp_path, monkeypatch):
    path = tmp_path / "taxonomy.json"
    path.write_text(
        json.dumps(
            {
                "framework": {"code": "fw", "name": "Framework"},
                "competencies": [{"code": "01", "name": "", "sub_competencies": [{"code": ""}]}],
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(CommandError) as english:
        call_command("load_taxonomy", str(path))
    assert "taxonomy.json: competency 1: field 'name' is empty" in str(english.value)

    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    with pytest.raises(CommandError) as spanish:
        call_command("load_taxonomy", str(path))
    assert str(spanish.value).splitlines() == [
        "No se cargó nada:",
        "taxonomy.json: competencia 1 (01), subcompetencia 1: el campo 'code' está vacío",
        "taxonomy.json: competencia 1 (01), subcompetencia 1: el campo 'name' está vacío",
        "taxonomy.json: competencia 1: el campo 'name' está vacío",
    ]


@pytest.mark.django_db
def test_a_commands_report_is_printed_in_the_shells_language(tmp_path, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "es")
    out = io.StringIO()
    call_command("load_taxonomy", str(settings.BASE_DIR / "fixtures" / "taxonomy.json"), stdout=out)
    assert out.getvalue().startswith("Taxonomía ")
    assert "altas, 0 modificaciones, 0 sin cambios" in out.getvalue()
