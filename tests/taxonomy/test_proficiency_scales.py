"""Proficiency scales as data: levels, the mapping between scales, variables that take a scale's
levels, and the level reports group a task on."""

import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import Role
from agreement.cache import report_key
from agreement.data import report_context
from agreement.models import AnalysisSettings
from audit import editing
from audit.models import AuditEvent
from grading.models import Study
from interchange.importers import import_l2bench
from rubrics.models import TaskContextValue
from taxonomy import services
from taxonomy.models import (
    ContextValue,
    ContextVariable,
    Framework,
    ProficiencyLevel,
    ProficiencyScale,
)
from taxonomy.scales import sync_scale_values
from taxonomy.seedfile import SeedFileError, read_context_variables, read_scales
from tests.conftest import htmx
from tests.factories import (
    benchmark_folder,
    generated,
    load_starter_framework,
    make_framework,
    published_task,
)

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

SCALES = {
    "proficiency_scales": [
        {"code": "cefr", "name": "CEFR", "levels": ["A1", "A2", "B1", "B2"]},
        {
            "code": "actfl",
            "name": "ACTFL",
            "levels": [
                {"label": "Novice High", "corresponds_to": {"scale": "cefr", "level": "A1"}},
                {
                    "label": "Intermediate Mid",
                    "corresponds_to": {"scale": "cefr", "level": "B1", "up_to": "B2"},
                },
                "Distinguished",
            ],
        },
    ]
}


def load(tmp_path, data=SCALES):
    path = tmp_path / "scales.json"
    path.write_text(json.dumps(data))
    framework = make_framework()
    services.load_scales(framework, read_scales(path))
    return framework


def level(scale: str, label: str) -> ProficiencyLevel:
    return ProficiencyLevel.objects.get(scale__code=scale, label=label)


def test_loading_scales_creates_levels_in_order_with_their_mapping(tmp_path):
    load(tmp_path)
    actfl = ProficiencyScale.objects.get(code="actfl")
    assert list(actfl.levels.values_list("label", flat=True)) == [
        "Novice High",
        "Intermediate Mid",
        "Distinguished",
    ]
    assert level("actfl", "Intermediate Mid").correspondence() == "CEFR B1-B2"
    assert level("actfl", "Distinguished").correspondence() == ""


def test_a_mapping_to_a_level_the_file_does_not_have_loads_nothing(tmp_path):
    broken = json.loads(json.dumps(SCALES))
    broken["proficiency_scales"][1]["levels"][0]["corresponds_to"]["level"] = "Z9"
    with pytest.raises(SeedFileError, match="no level 'z9' in scale 'cefr'"):
        load(tmp_path, broken)
    assert not ProficiencyScale.objects.exists()


def test_a_variable_taking_a_scale_keeps_its_values_and_gains_the_missing_levels(tmp_path):
    load(tmp_path)
    cefr_level = ContextVariable.objects.get(key="cefr_level")
    kept = {v.code: v.pk for v in cefr_level.values.all()}  # a1, a2, b1 from the factory
    cefr_level.scale = ProficiencyScale.objects.get(code="cefr")
    cefr_level.save()
    sync_scale_values(variables=[cefr_level])
    values = list(cefr_level.values.order_by("order"))
    assert [v.label for v in values] == ["A1", "A2", "B1", "B2"]
    assert all(kept[v.code] == v.pk for v in values if v.code in kept)
    assert all(v.level == level("cefr", v.label) for v in values)


def test_a_variable_that_loses_its_scale_keeps_its_values_untied(tmp_path):
    load(tmp_path)
    variable = ContextVariable.objects.get(key="cefr_level")
    variable.scale = ProficiencyScale.objects.get(code="cefr")
    variable.save()
    sync_scale_values(variables=[variable])
    variable.scale = None
    variable.save()
    sync_scale_values(variables=[variable])
    assert variable.values.count() == 4
    assert not variable.values.filter(level__isnull=False).exists()


def test_a_level_mapped_to_its_own_scale_or_in_a_circle_is_refused(tmp_path):
    load(tmp_path)
    novice = level("actfl", "Novice High")
    novice.corresponds_to = level("actfl", "Distinguished")
    with pytest.raises(ValidationError, match="another scale"):
        novice.full_clean()
    a1 = level("cefr", "A1")
    a1.corresponds_to = level("actfl", "Novice High")  # which maps to A1
    with pytest.raises(ValidationError, match="circle"):
        a1.full_clean()


