"""Loading a framework from files: in place by code, all-or-nothing, clear errors."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from audit.models import AuditEvent
from taxonomy.models import Competency, ContextValue, ContextVariable, Framework, SubCompetency
from taxonomy.seedfile import SeedFileError, read_context_variables, read_taxonomy, value_code
from tests.conftest import FIXTURES


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def small_taxonomy(**overrides):
    data = {
        "framework": {"code": "fw2", "name": "Second framework"},
        "competencies": [
            {
                "code": "01",
                "name": "Planning",
                "order": 1,
                "sub_competencies": [{"code": "01a", "name": "Objectives", "order": 1}],
            }
        ],
    }
    data.update(overrides)
    return data


def test_value_codes_are_stable_slugs():
    assert value_code("Pre-A1") == "pre-a1"
    assert value_code("young learners (6-11)") == "young-learners-6-11"
    assert value_code("Cultural sensitivity: Food") == "cultural-sensitivity-food"


def test_every_problem_in_a_taxonomy_file_is_reported_with_its_place(tmp_path):
    data = small_taxonomy()
    data["competencies"].append({"code": "01", "name": "", "order": -1})
    with pytest.raises(SeedFileError) as exc:
        read_taxonomy(write(tmp_path, "tax.json", data))
    assert exc.value.problems == [
        "tax.json: competency 2: duplicate code 01",
        "tax.json: competency 2: field 'name' is empty",
        "tax.json: competency 2: field 'order' must be a whole number >= 0, not -1",
    ]


def test_invalid_json_names_the_file_and_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "framework": ,\n}', encoding="utf-8")
    with pytest.raises(SeedFileError, match=r"broken.json: line 2: not valid JSON"):
        read_taxonomy(path)


def test_context_variable_errors_name_the_variable(tmp_path):
    data = {
        "context_variables": [
            {"key": "size", "label": "Size", "kind": "number", "values": {"min": 9, "max": 1}},
            {"key": "mood", "label": "Mood", "kind": "colour", "values": []},
            {"key": "level", "label": "Level", "kind": "ordinal", "values": ["A1", "a1"]},
        ]
    }
    with pytest.raises(SeedFileError) as exc:
        read_context_variables(write(tmp_path, "cv.json", data))
    assert exc.value.problems == [
        "cv.json: variable 1 (size): min 9 is above max 1",
        "cv.json: variable 2 (mood): kind 'colour' is not one of "
        "categorical, ordinal, boolean, text, number",
        "cv.json: variable 3 (level): value 2 'a1' repeats an earlier value",
    ]


@pytest.mark.django_db
def test_a_second_framework_loads_beside_the_first(starter_framework, tmp_path):
    call_command("load_taxonomy", write(tmp_path, "tax.json", small_taxonomy()))
    assert Framework.objects.count() == 2
    assert Competency.objects.filter(framework__code="fw2").count() == 1
    assert Competency.objects.filter(framework=starter_framework).count() == 12


@pytest.mark.django_db
def test_reloading_a_changed_file_updates_in_place_by_code(tmp_path):
    path = write(tmp_path, "tax.json", small_taxonomy())
    call_command("load_taxonomy", path)
    sub = SubCompetency.objects.get(code="01a")
    renamed = small_taxonomy()
    renamed["competencies"][0]["sub_competencies"][0]["name"] = "Setting objectives"
    call_command("load_taxonomy", write(tmp_path, "tax.json", renamed))
    sub.refresh_from_db()
    assert sub.name == "Setting objectives"
    assert SubCompetency.objects.count() == 1
    event = AuditEvent.objects.for_object(sub).filter(kind="imported").first()
    assert event.changes == {"name": ["Objectives", "Setting objectives"]}


@pytest.mark.django_db
def test_a_sub_competency_moved_in_the_file_is_moved_and_its_revision_bumped(tmp_path):
    call_command("load_taxonomy", write(tmp_path, "tax.json", small_taxonomy()))
    sub = SubCompetency.objects.get(code="01a")
    moved = small_taxonomy()
    moved["competencies"][0]["sub_competencies"] = []
    moved["competencies"].append(
        {
            "code": "02",
            "name": "Learners",
            "order": 2,
            "sub_competencies": [{"code": "01a", "name": "Objectives", "order": 1}],
        }
    )
    call_command("load_taxonomy", write(tmp_path, "tax.json", moved))
    after = SubCompetency.objects.get(code="01a")
    assert after.pk == sub.pk
    assert after.competency.code == "02"
    assert after.revision == sub.revision + 1
    created = AuditEvent.objects.for_object(after.competency).get(kind="imported")
    assert created.changes["name"] == [None, "Learners"]


@pytest.mark.django_db
def test_loading_the_same_files_twice_changes_nothing(starter_framework):
    events = AuditEvent.objects.count()
    call_command(
        "load_taxonomy",
        FIXTURES / "taxonomy.json",
        context_variables=FIXTURES / "context_variables.json",
        scales=FIXTURES / "proficiency_scales.json",
    )
    assert AuditEvent.objects.count() == events
    # 120 listed values, and the ACTFL level's 11 taken from its scale
    assert ContextValue.objects.filter(variable__framework=starter_framework).count() == 131


@pytest.mark.django_db
def test_a_bad_file_loads_nothing_and_the_command_fails_with_the_list(tmp_path):
    data = small_taxonomy()
    data["competencies"][0]["sub_competencies"].append({"code": "", "name": "No code"})
    with pytest.raises(CommandError) as exc:
        call_command("load_taxonomy", write(tmp_path, "tax.json", data))
    assert "tax.json: competency 1 (01), sub-competency 2: field 'code' is empty" in str(exc.value)
    assert not Framework.objects.exists()


@pytest.mark.django_db
def test_context_variables_need_a_framework_when_several_exist(starter_framework, tmp_path):
    call_command("load_taxonomy", write(tmp_path, "tax.json", small_taxonomy()))
    cv = write(tmp_path, "cv.json", [{"key": "mood", "label": "Mood", "kind": "text"}])
    with pytest.raises(CommandError, match="--framework CODE"):
        call_command("load_taxonomy", context_variables=cv)
    call_command("load_taxonomy", context_variables=cv, framework="fw2")
    assert ContextVariable.objects.get(key="mood").framework.code == "fw2"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("character", "problem"),
    [
        ("\x00", "holds the NUL character (\\u0000), which the database cannot store"),
        (
            "\ud800",
            "holds \\ud800, half of a surrogate pair and not a character, which cannot be stored",
        ),
    ],
    ids=["NUL", "surrogate"],
)
def test_a_character_no_database_stores_in_a_taxonomy_file_is_refused_naming_where(
    tmp_path, character, problem
):
    data = small_taxonomy()
    data["competencies"][0]["sub_competencies"][0]["name"] = f"Objec{character}tives"
    with pytest.raises(CommandError) as refused:
        call_command("load_taxonomy", write(tmp_path, "tax.json", data))
    assert str(refused.value).endswith(
        f"tax.json: competencies > 1 > sub_competencies > 1 > name: {problem}"
    )
    assert not Framework.objects.filter(code="fw2").exists()


@pytest.mark.django_db
def test_variables_refused_after_the_taxonomy_loaded_say_what_was_and_how_to_go_on(tmp_path):
    out = io.StringIO()
    with pytest.raises(CommandError) as refused:
        call_command(
            "load_taxonomy",
            FIXTURES / "taxonomy.json",
            context_variables=FIXTURES / "context_variables.json",
            stdout=out,
        )
    message = str(refused.value)
    assert "Nothing was loaded" not in message
    assert out.getvalue().startswith("Taxonomy l2bench-starter: 44 created")
    lines = message.splitlines()
    assert lines[0] == "The context variables were not loaded (what is listed above was):"
    assert (
        "No proficiency scale 'cefr' in L2-Bench starter taxonomy: load the scales first." in lines
    )
    assert lines[-2] == "Once that is mended, load what is left into l2bench-starter:"
    assert lines[-1] == (
        "python manage.py load_taxonomy --framework l2bench-starter --scales FILE "
        f"--context-variables {FIXTURES / 'context_variables.json'}"
    )
    framework = Framework.objects.get(code="l2bench-starter")
    assert framework.competencies.count() and not framework.context_variables.exists()
    # The command it gives, with the scales file, loads the rest.
    call_command(
        "load_taxonomy",
        framework="l2bench-starter",
        scales=FIXTURES / "proficiency_scales.json",
        context_variables=FIXTURES / "context_variables.json",
    )
    assert framework.context_variables.filter(key="actfl_level").exists()


@pytest.mark.django_db
def test_scales_refused_after_the_taxonomy_loaded_name_the_variables_left_too(tmp_path):
    scales = {
        "proficiency_scales": [
            {
                "code": "local",
                "name": "Local",
                "levels": [{"label": "One", "corresponds_to": {"scale": "zz", "level": "a1"}}],
            }
        ]
    }
    cv = write(tmp_path, "cv.json", [{"key": "mood", "label": "Mood", "kind": "text"}])
    with pytest.raises(CommandError) as refused:
        call_command(
            "load_taxonomy",
            write(tmp_path, "tax.json", small_taxonomy()),
            scales=write(tmp_path, "scales.json", scales),
            context_variables=cv,
        )
    lines = str(refused.value).splitlines()
    assert lines[0] == (
        "The proficiency scales were not loaded, nor the context variables after them "
        "(what is listed above was):"
    )
    assert lines[1] == "scale local, level One: no level 'a1' in scale 'zz'"
    assert lines[-1] == (
        "python manage.py load_taxonomy --framework fw2 "
        f"--scales {tmp_path / 'scales.json'} --context-variables {cv}"
    )
    assert Framework.objects.filter(code="fw2").exists()
    assert not ContextVariable.objects.filter(key="mood").exists()


@pytest.mark.django_db
def test_a_bare_load_taxonomy_loads_the_shipped_starter_set():
    out = io.StringIO()
    call_command("load_taxonomy", stdout=out)
    assert out.getvalue().startswith("No file given: loading the shipped starter set (")
    framework = Framework.objects.get(code="l2bench-starter")
    assert {scale.code for scale in framework.scales.all()} == {"cefr", "actfl"}
    assert ContextValue.objects.filter(variable__framework=framework).count() == 131
    assert "Context variables of l2bench-starter: " in out.getvalue()


@pytest.mark.django_db
def test_a_framework_without_a_file_is_still_refused():
    with pytest.raises(CommandError, match="Give a taxonomy file"):
        call_command("load_taxonomy", framework="l2bench-starter")
    assert not Framework.objects.exists()
