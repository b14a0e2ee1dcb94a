"""The `reports` database: an optional read replica for the heavy report reads.

Reads go to the replica only where code asks for it by name: the report loaders in
agreement/data.py call `.using(reports_alias())`. Nothing else is routed there, so a page that
reads what it just wrote never meets replication lag. The router's one job is the other
direction: whatever a model instance was read from, it is written to `default`, and no
migration ever runs on the replica.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

REPORTS = "reports"
_on_primary: ContextVar[bool] = ContextVar("reports_on_primary", default=False)


def reports_alias() -> str:
    """The database alias report loaders read from: the replica when one is configured
    (settings.REPORTS_DATABASE), `default` otherwise, and `default` inside a transaction on it
    or a `reports_from_primary()` block, where the replica could miss rows just written."""
    alias = settings.REPORTS_DATABASE
    if (
        alias == DEFAULT_DB_ALIAS
        or _on_primary.get()
        or connections[DEFAULT_DB_ALIAS].in_atomic_block
    ):
        return DEFAULT_DB_ALIAS
    return alias


@contextmanager
def reports_from_primary() -> Iterator[None]:
    """Report loaders inside this block read from `default`: for code that writes rows and
    then, in the same run, reports on them (the replica may be seconds behind)."""
    token = _on_primary.set(True)
    try:
        yield
    finally:
        _on_primary.reset(token)


class ReportsReplicaRouter:
    """Writes always go to `default`, even for an instance read from the replica; the replica
    is never migrated (it copies the primary's schema); rows of either may be related."""

    def db_for_read(self, model: type, **hints: Any) -> str | None:
        return None  # the instance's own database, else default; loaders name the replica

    def db_for_write(self, model: type, **hints: Any) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        both = {obj1._state.db, obj2._state.db}
        return True if both <= {DEFAULT_DB_ALIAS, REPORTS} else None

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        return False if db == REPORTS else None