def test_only_an_ordinal_variable_takes_a_scale(tmp_path):
    framework = load(tmp_path)
    variable = ContextVariable(framework=framework, key="mood", label="Mood", kind="categorical")
    variable.scale = ProficiencyScale.objects.get(code="cefr")
    with pytest.raises(ValidationError, match="Only an ordinal variable"):
        variable.full_clean()


# ----- editing in the app --------------------------------------------------------------------


@pytest.fixture
def maintainer(client_as, tmp_path):
    load(tmp_path)
    return htmx(client_as(Role.MAINTAINER))


def test_the_scales_page_lists_levels_and_their_mapping(maintainer):
    response = maintainer.get(reverse("taxonomy:scales", args=["test-fw"]))
    body = response.content.decode()
    assert response.status_code == 200
    assert "Intermediate Mid" in body and "≈ CEFR B1-B2" in body


def queries_of(client, url):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_a_new_level_is_offered_only_the_other_scales_levels_to_map_to(maintainer):
    body = maintainer.get(reverse("taxonomy:scales", args=["test-fw"])).content.decode()
    cefr = ProficiencyScale.objects.get(code="cefr")
    form = body[body.index(f'name="new-{cefr.pk}-corresponds_to"') :]
    offered = form[: form.index("</select>")]
    assert "ACTFL Novice High" in offered and "CEFR A1" not in offered


def test_the_scales_page_takes_as_many_queries_whatever_the_number_of_levels(maintainer):
    url = reverse("taxonomy:scales", args=["test-fw"])
    before = queries_of(maintainer, url)
    actfl = ProficiencyScale.objects.get(code="actfl")
    b2 = level("cefr", "B2")
    for n in range(5):
        ProficiencyLevel.objects.create(
            scale=actfl, code=f"x{n}", label=f"X{n}", order=10 + n, corresponds_to=b2
        )
    assert queries_of(maintainer, url) == before


def test_a_variable_bound_to_a_scale_in_the_app_takes_its_levels_as_values(maintainer):
    url = reverse("taxonomy:contextvariable_create", args=["test-fw"])
    scale = ProficiencyScale.objects.get(code="actfl")
    data = {"new-key": "actfl_level", "new-label": "ACTFL level", "new-kind": "ordinal"}
    response = maintainer.post(url, data | {"new-scale": scale.pk})
    assert response.status_code == 200, response.content.decode()
    variable = ContextVariable.objects.get(key="actfl_level")
    assert list(variable.values.values_list("label", flat=True)) == [
        "Novice High",
        "Intermediate Mid",
        "Distinguished",
    ]
    assert AuditEvent.objects.for_object(variable.values.first()).get().kind == "created"


def test_remapping_and_renaming_a_level_in_the_app_is_recorded_and_reaches_the_values(
    maintainer,
):
    variable = ContextVariable.objects.create(
        framework=ProficiencyScale.objects.get(code="actfl").framework,
        key="actfl_level",
        label="ACTFL level",
        kind="ordinal",
        scale=ProficiencyScale.objects.get(code="actfl"),
    )
    sync_scale_values(variables=[variable])
    mid = level("actfl", "Intermediate Mid")
    b1 = level("cefr", "B1")
    response = maintainer.post(
        reverse("taxonomy:level_edit", args=[mid.pk]),
        {
            "code": "intermediate-mid",
            "label": "Intermediate (mid)",
            "corresponds_to": b1.pk,
            "revision": mid.revision,
        },
    )
    assert response.status_code == 200, response.content.decode()
    mid.refresh_from_db()
    assert (mid.corresponds_to, mid.corresponds_to_upper) == (b1, None)
    changes = AuditEvent.objects.for_object(mid).get(kind="updated").changes
    assert changes["corresponds_to_upper"] == ["CEFR B2", None]
    value = ContextValue.objects.get(level=mid)
    assert value.label == "Intermediate (mid)"
    assert AuditEvent.objects.for_object(value).filter(kind="updated").exists()


