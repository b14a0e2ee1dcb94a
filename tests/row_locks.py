"""On PostgreSQL, a locking query that joins must name the tables whose rows it locks.

`SELECT ... FOR UPDATE` locks the selected row of every table in its FROM clause. A join the
ORM adds unasked (a default ordering across a foreign key, `select_related`) so locks the
parent rows as well: the study's row on every grade save, which made a study's saves wait for
each other and deadlocked them with a submission. Every connection the tests open checks
each query: a locking query with a join and without `OF` fails the test that ran it (write
`select_for_update(of=("self",))`, or name the other tables meant to be locked)."""

import re
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper

LOCKS_EVERY_TABLE = re.compile(r"\bFOR (?:NO KEY )?UPDATE(?! OF\b)")


class UnnamedRowLock(AssertionError):
    pass


def refuse_unnamed_row_locks(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
    if " JOIN " in sql and LOCKS_EVERY_TABLE.search(sql):
        raise UnnamedRowLock(
            "this query locks the rows of every table it joins; name the tables to lock "
            f'(select_for_update(of=("self",))):\n{sql}'
        )
    return execute(sql, params, many, context)


def check_row_locks(sender: Any, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    """connection_created receiver. First in the list, so a wrapper a test adds and removes
    around it (`connection.execute_wrapper`) is still the one removed."""
    if connection.vendor == "postgresql" and refuse_unnamed_row_locks not in (
        connection.execute_wrappers
    ):
        connection.execute_wrappers.insert(0, refuse_unnamed_row_locks)
