"""Who runs a background job, and whether that process is still alive: the one liveness rule
of every job (`jobs.models.Job.is_alive`). Imports no Django.

A job records its worker as ``host:pid:start`` (the start time of the process, from
``/proc/<pid>/stat``, tells a reused pid from the worker's own). On the worker's own host that
is enough to know at once that a killed worker is gone; from another host (a web server
elsewhere, PostgreSQL only) the job's heartbeat is the sign of life, and a job whose heartbeat
is older than the lease (settings.JOB_LEASE_SECONDS) counts as abandoned.
"""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta


def this_worker() -> str:
    """``host:pid:start`` of the current process (``start`` is empty where /proc is absent)."""
    return worker_of(os.getpid())


def worker_of(pid: int) -> str:
    """``host:pid:start`` of a process of this host."""
    return f"{socket.gethostname()}:{pid}:{_start_time(pid) or ''}"


def worker_is_gone(worker: str, heartbeat_at: datetime | None, now: datetime, lease: float) -> bool:
    """Whether the process named by `worker` no longer runs its job.

    On this host: its process has ended (or the pid now belongs to another process). Elsewhere:
    its last heartbeat is more than `lease` seconds old (or it never sent one).
    """
    host, _, rest = worker.partition(":")
    pid_text, _, start = rest.partition(":")
    if host == socket.gethostname() and pid_text.isdecimal():
        return not _running(int(pid_text), start)
    return heartbeat_at is None or now - heartbeat_at > timedelta(seconds=lease)


def _running(pid: int, start: str) -> bool:
    if not os.path.isdir("/proc"):  # no /proc (macOS): ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    stat = _stat(pid)
    if stat is None:
        return False
    state, started = stat
    return state not in ("Z", "X") and (not start or started == start)  # Z: killed, not reaped


def _start_time(pid: int) -> str | None:
    stat = _stat(pid)
    return stat[1] if stat else None


def _stat(pid: int) -> tuple[str, str] | None:
    """(state, start time in clock ticks since boot) from /proc, or None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: split after it.
    fields = text[text.rfind(")") + 2 :].split()
    return (fields[0], fields[19]) if len(fields) > 19 else None
