"""Every management command names a study the same way: by id, or by name in any case."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.roles import Role
from grading.commands import study_argument
from tests.factories import study

pytestmark = pytest.mark.django_db


@pytest.fixture
def pilot(make_user):
    found = study([make_user(Role.ANNOTATOR)], responses=1, overlap=1)
    found.name = "Pilot Study"
    found.save(update_fields=["name"])
    return found


@pytest.mark.parametrize("key", ["Pilot Study", "pilot study", "PILOT STUDY"])
def test_a_study_is_found_by_its_name_in_any_case(pilot, key):
    assert study_argument(key) == pilot


def test_a_study_is_found_by_its_id(pilot):
    assert study_argument(pilot.pk) == pilot
    assert study_argument(str(pilot.pk)) == pilot


def test_an_unknown_study_is_the_commands_error(pilot):
    with pytest.raises(CommandError, match="No study with id or name 'Pilot'"):
        study_argument("Pilot")


def test_commands_that_took_only_ids_take_names(pilot, tmp_path):
    output = tmp_path / "grades.csv"
    call_command("export_grades", "pilot study", "--output", str(output))
    assert output.exists()
    with pytest.raises(CommandError, match="No study with id or name '999999'"):
        call_command("backup_study", "999999", "--output", str(tmp_path / "b.zip"))
