"""The suite's check of row locks (tests/row_locks.py): what it lets through and what not."""

import pytest

from tests.row_locks import UnnamedRowLock, refuse_unnamed_row_locks

JOINED = 'SELECT "a"."id" FROM "a" INNER JOIN "b" ON ("a"."b_id" = "b"."id") WHERE "a"."id" = %s'


def _run(sql: str) -> str:
    return refuse_unnamed_row_locks(lambda sql, *_: sql, sql, (1,), False, {})


@pytest.mark.parametrize(
    "sql",
    [
        f"{JOINED} FOR UPDATE",
        f"{JOINED} FOR NO KEY UPDATE",
        f"{JOINED} FOR UPDATE SKIP LOCKED",
        f"{JOINED} FOR UPDATE NOWAIT",
    ],
)
def test_a_locking_query_that_joins_without_naming_its_tables_is_refused(sql):
    with pytest.raises(UnnamedRowLock, match="locks the rows of every table it joins"):
        _run(sql)


@pytest.mark.parametrize(
    "sql",
    [
        f'{JOINED} FOR UPDATE OF "a"',
        f'{JOINED} FOR NO KEY UPDATE OF "a" SKIP LOCKED',
        'SELECT "a"."id" FROM "a" WHERE "a"."id" = %s FOR UPDATE',
        JOINED,
    ],
)
def test_a_lock_naming_its_table_one_without_a_join_and_a_plain_read_pass(sql):
    assert _run(sql) == sql
