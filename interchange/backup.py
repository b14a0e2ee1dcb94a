"""Backup and restore of one study: everything its grades and agreement figures need, as one zip
archive (the rows as a JSON document, and the task resource files they name: see
`interchange.backup_files`), loaded back into an empty database with the same primary keys.

The document is Django's own serialization (model, pk, fields) in an envelope that names the
format and its version. Version 1 backups were that document alone, as a plain JSON file,
without the resource files; they are still read. Primary keys are kept rather than replaced by
natural keys: most models here have none, and restoring into an empty database means no key can
collide. Users travel without their password hashes (restored users must reset their password),
without per-user permissions and without their roles.

A backup file is input from outside: a restore writes only the kinds of row a backup holds
(`backed_up_models`), refuses any other record (an API token, a permission, a session...) before
it writes anything, and restores every user without privileges whatever the record says: no
password, not staff, not superuser, no permissions, no group, so no role. A role names what a
person may do on this server, which a file from elsewhere cannot decide: an admin grants it
(the restore's report lists the people it brought in).
"""

import json
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from django.apps import apps
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.core import serializers
from django.core.cache import cache
from django.core.management.color import no_style
from django.core.serializers.base import DeserializationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DatabaseError, connection, models, transaction
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import Q
from django.utils.translation import gettext

from accounts.models import User
from accounts.usernames import username_key
from agreement.models import AnalysisSettings
from core.formats.jsonl import JsonRefused, unstorable_in, values_in
from core.formats.problems import gettext_noop
from grading.models import (
    Assignment,
    Expertise,
    GoldVerdict,
    GoldVerdictRevision,
    Grade,
    GradeRevision,
    LikertItem,
    LikertRating,
    PoolMember,
    Study,
    StudyItem,
)
from interchange.backup_files import (
    BackupError,
    FileWriter,
    MediaFile,
    check_document_size,
    files_to_write,
    media_files,
    read_document_member,
    verified_files,
    write_archive,
)
from interchange.models import TaskSource
from interchange.problem_text import message_text
from rubrics.models import (
    Criterion,
    CriterionVersion,
    PublishedContextValue,
    PublishedResource,
    Response,
    RubricItem,
    RubricVersion,
    ScalePoint,
    Task,
    TaskContextValue,
    TaskResource,
    Turn,
    UniversalExclusion,
)
from taxonomy.models import Competency, ContextValue, ContextVariable, Framework, SubCompetency

FORMAT = "l2annot-study-backup"
VERSION = 2  # 2: a zip with the resource files; 1: the JSON document alone
READABLE_VERSIONS = (1, 2)
# Models a restore refuses to write over: the ones a backup holds. Groups (roles) are not here:
# migrations make them, and a restore never puts anyone in one.
GUARDED_APPS = ("accounts", "taxonomy", "rubrics", "grading", "judging", "agreement")

#: The rows of another app that belong to a study, given the responses the study grades.
StudyRows = Callable[[models.QuerySet[Response]], list[models.QuerySet[Any]]]
#: The rows of another app that `migrate` writes into every new database, given as a filter.
MadeByMigrate = Callable[[], Mapping[type[models.Model], Q]]

# The judge's rows (its verdicts and 1-5 ratings on the graded responses, the shipped prompts)
# are the judge app's, which sits above this one: it names them as it loads (`back_up_with`).
_study_rows: list[StudyRows] = []
_made_by_migrate: list[MadeByMigrate] = []


def back_up_with(rows: StudyRows, made_by_migrate: MadeByMigrate) -> None:
    """Add an app's rows to every study's backup, and the rows `migrate` makes to the rows a
    restore expects in an empty database (the judge app, as it loads)."""
    if rows not in _study_rows:  # once, however often the app loads
        _study_rows.append(rows)
        _made_by_migrate.append(made_by_migrate)


@dataclass(frozen=True)
class BackupSummary:
    rows: int
    files: int
    missing_files: tuple[str, ...]  # named by a resource but absent from MEDIA_ROOT


@dataclass(frozen=True)
class RestoreSummary:
    study: dict[str, Any]  # {"id": ..., "name": ...}
    rows: int
    files_written: int
    files_present: int  # already in MEDIA_ROOT with the same bytes
    files_not_in_backup: tuple[str, ...]  # a version 1 backup, or missing when backed up
    # (username, email) of every person restored, all without a role: an admin grants them
    people: tuple[tuple[str, str], ...] = ()


