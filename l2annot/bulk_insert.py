"""Insert many new rows of one model at once: PostgreSQL's COPY, bulk_create elsewhere.

An import writes tens of thousands of rows. `bulk_create` sends them as INSERT statements of a
few hundred rows each, which Django builds and psycopg fills in parameter by parameter, and the
server parses again: more time than the rows' own writing. On PostgreSQL `insert` streams them
with `COPY ... FROM STDIN` (psycopg 3's `cursor.copy`) after taking their ids from the table's
sequence in one query, so the objects come back with their primary keys set, as bulk_create
leaves them. COPY runs in the caller's transaction: a failure later on rolls it back like any
INSERT. On other databases, and for what COPY cannot take here (a model without an automatic
primary key, inherited tables, a value that is an SQL expression), `insert` is bulk_create.

Like bulk_create, `insert` calls no save() and sends no signal; fields are filled the same way
(`pre_save` for auto_now_add and the like, `get_db_prep_save` for the value sent).

`insert_rows` saves rows given as plain values, with no model instance each: building and
reading back tens of thousands of instances costs more than the insert itself. It streams them
through COPY on PostgreSQL, and on SQLite through one `executemany` INSERT, the ids taken first
in both cases (`write_rows`, which also writes rows whose ids are already known).
"""

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.db import connections, models, router, transaction
from django.db.models import Field, Model

BATCH = 500
# Off only in the tests that compare these rows with bulk_create's: every insert is then
# bulk_create's, of model instances.
DIRECT = True


def insert[M: Model](model: type[M], objs: Iterable[M], *, batch_size: int = BATCH) -> list[M]:
    """Save the new, unsaved `objs` of `model` in bulk; returns them with their ids set."""
    objs = list(objs)
    alias = router.db_for_write(model)
    connection = connections[alias]
    if not objs:
        return objs
    if not (DIRECT and connection.vendor == "postgresql" and _copyable(model)):
        return model._default_manager.bulk_create(objs, batch_size=batch_size)
    rows = _rows(model, objs, connection)
    if rows is None:
        return model._default_manager.bulk_create(objs, batch_size=batch_size)
    missing = [i for i, obj in enumerate(objs) if obj.pk is None]
    with connection.cursor() as cursor:
        if missing:
            ids = _new_ids(cursor, model, len(missing))
            for i, new_id in zip(missing, ids, strict=True):
                objs[i].pk = new_id
                rows[i][0] = new_id
        write_rows(cursor, model, _fields(model), rows)
    for obj in objs:
        obj._state.adding = False
        obj._state.db = alias
    return objs


def _copyable(model: type[Model]) -> bool:
    meta = model._meta
    return meta.auto_field is not None and meta.auto_field is meta.pk and not meta.parents


def _fields(model: type[Model]) -> list[Any]:
    """The columns written, the primary key first."""
    meta = model._meta
    return [meta.pk] + [f for f in meta.concrete_fields if f is not meta.pk and not f.generated]


# Fields whose value of these exact types goes to COPY as it is: `get_db_prep_save` would
# hand back the same value (or, for integers, psycopg's Int4 and the like, written alike in
# COPY's text format), and `pre_save` is Field's, the attribute itself. None goes as it is
# for every one of them. Subclasses are left to the general path.
_PLAIN: dict[type[Field[Any, Any]], tuple[type, ...]] = {
    models.CharField: (str,),
    models.TextField: (str,),
    models.IntegerField: (int,),
    models.PositiveIntegerField: (int,),
    models.PositiveSmallIntegerField: (int,),
    models.PositiveBigIntegerField: (int,),
    models.SmallIntegerField: (int,),
    models.BigIntegerField: (int,),
    models.AutoField: (int,),
    models.BigAutoField: (int,),
    models.BooleanField: (bool,),
}


def _plain_types(field: Field[Any, Any]) -> tuple[type, ...]:
    """The value types `field` sends unchanged (see _PLAIN); () if none."""
    if type(field) is models.ForeignKey:  # sends its target's value: plain for integer ids
        types = _PLAIN.get(type(field.target_field), ())
        return types if types == (int,) else ()
    return _PLAIN.get(type(field), ())


def _rows(model: type[Model], objs: Sequence[Model], connection: Any) -> list[list[Any]] | None:
    """Each object's values as sent to the database, or None if one is an SQL expression."""
    fields = _fields(model)[1:]
    plain = [
        (field, field.attname, _plain_types(field), type(field) is models.DateTimeField)
        for field in fields
    ]
    relations = any(f.is_relation for f in model._meta.concrete_fields) or bool(
        model._meta.private_fields
    )
    rows = []
    for obj in objs:
        if relations:
            # As bulk_create does: a foreign key to an object saved since it was assigned.
            obj._prepare_related_fields_for_save(operation_name="bulk_create")  # type: ignore[attr-defined]
        values = obj.__dict__
        row: list[Any] = [obj.pk]
        for field, attname, types, datetimes in plain:
            if types and attname in values:
                value = values[attname]
                if value is None or type(value) in types:
                    row.append(value)
                    continue
            value = field.pre_save(obj, True)
            if datetimes and type(value) is datetime and value.tzinfo is not None:
                # An aware datetime (auto_now_add's) goes as it is: PostgreSQL's backend
                # would hand it back unchanged.
                row.append(value)
                continue
            if hasattr(value, "resolve_expression"):
                return None
            row.append(field.get_db_prep_save(value, connection))
        rows.append(row)
    return rows


