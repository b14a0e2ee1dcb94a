"""A job's heartbeat renewed from a thread of the worker, while the work itself runs in one
long transaction (an import) or a long computation (an agreement report)."""

from __future__ import annotations

import threading

from django.db import DatabaseError, connection, connections
from django.utils import timezone

from jobs.models import Job, lease_seconds


class Heartbeat:
    """Renew a running job's heartbeat from a thread with its own connection, every third of
    the lease, until the block ends. Not on SQLite: it has one writer, which the work's
    transaction may hold, and the database and the worker are on one machine there, where the
    worker's process itself is the sign of life (`Job.is_alive`)."""

    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        if connection.vendor != "sqlite":
            self.thread = threading.Thread(target=self.beat, daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join()

    def beat(self) -> None:
        interval = max(lease_seconds() / 3, 0.2)
        try:
            while not self.stop.wait(interval):
                try:
                    Job.objects.filter(pk=self.job_id, state=Job.State.RUNNING).update(
                        heartbeat_at=timezone.now()
                    )
                except DatabaseError:  # the database is restarting: the next beat tries again
                    connection.close()
        finally:
            connections.close_all()  # this thread's own connections
