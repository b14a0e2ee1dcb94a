"""Changing a running study: the pool (work shared, reassigned, submissions kept), settings,
1-5 questions while unanswered, closing and reopening; each change in the study's history."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import Role
from audit import services as audit
from audit.models import AuditEvent
from grading import services
from grading.models import Assignment, Grade, LikertItem, Study
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def running(make_user):
    """Six responses, k=2, two annotators; the first has submitted one and drafted another."""
    first, second = make_user(Role.ANNOTATOR, "ana"), make_user(Role.ANNOTATOR, "ben")
    study = factories.study([first, second], responses=6, overlap=2, seed=3)
    services.assign_study(study)
    done, draft = Assignment.objects.filter(annotator=first).order_by("position")[:2]
    factories.complete(done, first)
    services.submit(done, by=first)
    services.start(draft, by=first)
    services.save_grade(
        draft, factories.rubric_of(draft)[0].pk, verdict="pass", rationale="", by=first
    )
    return study, first, second, done, draft


def loads(study: Study) -> dict[str, int]:
    rows = services.progress_per_annotator(study)
    return {row["annotator__username"]: row["assigned"] for row in rows}


def test_an_added_annotator_gets_a_share_of_the_work_nobody_started(running, make_user):
    study, first, _, done, draft = running
    carl = make_user(Role.ANNOTATOR, "carl")
    services.add_annotators(study, [carl], by=None)
    assert loads(study) == {"ana": 4, "ben": 4, "carl": 4}
    kept = Assignment.objects.filter(annotator=first, pk__in=[done.pk, draft.pk]).count()
    assert kept == 2  # what ana opened stays hers
    assert all(
        item.assignments.count() == 2 for item in study.items.prefetch_related("assignments")
    )


def test_a_removed_annotator_keeps_what_they_submitted_and_their_other_work_moves(
    running, make_user
):
    study, first, _, done, draft = running
    carl = make_user(Role.ANNOTATOR, "carl")
    services.add_annotators(study, [carl], by=None)
    taken = services.remove_annotator(study, first, by=None)
    assert taken == 3
    assert list(Assignment.objects.filter(annotator=first).values_list("pk", flat=True)) == [
        done.pk
    ]
    assert not Grade.objects.filter(assignment=draft.pk).exists()
    assert Grade.objects.filter(assignment=done).exists()
    assert loads(study)["ana"] == 1 and sorted(loads(study).values()) == [1, 5, 6]
    assert services.claim_next(study, first) is None
    events = AuditEvent.objects.for_object(study).order_by("at", "pk")
    assert [e.changes["annotators"][1] for e in events if "annotators" in e.changes] == [
        ["ana", "ben", "carl"],
        ["ben", "carl"],
    ]


def test_questions_change_while_unanswered_keeping_the_key_of_a_kept_question(make_user):
    study = factories.study([make_user(Role.ANNOTATOR)], responses=1, overlap=1)
    kept = services.DEFAULT_LIKERT_PROMPTS[1]
    services.set_likert_prompts(study, ["Is the level right for the learner?", kept], by=None)
    items = list(LikertItem.objects.filter(study=study).order_by("order"))
    assert [(i.prompt, i.key) for i in items] == [
        ("Is the level right for the learner?", "is-the-level-right-for-the-learner"),
        (kept, "criteria-adequacy"),
    ]


def test_answered_questions_cannot_change(running):
    study = running[0]  # its submitted assignment answered every question
    with pytest.raises(services.QuestionsAnswered):
        services.set_likert_prompts(study, ["Something else?"], by=None)
    assert study.likert_items.count() == 2


def test_settings_change_with_history(running):
    study = running[0]
    services.update_settings(study, {"match_expertise": True, "description": "Pilot"}, by=None)
    study.refresh_from_db()
    assert study.match_expertise and study.description == "Pilot"
    [event] = AuditEvent.objects.for_object(study).filter(changes__has_key="match_expertise")
    assert event.changes["match_expertise"] == [False, True]


# ----- the page ----------------------------------------------------------------------------


def test_the_pool_page_adds_and_removes_annotators(running, client_as, make_user):
    study, first, *_ = running
    carl = make_user(Role.ANNOTATOR, "carl")
    client = client_as(Role.MAINTAINER)
    page = client.get(reverse("grading:study_manage", args=[study.pk])).content.decode()
    assert "Remove ana" in page and f'value="{carl.pk}"' in page
    added = client.post(
        reverse("grading:study_pool_add", args=[study.pk]), {"annotators": [carl.pk]}
    )
    assert added.status_code == 302 and loads(study)["carl"] == 4
    removed = client.post(reverse("grading:study_pool_remove", args=[study.pk, first.pk]))
    assert removed.status_code == 302
    assert not study.pool.filter(annotator=first).exists()


def test_the_pool_page_of_a_closed_study_says_why_it_adds_nobody(running, client_as, make_user):
    study = running[0]
    services.set_status(study, Study.Status.CLOSED)
    carl = make_user(Role.ANNOTATOR, "carl")
    response = client_as(Role.MAINTAINER).post(
        reverse("grading:study_pool_add", args=[study.pk]), {"annotators": [carl.pk]}
    )
    assert response.status_code == 409
    page = response.content.decode()
    assert "is closed: reopen it to change the pool" in page
    assert "Remove ana" in page  # the study's page, with the refusal on it
    assert not study.pool.filter(annotator=carl).exists()


def test_the_page_refuses_to_change_answered_questions(running, client_as):
    study = running[0]
    client = client_as(Role.MAINTAINER)
    page = client.get(reverse("grading:study_manage", args=[study.pk])).content.decode()
    assert "have been answered" in page
    response = client.post(
        reverse("grading:study_questions", args=[study.pk]), {"prompts": "Other?"}
    )
    assert response.status_code == 409
    assert study.likert_items.count() == 2


def test_the_page_saves_settings_and_questions_of_a_fresh_study(client_as, make_user):
    study = factories.study([make_user(Role.ANNOTATOR)], responses=1, overlap=1)
    client = client_as(Role.MAINTAINER)
    client.post(
        reverse("grading:study_settings", args=[study.pk]),
        {"description": "Round 2", "match_expertise": "on", "require_rationale_on_fail": "on"},
    )
    client.post(reverse("grading:study_questions", args=[study.pk]), {"prompts": "A?\nB?\n"})
    study.refresh_from_db()
    assert study.match_expertise and study.description == "Round 2"
    assert list(study.likert_items.values_list("prompt", flat=True)) == ["A?", "B?"]


def test_the_study_history_looks_each_named_person_up_once(running, client_as):
    """Escalations and changes of the annotators' list name people by user name, shown by
    display name: the page looks up the names it meets, not one query per event."""
    study, first, second, *_ = running
    for user, name in ((first, "Ana Ruiz"), (second, "Ben Okafor")):
        user.display_name = name
        user.save(update_fields=["display_name"])
    client = client_as(Role.MAINTAINER)
    url = reverse("grading:study_manage", args=[study.pk])

    def record_events(n: int) -> None:
        for i in range(n):
            grader = (first, second)[i % 2]
            audit.record(
                study,
                AuditEvent.Kind.UPDATED,
                None,
                {"annotators": [[first.username], [first.username, second.username]]},
                comment=f"Escalated T-{i} (item {i}): graders disagree on C1; {grader.username} "
                "added.",
            )

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            page = client.get(url).content.decode()
        assert "; Ben Okafor added." in page and "; ben added." not in page
        return len(captured)

    record_events(2)
    few = queries()
    record_events(10)
    assert queries() == few