def study_querysets(study: Study) -> list[models.QuerySet[Any]]:
    """The rows that belong to `study`; `_close` adds every row they point to."""
    items = StudyItem.objects.filter(study=study)
    graded = Response.objects.filter(study_items__study=study).distinct()
    # Every version of a graded response: its history, and the version that superseded it.
    responses = Response.objects.versions_of(graded)
    tasks = Task.objects.filter(responses__in=graded).distinct()
    criteria = Criterion.objects.filter(
        Q(task__in=tasks) | Q(task__isnull=True, framework=study.framework_id)
    )
    annotators = User.objects.filter(study_memberships__study=study)
    return [
        Framework.objects.filter(pk=study.framework_id),
        Competency.objects.filter(framework=study.framework_id),
        SubCompetency.objects.filter(competency__framework=study.framework_id),
        ContextVariable.objects.filter(framework=study.framework_id),
        ContextValue.objects.filter(variable__framework=study.framework_id),
        tasks,
        TaskResource.objects.filter(task__in=tasks),
        TaskContextValue.objects.filter(task__in=tasks),
        TaskSource.objects.filter(task__in=tasks),
        UniversalExclusion.objects.filter(task__in=tasks),
        criteria,
        CriterionVersion.objects.filter(criterion__in=criteria),
        ScalePoint.objects.filter(version__criterion__in=criteria),
        RubricVersion.objects.filter(study_items__study=study).distinct(),
        RubricItem.objects.filter(rubric_version__study_items__study=study).distinct(),
        PublishedResource.objects.filter(rubric_version__study_items__study=study).distinct(),
        PublishedContextValue.objects.filter(rubric_version__study_items__study=study).distinct(),
        responses,
        Turn.objects.filter(response__in=responses),
        *(rows for app_rows in _study_rows for rows in app_rows(graded)),
        Study.objects.filter(pk=study.pk),
        PoolMember.objects.filter(study=study),
        Expertise.objects.filter(annotator__in=annotators),
        LikertItem.objects.filter(study=study),
        items,
        Assignment.objects.filter(study_item__study=study),
        Grade.objects.filter(assignment__study_item__study=study),
        GradeRevision.objects.filter(grade__assignment__study_item__study=study),
        LikertRating.objects.filter(assignment__study_item__study=study),
        GoldVerdict.objects.filter(study_item__study=study),
        GoldVerdictRevision.objects.filter(gold__study_item__study=study),
        AnalysisSettings.objects.filter(study=study),
    ]


def backed_up_models() -> frozenset[type[models.Model]]:
    """The kinds of row a backup holds: the models of `study_querysets` and every model their
    foreign keys reach (the rows `_close` adds). Read from the writer's own list, so a restore
    accepts exactly what a backup can contain."""
    # The querysets are lazy: a study that is never saved only names their models.
    found = {queryset.model for queryset in study_querysets(Study(pk=0, framework_id=0))}
    pending = list(found)
    while pending:
        for field in _foreign_keys(pending.pop()):
            if field.related_model not in found:
                found.add(field.related_model)
                pending.append(field.related_model)
    return frozenset(found)


def _foreign_keys(model: type[models.Model]) -> list[models.ForeignKey[Any, Any]]:
    return [
        field
        for field in model._meta.concrete_fields
        if isinstance(field, models.ForeignKey)
        and field.related_model._meta.app_label != "contenttypes"
    ]


def _close(rows: dict[type[models.Model], dict[Any, models.Model]]) -> None:
    """Add every row the collected rows point to (users who made a task, a judge's run, ...)."""
    pending = {model: set(found) for model, found in rows.items()}
    while pending:
        wanted: dict[type[models.Model], set[Any]] = {}
        for model, pks in pending.items():
            for field in _foreign_keys(model):
                target = field.related_model
                for pk in pks:
                    value = getattr(rows[model][pk], field.attname)
                    if value is not None and value not in rows.get(target, {}):
                        wanted.setdefault(target, set()).add(value)
        pending = {}
        for target, pks in wanted.items():
            found = target._default_manager.in_bulk(list(pks))
            rows.setdefault(target, {}).update(found)
            pending[target] = set(found)


def _dependency_order(found: Iterable[type[models.Model]]) -> list[type[models.Model]]:
    """Models ordered so that each comes after the models its foreign keys point to."""
    ordered: list[type[models.Model]] = []
    found = set(found)

    def visit(model: type[models.Model]) -> None:
        if model in ordered:
            return
        for field in _foreign_keys(model):
            if field.related_model in found and field.related_model is not model:
                visit(field.related_model)
        ordered.append(model)

    for model in sorted(found, key=lambda m: m._meta.label):
        visit(model)
    return ordered


