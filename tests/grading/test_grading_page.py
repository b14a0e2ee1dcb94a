"""The annotator's grading page: blind, own work only, autosave, submit and revisions."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from accounts.roles import Role
from grading import services
from grading.models import Assignment, Grade, GradeRevision, Study
from rubrics import services as rubric_services
from rubrics.templatetags import rubrics_markdown
from tests import factories
from tests.conftest import htmx

pytestmark = [pytest.mark.django_db, pytest.mark.http]


@pytest.fixture
def graders(make_user):
    return [make_user(Role.ANNOTATOR) for _ in range(2)]


@pytest.fixture
def study(graders):
    study = factories.study(graders, responses=1, overlap=2)
    services.assign_study(study)
    return study


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def markup(html: str) -> str:
    """The page without the stylesheets and scripts it carries inline (their selectors)."""
    return re.sub(r"<(style|script)\b[^>]*>.*?</\1>", "", html, flags=re.DOTALL)


def assignment_of(study, user) -> Assignment:
    return Assignment.objects.get(study_item__study=study, annotator=user)


def page(assignment) -> str:
    return reverse("grading:assignment", args=[assignment.pk])


def save_url(assignment, version) -> str:
    return reverse("grading:save_grade", args=[assignment.pk, version.pk])


def test_the_page_shows_task_response_and_rubric_but_not_the_model(study, graders):
    mine = assignment_of(study, graders[0])
    response = mine.study_item.response
    html = client_for(graders[0]).get(page(mine)).content.decode()
    assert mine.study_item.rubric_version.instruction in html
    assert "<strong>Warm-up</strong>" in html
    for version in factories.rubric_of(mine):
        assert version.wording in html
        assert 'name="verdict" value="fail"' in html
    assert response.model_name not in html


def test_a_conversation_is_shown_turn_by_turn(graders):
    study = factories.study(graders[:1], responses=0, overlap=1)
    services.add_responses(study, [factories.response(factories.published_task(), turns=3)])
    services.assign_study(study)
    html = client_for(graders[0]).get(page(assignment_of(study, graders[0]))).content.decode()
    assert html.count('class="turn turn-') == 3


def test_another_annotators_assignment_is_not_found(study, graders):
    theirs = assignment_of(study, graders[1])
    client = client_for(graders[0])
    assert client.get(page(theirs)).status_code == 404
    version = factories.rubric_of(theirs)[0]
    assert client.post(save_url(theirs, version), {"verdict": "pass"}).status_code == 404
    assert not Grade.objects.exists()


def test_the_page_never_shows_another_graders_grade(study, graders):
    theirs, mine = assignment_of(study, graders[1]), assignment_of(study, graders[0])
    version = factories.rubric_of(theirs)[0]
    services.save_grade(theirs, version.pk, verdict="fail", rationale="ZEBRA-42", by=graders[1])
    html = client_for(graders[0]).get(page(mine)).content.decode()
    assert "ZEBRA-42" not in html
    assert 'aria-pressed="true"' not in markup(html)


def test_a_click_autosaves_and_returns_only_that_criterion_marked_saved(study, graders):
    mine = assignment_of(study, graders[0])
    version = factories.rubric_of(mine)[0]
    client = htmx(client_for(graders[0]))
    reply = client.post(save_url(mine, version), {"verdict": "fail", "rationale": "Too long"})
    html = reply.content.decode()
    assert reply.status_code == 200
    assert html.lstrip().startswith(
        f'<li class="criterion answered verdict-is-fail" id="criterion-{version.pk}"'
    )
    assert "Saved" in html
    assert "The task" not in html
    grade = Grade.objects.get()
    assert (grade.verdict, grade.rationale) == ("fail", "Too long")
    client.post(save_url(mine, version), {"verdict": "pass", "rationale": "Too long"})
    assert Grade.objects.get().verdict == "pass"


def test_without_javascript_a_verdict_saves_and_returns_to_the_criterion(study, graders):
    mine = assignment_of(study, graders[0])
    version = factories.rubric_of(mine)[0]
    reply = client_for(graders[0]).post(save_url(mine, version), {"verdict": "na"})
    assert reply.status_code == 302
    assert reply.url.endswith(f"#criterion-{version.pk}")
    assert Grade.objects.get().verdict == "na"


def test_a_save_for_a_closed_study_is_refused_with_a_clear_message(study, graders):
    mine = assignment_of(study, graders[0])
    study.status = study.Status.CLOSED
    study.save()
    version = factories.rubric_of(mine)[0]
    reply = htmx(client_for(graders[0])).post(save_url(mine, version), {"verdict": "pass"})
    assert reply.status_code == 409
    assert "is closed: grades can no longer change" in reply.content.decode()
    assert not Grade.objects.exists()


def test_a_save_for_a_criterion_outside_the_rubric_version_is_refused(study, graders, make_user):
    mine = assignment_of(study, graders[0])
    elsewhere = factories.study([make_user(Role.ANNOTATOR)], responses=1, overlap=1)
    stranger = elsewhere.items.get().rubric_version.items.first().criterion_version
    reply = htmx(client_for(graders[0])).post(save_url(mine, stranger), {"verdict": "pass"})
    assert reply.status_code == 422
    assert "not part of the rubric" in reply.content.decode()
    assert not Grade.objects.exists()


def test_submit_refuses_an_incomplete_grading_and_lists_what_is_missing(study, graders):
    mine = assignment_of(study, graders[0])
    reply = client_for(graders[0]).post(reverse("grading:submit", args=[mine.pk]))
    assert reply.status_code == 409  # the assignment's state refuses it, as in the API
    html = reply.content.decode()
    for version in factories.rubric_of(mine):
        assert f'href="#criterion-{version.pk}"' in html
    mine.refresh_from_db()
    assert mine.status != Assignment.Status.SUBMITTED


def test_what_is_missing_is_listed_in_the_graders_language(study, graders):
    """A Spanish grader reads what still stops the submission in Spanish, the verdicts'
    labels included; the API's problems stay English."""
    mine = assignment_of(study, graders[0])
    version = factories.rubric_of(mine)[0]
    client = client_for(graders[0])
    reply = client.post(reverse("grading:submit", args=[mine.pk]), HTTP_ACCEPT_LANGUAGE="es")
    html = reply.content.decode()
    assert reply.status_code == 409 and "Aún sin enviar. Falta:" in html
    code = version.criterion.code
    labels = ("Presente", "Ausente") if version.is_penalty else ("Cumple", "Incumple")
    assert f"{code}: elija {labels[0]}, {labels[1]} o No aplica." in html
    assert "Valore: " in html and ": choose " not in html
    assert f"{code}: choose " in " ".join(p.message for p in services.missing_answers(mine))


