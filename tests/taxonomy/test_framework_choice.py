"""Framework.objects.chosen: the framework a command works on, and the commands' messages."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from interchange.management.commands._common import framework_from
from taxonomy.models import Framework
from tests.factories import make_framework

pytestmark = pytest.mark.django_db


def test_the_only_framework_is_chosen_without_a_code():
    framework = make_framework()
    assert Framework.objects.chosen(None) == framework
    assert Framework.objects.chosen("") == framework


def test_a_code_picks_its_framework_among_several():
    make_framework("one")
    two = make_framework("two")
    assert Framework.objects.chosen("two") == two


def test_no_code_with_several_frameworks_is_ambiguous():
    make_framework("one")
    make_framework("two")
    with pytest.raises(Framework.MultipleObjectsReturned):
        Framework.objects.chosen(None)


@pytest.mark.parametrize(
    ("codes", "code", "message"),
    [
        ([], None, r"--framework CODE \(none exists\)"),
        (["one", "two"], None, r"--framework CODE \(there are several\)"),
        (["one"], "nope", "No framework with code 'nope'."),
    ],
)
def test_import_commands_name_the_problem(codes, code, message):
    for each in codes:
        make_framework(each)
    with pytest.raises(CommandError, match=message):
        framework_from(code)


@pytest.mark.parametrize(
    ("codes", "code", "message"),
    [
        ([], None, "Say which framework the file belongs to"),
        (["one", "two"], None, "Say which framework the file belongs to"),
        (["one"], "nope", "No framework with code 'nope'."),
    ],
)
def test_load_taxonomy_names_the_problem(codes, code, message, tmp_path):
    for each in codes:
        make_framework(each)
    variables = tmp_path / "variables.json"
    variables.write_text('{"context_variables": []}')
    options = {"framework": code} if code else {}
    with pytest.raises(CommandError, match=message):
        call_command("load_taxonomy", context_variables=variables, **options)
