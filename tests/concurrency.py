"""Races run for real: each piece of work in its own thread, with its own database connection,
all let go at once. For transactional tests (`transaction=True`), on SQLite and PostgreSQL.

On SQLite the suite's database lives in memory, where a second connection cannot wait for a
lock (it fails at once: "database table is locked"); `threads_share_one_database` copies it to a
file for the threads' connections, which wait for each other as the deployed application's do
(`transaction_mode` IMMEDIATE and a busy timeout, l2annot/settings.py), and copies the file back
into memory afterwards for the test's assertions. On PostgreSQL every connection reaches the
test database already.
"""

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from tempfile import TemporaryDirectory

from django.db import connection


@contextmanager
def threads_share_one_database() -> Iterator[None]:
    """While inside, connections opened by other threads reach the test database, and what
    they commit is in the test's own connection afterwards."""
    if connection.vendor != "sqlite":
        yield
        return
    connection.ensure_connection()
    memory = connection.connection
    settings = connection.settings_dict  # every new connection is made from this mapping
    name = settings["NAME"]
    with TemporaryDirectory() as folder:
        path = Path(folder) / "threads.sqlite3"
        with sqlite3.connect(path) as copy:
            memory.backup(copy)
        copy.close()
        settings["NAME"] = str(path)
        try:
            yield
        finally:
            settings["NAME"] = name
            with sqlite3.connect(path) as done:
                done.backup(memory)
            done.close()


def run_together(*work: Callable[[], object]) -> list[BaseException | None]:
    """Run each callable in its own thread and connection, released together; what each raised
    (None when it did not), in order."""
    start = threading.Barrier(len(work))
    raised: list[BaseException | None] = [None] * len(work)

    def run(index: int, job: Callable[[], object]) -> None:
        try:
            start.wait()
            job()
        except BaseException as error:  # reported to the test
            raised[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate(work)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return raised
