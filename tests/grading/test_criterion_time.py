"""Time per criterion: added to the grade by each save that carries it, capped, not after
submission; medians per criterion, per annotator and per pair, with n."""

import pytest

from accounts.roles import Role
from core import timing
from grading import services
from grading.models import Assignment, Grade
from tests import factories


def test_medians_per_criterion_annotator_and_pair_mark_what_stands_out():
    rows = [("c1", "ana", 10_000), ("c1", "ben", 12_000), ("c1", "ana", 14_000)]
    rows += [("c2", "ana", 1_000), ("c2", "ben", 1_000), ("c2", "ben", 2_000)]
    rows += [("c3", "ana", 5_000), ("c3", "ben", 6_000), ("c3", "ben", 4_000)]
    summary = timing.summarise(rows, criterion_order=["c3", "c1"])
    assert [(r.key, r.median_seconds, r.n, r.stands_out) for r in summary.per_criterion] == [
        ("c3", 5.0, 3, ""),
        ("c1", 12.0, 3, "slow"),  # over twice the criteria's typical 5 s
        ("c2", 1.0, 3, "quick"),
    ]
    assert [(r.key, r.n) for r in summary.per_annotator] == [("ana", 4), ("ben", 5)]
    assert summary.per_pair[("c1", "ana")] == timing.TimeRow("ana", 12.0, 2, "")
    assert (summary.overall_median_seconds, summary.n) == (5.0, 9)


def test_no_measured_time_gives_empty_tables():
    summary = timing.summarise([])
    assert summary.overall_median_seconds is None and summary.per_criterion == []


@pytest.mark.django_db
def test_each_save_adds_its_time_capped_until_the_response_is_submitted(make_user):
    grader = make_user(Role.ANNOTATOR)
    study = factories.study([grader], responses=1, overlap=1)
    services.assign_study(study)
    assignment = Assignment.objects.get(annotator=grader)
    first, second = factories.rubric_of(assignment)[:2]

    def save(version, ms, verdict="pass"):
        services.save_grade(
            assignment, version.pk, verdict=verdict, rationale="r", by=grader, active_ms=ms
        )
        return Grade.objects.get(assignment=assignment, criterion_version=version).active_ms

    assert save(first, 4_000) == 4_000
    assert save(first, 1_500, verdict="fail") == 5_500  # a second visit adds up
    services.save_grade(assignment, second.pk, verdict="pass", rationale="", by=grader)
    assert Grade.objects.get(criterion_version=second).active_ms is None  # not measured
    cap = int(services.CRITERION_TIME_PER_SAVE_CAP.total_seconds() * 1000)
    assert save(second, 10 * cap) == cap
    with pytest.raises(services.GradingError):
        save(first, -1)
    factories.complete(assignment, grader)
    services.submit(assignment, by=grader)
    assert save(first, 9_000) == 5_500  # a change after submission is not grading time
    times = services.criterion_times(study)
    assert {(r.key, r.n) for r in times.per_criterion} == {
        (first.criterion.code, 1),
        (second.criterion.code, 1),
    }
    assert times.per_pair[(first.criterion.code, grader.username)].median_seconds == 5.5