def test_submit_moves_on_to_the_next_response(graders):
    study = factories.study(graders[:1], responses=2, overlap=1)
    services.assign_study(study)
    first = services.claim_next(study, graders[0])
    factories.complete(first, graders[0])
    reply = client_for(graders[0]).post(reverse("grading:submit", args=[first.pk]))
    following = Assignment.objects.exclude(pk=first.pk).get()
    assert reply.status_code == 302
    assert reply.url == page(following)
    first.refresh_from_db()
    assert first.status == Assignment.Status.SUBMITTED


def test_present_on_a_penalty_takes_the_colour_of_fail_not_of_pass(study, graders):
    mine = assignment_of(study, graders[0])
    ordinary, penalty = factories.rubric_of(mine)[0], factories.rubric_of(mine)[-1]
    assert penalty.weight < 0 < ordinary.weight
    client = htmx(client_for(graders[0]))
    present = client.post(save_url(mine, penalty), {"verdict": "pass", "rationale": "Yes"})
    passed = client.post(save_url(mine, ordinary), {"verdict": "pass", "rationale": ""})
    absent = client.post(save_url(mine, penalty), {"verdict": "fail", "rationale": ""})
    assert 'class="verdicts outcome-adverse"' in present.content.decode()
    assert 'class="verdicts outcome-favourable"' in passed.content.decode()
    assert 'class="verdicts outcome-favourable"' in absent.content.decode()


def test_submitting_the_last_response_says_so_in_one_message(graders):
    study = factories.study(graders[:1], responses=1, overlap=1)
    services.assign_study(study)
    only = services.claim_next(study, graders[0])
    factories.complete(only, graders[0])
    client = client_for(graders[0])
    reply = client.post(reverse("grading:submit", args=[only.pk]), follow=True)
    said = [str(message) for message in reply.context["messages"]]
    assert said == ["Submitted. That was the last response assigned to you in this study."]


