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
"""

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.db import connections, models, router
from django.db.models import Field, Model

BATCH = 500
# Off only in the tests that compare COPY's rows with bulk_create's.
USE_COPY = True


def insert[M: Model](model: type[M], objs: Iterable[M], *, batch_size: int = BATCH) -> list[M]:
    """Save the new, unsaved `objs` of `model` in bulk; returns them with their ids set."""
    objs = list(objs)
    alias = router.db_for_write(model)
    connection = connections[alias]
    if not objs:
        return objs
    if not (USE_COPY and connection.vendor == "postgresql" and _copyable(model)):
        return model._default_manager.bulk_create(objs, batch_size=batch_size)
    rows = _rows(model, objs, connection)
    if rows is None:
        return model._default_manager.bulk_create(objs, batch_size=batch_size)
    meta = model._meta
    quote = connection.ops.quote_name
    pk = meta.pk
    missing = [i for i, obj in enumerate(objs) if obj.pk is None]
    with connection.cursor() as cursor:
        if missing:
            cursor.execute(
                "SELECT nextval(s) FROM pg_get_serial_sequence(%s, %s) s, generate_series(1, %s)",
                [quote(meta.db_table), pk.column, len(missing)],
            )
            ids = sorted(row[0] for row in cursor.fetchall())
            for i, new_id in zip(missing, ids, strict=True):
                objs[i].pk = new_id
                rows[i][0] = new_id
        columns = ", ".join(quote(field.column) for field in _fields(model))
        with cursor.cursor.copy(f"COPY {quote(meta.db_table)} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
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
