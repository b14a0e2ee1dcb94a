"""rubrics.responses: a response that anything points at is never rewritten; a change makes its
next version, the old one kept for the studies, grades and verdicts that hold it."""

import pytest
from django.contrib import admin
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.roles import Role
from audit.models import AuditEvent
from grading.models import Grade, StudyItem, TurnGrade
from judging.models import JudgeRating, JudgeRun, JudgeVerdict, TriageResolution
from rubrics import responses, services
from rubrics.models import CriterionVersion, Response, Turn
from rubrics.responses import Outcome, ResponseChangedMeanwhile, ResponseSpec, save_responses
from rubrics.services import TurnSpec
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def graders(make_user):
    return [make_user(Role.ANNOTATOR), make_user(Role.ANNOTATOR)]


def spec(task, text="Changed.", **fields):
    values = {"model_name": "model-a", "external_id": "r1", "model_family": "family-a"}
    values |= {"model_version": "1.0", "text": text}
    return ResponseSpec(task=task, **(values | fields))


def events():
    return AuditEvent.objects.filter(content_type__model="response").count()


def test_every_model_pointing_at_a_response_or_its_turns_makes_it_held():
    """A model that points at responses added later is found without naming it here."""
    found = {(model, path) for model, path in responses.dependent_relations()}
    assert found == {
        (StudyItem, "response"),
        (JudgeVerdict, "response"),
        (JudgeRating, "response"),
        (TriageResolution, "response"),
        (TurnGrade, "turn__response"),
        (JudgeVerdict, "turn__response"),
    }


def test_a_response_nothing_points_at_is_changed_in_place(task):
    first, _ = services.record_response(task, "model-a", text="Old.", external_id="r1")
    (saved,) = save_responses([spec(task)])
    assert (saved.outcome, saved.response_id, saved.version) == (Outcome.UPDATED, first.pk, 1)
    assert Response.objects.get().text == "Changed."


def test_a_graded_response_gets_a_new_version_and_its_grades_keep_the_text_they_graded(graders):
    study = factories.graded_imported_study(graders)
    item = study.items.get()
    graded = item.response
    submitted = list(Grade.objects.filter(assignment__study_item=item).values_list("pk", flat=True))

    (saved,) = save_responses([spec(graded.task, text="A **new** text.")])

    assert saved.outcome == Outcome.NEW_VERSION
    assert (saved.version, saved.previous_id, saved.previous_version) == (2, graded.pk, 1)
    assert saved.changed == ("text",)
    old, new = Response.objects.filter(external_id="r1").order_by("version")
    assert (old.pk, old.text, old.is_current) == (graded.pk, factories.TEXT_V1, False)
    assert (new.pk, new.text, new.version, new.is_current) == (
        saved.response_id,
        "A **new** text.",
        2,
        True,
    )
    assert new.task_id == old.task_id and new.model_name == "model-a"
    # The study's unit and every submitted grade still read the text they graded.
    assert list(study.items.values_list("pk", "response_id")) == [(item.pk, graded.pk)]
    for grade in Grade.objects.filter(pk__in=submitted).select_related(
        "assignment__study_item__response"
    ):
        assert grade.assignment.study_item.response.text == factories.TEXT_V1
    assert Response.objects.current().get(external_id="r1") == new


def test_a_dialogue_graded_turn_by_turn_gets_a_new_version_and_its_turn_grades_keep_their_turns(
    graders,
):
    study = factories.graded_imported_study(graders, dialogue=True)
    graded = study.items.get().response
    turn_grades = TurnGrade.objects.filter(turn__response=graded)
    assert turn_grades.exists()
    turns = (("user", "Can you help me?"), ("assistant", "Yes: say *hello*."))

    (saved,) = save_responses([spec(graded.task, text="", kind="conversation", turns=turns)])

    assert (saved.outcome, saved.changed) == (Outcome.NEW_VERSION, ("turns",))
    assert list(graded.turns.values_list("role", "content")) == list(factories.DIALOGUE_V1)
    assert {grade.turn.response_id for grade in turn_grades} == {graded.pk}
    new = Response.objects.get(pk=saved.response_id)
    assert list(new.turns.values_list("role", "content")) == list(turns)


@pytest.mark.parametrize(
    ("field", "value"),
    [("model_name", "model-b"), ("model_family", "family-b"), ("model_version", "2.0")],
)
def test_a_changed_model_name_family_or_version_is_a_new_version(graders, field, value):
    study = factories.graded_imported_study(graders)
    graded = study.items.get().response

    (saved,) = save_responses([spec(graded.task, text=factories.TEXT_V1, **{field: value})])

    assert (saved.outcome, saved.changed) == (Outcome.NEW_VERSION, (field,))
    graded.refresh_from_db()
    assert getattr(graded, field) == {"model_name": "model-a", "model_family": "family-a"}.get(
        field, "1.0"
    )
    assert getattr(Response.objects.get(pk=saved.response_id), field) == value


def test_a_judge_verdict_alone_keeps_a_response_from_being_rewritten(task):
    judged, _ = services.record_response(task, "model-a", text="Old.", external_id="r1")
    version = CriterionVersion.objects.filter(criterion__task=task).first()
    run = JudgeRun.objects.create(judge_model="judge", prompt_version="p1")
    JudgeVerdict.objects.create(run=run, response=judged, criterion_version=version, verdict=True)

    (saved,) = save_responses([spec(task)])

    assert saved.outcome == Outcome.NEW_VERSION
    assert Response.objects.get(pk=judged.pk).text == "Old."


