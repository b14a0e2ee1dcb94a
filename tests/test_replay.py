"""tests/replay.py writes again the rows a builder wrote the first time: the same rows, ids
included, as the builder's own services write them; a call meeting rows in the way builds."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import models, transaction

from audit.models import AuditEvent
from taxonomy.models import ContextValue, Framework, ProficiencyLevel
from tests import factories
from tests.replay import Replayed

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