def collect(study: Study) -> list[models.Model]:
    rows: dict[type[models.Model], dict[Any, models.Model]] = {}
    for queryset in study_querysets(study):
        rows.setdefault(queryset.model, {}).update({row.pk: row for row in queryset})
    _close(rows)
    return [
        row
        for model in _dependency_order(rows)
        for row in sorted(rows[model].values(), key=lambda r: r.pk)
    ]


def _resource_files(records: list[dict[str, Any]]) -> list[str]:
    return sorted(
        {
            record["fields"]["file"]
            for record in records
            if record["model"] in ("rubrics.taskresource", "rubrics.publishedresource")
            and record["fields"].get("file")
        }
    )


def backup_study(
    study: Study, out: IO[bytes], *, allow_missing_files: bool = False
) -> BackupSummary:
    """Write the backup archive of `study` to `out`.

    A resource file missing from MEDIA_ROOT is a BackupError naming it, unless
    `allow_missing_files`: then the backup lists it as missing and goes on."""
    rows = collect(study)
    users = [row for row in rows if isinstance(row, User)]
    others = [row for row in rows if not isinstance(row, User)]
    user_records = serializers.serialize("python", users, use_natural_foreign_keys=True)
    for record in user_records:
        # No password, no permission, no role: see _unprivileged_user.
        record["fields"].update(password="", user_permissions=[], groups=[])
    records = user_records + serializers.serialize("python", others)
    media_root = Path(settings.MEDIA_ROOT)
    files, missing = media_files(_resource_files(records), media_root)
    if missing and not allow_missing_files:
        raise BackupError(
            gettext(
                "Task resource files missing from MEDIA_ROOT: %(files)s (put them back, or back "
                "up without them with --allow-missing-files)."
            )
            % {"files": ", ".join(missing)}
        )
    document = {
        "format": FORMAT,
        "version": VERSION,
        "study": {"id": study.pk, "name": study.name},
        "created": datetime.now(UTC).isoformat(),
        "files": [file.as_record() for file in files],
        "missing_files": missing,
        "objects": records,
    }
    text = json.dumps(document, cls=DjangoJSONEncoder, indent=1) + "\n"
    write_archive(out, text, [file.path for file in files], media_root)
    return BackupSummary(rows=len(records), files=len(files), missing_files=tuple(missing))


def occupied_models() -> list[str]:
    """The labels of guarded models that already hold rows other than those `migrate` writes
    into every new database (the shipped prompt templates, at their first version)."""
    made_by_migrate = {model: q for made in _made_by_migrate for model, q in made().items()}
    occupied = []
    for app in GUARDED_APPS:
        for model in apps.get_app_config(app).get_models():
            if not model._meta.managed or model._meta.proxy:
                continue
            rows = model._default_manager.all()
            if model in made_by_migrate:
                rows = rows.exclude(made_by_migrate[model])
            if rows.exists():
                occupied.append(model._meta.label)
    return occupied


