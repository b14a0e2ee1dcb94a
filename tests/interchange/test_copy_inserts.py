"""Bulk inserts of l2annot.bulk_insert (PostgreSQL's COPY; on SQLite, plain rows through one
executemany INSERT) write the rows bulk_create writes: the same values, the same ids handed
back, the imports' rows alike whichever path wrote them. Every comparison runs on both
databases."""

from datetime import datetime
from typing import Any

import pytest
from django.db import connection, models, transaction
from django.db.models import Value
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from audit import services as audit
from audit.models import AuditEvent
from core.formats.responses import ResponseRecord, Role
from core.formats.responses import Turn as TurnRecord
from core.formats.synthetic import synthetic_responses, write_jsonl
from interchange.importers import import_l2bench, import_responses
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


def written(use_copy: bool, write, monkeypatch) -> dict[str, list[Any]]:
    """The rows `write()` leaves, written with or without COPY, then rolled back."""
    monkeypatch.setattr(bulk_insert, "DIRECT", use_copy)
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
    turns = tuple(
        TurnRecord(Role.USER if i % 2 else Role.ASSISTANT, t or " ") for i, t in enumerate(AWKWARD)
    )
    records[1] = ResponseRecord(tasks[0].task_key, "m-d", turns=turns, family="f", epoch=2)
    responses = write_jsonl(tmp_path / "r.jsonl", records)
    # Imported again with one text and one dialogue changed: updates beside the new rows.
    records[0] = ResponseRecord(tasks[0].task_key, "m-c", response="changed")
    records[1] = ResponseRecord(tasks[0].task_key, "m-d", turns=turns[:2], family="f", epoch=2)
    records.append(ResponseRecord(tasks[1].task_key, "m-e", response="new", version="v1"))
    again = write_jsonl(tmp_path / "again.jsonl", records)

    def write() -> None:
        assert import_l2bench(folder, starter_framework).ok
        assert import_responses(responses, starter_framework).ok
        report = import_responses(again, starter_framework)
        assert report.ok and report.counts["responses"].updated == 2

    through_copy = written(True, write, monkeypatch)
    assert through_copy == written(False, write, monkeypatch)
    assert len(through_copy["AuditEvent"]) > len(through_copy["Task"]) > 0
    assert len(through_copy["RubricItem"]) > 0 and len(through_copy["Response"]) == 13
    assert len(through_copy["Turn"]) == 2
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
                Response(task=task, external_id=12, model_name="m", epoch="3", text="x"),
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
            [Criterion(framework=starter_framework, code="U-1", layer="universal", retired=1)],
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


def make_task(framework) -> Task:
    sub = framework.competencies.first().sub_competencies.first()
    return Task.objects.create(
        framework=framework, key="t-1", sub_competency=sub, instruction="Do."
    )


def test_plain_rows_are_written_as_bulk_create_writes_them(starter_framework, monkeypatch):
    """insert_rows: the values as given (an integer for a text column, a text for an integer
    one, a choice, awkward texts), the columns not named at their defaults, ids in order."""
    task = make_task(starter_framework)
    made: dict[bool, list[int]] = {}

    def write(direct: bool) -> None:
        made[direct] = bulk_insert.insert_rows(
            Response,
            ("task_id", "external_id", "model_name", "epoch", "kind", "text"),
            [
                (task.pk, f"r{i}", "m", i + 1, Response.Kind.TEXT, text or " ")
                for i, text in enumerate(AWKWARD)
            ]
            + [(task.pk, 12, "m", "3", "conversation", "")],
        )
        bulk_insert.insert_rows(
            Turn,
            ("response_id", "index", "role", "content"),
            [(made[direct][-1], i, "user", text) for i, text in enumerate(AWKWARD)],
        )
        bulk_insert.insert_rows(
            AuditEvent,
            ("content_type_id", "object_id", "object_repr", "kind", "changes"),
            [(1, 7, "x", AuditEvent.Kind.IMPORTED, {"k": AWKWARD, "n": None})],
        )
        stored = list(Response.objects.order_by("pk").values_list("pk", "external_id"))
        assert stored == [(pk, f"r{i}") for i, pk in enumerate(made[direct][:-1])] + [
            (made[direct][-1], "12")
        ]

    plain = written(True, lambda: write(True), monkeypatch)
    assert plain == written(False, lambda: write(False), monkeypatch)
    assert [row[6] for row in plain["Response"]] == [1, 2, 3, 4, 5, 6, 7, 3]
    assert plain["AuditEvent"][-1][2:] == (
        *(7, "x", None, "imported", {"k": AWKWARD, "n": None}, ""),
        {},  # no message: the default a column left out takes
    )
    assert [row[1:] for row in plain["Turn"]] == [(7, i, "user", t) for i, t in enumerate(AWKWARD)]


def test_plain_rows_are_stamped_with_the_time_of_their_insert(starter_framework):
    task = make_task(starter_framework)
    before = timezone.now()
    ids = bulk_insert.insert_rows(
        Response, ("task_id", "model_name", "text"), [(task.pk, "m", "x")]
    )
    stored = Response.objects.get(pk=ids[0])
    assert before <= stored.created_at <= timezone.now()
    assert stored.epoch == 1 and stored.kind == "text" and stored.model_family == ""


