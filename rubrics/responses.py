"""Storing model responses, in versions: the one path of the importers, the API and
`services.record_response`.

A response is named by its task and id (`external_id`). Saved again with the same fields and
turns, it is left as it is (no write, no history event). Saved with a change (text, turns, model
name, family or version, epoch, kind):

- when nothing points at it yet, it is updated in place: nothing was graded or judged;
- when something does (a study item, a judge verdict or rating, a triage note, a grade of one
  of its turns: any foreign key to it or to its turns, whichever app it belongs to), it is
  never rewritten: the change is stored as the response's next `version`, the old version is
  marked superseded (`superseded_at`) and keeps everything that points at it. New studies and
  the verdicts importer then take the current version; the old one's studies keep grading it.

The rows changed are locked (`SELECT ... FOR UPDATE`) before what points at them is counted,
and a new study locks the responses it takes (`grading.services.add_responses`): PostgreSQL
checks a foreign key only at commit, so without both locks a study created at the same time
could start grading a text that is being rewritten.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from django.db import models, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from core.refusals import Conflict
from l2annot.bulk_insert import insert_rows
from rubrics.history_text import SUPERSEDED
from rubrics.models import Response, Task, Turn

BATCH = 500
# What a version holds besides its turns, compared field by field.
CONTENT_FIELDS = ("model_name", "model_family", "model_version", "epoch", "kind", "text")


@dataclass(frozen=True)
class ResponseSpec:
    """A response as a file or a caller gives it: a `text`, or `turns` of a conversation."""

    task: Task
    model_name: str
    external_id: str = ""
    model_family: str = ""
    model_version: str = ""
    epoch: int = 1
    kind: str = Response.Kind.TEXT.value
    text: str = ""
    turns: tuple[tuple[str, str], ...] = ()  # (role, content) in order

    def content(self) -> dict[str, str | int]:
        return {name: getattr(self, name) for name in CONTENT_FIELDS}


class Outcome(StrEnum):
    CREATED = "created"
    UPDATED = "updated"  # changed in place: nothing pointed at it
    NEW_VERSION = "new_version"  # changed while something pointed at it
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class SavedResponse:
    """What became of one spec: the row that now holds it (`response_id`, its `version`),
    what changed, and on a new version the version it superseded (`previous_id`)."""

    spec: ResponseSpec
    outcome: Outcome
    response_id: int
    version: int
    changed: tuple[str, ...] = ()  # of CONTENT_FIELDS, and "turns"
    previous_id: int | None = None
    previous_version: int | None = None


class ResponseChangedMeanwhile(Conflict):
    """Another import made a newer version of a response while this one was checking it."""

    def __init__(self, external_id: str) -> None:
        super().__init__(
            gettext(
                "Response '%(id)s' was changed by another import at the same time: nothing "
                "was saved. Run this one again."
            )
            % {"id": external_id}
        )
        self.external_id = external_id


def dependent_relations() -> list[tuple[type[models.Model], str]]:
    """(model, path to the response's id) of every foreign key to a response or to one of its
    turns, hidden ones (`related_name="+"`) included: whatever points at a response."""
    found: list[tuple[type[models.Model], str]] = []
    for model, prefix in ((Response, ""), (Turn, "__response")):
        for relation in model._meta.get_fields(include_hidden=True):
            if not (relation.is_relation and relation.auto_created and not relation.concrete):
                continue
            related = relation.related_model
            if related is Turn or not isinstance(related, type):
                continue  # a response's own turns hold it, they do not depend on it
            field_name = relation.field.name  # type: ignore[union-attr]
            found.append((related, f"{field_name}{prefix}"))
    return found


def responses_in_use(response_ids: Collection[int]) -> set[int]:
    """The responses of `response_ids` that something points at (`dependent_relations`):
    one query per relation."""
    ids = list(response_ids)
    if not ids:
        return set()
    used: set[int] = set()
    for model, path in dependent_relations():
        rows = model._base_manager.filter(**{f"{path}__in": ids}).order_by()
        used.update(rows.values_list(path, flat=True).distinct())
    return used


def _turns_of(response_ids: Iterable[int]) -> dict[int, list[tuple[str, str]]]:
    turns: dict[int, list[tuple[str, str]]] = defaultdict(list)
    rows = (
        Turn.objects.filter(response__in=list(response_ids))
        .order_by("response_id", "index")
        .values_list("response_id", "role", "content")
    )
    for response_id, role, content in rows:
        turns[response_id].append((role, content))
    return turns


def _changes(
    spec: ResponseSpec, response: Response, turns: list[tuple[str, str]]
) -> tuple[str, ...]:
    wanted = spec.content()
    changed = [name for name in CONTENT_FIELDS if getattr(response, name) != wanted[name]]
    if list(spec.turns) != turns:
        changed.append("turns")
    return tuple(changed)


def _delta(
    spec: ResponseSpec, response: Response, turns: list[tuple[str, str]], changed: Sequence[str]
) -> dict[str, list[Any]]:
    wanted = spec.content()
    delta: dict[str, list[Any]] = {
        name: [getattr(response, name), wanted[name]] for name in changed if name != "turns"
    }
    if "turns" in changed:
        delta["turns"] = [len(turns), len(spec.turns)]
    return delta


@transaction.atomic
def save_responses(
    specs: Sequence[ResponseSpec],
    by: User | None = None,
    *,
    created_kind: str = AuditEvent.Kind.IMPORTED,
    comment: str = "",
    change_comment: str = "",
) -> list[SavedResponse]:
    """Create, update or version the responses `specs` describe (see the module docstring), in
    bulk, with their history (`comment` on what is created, `change_comment` on what changes);
    one result per spec, in order. Specs name distinct responses.

    New rows, their turns and their history go as plain rows (`insert_rows`,
    `audit.record_rows`): an import makes tens of thousands, and a model instance each cost
    more than writing them."""
    by_key = {(spec.task.pk, spec.external_id): spec for spec in specs if spec.external_id}
    if len(by_key) != sum(1 for spec in specs if spec.external_id):
        raise ValueError("save_responses: two specs name the same response")
    current = _current_versions(by_key)
    turns = _turns_of(r.pk for r in current.values() if r.kind == Response.Kind.CONVERSATION)
    changing = [
        response
        for key, response in current.items()
        if _changes(by_key[key], response, turns.get(response.pk, []))
    ]
    locked = _lock(changing)
    fresh = _turns_of(locked)  # as they are now that nobody else can change them
    turns |= {pk: fresh.get(pk, []) for pk in locked}
    in_use = responses_in_use(locked)
    highest = _highest_superseded(by_key)

    plan = _Plan()
    for index, spec in enumerate(specs):
        key = (spec.task.pk, spec.external_id)
        found = current.get(key) if spec.external_id else None
        response = locked.get(found.pk) if found is not None else None
        if found is None:
            plan.new.append(_Change(index, spec, highest.get(key, 0) + 1))
            continue
        if response is None:
            response = found
        changed = _changes(spec, response, turns.get(response.pk, []))
        if not changed:
            plan.results[index] = SavedResponse(
                spec, Outcome.UNCHANGED, response.pk, response.version
            )
            continue
        delta = _delta(spec, response, turns.get(response.pk, []), changed)
        if response.pk in in_use:
            version = max(response.version, highest.get(key, 0)) + 1
            plan.versions.append(_Change(index, spec, version, response, changed, delta))
        else:
            plan.in_place.append(_Change(index, spec, response.version, response, changed, delta))
    now = timezone.now()
    _write(plan, now)
    _record_history(plan, by, created_kind, comment, change_comment, now)
    return [plan.results[index] for index in range(len(specs))]


@dataclass
class _Change:
    index: int  # of the spec
    spec: ResponseSpec
    version: int  # the version the spec is saved as
    old: Response | None = None  # the version changed in place, or superseded
    changed: tuple[str, ...] = ()
    delta: dict[str, list[Any]] = field(default_factory=dict)


@dataclass
class _Plan:
    new: list[_Change] = field(default_factory=list)
    versions: list[_Change] = field(default_factory=list)
    in_place: list[_Change] = field(default_factory=list)
    results: dict[int, SavedResponse] = field(default_factory=dict)


def _current_versions(
    by_key: dict[tuple[int, str], ResponseSpec],
) -> dict[tuple[int, str], Response]:
    if not by_key:
        return {}
    task_ids = sorted({task_id for task_id, _ in by_key})
    rows = Response.objects.current().filter(task__in=task_ids).exclude(external_id="")
    return {(r.task_id, r.external_id): r for r in rows if (r.task_id, r.external_id) in by_key}


def _lock(responses: Sequence[Response]) -> dict[int, Response]:
    """The responses about to change, locked and read again; refused if another import made
    a newer version of one meanwhile."""
    if not responses:
        return {}
    rows = (
        Response.objects.select_for_update(of=("self",))
        .filter(pk__in=[r.pk for r in responses])
        .order_by("pk")
    )
    locked = {r.pk: r for r in rows}
    gone = [r for r in responses if r.pk not in locked or not locked[r.pk].is_current]
    if gone:
        raise ResponseChangedMeanwhile(gone[0].external_id)
    return locked


def _highest_superseded(
    by_key: dict[tuple[int, str], ResponseSpec],
) -> dict[tuple[int, str], int]:
    """The highest superseded version of each id (above the current one only if a current
    version was deleted)."""
    if not by_key:
        return {}
    task_ids = sorted({task_id for task_id, _ in by_key})
    rows = (
        Response.objects.filter(task__in=task_ids, superseded_at__isnull=False)
        .values_list("task_id", "external_id")
        .annotate(highest=Max("version"))
        .order_by()
    )
    return {(task, external_id): highest for task, external_id, highest in rows}


def _write(plan: _Plan, now: datetime) -> None:
    # The old versions step aside first: one current version per id, at every statement.
    old = [change.old.pk for change in plan.versions if change.old is not None]
    Response.objects.filter(pk__in=old).update(superseded_at=now)
    added = plan.new + plan.versions
    ids = insert_rows(
        Response,
        ("task_id", "external_id", "version", *CONTENT_FIELDS),
        (
            (c.spec.task.pk, c.spec.external_id, c.version, *c.spec.content().values())
            for c in added
        ),
    )
    for change, response_id in zip(added, ids, strict=True):
        outcome = Outcome.CREATED if change.old is None else Outcome.NEW_VERSION
        plan.results[change.index] = SavedResponse(
            change.spec,
            outcome,
            response_id,
            change.version,
            change.changed,
            None if change.old is None else change.old.pk,
            None if change.old is None else change.old.version,
        )
    updated = []
    for change in plan.in_place:
        assert change.old is not None  # an update in place has its row
        for name, value in change.spec.content().items():
            setattr(change.old, name, value)
        updated.append(change.old)
        plan.results[change.index] = SavedResponse(
            change.spec, Outcome.UPDATED, change.old.pk, change.version, change.changed
        )
    Response.objects.bulk_update(updated, list(CONTENT_FIELDS), batch_size=BATCH)
    Turn.objects.filter(response__in=[r.pk for r in updated]).delete()
    insert_rows(
        Turn,
        ("response_id", "index", "role", "content"),
        (
            (saved.response_id, position, role, content)
            for saved in plan.results.values()
            if saved.outcome != Outcome.UNCHANGED
            for position, (role, content) in enumerate(saved.spec.turns)
        ),
    )


def _record_history(
    plan: _Plan,
    by: User | None,
    created_kind: str,
    comment: str,
    change_comment: str,
    now: datetime,
) -> None:
    """One event per response created or changed in place; a new version's event on it (what
    changed) and on the version it superseded. None for a response left unchanged."""

    def rows(changes: list[_Change], new: bool) -> list[tuple[int, str, dict[str, list[Any]]]]:
        found = []
        for change in changes:
            spec, saved = change.spec, plan.results[change.index]
            text = Response.describe(spec.model_name, spec.task, change.version)
            delta = (
                {"model_name": [None, spec.model_name]}
                if change.old is None
                else change.delta
                | ({"version": [change.old.version, change.version]} if new else {})
            )
            found.append((saved.response_id, text, delta))
        return found

    audit.record_rows(Response, created_kind, by, rows(plan.new, True), comment)
    audit.record_rows(Response, created_kind, by, rows(plan.versions, True), change_comment)
    audit.record_rows(
        Response, AuditEvent.Kind.UPDATED, by, rows(plan.in_place, False), change_comment
    )
    superseded = [
        (
            change.old.pk,
            Response.describe(change.old.model_name, change.spec.task, change.old.version),
            {"superseded_at": [None, now.isoformat()]},
        )
        for change in plan.versions
        if change.old is not None
    ]
    audit.record_rows(Response, AuditEvent.Kind.UPDATED, by, superseded, SUPERSEDED)
