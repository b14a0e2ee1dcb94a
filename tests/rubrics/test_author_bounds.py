"""Bounds on what authors write, one rule each on the model's fields, held by the services,
the forms and the benchmark import alike (the API: tests/api/test_author_bounds.py): weights
from -100 to 100, a criterion's wording and guidance, a task's texts; whole-number variables."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.roles import Role
from interchange.importers import import_l2bench
from rubrics import services
from rubrics.models import CriterionVersion, Task
from rubrics.models.criteria import GUIDANCE_MAX, WEIGHT_LIMIT, WORDING_MAX
from rubrics.models.tasks import TASK_TEXT_MAX
from taxonomy.models import ContextVariable
from tests.conftest import htmx
from tests.factories import benchmark_folder, generated
from tests.interchange.test_l2bench_csv import valid_cells, write_rows

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("weight", [99_999_999_999_999, WEIGHT_LIMIT + 1, -WEIGHT_LIMIT - 1])
def test_a_weight_outside_the_range_is_refused_by_the_service(sub_competency, author, weight):
    with pytest.raises(ValidationError) as refused:
        services.add_criterion(sub_competency, "Names the level.", weight, author)
    assert "weight" in refused.value.message_dict
    assert not CriterionVersion.objects.filter(wording="Names the level.").exists()


@pytest.mark.parametrize("weight", [WEIGHT_LIMIT, -WEIGHT_LIMIT, 1, -1])
def test_weights_at_the_ends_of_the_range_are_kept(sub_competency, author, weight):
    criterion = services.add_criterion(sub_competency, "Names the level.", weight, author)
    assert services.latest_version(criterion).weight == weight


def test_a_wording_over_the_limit_is_refused_and_one_at_it_kept(sub_competency, author):
    with pytest.raises(ValidationError) as refused:
        services.add_criterion(sub_competency, "w" * (WORDING_MAX + 1), 2, author)
    assert refused.value.message_dict["wording"] == [
        f"Ensure this value has at most {WORDING_MAX} characters (it has {WORDING_MAX + 1})."
    ]
    services.add_criterion(sub_competency, "w" * WORDING_MAX, 2, author)


def test_an_edit_making_guidance_too_long_is_refused(task, author):
    criterion = task.criteria.get(code="t101-01")
    with pytest.raises(ValidationError) as refused:
        services.edit_criterion(
            criterion, {"passes": "p" * (GUIDANCE_MAX + 1)}, criterion.revision, author
        )
    assert "passes" in refused.value.message_dict


def test_a_task_instruction_over_the_limit_is_refused(sub_competency, author):
    with pytest.raises(ValidationError) as refused:
        services.create_task(sub_competency, "t9", "i" * (TASK_TEXT_MAX + 1), author)
    assert "instruction" in refused.value.message_dict
    assert not Task.objects.filter(key="t9").exists()


def criterion_data(**values):
    data = {"wording": "Says what the learners will do.", "weight": 2, "scoring_type": "binary"}
    return {f"new-{k}": v for k, v in (data | values).items()}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"weight": 99_999_999_999_999}, "less than or equal to 100"),
        ({"weight": -101}, "greater than or equal to -100"),
        ({"wording": "w" * (WORDING_MAX + 1)}, f"at most {WORDING_MAX} characters"),
    ],
)
def test_the_criterion_form_refuses_out_of_bounds_values(client_as, task, values, message):
    url = reverse("rubrics:criterion_create", args=[task.pk])
    response = htmx(client_as(Role.AUTHOR)).post(url, criterion_data(**values))
    assert response.status_code == 422
    assert message in response.content.decode()
    assert task.criteria.count() == 2


def test_the_criterion_form_states_the_bounds(client_as, task):
    page = client_as(Role.AUTHOR).get(reverse("rubrics:task_criteria", args=[task.pk])).content
    page = page.decode()
    assert f'maxlength="{WORDING_MAX}"' in page and f'max="{WEIGHT_LIMIT}"' in page
    assert f"A whole number from -{WEIGHT_LIMIT} to {WEIGHT_LIMIT}, not 0." in page


def test_the_import_refuses_out_of_bounds_weights_and_texts_naming_row_and_field(
    starter_framework, tmp_path
):
    folder = benchmark_folder(tmp_path, generated(1))
    write_rows(
        folder,
        [
            valid_cells("1") | {"task_criteria": "01. Own criterion ==99999999999999"},
            valid_cells("2") | {"task_criteria": "01. " + "w" * 1_500 + " ==2"},
            valid_cells("3") | {"task": "i" * (TASK_TEXT_MAX + 1)},
        ],
    )
    (folder / "resources_for_tasks").mkdir(exist_ok=True)
    report = import_l2bench(folder, starter_framework)
    lines = report.problem_lines()
    assert (
        "l2-bench_tasks.csv: row 2: field 'task_criteria': task criterion '1-01': weight: "
        "Ensure this value is less than or equal to 100."
    ) in lines, lines
    assert (
        "l2-bench_tasks.csv: row 3: field 'task_criteria': task criterion '2-01': wording: "
        f"Ensure this value has at most {WORDING_MAX} characters (it has 1500)."
    ) in lines, lines
    assert (
        "l2-bench_tasks.csv: row 4: field 'task': Ensure this value has at most "
        f"{TASK_TEXT_MAX:,} characters (it has {TASK_TEXT_MAX + 1:,}).".replace(",", "")
    ) in lines, lines
    assert not Task.objects.exists()


def test_a_whole_number_variable_refuses_a_fraction(starter_framework):
    class_size = ContextVariable.objects.get(framework=starter_framework, key="class_size")
    assert class_size.whole_numbers
    with pytest.raises(ValidationError) as refused:
        class_size.parse_value("12.5")
    assert refused.value.messages == ["Class size (class_size) takes a whole number, not '12.5'."]
    assert class_size.parse_value("12") == 12
    assert class_size.parse_value("12.000") == 12


def test_a_number_variable_not_marked_whole_keeps_its_decimals(starter_framework):
    hours = ContextVariable.objects.get(framework=starter_framework, key="contact_hours")
    assert not hours.whole_numbers and hours.parse_value("2.5") == 2.5
