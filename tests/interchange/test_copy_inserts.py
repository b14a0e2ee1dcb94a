"""Bulk inserts through PostgreSQL's COPY (l2annot.bulk_insert) write the rows bulk_create
writes: the same values, the same ids handed back, the imports' rows alike whichever path wrote
them. On SQLite both paths are bulk_create; the comparisons still run there."""

from datetime import datetime
from typing import Any

import pytest
from django.db import connection, models, transaction
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEvent
from interchange.formats.responses import ResponseRecord
from interchange.importers import import_l2bench, import_responses
from interchange.synthetic import synthetic_responses, write_jsonl
from l2annot import bulk_insert
from rubrics.models import (
    Criterion,
    CriterionVersion,
    Layer,
    PublishedContextValue,
    PublishedResource,
    Response,
    Task,
    Turn,
)
from tests.factories import benchmark_folder, generated
from tests.interchange.db_helpers import MODELS

WRITTEN = [*MODELS, PublishedContextValue, PublishedResource]

pytestmark = pytest.mark.django_db
on_postgres = pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY is PostgreSQL's")

# What COPY's text format escapes, and what it must not mistake for its own markers.
AWKWARD = ["tab\there", "new\nline\r\n", "back\\slash \\N", "\\N", "", "ß — «ñ» 文字 🙂", "a,b;'\""]


def rows_of(model: type[models.Model], ids: dict[type[models.Model], dict[int, int]]) -> list[Any]:
    """Every row of `model`, without the times the database fills in, each id (its own, a
    foreign key's, an audit event's object id) replaced by its rank among its table's ids."""
    fields = [f for f in model._meta.concrete_fields if not isinstance(f, models.DateTimeField)]
    rows = []
    for obj in model._default_manager.order_by("pk"):
        row = []
        for field in fields:
            value = getattr(obj, field.attname)
            if isinstance(field, models.FileField):
                value = bool(value)  # stored under a new name each time
            target = (
                field.related_model if field.is_relation else model if field.primary_key else None
            )
            if isinstance(obj, AuditEvent) and field.name == "object_id":
                target, value = obj.content_type.model_class(), int(value)
            if target in ids and value is not None:
                value = ids[target][value]
            row.append(value)
        rows.append(tuple(row))
    return rows


def database_rows() -> dict[str, list[Any]]:
    ids = {
        model: {
            pk: rank
            for rank, pk in enumerate(
                model._default_manager.order_by("pk").values_list("pk", flat=True)
            )
        }
        for model in WRITTEN
    }
    return {model.__name__: rows_of(model, ids) for model in WRITTEN}


def written(use_copy: bool, write, monkeypatch) -> dict[str, list[Any]]:  # type: ignore[no-untyped-def]
    """The rows `write()` leaves, written with or without COPY, then rolled back."""
    monkeypatch.setattr(bulk_insert, "USE_COPY", use_copy)
    with transaction.atomic():
        write()
        rows = database_rows()
        transaction.set_rollback(True)
    return rows


def test_an_import_writes_the_same_rows_through_copy_as_through_bulk_create(
    tmp_path, starter_framework, monkeypatch
):
    tasks = generated(6)
    folder = benchmark_folder(tmp_path / "bench", tasks)
    records = synthetic_responses(tasks, ["m-a", "m-b"])
    records[0] = ResponseRecord(tasks[0].task_key, "m-c", response="\n".join(AWKWARD))
    responses = write_jsonl(tmp_path / "r.jsonl", records)

    def write() -> None:
        assert import_l2bench(folder, starter_framework).ok
        assert import_responses(responses, starter_framework).ok

    through_copy = written(True, write, monkeypatch)
    assert through_copy == written(False, write, monkeypatch)
    assert len(through_copy["AuditEvent"]) > len(through_copy["Task"]) > 0
    assert len(through_copy["RubricItem"]) > 0 and len(through_copy["Response"]) == 12
    assert Task.objects.count() == 0  # both rolled back