def test_revising_a_submitted_grade_through_the_page_keeps_history(study, graders):
    mine = assignment_of(study, graders[0])
    factories.complete(mine, graders[0])
    services.submit(mine, by=mine.annotator)
    version = factories.rubric_of(mine)[0]
    client = htmx(client_for(graders[0]))
    reply = client.post(save_url(mine, version), {"verdict": "fail", "rationale": "On reflection"})
    assert reply.status_code == 200
    assert GradeRevision.objects.get().verdict == "pass"
    refused = client.post(save_url(mine, version), {"verdict": "fail", "rationale": ""})
    assert refused.status_code == 409  # the submitted grade's state refuses it, as in the API
    assert Grade.objects.get(criterion_version=version).rationale == "On reflection"


def test_a_likert_rating_autosaves(study, graders):
    mine = assignment_of(study, graders[0])
    item = study.likert_items.first()
    url = reverse("grading:save_likert", args=[mine.pk, item.pk])
    reply = htmx(client_for(graders[0])).post(url, {"value": "5"})
    assert reply.status_code == 200
    assert mine.likert_ratings.get().value == 5
    assert htmx(client_for(graders[0])).post(url, {"value": "9"}).status_code == 422


@pytest.mark.parametrize("criteria", [2, 12])
def test_the_grading_page_runs_a_fixed_number_of_queries(
    graders, criteria, django_assert_num_queries
):
    study = factories.study(graders[:1], responses=0, overlap=1)
    services.add_responses(study, [factories.response(factories.published_task(criteria=criteria))])
    services.assign_study(study)
    mine = assignment_of(study, graders[0])
    factories.complete(mine, graders[0])
    client = client_for(graders[0])
    client.get(page(mine))
    # session, user, 2 permission lookups, then 7 for the page whatever the rubric's length:
    # the assignment with its study, rubric version, response and task; progress counts;
    # grades; rubric items with criterion versions and criteria; Likert questions with their
    # answers; context values; resources; the grader's own flags. It was 13: scale points (not
    # shown here) were prefetched, and the Likert answers were a query of their own.
    with django_assert_num_queries(12):
        html = client.get(page(mine)).content.decode()
    assert html.count('name="verdict" value="pass"') == criteria
    assert markup(html).count('aria-pressed="true"') == criteria + study.likert_items.count()


def test_opening_the_page_starts_nothing_the_page_starts_it_as_it_loads(study, graders):
    mine = assignment_of(study, graders[0])
    client = client_for(graders[0])
    start = reverse("grading:assignment_start", args=[mine.pk])
    html = client.get(page(mine)).content.decode()
    mine.refresh_from_db()
    assert (mine.status, mine.started_at) == (Assignment.Status.ASSIGNED, None)
    assert f'hx-post="{start}" hx-trigger="load"' in html
    assert client.get(start).status_code == 405
    assert htmx(client).post(start).status_code == 204
    mine.refresh_from_db()
    assert mine.status == Assignment.Status.IN_PROGRESS and mine.started_at is not None
    assert start not in client.get(page(mine)).content.decode()


def test_the_first_answer_starts_an_assignment_opened_without_javascript(study, graders):
    mine = assignment_of(study, graders[0])
    version = factories.rubric_of(mine)[0]
    client_for(graders[0]).post(save_url(mine, version), {"verdict": "pass"})
    mine.refresh_from_db()
    assert mine.status == Assignment.Status.IN_PROGRESS and mine.started_at is not None


def test_another_graders_assignment_cannot_be_started(study, graders):
    theirs = assignment_of(study, graders[1])
    start = reverse("grading:assignment_start", args=[theirs.pk])
    assert client_for(graders[0]).post(start).status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == Assignment.Status.ASSIGNED


def test_a_second_visit_renders_no_markdown_again(study, graders, monkeypatch):
    mine = assignment_of(study, graders[0])
    client = client_for(graders[0])
    client.get(page(mine))
    rendered: list[str] = []
    original = rubrics_markdown._renderer.render

    def counting(text: str) -> str:
        rendered.append(text)
        return original(text)

    monkeypatch.setattr(rubrics_markdown._renderer, "render", counting)
    html = client.get(page(mine)).content.decode()
    # the instruction, the response and every criterion's guidance come from the cache
    assert rendered == []
    assert "<strong>Warm-up</strong>" in html
    assert "<p>Guidance: what passes" in html


