"""The study dashboard: progress per task and criterion, overdue work, a fixed number of queries."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from grading import services
from grading.models import Assignment, Study, StudyItem
from tests import factories

pytestmark = pytest.mark.django_db


def page(client, study, **query) -> str:
    reply = client.get(reverse("grading:study", args=[study.pk]), query)
    assert reply.status_code == 200
    return reply.content.decode()


def half_done_study(make_user, responses: int) -> Study:
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    study = factories.study(graders, responses=responses, overlap=2)
    services.assign_study(study)
    for assignment in Assignment.objects.filter(study_item__study=study)[: responses // 2 + 1]:
        factories.complete(assignment, assignment.annotator)
        services.submit(assignment, by=assignment.annotator)
    return study


@pytest.mark.parametrize("responses", [5, 30])
def test_the_dashboard_takes_a_fixed_number_of_queries(
    client_as, make_user, responses, django_assert_num_queries
):
    client = client_as(Role.MAINTAINER)
    study = half_done_study(make_user, responses)
    Assignment.objects.filter(study_item__study=study).update(last_activity_at=None)
    Study.objects.filter(pk=study.pk).update(created_at=timezone.now() - timedelta(days=30))
    # The graders each criterion expects (per set of assignments) and the unresolved pairs (per
    # state of the pairs and gold verdicts) are computed once and cached: the first visit
    # computes and stores them.
    with django_assert_num_queries(34):
        page(client, study)
    # 16, the open flags, the criteria's counted pairs, and the two caches' keys and rows
    with django_assert_num_queries(21):
        html = page(client, study)
    assert "overdue-table" in html


def test_the_expected_graders_follow_the_assignments_once_cached(make_user):
    study = half_done_study(make_user, 5)

    def expected() -> dict[str, int]:
        return {row["code"]: row["expected"] for row in services.progress_per_criterion(study)}

    before = expected()  # now cached
    open_work = Assignment.objects.filter(study_item__study=study, grades__isnull=True)
    taken = open_work.order_by("pk").first()
    codes = {version.criterion.code for version in factories.rubric_of(taken)}
    taken.delete()
    fewer = expected()
    assert {code for code in before if fewer[code] == before[code] - 1} == codes
    # Another response gets a grader: as many assignments as at first, but not the same ones.
    other = study.items.exclude(response__task=taken.study_item.response.task).first()
    Assignment.objects.create(study_item=other, annotator=make_user(Role.ANNOTATOR), position=1)
    moved = expected()
    assert sum(moved.values()) == sum(before.values()) and moved != before


def test_the_progress_bar_counts_submitted_assignments(client_as, make_user):
    study = half_done_study(make_user, 5)  # 10 assignments, 3 submitted
    html = page(client_as(Role.MAINTAINER), study)
    assert '<progress id="study-progress" max="10" value="3">30%</progress>' in html
    assert "3 of 10 assignments submitted (30%)" in html


def test_each_task_shows_its_assignments_and_submissions(client_as, make_user):
    grader = make_user(Role.ANNOTATOR)
    study = factories.study([grader], responses=2, overlap=1)
    services.assign_study(study)
    done = Assignment.objects.filter(study_item__study=study).order_by("pk").first()
    factories.complete(done, grader)
    services.submit(done, by=done.annotator)
    html = page(client_as(Role.MAINTAINER), study)
    for item in study.items.select_related("response__task"):
        submitted = 1 if item.pk == done.study_item_id else 0
        key = item.response.task.key
        assert f"<tr><td>{key}</td><td>1</td><td>1</td><td>{submitted}</td></tr>" in html


def test_each_criterion_shows_how_many_graders_gave_it_a_verdict(client_as, make_user):
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    study = factories.study(graders, responses=1, overlap=3)
    services.assign_study(study)
    first, second, _ = Assignment.objects.filter(study_item__study=study).order_by("pk")
    criteria = factories.rubric_of(first)
    factories.complete(first, first.annotator)
    services.submit(first, by=first.annotator)
    by = second.annotator
    services.save_grade(second, criteria[0].pk, verdict="pass", rationale=None, by=by)
    services.save_grade(second, criteria[1].pk, verdict=None, rationale="thinking", by=by)
    rows = {row["code"]: row for row in services.progress_per_criterion(study)}
    codes = [c.criterion.code for c in criteria]
    assert [(rows[c]["expected"], rows[c]["graded"], rows[c]["submitted"]) for c in codes] == [
        (3, 2, 1),
        (3, 1, 1),  # a rationale without a verdict is not a grade yet
        (3, 1, 1),
    ]
    html = page(client_as(Role.MAINTAINER), study)
    cells = "<td>Task</td><td>3</td><td>2</td><td>1</td>"
    assert f"<tr><td><code>{codes[0]}</code></td>{cells}</tr>" in html


def test_criteria_are_counted_per_study_when_studies_share_responses(make_user):
    grader = make_user(Role.ANNOTATOR)
    study = factories.study([grader], responses=1, overlap=1)
    services.assign_study(study)
    other = services.create_study(
        name="Again",
        framework=study.framework,
        responses=[study.items.get().response],
        annotators=[make_user(Role.ANNOTATOR), grader],
        overlap=2,
    )
    services.assign_study(other)
    assert {row["expected"] for row in services.progress_per_criterion(study)} == {1}
    assert {row["expected"] for row in services.progress_per_criterion(other)} == {2}


def test_idle_assignments_are_overdue_and_recent_ones_are_not(client_as, make_user):
    grader, other = make_user(Role.ANNOTATOR), make_user(Role.ANNOTATOR)
    study = factories.study([grader, other], responses=2, overlap=1)
    services.assign_study(study)
    now = timezone.now()
    idle = Assignment.objects.get(annotator=grader)
    Assignment.objects.filter(pk=idle.pk).update(
        status="in_progress", last_activity_at=now - timedelta(days=8)
    )
    Assignment.objects.filter(annotator=other).update(
        status="in_progress", last_activity_at=now - timedelta(days=2)
    )
    assert list(services.overdue_assignments(study, idle_days=7)) == [idle]
    assert len(services.overdue_assignments(study, idle_days=1)) == 2
    html = page(client_as(Role.MAINTAINER), study, idle_days="7")
    assert "1 overdue assignment." in html
    overdue = html.split('id="overdue-table"')[1].split("</table>")[0]
    assert f"<td>{grader.username}</td>" in overdue and f"<td>{other.username}</td>" not in overdue


def test_after_the_deadline_every_unsubmitted_assignment_is_overdue(make_user):
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    study = factories.study(graders, responses=2, overlap=1)
    services.assign_study(study)
    done = Assignment.objects.filter(annotator=graders[0]).first()
    factories.complete(done, graders[0])
    services.submit(done, by=done.annotator)
    Assignment.objects.filter(annotator=graders[1]).update(last_activity_at=timezone.now())
    assert len(services.overdue_assignments(study, idle_days=7)) == 0
    study.deadline = timezone.now() - timedelta(hours=1)
    study.save()
    assert [a.annotator for a in services.overdue_assignments(study, idle_days=7)] == [graders[1]]


def test_annotators_may_not_see_the_dashboard(client_as, make_user):
    study = factories.study([make_user(Role.ANNOTATOR)], responses=1, overlap=1)
    reply = client_as(Role.ANNOTATOR).get(reverse("grading:study", args=[study.pk]))
    assert reply.status_code == 403


def test_the_study_page_links_to_each_of_the_studys_pages(client_as, make_user):
    study = factories.study([make_user(Role.ANNOTATOR)], responses=1, overlap=1)
    html = page(client_as(Role.MAINTAINER), study)
    nav = html[html.index('<nav aria-label="This study"') :]
    nav = nav[: nav.index("</nav>")]
    for name in [
        "agreement:study",
        "judging:leaderboard",
        "judging:judge",
        "grading:adjudication",
        "interchange:export_grades_csv",
        "interchange:export_grades_xlsx",
        "interchange:export_scores_csv",
        "agreement:labels_csv",
    ]:
        assert f'href="{reverse(name, args=[study.pk])}"' in nav, name


def test_the_summary_counts_responses_and_gold_checks_apart_and_says_the_partial_overlap(
    client_as, make_user
):
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    study = factories.study(graders, responses=8, overlap=2, overlap_percent=50)
    source = factories.study(graders, responses=1).items.get()
    StudyItem.objects.create(
        study=study,
        response=source.response,
        rubric_version=source.rubric_version,
        gold_source=source,
    )
    summary = re.search(
        r'<p id="study-summary">(.*?)</p>', page(client_as(Role.MAINTAINER), study), re.S
    )[1]
    assert "8 responses · 1 gold check · 2 graders on 50% of the responses, one on the rest" in (
        summary
    )


def test_the_summary_of_a_study_without_gold_checks_says_graders_each(client_as, make_user):
    study = factories.study([make_user(Role.ANNOTATOR) for _ in range(2)], responses=3)
    html = page(client_as(Role.MAINTAINER), study)
    assert "3 responses · 2 graders each ·" in html and "gold check" not in html
