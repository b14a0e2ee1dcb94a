"""The seed files' JSON Schemas: valid schemas, met by the shipped files, and the rules the
loader adds from the models themselves."""

import json

import jsonschema
import pytest
from django.core.management import CommandError, call_command

from taxonomy.models import Framework
from taxonomy.seedfile import SCHEMAS, SeedFileError, read_context_variables, read_taxonomy
from tests.conftest import FIXTURES
from tests.taxonomy.test_loading import small_taxonomy, write


@pytest.mark.parametrize(
    ("schema", "fixture", "key"),
    [
        ("taxonomy", "taxonomy.json", None),
        ("context_variables", "context_variables.json", "context_variables"),
        ("proficiency_scales", "proficiency_scales.json", "proficiency_scales"),
    ],
)
def test_the_shipped_files_meet_their_schema(schema, fixture, key):
    document = json.loads((SCHEMAS / f"{schema}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(document)
    data = json.loads((FIXTURES / fixture).read_text(encoding="utf-8-sig"))
    if key and isinstance(data, list):
        data = {key: data}
    jsonschema.Draft202012Validator(document).validate(data)


def test_a_framework_note_that_is_not_text_is_reported(tmp_path):
    data = small_taxonomy()
    data["framework"]["note"] = 5
    with pytest.raises(SeedFileError) as exc:
        read_taxonomy(write(tmp_path, "tax.json", data))
    assert exc.value.problems == ["tax.json: framework: field 'note' must be text, not int"]


def test_a_number_variable_takes_bounds_not_a_list(tmp_path):
    data = {
        "context_variables": [{"key": "size", "label": "Size", "kind": "number", "values": [1]}]
    }
    with pytest.raises(SeedFileError) as exc:
        read_context_variables(write(tmp_path, "cv.json", data))
    assert exc.value.problems == [
        "cv.json: variable 1 (size): a number variable's values are its bounds: an object with "
        "'min', 'max' and 'whole'"
    ]


def test_a_bound_that_is_not_a_number_is_named(tmp_path):
    data = {
        "context_variables": [
            {"key": "size", "label": "Size", "kind": "number", "values": {"min": "x", "max": 9}}
        ]
    }
    with pytest.raises(SeedFileError) as exc:
        read_context_variables(write(tmp_path, "cv.json", data))
    assert exc.value.problems == ["cv.json: variable 1 (size): min: 'x' is not a number"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("place", "value", "problem"),
    [
        ("framework", "not a slug", "Second framework: code: Enter a valid “slug”"),
        (
            "competency",
            "N" * 201,
            "name: Ensure this value has at most 200 characters (it has 201).",
        ),
    ],
)
def test_the_models_own_rules_refuse_a_file_before_anything_is_written(
    tmp_path, place, value, problem
):
    data = small_taxonomy()
    if place == "framework":
        data["framework"]["code"] = value
    else:
        data["competencies"][0]["name"] = value
    with pytest.raises(CommandError, match="Nothing was loaded") as exc:
        call_command("load_taxonomy", write(tmp_path, "tax.json", data))
    assert problem in str(exc.value)
    assert not Framework.objects.exists()