def read_document(raw: bytes | str) -> dict[str, Any]:
    if values_in(raw) > settings.BACKUP_MAX_VALUES:
        raise BackupError(
            gettext(
                "The backup's document holds about %(found)s values, more than the %(most)s "
                "this server restores (BACKUP_MAX_VALUES): nothing was restored."
            )
            % {"found": f"{values_in(raw):,}", "most": f"{settings.BACKUP_MAX_VALUES:,}"}
        )
    try:
        document = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BackupError(gettext("Not a study backup: %(error)s") % {"error": error}) from None
    except RecursionError:
        raise BackupError(
            gettext("Not a study backup: its JSON is nested more deeply than Python can read.")
        ) from None
    except ValueError:  # an integer of thousands of digits, which Python refuses to read
        raise BackupError(
            gettext("Not a study backup: it holds an integer longer than Python reads.")
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BackupError(
            gettext("Not a study backup (no '%(format)s' format marker).") % {"format": FORMAT}
        )
    if document.get("version") not in READABLE_VERSIONS:
        raise BackupError(
            gettext("Backup version %(version)s is not one this version reads (%(readable)s).")
            % {
                "version": document.get("version"),
                "readable": ", ".join(map(str, READABLE_VERSIONS)),
            }
        )
    envelope = {key: value for key, value in document.items() if key != "objects"}
    if (refused := unstorable_in(envelope)) is not None:  # the records are checked one by one
        raise BackupError(
            gettext(
                "The backup's %(field)r %(problem)s: the backup is refused and nothing was "
                "restored."
            )
            % {
                "field": ".".join(str(key) for key in refused.path),
                "problem": message_text(refused.message),
            }
        )
    return document


def _unprivileged_user(fields: dict[str, Any]) -> dict[str, Any]:
    """A user record's fields stripped of every privilege a crafted backup could claim: the
    password (made unusable on restore), staff and superuser flags, per-user permissions, and
    every group, roles included (backups written before roles were left out still name them):
    a crafted "Admin" beside the attacker's email would make an admin of whoever receives the
    set-password link."""
    return {
        **fields,
        "password": "",
        "is_staff": False,
        "is_superuser": False,
        "user_permissions": [],
        "groups": [],
    }


MAX_NESTING = 32  # lists and objects in a field's value: a backup's deepest is a few levels


def _nested_too_deeply(fields: dict[str, Any]) -> str | None:
    """The name of the first field whose value nests lists and objects beyond MAX_NESTING,
    found without recursion (a crafted value would otherwise exhaust the stack later)."""
    for name, value in fields.items():
        stack = [(value, 1)]
        while stack:
            node, depth = stack.pop()
            if isinstance(node, dict | list):
                if depth > MAX_NESTING:
                    return str(name)
                children = node.values() if isinstance(node, dict) else node
                stack.extend((child, depth + 1) for child in children)
    return None


def _out_of_range(label: str, record: dict[str, Any]) -> JsonRefused | None:
    """The first integer of the record (its pk or a field) beyond what its column holds: the
    driver would fail on it with a bare OverflowError or DataError."""
    model = apps.get_model(label)
    values = [("pk", model._meta.pk, record.get("pk"))] + [
        (("fields", name), model._meta.get_field(name), value)
        for name, value in record["fields"].items()
        if name in {field.name for field in model._meta.concrete_fields}
    ]
    for path, field, value in values:
        if isinstance(value, bool) or not isinstance(value, int):
            continue
        if isinstance(field, models.ForeignKey):
            field = field.target_field
        # PostgreSQL's ranges on every database (SQLite holds 64 bits in any integer column):
        # a backup restores on both or on neither.
        bounds = BaseDatabaseOperations.integer_field_ranges.get(field.get_internal_type())
        if bounds is None:
            continue
        low, high = bounds
        if not low <= value <= high:
            if abs(value) < 10**30:
                message = gettext_noop(
                    "is %(value)s, outside what the database holds (%(low)s to %(high)s)",
                    value=value,
                    low=low,
                    high=high,
                )
            else:
                message = gettext_noop(
                    "is an integer of %(digits)s digits, outside what the database holds "
                    "(%(low)s to %(high)s)",
                    digits=len(str(abs(value))),
                    low=low,
                    high=high,
                )
            return JsonRefused(message, path if isinstance(path, tuple) else (path,))
    return None


def _checked_records(objects: Any) -> list[dict[str, Any]]:
    """The backup's records, users stripped of privileges; a BackupError naming the first record
    that is not a row of a kind a backup holds."""
    if not isinstance(objects, list):
        raise BackupError(gettext("The backup's list of rows is malformed (not a list)."))
    allowed = {model._meta.label_lower for model in backed_up_models()}
    records = []
    for number, record in enumerate(objects, start=1):
        if not isinstance(record, dict) or not isinstance(record.get("fields"), dict):
            raise BackupError(
                gettext("Record %(number)s of the backup is malformed: %(record)r.")
                % {"number": number, "record": str(record)[:200]}
            )
        model = record.get("model")
        if not isinstance(model, str) or model.lower() not in allowed:
            raise BackupError(
                gettext(
                    "Record %(number)s of the backup (model %(model)r, pk %(pk)r) is not a kind "
                    "of row a study backup holds: the backup is refused and nothing was restored."
                )
                % {"number": number, "model": str(model)[:100], "pk": str(record.get("pk"))[:40]}
            )
        if (field := _nested_too_deeply(record["fields"])) is not None:
            raise BackupError(
                gettext(
                    "Record %(number)s of the backup (model %(model)r, pk %(pk)r): field "
                    "%(field)r is nested more than %(depth)s levels deep, which no row of a "
                    "backup is: the backup is refused and nothing was restored."
                )
                % {
                    "number": number,
                    "model": model,
                    "pk": str(record.get("pk"))[:40],
                    "field": field,
                    "depth": MAX_NESTING,
                }
            )
        refused = unstorable_in(record) or _out_of_range(model, record)
        if refused is not None:
            path = refused.path[1:] if refused.path[:1] == ("fields",) else refused.path
            field = ".".join(str(key) for key in path)
            raise BackupError(
                gettext(
                    "Record %(number)s of the backup (model %(model)r, pk %(pk)r): field "
                    "%(field)r %(problem)s: the backup is refused and nothing was restored."
                )
                % {
                    "number": number,
                    "model": model,
                    "pk": str(record.get("pk"))[:40],
                    "field": field,
                    "problem": message_text(refused.message),
                }
            )
        if model.lower() == User._meta.label_lower:
            record = {**record, "fields": _unprivileged_user(record["fields"])}
        records.append(record)
    return records


def _check_empty_database() -> None:
    try:
        occupied = occupied_models()
    except DatabaseError:
        raise BackupError(
            gettext("The database has no tables: run `manage.py migrate` first.")
        ) from None
    if occupied:
        raise BackupError(
            gettext(
                "The database is not empty (%(tables)s): restore a study only into a new "
                "database (migrate, then restore_study, then createsuperuser)."
            )
            % {"tables": ", ".join(occupied[:5])}
        )


def _load_rows(records: list[dict[str, Any]]) -> None:
    loaded: set[type[models.Model]] = set()
    with connection.constraint_checks_disabled():
        try:
            for obj in serializers.deserialize("python", records):
                if isinstance(obj.object, User):  # saved raw: what User.save() sets, set here
                    obj.object.password = make_password(None)
                    obj.object.username_key = username_key(obj.object.username)
                obj.save()
                loaded.add(type(obj.object))
        except DeserializationError as error:
            raise BackupError(
                gettext("The backup's rows cannot be read: %(error)s") % {"error": error}
            ) from None
    connection.check_constraints(table_names=[m._meta.db_table for m in loaded])
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), list(loaded)):
            cursor.execute(sql)


