"""Rows a slow builder writes, recorded the first time it runs in a test process and written
again as they were by its later calls: one bulk insert per table instead of the builder's
hundreds of validated queries (loading the starter taxonomy was a fifth of many tests' time).

The first call runs the builder itself, so what is recorded is what the application writes; a
call that cannot write the rows again as they were (the database already holds one of their
keys or unique values) runs the builder too. The builders' own tests call the services, not
this."""

from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, connection, models, transaction
from django.db.models import Max

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
        with transaction.atomic():
            for model, written in self.rows:
                model._base_manager.bulk_create(
                    [model(**_resolved(model, row)) for row in written], batch_size=500
                )
            _sequences_past_the_rows_written([model for model, _ in self.rows])
        model, pk = self.result
        return model._base_manager.get(pk=pk)


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


def _resolved(model: type[models.Model], row: dict[str, Any]) -> dict[str, Any]:
    resolved = dict(row)
    for field in model._meta.concrete_fields:
        value = row[field.attname]
        if field.is_relation and field.related_model is ContentType and value is not None:
            resolved[field.attname] = ContentType.objects.get_by_natural_key(*value).pk
    return resolved