def test_inserted_objects_come_back_saved_with_their_ids(starter_framework):
    sub = starter_framework.competencies.first().sub_competencies.first()
    task = Task.objects.create(
        framework=starter_framework, key="t-1", sub_competency=sub, instruction="Do."
    )
    made = bulk_insert.insert(
        Response,
        [
            Response(task=task, external_id=f"r{i}", model_name="m", text=t or " ")
            for i, t in enumerate(AWKWARD)
        ],
    )
    assert [r.pk for r in made] == sorted(r.pk for r in made) and None not in {r.pk for r in made}
    assert all(not r._state.adding for r in made)
    stored = {r.pk: (r.external_id, r.text) for r in Response.objects.all()}
    assert stored == {r.pk: (r.external_id, r.text) for r in made}
    assert all(isinstance(r.created_at, datetime) for r in Response.objects.all())
    # Children take the new ids through the objects, as after bulk_create.
    turns = bulk_insert.insert(Turn, [Turn(response=made[0], index=0, role="user", content="\\N")])
    assert Turn.objects.get(pk=turns[0].pk).response_id == made[0].pk
    criterion = bulk_insert.insert(
        Criterion, [Criterion(framework=starter_framework, code="U-1", layer=Layer.UNIVERSAL)]
    )[0]
    version = bulk_insert.insert(
        CriterionVersion,
        [CriterionVersion(criterion=criterion, number=1, wording="W", weight=-7)],
    )[0]
    assert CriterionVersion.objects.get(pk=version.pk).weight == -7
    event = bulk_insert.insert(
        AuditEvent,
        [
            AuditEvent(
                content_type_id=1,
                object_id="1",
                object_repr="x",
                kind="created",
                changes={"k": AWKWARD, "n": None},
            )
        ],
    )[0]
    assert AuditEvent.objects.get(pk=event.pk).changes == {"k": AWKWARD, "n": None}
    assert bulk_insert.insert(Turn, []) == []


def test_values_of_another_type_than_the_columns_are_converted_as_bulk_create_does(
    starter_framework, monkeypatch
):
    """Texts, integers and booleans of their column's type go to COPY as they are; anything
    else (an integer for a text column, a text for an integer one, a choice) is converted by
    its field first, as bulk_create would."""
    sub = starter_framework.competencies.first().sub_competencies.first()
    task = Task.objects.create(
        framework=starter_framework, key="t-1", sub_competency=sub, instruction="Do."
    )

    def write() -> None:
        bulk_insert.insert(
            Response,
            [
                # An integer for a text column and a text for an integer one.
                Response(task=task, external_id=12, model_name="m", epoch="3", text="x"),  # type: ignore[misc]
                Response(
                    task_id=task.pk,
                    external_id="",
                    model_name="m",
                    kind=Response.Kind.TEXT,
                    text="y",
                ),
            ],
        )
        bulk_insert.insert(
            Criterion,
            [Criterion(framework=starter_framework, code="U-1", layer="universal", retired=1)],  # type: ignore[misc]
        )

    through_copy = written(True, write, monkeypatch)
    assert through_copy == written(False, write, monkeypatch)
    assert [row[2:6] for row in through_copy["Response"]] == [
        ("12", "m", "", ""),
        ("", "m", "", ""),
    ]
    stored_epochs = [row[6] for row in through_copy["Response"]]
    assert stored_epochs == [3, 1]


def test_times_stamped_on_insert_are_stored_as_the_objects_hold_them(starter_framework):
    sub = starter_framework.competencies.first().sub_competencies.first()
    task = Task.objects.create(
        framework=starter_framework, key="t-1", sub_competency=sub, instruction="Do."
    )
    made = bulk_insert.insert(
        Response,
        [Response(task=task, external_id=f"r{i}", model_name="m", text="x") for i in range(3)],
    )
    events = bulk_insert.insert(
        AuditEvent, [AuditEvent(content_type_id=1, object_id="1", object_repr="x", kind="created")]
    )
    assert {r.pk: r.created_at for r in Response.objects.all()} == {
        r.pk: r.created_at for r in made
    }
    assert all(r.created_at.tzinfo is not None for r in made)
    assert AuditEvent.objects.get(pk=events[0].pk).at == events[0].at


@on_postgres
def test_on_postgresql_the_rows_go_through_copy_not_insert(starter_framework):
    with CaptureQueriesContext(connection) as queries:
        bulk_insert.insert(
            Criterion,
            [
                Criterion(framework=starter_framework, code=f"U-{i}", layer=Layer.UNIVERSAL)
                for i in range(3)
            ],
        )
    assert [q["sql"].split()[0] for q in queries] == ["SELECT"]  # the ids; COPY is not an execute
    assert Criterion.objects.filter(code__startswith="U-").count() == 3