def insert_rows(
    model: type[Model], names: Sequence[str], rows: Iterable[Sequence[Any]]
) -> list[int]:
    """Save new rows of `model`, each the values of the fields `names` (attribute names, such
    as `task_id`; not the primary key), without a model instance each; returns their new ids
    in order.

    What is written is what `insert` of the same objects writes: a column not named takes its
    field's default (a time stamped on creation: the time now, one for all the rows); texts,
    integers and booleans of their column's own type go as they are, any other value through
    its field's `get_db_prep_save`. A value that is an SQL expression is refused (TypeError).
    """
    meta = model._meta
    fields = _fields(model)[1:]
    named = {field.attname: field for field in fields}
    if not _copyable(model) or not set(names) <= set(named):
        raise ValueError(f"{meta.label}: rows of its columns, without the automatic primary key")
    given = [named[name] for name in names]
    alias = router.db_for_write(model)
    connection = connections[alias]
    rows = list(rows)
    if not rows:
        return []
    vendor = connection.vendor
    if not (DIRECT and vendor in ("postgresql", "sqlite")):
        objs = [model(**dict(zip(names, row, strict=True))) for row in rows]
        return [obj.pk for obj in model._default_manager.bulk_create(objs, batch_size=BATCH)]
    # The other columns: what a new instance holds before its insert, the same for every row.
    blank = model()
    others = [field for field in fields if field not in given]
    filled = [_prepared(field, field.pre_save(blank, True), connection) for field in others]
    plain = [(field, _plain_types(field)) for field in given]
    prepared = []
    for row in rows:
        values = []
        for (field, types), value in zip(plain, row, strict=True):
            if not (value is None or type(value) in types):
                value = _prepared(field, value, connection)
            values.append(value)
        prepared.append(values)
    # One transaction takes the ids and writes the rows (the caller's, if it is in one).
    with transaction.atomic(using=alias, savepoint=False), connection.cursor() as cursor:
        ids = _new_ids(cursor, model, len(prepared))
        table = [[new_id, *values, *filled] for new_id, values in zip(ids, prepared, strict=True)]
        write_rows(cursor, model, [meta.pk, *given, *others], table)
    return ids


def _prepared(field: Field[Any, Any], value: Any, connection: Any) -> Any:
    if hasattr(value, "resolve_expression"):
        raise TypeError(f"{field}: an SQL expression cannot be written as a plain row")
    if (
        connection.vendor == "postgresql"
        and type(field) is models.DateTimeField
        and type(value) is datetime
        and value.tzinfo is not None
    ):
        return value  # as in _rows
    return field.get_db_prep_save(value, connection)


def _new_ids(cursor: Any, model: type[Model], count: int) -> list[int]:
    """`count` ids for new rows of `model`, taken in the caller's transaction."""
    meta = model._meta
    quote = cursor.db.ops.quote_name
    if cursor.db.vendor == "postgresql":
        cursor.execute(
            "SELECT nextval(s) FROM pg_get_serial_sequence(%s, %s) s, generate_series(1, %s)",
            [quote(meta.db_table), meta.pk.column, count],
        )
        return sorted(row[0] for row in cursor.fetchall())
    # SQLite: after the largest id the table ever held (its AUTOINCREMENT counter), as SQLite
    # would number them. No other connection writes before this transaction ends: it holds
    # the write lock from its start (settings: IMMEDIATE transactions); a deferred one would
    # fail at its first write ("database is locked") if another had written since this read.
    cursor.execute(
        f"SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = %s), 0), "
        f"coalesce((SELECT max({quote(meta.pk.column)}) FROM {quote(meta.db_table)}), 0))",
        [meta.db_table],
    )
    last = cursor.fetchone()[0]
    return list(range(last + 1, last + 1 + count))


def write_rows(
    cursor: Any, model: type[Model], columns: Sequence[Any], rows: Iterable[Sequence[Any]]
) -> None:
    """Write `rows` of `model`, each the values of the fields `columns` as sent to the
    database (ids included): COPY on PostgreSQL, one executemany INSERT elsewhere."""
    quote = cursor.db.ops.quote_name
    table = quote(model._meta.db_table)
    names = ", ".join(quote(field.column) for field in columns)
    if cursor.db.vendor == "postgresql":
        with cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    else:
        places = ", ".join(["%s"] * len(columns))
        cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({places})", rows)
