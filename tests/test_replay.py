"""tests/replay.py writes again the rows a builder wrote the first time: the same rows, ids
included, as the builder's own services write them; a call meeting rows in the way builds."""

import pytest
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.db import models, transaction

from accounts.models import User
from accounts.roles import Role
from accounts.services import sync_roles
from audit.models import AuditEvent
from grading.models import Grade, ResultsRevision, Study
from rubrics.models import Response
from taxonomy.models import ContextValue, Framework, ProficiencyLevel
from tests import factories
from tests.replay import Replayed, replayed_by_arguments

pytestmark = pytest.mark.django_db


def every_row() -> dict[str, list[tuple]]:
    """The rows of the tables the starter loaders write, without the times they were written."""
    tables: list[type[models.Model]] = [AuditEvent, Framework, ContextValue, ProficiencyLevel]
    rows = {}
    for model in tables:
        fields = [
            f.attname
            for f in model._meta.concrete_fields
            if not isinstance(f, models.DateTimeField)
        ]
        rows[model.__name__] = list(model._base_manager.order_by("pk").values_list(*fields))
    return rows


def test_the_rows_written_again_are_those_the_loaders_wrote():
    load = Replayed(factories._load_starter_framework)
    with transaction.atomic():
        built = load()  # the loaders themselves, recorded
        loaded = every_row()
        transaction.set_rollback(True)
    assert load.rows is not None and Framework.objects.count() == 0
    again = load()
    assert again.pk == built.pk and again.code == built.code
    assert every_row() == loaded
    assert len(loaded["AuditEvent"]) > 100 and len(loaded["ContextValue"]) > 100


def test_rows_are_written_again_with_the_content_types_read_afresh():
    """As after a transactional test's flush: the content types' ids are looked up again
    (before PostgreSQL's COPY starts, which holds the connection until it ends)."""
    load = Replayed(factories._load_starter_framework)
    with transaction.atomic():
        load()
        loaded = every_row()
        transaction.set_rollback(True)
    with transaction.atomic():
        load()  # written again: the inserts are made ready
        transaction.set_rollback(True)
    ContentType.objects.clear_cache()
    load()
    assert every_row()["AuditEvent"] == loaded["AuditEvent"]


def test_a_call_meeting_the_rows_in_the_way_runs_the_builder():
    load = Replayed(factories._load_starter_framework)
    with transaction.atomic():
        load()
        transaction.set_rollback(True)
    calls = []

    def counted():
        calls.append(1)
        return factories._load_starter_framework()

    load.build = counted
    first = load()  # written again: the builder is not called
    second = load()  # the rows are there: the loaders update them in place
    assert calls == [1] and second.pk == first.pk


def graded_study_rows() -> dict[str, list[tuple]]:
    return {
        "grades": list(
            Grade.objects.order_by("pk").values_list("pk", "assignment_id", "verdict", "rationale")
        ),
        "revisions": list(ResultsRevision.objects.values_list("study_id", "value")),
        "roles": sorted(User.objects.values_list("username", "groups__name")),
    }


def test_a_graded_study_is_written_again_with_its_revision_and_the_graders_roles():
    """Rows pointing at the role groups `migrate` made are written again pointing at the groups
    there are now (a flush makes them anew), and a table keyed by its study's id is recorded."""
    build = Replayed(lambda: factories._graded_demo_study(responses=1))
    with transaction.atomic():
        built = build()
        graded = graded_study_rows()
        transaction.set_rollback(True)
    assert build.rows is not None and graded["revisions"] and graded["grades"]
    Group.objects.all().delete()
    sync_roles()  # the groups again, under new ids
    again = build()
    assert isinstance(again, Study) and again.pk == built.pk
    assert graded_study_rows() == graded
    assert ("grader0", Role.ANNOTATOR.value) in graded["roles"]


def test_a_builder_picking_rows_it_did_not_write_builds_when_there_are_others():
    calls = []

    def first_response() -> tuple[Framework, list[Response]]:
        calls.append(1)
        framework = factories.make_framework("replayed")
        task = factories.published_task(framework)
        factories.response(task)
        return framework, [Response.objects.order_by("pk").first()]

    build = replayed_by_arguments(first_response, reads=[Response])
    with transaction.atomic():
        framework, (picked,) = build()
        transaction.set_rollback(True)
    again, (picked_again,) = build()  # written again, as a tuple of its objects
    assert calls == [1] and (again.pk, picked_again.pk) == (framework.pk, picked.pk)


def test_a_builder_meeting_other_rows_in_a_table_it_reads_runs_again():
    calls = []

    def first_response() -> Response:
        calls.append(1)
        return Response.objects.order_by("pk").first() or factories.response(
            factories.published_task()
        )

    build = Replayed(first_response, reads=[Response])
    with transaction.atomic():
        build()
        transaction.set_rollback(True)
    mine = factories.response(factories.published_task())
    assert build() == mine and calls == [1, 1]
