import pytest

from rubrics import services
from rubrics.models import Layer

pytestmark = pytest.mark.django_db


def test_effective_rubric_lists_universal_then_consensus_then_task_criteria(task):
    rubric = task.effective_rubric()
    assert [line.code for line in rubric] == [
        "01u1",
        "07u1",
        "02a-01",
        "02a-02",
        "t101-01",
        "t101-02",
    ]
    assert [line.layer for line in rubric] == [Layer.UNIVERSAL] * 2 + [Layer.CONSENSUS] * 2 + [
        Layer.TASK
    ] * 2


def test_effective_rubric_carries_weights_including_penalties(task):
    assert [line.weight for line in task.effective_rubric()] == [4, -3, 5, -2, 3, 1]


def test_excluded_universal_criterion_stays_in_the_rubric_as_not_applicable(
    task, universal, author
):
    services.exclude_universal(task, universal[1], "Learners work from printed cards.", author)
    line = next(line for line in task.effective_rubric() if line.code == "07u1")
    assert (line.applicable, line.na_reason) == (False, "Learners work from printed cards.")


def test_retired_criteria_leave_the_effective_rubric(task, consensus, author):
    services.edit_criterion(consensus[0], {"retired": True}, consensus[0].revision, author)
    assert "02a-01" not in [line.code for line in task.effective_rubric()]


def test_consensus_criteria_of_other_sub_competencies_do_not_apply(task, starter_framework, author):
    other = starter_framework.competencies.get(code="03").sub_competencies.get(code="03a")
    services.add_criterion(other, "Checks instructions were understood.", 2, author)
    assert all(not line.code.startswith("03a") for line in task.effective_rubric())


def test_effective_rubric_takes_each_criterion_at_its_latest_version(task, published, author):
    criterion = task.criteria.get(code="t101-01")
    services.edit_criterion(criterion, {"weight": 6}, criterion.revision, author)
    line = next(line for line in task.effective_rubric() if line.code == "t101-01")
    assert (line.version.number, line.weight) == (2, 6)


def test_effective_rubric_runs_in_a_constant_number_of_queries(
    task, author, django_assert_num_queries
):
    for n in range(5):
        services.add_criterion(task, f"Extra point {n}.", 1, author)
    with django_assert_num_queries(3):
        rubric = task.effective_rubric()
        [list(line.version.scale_points.all()) for line in rubric]


def test_published_rubric_version_gives_the_same_rubric_as_the_task_did(task, published):
    live = [(line.code, line.version.pk, line.applicable) for line in task.effective_rubric()]
    frozen = [
        (line.code, line.version.pk, line.applicable) for line in published.effective_rubric()
    ]
    assert frozen == live


def test_published_rubric_version_reads_in_two_queries(published, django_assert_num_queries):
    with django_assert_num_queries(2):
        published.effective_rubric()