def restore_study(path: Path) -> RestoreSummary:
    """Load a backup (a zip archive, or a version 1 JSON file) into an empty database, all or
    nothing: the rows and the resource files are both restored or neither is. Files written
    before a failure are removed again; files that were already there are left alone."""
    if not zipfile.is_zipfile(path):
        check_document_size(Path(path).stat().st_size)
        return _restore(read_document(Path(path).read_bytes()), None)
    try:
        with zipfile.ZipFile(path) as archive:
            return _restore(read_document(read_document_member(archive)), archive)
    except zipfile.BadZipFile as error:
        raise BackupError(gettext("Not a study backup: %(error)s") % {"error": error}) from None


def _restore(document: dict[str, Any], archive: zipfile.ZipFile | None) -> RestoreSummary:
    rows = _checked_records(document.get("objects"))
    records = document.get("files", [])
    if records and archive is None:
        raise BackupError(gettext("This backup lists files but is not an archive that holds them."))
    media_root = Path(settings.MEDIA_ROOT)
    files: list[MediaFile] = verified_files(archive, records) if archive is not None else []
    held = {file.path for file in files}
    not_in_backup = tuple(name for name in _resource_files(rows) if name not in held)
    unexplained = set(not_in_backup) - set(document.get("missing_files", []))
    if document["version"] >= 2 and unexplained:
        raise BackupError(
            gettext("Resources name files the backup neither holds nor lists as missing: %(files)s")
            % {"files": ", ".join(sorted(unexplained))}
        )
    _check_empty_database()
    pending = files_to_write(files, media_root)
    writer = FileWriter(archive, media_root) if archive is not None else None
    committed: list[bool] = []
    try:
        with transaction.atomic():
            _load_rows(rows)
            if writer is not None:
                for file in pending:
                    writer.write(file)
            # Once the rows are committed the files belong to them, whatever happens next.
            transaction.on_commit(lambda: committed.append(True))
            # A report cached for an earlier database under the same study id must not be served.
            transaction.on_commit(cache.clear)
    except BaseException:
        if writer is not None and not committed:
            writer.undo()
        raise
    return RestoreSummary(
        study=document["study"],
        rows=len(rows),
        files_written=len(pending),
        files_present=len(files) - len(pending),
        files_not_in_backup=not_in_backup,
        people=tuple(
            (str(record["fields"].get("username", "")), str(record["fields"].get("email", "")))
            for record in rows
            if str(record["model"]).lower() == User._meta.label_lower
        ),
    )
