"""The base of every API resource whose model has a `revision`: edits go through audit.editing,
so the API refuses stale saves and orphaning deletes and writes history exactly as the browser.

Concurrency, for PUT/PATCH (required) and DELETE (optional):
- `If-Match: "<revision>"` (the ETag of a GET): a mismatch is 412;
- `revision` in the body (the value you read): a mismatch is 409 with the current object.
"""

from typing import Any, ClassVar, cast

from django.db import models, transaction
from django.utils.http import parse_etags
from rest_framework import serializers, status, viewsets
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.roles import Action
from api.exceptions import PreconditionFailed, PreconditionRequired
from api.permissions import RoleAction, acting_user
from audit import editing
from core.refusals import Conflict


def etag(instance: Any) -> str:
    """The ETag of a model instance with a `revision`."""
    return f'"{instance.revision}"'


class RevisionedModelViewSet(viewsets.ModelViewSet[Any]):
    permission_classes = [RoleAction]
    read_action: ClassVar[Action]
    write_action: ClassVar[Action]
    # Any path segment reaches the view, so a malformed id is DRF's JSON 404, not Django's page.
    lookup_value_regex = "[^/]+"
    http_method_names = ["get", "post", "put", "patch", "delete", "head", "options"]

    # ----- hooks a resource may override ---------------------------------------------------
    def visible(self, queryset: models.QuerySet[Any]) -> models.QuerySet[Any]:
        """What the requesting user may see. Blindness rules (grading) narrow it here."""
        return queryset

    def prepare_new(self, instance: models.Model) -> None:
        """Fill what the client does not send (e.g. `order`) before validation and saving."""

    def save_changes(
        self, instance: Any, changes: dict[str, Any], expected_revision: int
    ) -> models.Model:
        """Save a change; a domain operation (rubrics.services.edit_task) overrides this. Must
        raise a Conflict carrying `current` (editing.EditConflict, adjudication.StaleGoldVerdict)
        when the object is no longer at `expected_revision`."""
        saved: models.Model = editing.update(
            instance, changes, expected_revision, acting_user(self.request)
        )
        return saved

    def check_delete(self, instance: Any) -> None:
        """Refuse a delete the data's state forbids (raise a Conflict) before it is tried."""

    # ----- plumbing -----------------------------------------------------------------------
    def get_queryset(self) -> models.QuerySet[Any]:
        return self.visible(super().get_queryset())

    def get_object(self) -> Any:
        # PostgreSQL refuses NUL in a text query with an error; no object has it in its key.
        if "\x00" in str(self.kwargs.get(self.lookup_url_kwarg or self.lookup_field, "")):
            raise NotFound()
        return super().get_object()

    def audited_fields(self) -> list[str]:
        serializer = cast(serializers.Serializer[Any], self.get_serializer())
        return [
            name
            for name, field in serializer.fields.items()
            if not field.read_only and name != "revision"
        ]

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        instance = self.get_object()
        return Response(self.get_serializer(instance).data, headers={"ETag": etag(instance)})

    def perform_create(self, serializer: serializers.BaseSerializer[Any]) -> None:
        data = {k: v for k, v in serializer.validated_data.items() if k != "revision"}
        model: type[models.Model] = cast(serializers.ModelSerializer[Any], serializer).Meta.model
        instance = model(**data)
        self.prepare_new(instance)
        serializer.instance = editing.create(
            instance, acting_user(self.request), self.audited_fields()
        )

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        self.perform_create(serializer)
        return Response(
            serializer.data,
            status=status.HTTP_201_CREATED,
            headers={"ETag": etag(serializer.instance)},
        )

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        partial = kwargs.pop("partial", False)
        instance = self.get_object()
        serializer = self.get_serializer(instance, data=request.data, partial=partial)
        serializer.is_valid(raise_exception=True)  # an invalid body is a 400 whatever If-Match says
        if_match = self._check_if_match(request, instance)
        stated = serializer.validated_data.get("revision")
        if stated is None and not if_match:
            raise PreconditionRequired()
        expected = stated if stated is not None else instance.revision
        changes = {k: v for k, v in serializer.validated_data.items() if k != "revision"}
        try:
            saved = self.save_changes(instance, changes, expected)
        except Conflict as conflict:
            current = getattr(conflict, "current", None)  # a stale edit, not another refusal
            if stated is None and current is not None:  # If-Match matched, then someone saved
                raise PreconditionFailed(current=current) from conflict
            raise
        return Response(self.get_serializer(saved).data, headers={"ETag": etag(saved)})

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        instance = self.get_object()
        with transaction.atomic():
            current = (
                type(instance)._default_manager.select_for_update(of=("self",)).get(pk=instance.pk)
            )
            self._check_if_match(request, current)
            self.check_delete(current)
            editing.delete(current, acting_user(request), self.audited_fields())
        return Response(status=status.HTTP_204_NO_CONTENT)

    def _check_if_match(self, request: Request, instance: models.Model) -> bool:
        """False when no If-Match was sent; raises 412 when it names another revision."""
        header = request.headers.get("If-Match")
        if header is None:
            return False
        tags = parse_etags(header)
        if "*" not in tags and etag(instance) not in tags:
            raise PreconditionFailed(current=instance)
        return True


class ReadOnlyViewSet(viewsets.ReadOnlyModelViewSet[Any]):
    """A resource read through the API but written elsewhere (or by a bulk POST): same role
    check, same `visible()` hook and JSON 404s as RevisionedModelViewSet."""

    permission_classes = [RoleAction]
    read_action: ClassVar[Action | tuple[Action, ...]]
    write_action: ClassVar[Action | tuple[Action, ...] | None] = None
    lookup_value_regex = "[^/]+"

    def visible(self, queryset: models.QuerySet[Any]) -> models.QuerySet[Any]:
        """What the requesting user may see. Blindness rules (grading) narrow it here."""
        return queryset

    def get_queryset(self) -> models.QuerySet[Any]:
        return self.visible(super().get_queryset())