def test_a_level_a_task_uses_cannot_be_deleted(maintainer):
    framework = ProficiencyScale.objects.get(code="actfl").framework
    variable = ContextVariable.objects.create(
        framework=framework,
        key="actfl_level",
        label="ACTFL level",
        kind="ordinal",
        scale=ProficiencyScale.objects.get(code="actfl"),
    )
    sync_scale_values(variables=[variable])
    task = published_task(framework, criteria=1)
    mid = level("actfl", "Intermediate Mid")
    TaskContextValue.objects.create(task=task, variable=variable, value=mid.values.get())
    response = maintainer.post(reverse("taxonomy:level_delete", args=[mid.pk]))
    assert response.status_code == 409
    assert ProficiencyLevel.objects.filter(pk=mid.pk).exists()


def test_a_made_up_third_scale_added_in_the_app_groups_through_the_mapping(maintainer):
    framework = ProficiencyScale.objects.get(code="actfl").framework
    response = maintainer.post(
        reverse("taxonomy:scale_create", args=["test-fw"]),
        {"new-code": "school", "new-name": "School", "new-source": "Our placement test"},
    )
    assert response.status_code == 200, response.content.decode()
    school = ProficiencyScale.objects.get(code="school")
    prefix = f"new-{school.pk}"
    novice = level("actfl", "Novice High")
    response = maintainer.post(
        reverse("taxonomy:level_create", args=[school.pk]),
        {
            f"{prefix}-code": "starters",
            f"{prefix}-label": "Starters",
            f"{prefix}-corresponds_to": novice.pk,
        },
    )
    assert response.status_code == 200, response.content.decode()
    variable = ContextVariable.objects.create(
        framework=framework,
        key="school_level",
        label="School level",
        kind="ordinal",
        scale=school,
    )
    sync_scale_values(variables=[variable])
    task = published_task(framework, criteria=1)
    TaskContextValue.objects.create(
        task=task, variable=variable, value=variable.parse_value("Starters")
    )
    # Starters -> ACTFL Novice High -> CEFR A1: grouped on the scale the chain ends in
    assert report_context([task.pk], "default")[task.pk] == [("CEFR level", "A1")]


def test_a_task_imported_in_actfl_is_reported_with_the_shipped_cefr_mapping(
    tmp_path, starter_framework
):
    tasks = generated(2, context={"actfl_level": ["Intermediate Mid"]})
    report = import_l2bench(benchmark_folder(tmp_path, tasks), starter_framework)
    assert report.ok, report.problem_lines()
    stated = TaskContextValue.objects.filter(variable__key="actfl_level")
    assert {value.display_value for value in stated} == {"Intermediate Mid"}
    grouped = report_context([value.task_id for value in stated], "default")
    assert set(map(tuple, grouped.values())) == {(("CEFR level", "B1"),)}


def test_a_mapping_edit_changes_the_report_cache_key(maintainer):
    study = Study.objects.create(name="Levels", framework=Framework.objects.get(code="test-fw"))
    settings = AnalysisSettings.for_study(study)
    before = report_key(study, settings)
    mid = level("actfl", "Intermediate Mid")
    editing.update(mid, {"corresponds_to_upper": None}, mid.revision, None)
    assert report_key(study, settings) != before


def test_the_actfl_scale_alone_loads_onto_a_database_without_reverting_its_cefr_edits(tmp_path):
    # docs/user-guide.md, "Existing databases": a copy of the shipped files holding only ACTFL.
    framework = load_starter_framework()
    ProficiencyLevel.objects.filter(scale__code="actfl").delete()  # and their values
    ContextVariable.objects.filter(key="actfl_level").delete()
    ProficiencyScale.objects.filter(code="actfl").delete()
    ProficiencyLevel.objects.filter(scale__code="cefr", code="a2").update(label="A2 (waystage)")
    scales = json.loads((FIXTURES / "proficiency_scales.json").read_text())
    scales["proficiency_scales"] = [s for s in scales["proficiency_scales"] if s["code"] == "actfl"]
    (tmp_path / "scales.json").write_text(json.dumps(scales))
    variables = json.loads((FIXTURES / "context_variables.json").read_text())
    variables["context_variables"] = [
        v for v in variables["context_variables"] if v["key"] == "actfl_level"
    ]
    (tmp_path / "variables.json").write_text(json.dumps(variables))
    services.load_scales(framework, read_scales(tmp_path / "scales.json"))
    services.load_context_variables(framework, read_context_variables(tmp_path / "variables.json"))
    assert level("actfl", "Intermediate Low").corresponds_to == level("cefr", "A2 (waystage)")
    assert ContextVariable.objects.get(key="actfl_level").values.count() == 11
