import json

import pytest
from django.conf import settings
from django.core.management import call_command

from demo.benchmark import TASKS, seed_demo_benchmark
from rubrics.models import Criterion, CriterionVersion, Response, RubricVersion, Task
from rubrics.seedfile import parse_universal_criteria, read_universal_criteria
from taxonomy.seedfile import SeedFileError

pytestmark = pytest.mark.django_db

UNIVERSAL_FILE = settings.BASE_DIR / "fixtures" / "universal_criteria.json"


def counts() -> tuple[int, ...]:
    models = (Criterion, CriterionVersion, Task, RubricVersion, Response)
    return tuple(model.objects.count() for model in models)


def test_universal_criteria_file_covers_every_aspect_with_some_penalties():
    criteria = read_universal_criteria(UNIVERSAL_FILE).criteria
    assert {c.code[:2] for c in criteria} == {"01", "02", "03", "04", "05", "06", "07"}
    assert any(c.weight < 0 for c in criteria if c.code.startswith("06"))
    assert any(c.weight < 0 for c in criteria if c.code.startswith("07"))
    assert all(c.passes and c.fails for c in criteria)


def test_a_bad_universal_criteria_file_reports_every_problem():
    data = {"criteria": [{"code": "6u1", "wording": "x", "weight": 2}, {"code": "06u2"}]}
    with pytest.raises(SeedFileError) as error:
        parse_universal_criteria(data)
    assert len(error.value.problems) == 3


def test_loading_universal_criteria_twice_changes_nothing_the_second_time(starter_framework):
    call_command("load_universal_criteria", str(UNIVERSAL_FILE))
    before = counts()
    call_command("load_universal_criteria", str(UNIVERSAL_FILE))
    assert counts() == before
    assert Criterion.objects.filter(layer="universal").count() == 10


def test_reloading_a_changed_published_criterion_makes_a_new_version(starter_framework, tmp_path):
    call_command("load_universal_criteria", str(UNIVERSAL_FILE))
    CriterionVersion.objects.filter(criterion__code="01u1").update(frozen=True)  # as if published
    data = json.loads(UNIVERSAL_FILE.read_text())
    data["criteria"][0]["weight"] = 9
    changed = tmp_path / "universal.json"
    changed.write_text(json.dumps(data))
    call_command("load_universal_criteria", str(changed))
    versions = CriterionVersion.objects.filter(criterion__code="01u1").order_by("number")
    assert [(v.number, v.weight, v.frozen) for v in versions] == [(1, 4, True), (2, 9, False)]


def test_demo_seeding_publishes_tasks_with_responses_from_several_families(
    starter_framework, author, maintainer
):
    seed_demo_benchmark(starter_framework, author, maintainer)
    tasks = Task.objects.filter(key__in=[spec.key for spec in TASKS])
    assert len(tasks) == len(TASKS) >= 3
    assert {task.status for task in tasks} == {Task.Status.PUBLISHED}
    for task in tasks:
        assert task.responses.values("model_family").distinct().count() >= 3
    assert Response.objects.filter(kind=Response.Kind.CONVERSATION).exists()


def test_demo_seeding_twice_creates_nothing_new(starter_framework, author, maintainer):
    seed_demo_benchmark(starter_framework, author, maintainer)
    before = counts()
    report = seed_demo_benchmark(starter_framework, author, maintainer)
    assert counts() == before
    assert report.tasks_created == [] and report.responses_created == 0


@pytest.mark.parametrize(
    ("character", "problem"),
    [
        ("\x00", "holds the NUL character (\\u0000), which the database cannot store"),
        (
            "\udfff",
            "holds \\udfff, half of a surrogate pair and not a character, which cannot be stored",
        ),
    ],
    ids=["NUL", "surrogate"],
)
def test_a_character_no_database_stores_in_a_universal_criteria_file_is_refused_naming_where(
    tmp_path, character, problem
):
    path = tmp_path / "u.json"
    criterion = {"code": "06u1", "wording": f"Clear{character}", "weight": 1}
    path.write_text(json.dumps({"framework": "x", "criteria": [criterion]}), encoding="utf-8")
    with pytest.raises(SeedFileError) as error:
        read_universal_criteria(path)
    assert error.value.problems == [f"{path}: criteria > 1 > wording: {problem}"]