def test_an_unchanged_response_writes_nothing(graders):
    study = factories.graded_imported_study(graders)
    graded = study.items.get().response
    before = (Response.objects.count(), Turn.objects.count(), events())

    (saved,) = save_responses([spec(graded.task, text=factories.TEXT_V1)])

    assert (saved.outcome, saved.response_id, saved.version) == (Outcome.UNCHANGED, graded.pk, 1)
    assert (Response.objects.count(), Turn.objects.count(), events()) == before


def test_a_new_version_is_in_the_history_of_both_versions(graders, make_user):
    study = factories.graded_imported_study(graders)
    graded = study.items.get().response
    importer = make_user(Role.MAINTAINER)

    (saved,) = save_responses([spec(graded.task, text="Two.")], importer, change_comment="Why.")

    new_event = AuditEvent.objects.for_object(Response.objects.get(pk=saved.response_id)).get()
    assert (new_event.kind, new_event.actor, new_event.comment) == ("imported", importer, "Why.")
    assert new_event.changes == {"text": [factories.TEXT_V1, "Two."], "version": [1, 2]}
    old_event = AuditEvent.objects.for_object(graded).latest("pk")
    assert old_event.kind == "updated" and list(old_event.changes) == ["superseded_at"]


def test_a_third_change_makes_version_three_and_leaves_version_two_to_what_holds_it(graders):
    study = factories.graded_imported_study(graders)
    task = study.items.get().response.task
    (second,) = save_responses([spec(task, text="Two.")])
    # Nothing holds version 2 yet: it changes in place.
    (same,) = save_responses([spec(task, text="Two, again.")])
    assert (same.outcome, same.response_id, same.version) == (
        Outcome.UPDATED,
        second.response_id,
        2,
    )
    run = JudgeRun.objects.create(judge_model="judge", prompt_version="p1")
    JudgeRating.objects.create(run=run, response_id=second.response_id, question="q", value=3)
    (third,) = save_responses([spec(task, text="Three.")])
    assert (third.outcome, third.version, third.previous_version) == (Outcome.NEW_VERSION, 3, 2)
    assert list(
        Response.objects.filter(external_id="r1").order_by("version").values_list("text", flat=True)
    ) == [factories.TEXT_V1, "Two, again.", "Three."]


def test_record_response_returns_the_current_version(graders):
    study = factories.graded_imported_study(graders)
    task = study.items.get().response.task
    current, created = services.record_response(
        task, "model-a", text="New.", external_id="r1", model_family="family-a",
        model_version="1.0",
    )  # fmt: skip
    assert (created, current.version, current.text) == (False, 2, "New.")
    turns, _ = services.record_response(task, "m", turns=[TurnSpec("assistant", "Hi")])
    assert turns.version == 1


def test_the_database_refuses_two_current_versions_of_one_id(task):
    first, _ = services.record_response(task, "model-a", text="One.", external_id="r1")
    with pytest.raises(IntegrityError), transaction.atomic():
        Response.objects.create(task=task, model_name="m", text="Two.", external_id="r1", version=2)
    Response.objects.filter(pk=first.pk).update(superseded_at=timezone.now())
    Response.objects.create(task=task, model_name="m", text="Two.", external_id="r1", version=2)
    with pytest.raises(IntegrityError), transaction.atomic():  # the same version twice
        Response.objects.create(
            task=task, model_name="m", text="x", external_id="r1", version=2,
            superseded_at=timezone.now(),
        )  # fmt: skip


def test_a_response_without_an_id_has_one_version_only(task):
    with pytest.raises(IntegrityError), transaction.atomic():
        Response.objects.create(task=task, model_name="m", text="x", version=2)


def test_a_response_superseded_while_it_was_checked_stops_the_save(graders):
    study = factories.graded_imported_study(graders)
    graded = study.items.get().response
    stale = Response.objects.get(pk=graded.pk)
    Response.objects.filter(pk=graded.pk).update(superseded_at=timezone.now())
    with pytest.raises(ResponseChangedMeanwhile, match="'r1' was changed by another import"):
        responses._lock([stale])


def test_the_admin_does_not_edit_a_held_or_superseded_response(graders, task, rf, make_user):
    study = factories.graded_imported_study(graders)
    held = study.items.get().response
    free, _ = services.record_response(task, "model-a", text="Nobody graded me.", external_id="f1")
    request = rf.get("/")
    request.user = make_user(Role.ADMIN)
    response_admin = admin.site._registry[Response]
    turns_admin = response_admin.get_inline_instances(request, free)[0]
    assert response_admin.has_change_permission(request, free)
    assert turns_admin.has_change_permission(request, free)
    assert not response_admin.has_change_permission(request, held)
    assert not turns_admin.has_add_permission(request, held)
    (saved,) = save_responses([spec(held.task, text="Two.")])
    held.refresh_from_db()
    newer = Response.objects.get(pk=saved.response_id)
    assert not response_admin.has_change_permission(request, held)  # superseded
    assert response_admin.has_change_permission(request, newer)  # current, nothing holds it
