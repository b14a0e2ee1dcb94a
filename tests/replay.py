"""Rows a slow builder writes, recorded the first time it runs in a test process and written
again as they were by its later calls: one COPY (PostgreSQL) or executemany INSERT (SQLite) per
table instead of the builder's hundreds of validated queries (loading the starter taxonomy was a
fifth of many tests' time). The rows' values are made ready for the database once, at the first
replay (Django's bulk_create made them again on every call, five sixths of a replay's time);
only the times a row's `auto_now` fields take, as bulk_create would give them, and the content
types' ids (which a flush changes) are filled in on each call.

The first call runs the builder itself, so what is recorded is what the application writes; a
call that cannot write the rows again as they were (the database already holds one of their
keys or unique values) runs the builder too. The builders' own tests call the services, not
this."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, connection, models, transaction
from django.db.models import Max
from django.utils import timezone

from l2annot.bulk_insert import write_rows

Rows = list[tuple[type[models.Model], list[dict[str, Any]]]]


def _tables() -> list[type[models.Model]]:
    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    ]


def _numbered(model: type[models.Model]) -> bool:
    return isinstance(model._meta.pk, models.AutoField | models.BigAutoField)


class Replayed[T: models.Model]:
    def __init__(self, build: Callable[[], T]) -> None:
        self.build = build
        self.rows: Rows | None = None
        self.replayable = True
        self.result: tuple[type[T], Any] | None = None
        self.inserts: list[_Insert] | None = None

    def __call__(self) -> T:
        if self.rows is None:
            return self._record() if self.replayable else self.build()
        try:
            return self._write_again()
        except IntegrityError:
            return self.build()

    def _record(self) -> T:
        tables = _tables()
        before = {
            model: model._base_manager.aggregate(top=Max("pk"))["top"] or 0
            if _numbered(model)
            else model._base_manager.count()
            for model in tables
        }
        built = self.build()
        rows: Rows = []
        for model in tables:
            if not _numbered(model):
                if model._base_manager.count() != before[model]:
                    self.replayable = False  # rows without a number to tell them by
                continue
            written = list(model._base_manager.filter(pk__gt=before[model]).order_by("pk").values())
            if written:
                rows.append((model, written))
        recorded = {model for model, _ in rows}
        for model, written in rows:
            for field in model._meta.concrete_fields:
                if not field.is_relation or field.related_model in recorded:
                    continue
                if field.related_model is ContentType:  # its ids change when a test flushes
                    for row in written:
                        if row[field.attname] is not None:
                            row[field.attname] = _natural_key(row[field.attname])
                elif any(row[field.attname] is not None for row in written):
                    self.replayable = False  # points at rows the builder did not write
        if (type(built), built.pk) not in {
            (model, row[model._meta.pk.attname]) for model, written in rows for row in written
        }:
            self.replayable = False  # the builder changed rows it found rather than writing
        if self.replayable:
            self.rows = rows
            self.result = (type(built), built.pk)
        return built

    def _write_again(self) -> T:
        assert self.rows is not None and self.result is not None
        if self.inserts is None:
            self.inserts = [_Insert.of(model, written) for model, written in self.rows]
        with transaction.atomic(), connection.cursor() as cursor:
            now = timezone.now()
            for insert in self.inserts:
                insert.write(cursor, now)
            _sequences_past_the_rows_written([model for model, _ in self.rows])
        model, pk = self.result
        return model._base_manager.get(pk=pk)


@dataclass(frozen=True)
class _Insert:
    """One table's recorded rows, their values made ready for the database once; `stamped`
    and `content_types` are the places filled in at each call."""

    model: type[models.Model]
    fields: list[models.Field]
    rows: list[list[Any]]
    stamped: list[int]
    content_types: list[int]

    @classmethod
    def of(cls, model: type[models.Model], written: list[dict[str, Any]]) -> "_Insert":
        fields = list(model._meta.concrete_fields)
        stamped = [
            n
            for n, field in enumerate(fields)
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)
        ]
        content_types = [
            n
            for n, field in enumerate(fields)
            if field.is_relation and field.related_model is ContentType
        ]
        kept = set(stamped) | set(content_types)
        rows = [
            [
                row[field.attname]
                if n in kept
                else field.get_db_prep_save(row[field.attname], connection)
                for n, field in enumerate(fields)
            ]
            for row in written
        ]
        return cls(model, fields, rows, stamped, content_types)

    def write(self, cursor: Any, now: Any) -> None:
        rows = self.values(now)  # before the COPY: it may read content types
        with connection.wrap_database_errors:  # a row in the way: IntegrityError
            write_rows(cursor, self.model, self.fields, rows)

    def values(self, now: Any) -> list[list[Any]]:
        if not (self.stamped or self.content_types):
            return self.rows
        stamps = {n: self.fields[n].get_db_prep_save(now, connection) for n in self.stamped}
        rows = []
        for recorded in self.rows:
            row = list(recorded)
            for n in self.content_types:
                if row[n] is not None:
                    row[n] = ContentType.objects.get_by_natural_key(*row[n]).pk
            for n, stamp in stamps.items():
                row[n] = stamp
            rows.append(row)
        return rows


def _sequences_past_the_rows_written(tables: list[type[models.Model]]) -> None:
    """On PostgreSQL a row written with its id leaves the table's sequence where it was, and a
    sequence may stand below ids it once gave (the bulk inserts of l2annot.bulk_insert set it):
    the next row would be given one of the ids just written."""
    if connection.vendor != "postgresql":
        return  # SQLite's AUTOINCREMENT follows the largest id written
    with connection.cursor() as cursor:
        for model in tables:
            table, column = model._meta.db_table, model._meta.pk.column
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence(%s, %s), GREATEST("
                f"(SELECT MAX({connection.ops.quote_name(column)}) "
                f"FROM {connection.ops.quote_name(table)}), "
                f"nextval(pg_get_serial_sequence(%s, %s))))",
                [table, column, table, column],
            )


def _natural_key(content_type_id: int) -> tuple[str, str]:
    content_type = ContentType.objects.get_for_id(content_type_id)
    return (content_type.app_label, content_type.model)
