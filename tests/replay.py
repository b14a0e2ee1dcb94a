"""Rows a slow builder writes, recorded the first time it runs in a test process and written
again as they were by its later calls: one COPY (PostgreSQL) or executemany INSERT (SQLite) per
table instead of the builder's hundreds of validated queries (loading the starter taxonomy was a
fifth of many tests' time). The rows' values are made ready for the database once, at the first
replay (Django's bulk_create made them again on every call, five sixths of a replay's time);
only the times a row's `auto_now` fields take, as bulk_create would give them, and the content
types' ids (which a flush changes) are filled in on each call.

The first call runs the builder itself, so what is recorded is what the application writes; a
call that cannot write the rows again as they were (the database already holds one of their
keys or unique values) runs the builder too, as does a call meeting other rows than the first
in a table the builder picks rows from (`reads`: "the first two responses"). Rows the builder
finds rather than writes are those `migrate` makes (content types, the role groups): they are
named by natural key. `replayed_by_arguments` keeps one recording per arguments. The
builders' own tests call the services, not this."""

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, connection, models, transaction
from django.db.models import Max
from django.utils import timezone

from l2annot.bulk_insert import write_rows

Rows = list[tuple[type[models.Model], list[dict[str, Any]]]]
# Tables `migrate` fills (and a transactional test's flush fills again, under new ids).
FOUND_BY_NATURAL_KEY: tuple[type[models.Model], ...] = (ContentType, Group)


def _tables() -> list[type[models.Model]]:
    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    ]


def _numbered(model: type[models.Model]) -> bool:
    """Rows told apart by a growing number: their own id, or that of the row they extend."""
    pk = model._meta.pk
    if _sequenced(model):
        return True
    return bool(pk.one_to_one) and _numbered(pk.related_model)


def _sequenced(model: type[models.Model]) -> bool:
    return isinstance(model._meta.pk, models.AutoField | models.BigAutoField)


class Replayed[T]:
    """`build()` -> a model instance, or a tuple or list of them (nested), which a replay
    reads again by primary key."""

    def __init__(self, build: Callable[[], T], reads: Iterable[type[models.Model]] = ()) -> None:
        self.build = build
        self.reads = tuple(reads)
        self.rows: Rows | None = None
        self.replayable = True
        self.result: Any = None
        self.read_counts: dict[type[models.Model], int] = {}
        self.inserts: list[_Insert] | None = None

    def __call__(self) -> T:
        if self.rows is None:
            return self._record() if self.replayable else self.build()
        if self._read_counts() != self.read_counts:
            return self.build()
        try:
            return self._write_again()
        except IntegrityError:
            return self.build()

    def _read_counts(self) -> dict[type[models.Model], int]:
        return {model: model._base_manager.count() for model in self.reads}

    def _record(self) -> T:
        tables = _tables()
        before = {
            model: model._base_manager.aggregate(top=Max("pk"))["top"] or 0
            if _numbered(model)
            else model._base_manager.count()
            for model in tables
        }
        read_counts = self._read_counts()
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
                if field.related_model in FOUND_BY_NATURAL_KEY:
                    for row in written:
                        if row[field.attname] is not None:
                            row[field.attname] = _natural_key(
                                field.related_model, row[field.attname]
                            )
                elif any(row[field.attname] is not None for row in written):
                    self.replayable = False  # points at rows the builder did not write
        written_keys = {
            (model, row[model._meta.pk.attname]) for model, written in rows for row in written
        }
        if not all(key in written_keys for key in _keys(built)):
            self.replayable = False  # the builder changed rows it found rather than writing
        if self.replayable:
            self.rows = rows
            self.result = _reference(built)
            self.read_counts = read_counts
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
        return _resolve(self.result)


def replayed_by_arguments[**P, T](
    build: Callable[P, T], reads: Iterable[type[models.Model]] = ()
) -> Callable[P, T]:
    """`build`, replayed: one recording for each set of (hashable) arguments it is called with."""
    recordings: dict[tuple[Any, ...], Replayed[T]] = {}

    @functools.wraps(build)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        key = (args, tuple(sorted(kwargs.items())))
        if key not in recordings:
            recordings[key] = Replayed(functools.partial(build, *args, **kwargs), reads)
        return recordings[key]()

    return call


def _keys(built: Any) -> list[tuple[type[models.Model], Any]]:
    if isinstance(built, tuple | list):
        return [key for part in built for key in _keys(part)]
    return [(type(built), built.pk)]


def _reference(built: Any) -> Any:
    if isinstance(built, tuple | list):
        return (type(built), [_reference(part) for part in built])
    return (type(built), built.pk)


def _resolve(reference: Any) -> Any:
    kind, value = reference
    if kind in (tuple, list):
        return kind(_resolve(part) for part in value)
    return kind._base_manager.get(pk=value)


@dataclass(frozen=True)
class _Insert:
    """One table's recorded rows, their values made ready for the database once; `stamped`
    and `found` are the places filled in at each call."""

    model: type[models.Model]
    fields: list[models.Field]
    rows: list[list[Any]]
    stamped: list[int]
    found: dict[int, type[models.Model]]  # position -> a FOUND_BY_NATURAL_KEY table

    @classmethod
    def of(cls, model: type[models.Model], written: list[dict[str, Any]]) -> "_Insert":
        fields = list(model._meta.concrete_fields)
        stamped = [
            n
            for n, field in enumerate(fields)
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)
        ]
        found = {
            n: field.related_model
            for n, field in enumerate(fields)
            if field.is_relation and field.related_model in FOUND_BY_NATURAL_KEY
        }
        kept = set(stamped) | set(found)
        rows = [
            [
                row[field.attname]
                if n in kept
                else field.get_db_prep_save(row[field.attname], connection)
                for n, field in enumerate(fields)
            ]
            for row in written
        ]
        return cls(model, fields, rows, stamped, found)

    def write(self, cursor: Any, now: Any) -> None:
        rows = self.values(now)  # before the COPY: it may read content types and groups
        with connection.wrap_database_errors:  # a row in the way: IntegrityError
            write_rows(cursor, self.model, self.fields, rows)

    def values(self, now: Any) -> list[list[Any]]:
        if not (self.stamped or self.found):
            return self.rows
        stamps = {n: self.fields[n].get_db_prep_save(now, connection) for n in self.stamped}
        ids: dict[tuple[type[models.Model], tuple[str, ...]], Any] = {}
        rows = []
        for recorded in self.rows:
            row = list(recorded)
            for n, model in self.found.items():
                if row[n] is not None:
                    if (model, row[n]) not in ids:
                        ids[model, row[n]] = model._default_manager.get_by_natural_key(*row[n]).pk
                    row[n] = ids[model, row[n]]
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
        for model in filter(_sequenced, tables):
            table, column = model._meta.db_table, model._meta.pk.column
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence(%s, %s), GREATEST("
                f"(SELECT MAX({connection.ops.quote_name(column)}) "
                f"FROM {connection.ops.quote_name(table)}), "
                f"nextval(pg_get_serial_sequence(%s, %s))))",
                [table, column, table, column],
            )


def _natural_key(model: type[models.Model], pk: Any) -> tuple[str, ...]:
    if model is ContentType:
        content_type = ContentType.objects.get_for_id(pk)
        return (content_type.app_label, content_type.model)
    return tuple(model._base_manager.get(pk=pk).natural_key())