def test_plain_rows_never_reuse_the_id_of_a_deleted_row(starter_framework):
    task = make_task(starter_framework)
    first = bulk_insert.insert_rows(
        Response, ("task_id", "external_id", "model_name", "text"), [(task.pk, "a", "m", "x")]
    )
    last = Response.objects.create(task=task, external_id="b", model_name="m", text="x").pk
    Response.objects.filter(pk=last).delete()
    again = bulk_insert.insert_rows(
        Response, ("task_id", "external_id", "model_name", "text"), [(task.pk, "c", "m", "x")] * 1
    )
    assert first[0] < last < again[0]
    # The ordinary insert, after them, continues past the ids taken.
    assert Response.objects.create(task=task, model_name="m", text="x").pk > again[0]


def test_plain_rows_go_in_one_statement_after_their_ids(starter_framework):
    task = make_task(starter_framework)
    rows = [(task.pk, f"r{i}", "m", "x") for i in range(1200)]
    with CaptureQueriesContext(connection) as queries:
        ids = bulk_insert.insert_rows(
            Response, ("task_id", "external_id", "model_name", "text"), rows
        )
    statements = [q["sql"] for q in queries]
    assert statements[0].startswith("SELECT")
    if connection.vendor == "postgresql":
        assert len(statements) == 1  # COPY is not an execute
    else:
        assert len(statements) == 2 and "INSERT INTO" in statements[1]  # one executemany
    assert len(set(ids)) == 1200 and Response.objects.count() == 1200


def test_rows_that_are_sql_expressions_are_refused(starter_framework):
    task = make_task(starter_framework)
    with pytest.raises(TypeError):
        bulk_insert.insert_rows(
            Response, ("task_id", "model_name", "text"), [(task.pk, "m", Value("x"))]
        )


def test_events_recorded_from_rows_are_those_of_event_and_record_many(
    starter_framework, django_user_model, monkeypatch
):
    task = make_task(starter_framework)
    by = django_user_model.objects.create_user("ann", password="pw")
    responses = [
        Response.objects.create(
            task=task, external_id=f"r{i}", model_name="m" * (200 - i), text="x"
        )
        for i in range(3)
    ]
    changes = [{"model_name": [None, r.model_name]} for r in responses]

    def from_objects() -> None:
        audit.record_many(
            audit.event(r, AuditEvent.Kind.IMPORTED, by, c, "note")
            for r, c in zip(responses, changes, strict=True)
        )
        audit.record_many([audit.event(task, "status")])

    def from_rows() -> None:
        audit.record_rows(
            Response,
            AuditEvent.Kind.IMPORTED,
            by,
            (
                (r.pk, Response.describe(r.model_name, task), c)
                for r, c in zip(responses, changes, strict=True)
            ),
            "note",
        )
        audit.record_rows(Task, "status", None, [(task.pk, str(task), None)])

    rows = written(True, from_rows, monkeypatch)
    assert rows == written(True, from_objects, monkeypatch)
    assert [len(row[3]) for row in rows["AuditEvent"][-4:]] == [212, 211, 210, 8]
    # A name is cut to the column's length, as event() cuts it.
    (event_id,) = audit.record_rows(Task, "status", None, [(task.pk, "x" * 400, None)])
    assert AuditEvent.objects.get(pk=event_id).object_repr == "x" * 300


def test_an_imported_response_is_named_in_its_history_as_it_is_named_anywhere(
    tmp_path, starter_framework
):
    tasks = generated(2)
    assert import_l2bench(benchmark_folder(tmp_path / "bench", tasks), starter_framework).ok
    records = synthetic_responses(tasks, ["m-a"])
    assert import_responses(write_jsonl(tmp_path / "r.jsonl", records), starter_framework).ok
    for response in Response.objects.all():
        (event,) = AuditEvent.objects.for_object(response)
        assert (event.object_repr, event.kind, event.changes, event.actor_id) == (
            str(response),
            "imported",
            {"model_name": [None, response.model_name]},
            None,
        )


def test_plain_rows_name_columns_other_than_the_primary_key(starter_framework):
    with pytest.raises(ValueError):
        bulk_insert.insert_rows(Response, ("id", "model_name"), [(1, "m")])
    with pytest.raises(ValueError):
        bulk_insert.insert_rows(Response, ("task", "model_name"), [(1, "m")])


def test_an_imported_benchmark_is_in_the_history_as_event_would_record_it(
    tmp_path, starter_framework
):
    """Tasks, criteria and their publication are recorded from plain rows: each event is the
    one audit.event makes of the object."""
    tasks = generated(3)
    assert import_l2bench(benchmark_folder(tmp_path / "bench", tasks), starter_framework).ok
    objects = [*Task.objects.all(), *Criterion.objects.all()]
    assert len(objects) > 3
    for obj in objects:
        events = AuditEvent.objects.for_object(obj).order_by("pk")
        assert events.exists()
        for stored in events:
            made = audit.event(obj, stored.kind, None, stored.changes, stored.comment)
            assert (stored.content_type_id, stored.object_id, stored.object_repr) == (
                made.content_type_id,
                made.object_id,
                made.object_repr,
            )
    published = AuditEvent.objects.filter(kind="status")
    assert published.count() == Task.objects.filter(status="published").count() > 0
    assert {e.changes["status"][1] for e in published} == {"published"}
