"""The start page of each role: what it shows, and a fixed number of queries for each."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from grading import services as grading
from grading.models import Assignment, Study
from interchange.models import ImportJob
from judging.models import JudgeRun
from rubrics.models import Task
from tests.factories import complete, framework, make_job, study

pytestmark = [pytest.mark.django_db, pytest.mark.http]


@pytest.fixture(scope="module")
def people(module_db: None) -> dict[Role, int]:
    """One user per role; an annotator in two studies (one submitted response, one closed
    study); a task in review, judge runs and imports running and failed."""
    sync_roles()
    users = {role: create_user_with_role(role.value.lower(), "pw", role) for role in Role}
    grader = users[Role.ANNOTATOR]
    due = timezone.now() + timedelta(days=3)
    open_study = study([grader], responses=3, overlap=1, deadline=due)
    closed_study = study([grader], responses=1, overlap=1)
    for each in (open_study, closed_study):
        grading.assign_study(each)
    first = grading.claim_next(open_study, grader)
    assert first is not None
    complete(first, grader)
    grading.submit(first, by=grader)
    grading.claim_next(open_study, grader)  # a second one started
    grading.set_status(closed_study, Study.Status.CLOSED)
    Task.objects.filter(pk=open_study.items.first().response.task_id).update(
        status=Task.Status.IN_REVIEW
    )
    JudgeRun.objects.create(
        judge_model="judge-running",
        status=JudgeRun.Status.RUNNING,
        calls_total=10,
        calls_done=4,
        parameters={"study": open_study.pk},
    )
    JudgeRun.objects.create(judge_model="judge-failed", status=JudgeRun.Status.FAILED)
    JudgeRun.objects.create(judge_model="judge-done", status=JudgeRun.Status.SUCCEEDED)
    make_job(framework(), status=ImportJob.Status.FAILED, original_name="broken.jsonl")
    make_job(framework(), original_name="fine.jsonl")
    return {role: user.pk for role, user in users.items()}


def client_of(people: dict[Role, int], role: Role) -> Client:
    client = Client()
    client.force_login(User.objects.get(pk=people[role]))
    return client


def main_of(client: Client) -> str:
    body = client.get(reverse("home")).content.decode()
    return body[body.index("<main") :]


@pytest.mark.parametrize(
    ("role", "shown", "hidden"),
    [
        (Role.ANNOTATOR, ["Your grading"], ["Tasks and rubrics", "Agreement", "Review queue"]),
        (Role.AUTHOR, ["Tasks and rubrics", "Agreement"], ["Your grading", "Review queue"]),
        (
            Role.MAINTAINER,
            ["Review queue", "Grading studies", "Import and export", "Judge prompts"],
            ["Your grading"],
        ),
    ],
)
def test_the_start_page_offers_what_the_role_may_do(people, role, shown, hidden):
    main = main_of(client_of(people, role))
    assert all(text in main for text in shown)
    assert not any(text in main for text in hidden)


def test_an_annotator_lands_on_their_queue_open_studies_first(people):
    main = main_of(client_of(people, Role.ANNOTATOR))
    [opened, closed] = Study.objects.order_by("created_at", "pk")
    assert main.index(opened.name) < main.index(closed.name)
    assert "1 of 3 responses submitted, 1 started." in main
    assert "2 responses left (finish the started ones first)" in main
    assert opened.deadline is not None and "Due " in main
    assert reverse("grading:next", args=[opened.pk]) in main
    assert reverse("grading:next", args=[closed.pk]) not in main  # nothing to do in a closed one
    assert "Continue grading" in main


def test_an_annotator_with_no_study_is_told_how_to_get_one(make_user):
    client = Client()
    client.force_login(make_user(Role.ANNOTATOR))
    assert "a maintainer adds you to a study" in main_of(client)


def test_a_maintainer_lands_on_what_needs_them(people):
    main = main_of(client_of(people, Role.MAINTAINER))
    assert '<strong id="in-review">1</strong> task waiting' in main
    running = JudgeRun.objects.get(judge_model="judge-running")
    assert reverse("judging:run", args=[running.parameters["study"], running.pk]) in main
    assert "4 of 10 calls" in main
    assert "judge-failed" in main and "judge-done" not in main
    assert "broken.jsonl" in main and "fine.jsonl" not in main
    assert reverse("grading:study", args=[Study.objects.first().pk]) in main
    assert "Your grading" not in main


def test_an_old_failure_leaves_the_maintainers_page(people):
    JudgeRun.objects.filter(judge_model="judge-failed").update(
        created_at=timezone.now() - timedelta(days=8)
    )
    assert "judge-failed" not in main_of(client_of(people, Role.MAINTAINER))


def test_a_refused_import_shows_as_refused_until_a_later_one_of_its_kind_succeeds(people):
    place = framework()
    refused = make_job(place, status=ImportJob.Status.REFUSED, original_name="typo.jsonl")
    make_job(place, kind=ImportJob.Kind.VERDICTS, original_name="other-kind.jsonl")
    make_job(place, dry_run=True, original_name="checked.jsonl")
    main = main_of(client_of(people, Role.MAINTAINER))
    item = main[main.index("typo.jsonl") :]
    assert item[: item.index("</li>")].endswith('<span class="badge status-refused">Refused</span>')
    make_job(place, original_name="typo-fixed.jsonl")
    main = main_of(client_of(people, Role.MAINTAINER))
    assert "typo.jsonl" not in main and "broken.jsonl" in main  # a failure stays
    assert ImportJob.objects.filter(pk=refused.pk).exists()


def test_a_researcher_lands_on_agreement_and_the_judge(people):
    main = main_of(client_of(people, Role.VIEWER))
    for each in Study.objects.all():
        assert reverse("agreement:study", args=[each.pk]) in main
        assert reverse("judging:leaderboard", args=[each.pk]) in main
        assert f'"{reverse("grading:study", args=[each.pk])}"' not in main  # not theirs to manage
        assert reverse("grading:study_times", args=[each.pk]) in main
    assert all(name in main for name in ["judge-running", "judge-failed", "judge-done"])
    assert "Review queue" not in main and "Background jobs" not in main


def test_an_admin_sees_the_maintainers_page_and_their_own_queue(people):
    main = main_of(client_of(people, Role.ADMIN))
    assert "What needs you" in main and "Background jobs" in main
    assert "You are not in any grading study yet" in main


# Session, user, role, permissions (two, but none for a superuser), then each panel's own:
# queue 2, studies 1, jobs 2, review queue 1, open flags 1, judge runs 1. None per row.
@pytest.mark.parametrize(
    ("role", "queries"),
    [(Role.ANNOTATOR, 5 + 2), (Role.MAINTAINER, 5 + 5), (Role.VIEWER, 5 + 2), (Role.ADMIN, 3 + 7)],
)
def test_the_start_page_costs_a_fixed_number_of_queries(
    people, role, queries, django_assert_num_queries
):
    client = client_of(people, role)
    with django_assert_num_queries(queries):
        client.get(reverse("home"))
    more = study([User.objects.get(pk=people[Role.ANNOTATOR])], responses=2, overlap=1)
    grading.assign_study(more)
    JudgeRun.objects.create(judge_model="another", status=JudgeRun.Status.RUNNING)
    with django_assert_num_queries(queries):
        client.get(reverse("home"))


def test_the_navigation_lists_each_roles_places(people):
    def nav(role: Role) -> str:
        body = client_of(people, role).get(reverse("home")).content.decode()
        return body[body.index('<nav aria-label="Main">') : body.index("</nav>")]

    assert "Review queue" in nav(Role.MAINTAINER) and "Studies" in nav(Role.MAINTAINER)
    assert "Studies" in nav(Role.ADMIN) and "Grading" in nav(Role.ADMIN)
    assert "Review queue" not in nav(Role.VIEWER) and "Studies" not in nav(Role.VIEWER)
    assert "Grading" in nav(Role.ANNOTATOR) and "Studies" not in nav(Role.ANNOTATOR)
    assert Assignment.objects.exists()
