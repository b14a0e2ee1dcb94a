"""System checks about the database itself, run by `migrate` and `check --database`."""

from collections.abc import Iterable, Sequence
from typing import Any

from django.apps import AppConfig
from django.core.checks import CheckMessage, Error, Tags, register
from django.db import connections
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder


@register(Tags.database)
def squashed_history(
    app_configs: Sequence[AppConfig] | None = None,
    databases: Iterable[str] | None = None,
    **kwargs: Any,
) -> list[CheckMessage]:
    """Refuse a database migrated part of the way through migrations that were since squashed:
    their files are gone, so Django would leave its app as it is without a word (docs/deploy.md,
    "Upgrading")."""
    errors: list[CheckMessage] = []
    loader = MigrationLoader(None, ignore_no_migrations=True)
    for alias in databases or ():
        recorder = MigrationRecorder(connections[alias])
        if not recorder.has_table():
            continue
        applied = set(recorder.applied_migrations())
        for (app, name), migration in loader.disk_migrations.items():
            replaced = set(migration.replaces or ())
            done = replaced & applied
            if done and done != replaced:
                missing = sorted(f"{app}.{step}" for _, step in replaced - done)
                errors.append(
                    Error(
                        f"The database '{alias}' stopped part of the way through the "
                        f"migrations squashed into {app}.{name}: {', '.join(missing)} never "
                        "ran.",
                        hint="Migrate it with the release before the squash first "
                        "(docs/deploy.md, Upgrading).",
                        id="l2annot.E001",
                    )
                )
    return errors