def test_an_autosave_runs_a_fixed_number_of_queries(graders, django_assert_num_queries):
    study = factories.study(graders[:1], responses=0, overlap=1)
    services.add_responses(study, [factories.response(factories.published_task(criteria=12))])
    services.assign_study(study)
    mine = assignment_of(study, graders[0])
    version = factories.rubric_of(mine)[-1]
    client = htmx(client_for(graders[0]))
    # A first answer: the grade's row is read, then written once with the answer. It was 14:
    # get_or_create's INSERT in a savepoint of its own (three queries), then an UPDATE.
    with django_assert_num_queries(11) as first:
        client.post(save_url(mine, version), {"verdict": "pass"})
    writes = [q["sql"] for q in first.captured_queries if '"grading_grade"' in q["sql"]]
    assert [sql.split()[0] for sql in writes] == ["SELECT", "INSERT"]
    # session, user, 2 permission lookups; in the transaction (a savepoint under the test's
    # own): the assignment, owned and locked in one query, the rubric check (whose line is
    # swapped back), grade read and write, activity, release. It was 13: the assignment was
    # read twice, the rubric line too, and the service's savepoint cost two more.
    with django_assert_num_queries(11) as captured:
        reply = client.post(save_url(mine, version), {"verdict": "fail", "rationale": "Harsh"})
    assert 'class="badge penalty"' in reply.content.decode()
    assert "Harsh" in reply.content.decode()
    locks = [q["sql"] for q in captured.captured_queries if "FOR UPDATE" in q["sql"]]
    # PostgreSQL: only the assignment's row is locked, never the study graders share
    assert all('FOR UPDATE OF "grading_assignment"' in sql for sql in locks)
    mine.refresh_from_db()
    assert mine.grades.get(criterion_version=version).verdict == "fail"


def test_an_annotator_outside_the_study_learns_nothing_of_it_on_any_grading_route(
    study, graders, make_user
):
    assignment = assignment_of(study, graders[0])
    version = factories.rubric_of(assignment)[0]
    resource = rubric_services.add_resource(
        assignment.study_item.response.task, "Handout", None, text="Read this."
    )
    likert = study.likert_items.first()
    outsider = client_for(make_user(Role.ANNOTATOR))
    requests = [
        ("post", reverse("grading:next", args=[study.pk]), {}),
        ("get", page(assignment), {}),
        ("post", save_url(assignment, version), {"verdict": "pass"}),
        ("post", reverse("grading:save_likert", args=[assignment.pk, likert.pk]), {"value": 4}),
        ("post", reverse("grading:submit", args=[assignment.pk]), {}),
        ("get", reverse("grading:assignment_resource", args=[assignment.pk, resource.pk]), {}),
    ]
    for method, url, data in requests:
        response = getattr(outsider, method)(url, data)
        assert response.status_code == 404, url
        assert study.name not in response.content.decode(), url
    assert study.name not in outsider.get(reverse("grading:index")).content.decode()
    assert not Grade.objects.exists()
    assert not Assignment.objects.filter(status=Assignment.Status.IN_PROGRESS).exists()


def test_a_member_claims_the_next_item_from_the_study_page(study, graders):
    response = client_for(graders[0]).post(reverse("grading:next", args=[study.pk]))
    assert response.status_code == 302
    assert response.url == page(assignment_of(study, graders[0]))


def test_the_grading_list_shows_open_studies_before_closed_ones(graders, django_assert_num_queries):
    closed = factories.study(graders, responses=1, overlap=1)
    opened = factories.study(graders, responses=1, overlap=1)
    services.set_status(closed, Study.Status.CLOSED)
    Study.objects.filter(pk=closed.pk).update(created_at=opened.created_at + timedelta(days=1))
    client = client_for(graders[0])
    with django_assert_num_queries(7):  # session, user, permissions 2, queue 2, submitted 1
        html = client.get(reverse("grading:index")).content.decode()
    assert html.index(opened.name) < html.index(closed.name)


def test_the_apps_own_rating_questions_read_in_the_graders_language_a_studys_own_as_written(
    graders,
):
    study = factories.study(graders[:1], responses=1, overlap=1)  # the default questions
    custom = factories.study(graders[:1], responses=1, overlap=1, likert_prompts=["¿Auténtica?"])
    for made in (study, custom):
        services.assign_study(made)
    graders[0].language = "es"
    graders[0].save()
    client = client_for(graders[0])
    html = client.get(page(assignment_of(study, graders[0]))).content.decode()
    assert "Esta tarea es auténtica" in html and "Totalmente de acuerdo" in html
    assert "This task is authentic" not in html and "Strongly agree" not in html
    # Stored as the app wrote them: files, exports and the judge read them so.
    assert study.likert_items.first().prompt.startswith("This task is authentic")
    html = client.get(page(assignment_of(custom, graders[0]))).content.decode()
    assert "¿Auténtica?" in html
