"""Admin for support work. Everyday authoring goes through rubrics.services (versioning, review
flow); here, published snapshots and frozen versions are read-only so the admin cannot rewrite
what grades point at, nor is a response that a study, a grade or the judge holds (a change to
one comes as its next version, through an import or the API)."""

from typing import Any

from django.contrib import admin
from django.db import models
from django.utils.translation import gettext_lazy as _

from audit.admin import AuditedAdmin
from l2annot.read_only_admin import ReadOnly
from rubrics.models import (
    Criterion,
    CriterionVersion,
    PublishedContextValue,
    PublishedResource,
    Response,
    Review,
    RubricItem,
    RubricVersion,
    ScalePoint,
    Task,
    TaskContextValue,
    TaskResource,
    Turn,
    UniversalExclusion,
)
from rubrics.responses import responses_in_use


class ReadOnlyInline[C: models.Model, P: models.Model](ReadOnly, admin.TabularInline[C, P]):
    extra = 0


class CriterionVersionInline(ReadOnlyInline[CriterionVersion, Criterion]):
    model = CriterionVersion
    fields = ("number", "wording", "weight", "scoring_type", "frozen", "created_at")
    readonly_fields = fields


class ScalePointInline(admin.TabularInline[ScalePoint, CriterionVersion]):
    model = ScalePoint
    extra = 0


class TaskResourceInline(admin.TabularInline[TaskResource, Task]):
    model = TaskResource
    extra = 0


class TaskContextValueInline(admin.TabularInline[TaskContextValue, Task]):
    model = TaskContextValue
    extra = 0
    raw_id_fields = ["variable", "value"]


class UniversalExclusionInline(admin.TabularInline[UniversalExclusion, Task]):
    model = UniversalExclusion
    extra = 0
    raw_id_fields = ["criterion"]
    exclude = ["created_by"]


class RubricItemInline(ReadOnlyInline[RubricItem, RubricVersion]):
    model = RubricItem
    fields = ("order", "criterion_version", "layer", "applicable", "na_reason")
    readonly_fields = fields


def _response_is_held(obj: Any) -> bool:
    """A superseded version, or a response something points at: never rewritten."""
    return (
        isinstance(obj, Response)
        and obj.pk is not None
        and (not obj.is_current or bool(responses_in_use([obj.pk])))
    )


class TurnInline(admin.TabularInline[Turn, Response]):
    model = Turn
    extra = 0

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return not _response_is_held(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return not _response_is_held(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return not _response_is_held(obj) and super().has_delete_permission(request, obj)


@admin.register(Criterion)
class CriterionAdmin(AuditedAdmin[Criterion]):
    list_display = ["code", "layer", "framework", "order", "retired"]
    list_filter = ["framework", "layer", "retired"]
    search_fields = ["code", "versions__wording"]
    raw_id_fields = ["sub_competency", "task"]
    inlines = [CriterionVersionInline]


@admin.register(CriterionVersion)
class CriterionVersionAdmin(AuditedAdmin[CriterionVersion]):
    list_display = ["__str__", "weight", "scoring_type", "frozen", "created_at"]
    list_filter = ["frozen", "scoring_type", "criterion__layer"]
    search_fields = ["criterion__code", "wording"]
    raw_id_fields = ["criterion", "created_by"]
    inlines = [ScalePointInline]

    def get_readonly_fields(self, request: Any, obj: Any = None) -> list[str]:
        if obj is not None and obj.frozen:
            return [f.name for f in CriterionVersion._meta.fields]
        return ["frozen"]

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return obj is None or not obj.frozen


@admin.register(ScalePoint)
class ScalePointAdmin(AuditedAdmin[ScalePoint]):
    list_display = ["version", "value", "label"]
    raw_id_fields = ["version"]


@admin.register(Task)
class TaskAdmin(AuditedAdmin[Task]):
    list_display = ["key", "sub_competency", "status", "difficulty", "task_type", "updated_at"]
    list_filter = ["framework", "status", "difficulty", "task_type"]
    search_fields = ["key", "instruction"]
    readonly_fields = ["status"]
    raw_id_fields = ["sub_competency", "created_by"]
    inlines = [TaskResourceInline, TaskContextValueInline, UniversalExclusionInline]


@admin.register(TaskResource)
class TaskResourceAdmin(AuditedAdmin[TaskResource]):
    list_display = ["title", "task", "kind", "order"]
    raw_id_fields = ["task"]


@admin.register(TaskContextValue)
class TaskContextValueAdmin(AuditedAdmin[TaskContextValue]):
    list_display = ["task", "variable", "shown_value"]
    raw_id_fields = ["task", "variable", "value"]

    @admin.display(description=_("value"))
    def shown_value(self, value: TaskContextValue) -> str:
        return value.display_value


@admin.register(UniversalExclusion)
class UniversalExclusionAdmin(AuditedAdmin[UniversalExclusion]):
    list_display = ["task", "criterion", "reason"]
    raw_id_fields = ["task", "criterion", "created_by"]


@admin.register(RubricVersion)
class RubricVersionAdmin(AuditedAdmin[RubricVersion]):
    list_display = ["__str__", "published_by", "published_at"]
    list_filter = ["task__framework"]
    search_fields = ["task__key"]
    inlines = [RubricItemInline]

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(RubricItem)
class RubricItemAdmin(AuditedAdmin[RubricItem]):
    list_display = ["rubric_version", "order", "criterion_version", "layer", "applicable"]

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(PublishedResource)
class PublishedResourceAdmin(AuditedAdmin[PublishedResource]):
    """A resource as its task was published: written by publishing only."""

    list_display = ["rubric_version", "order", "title", "kind"]

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(PublishedContextValue)
class PublishedContextValueAdmin(AuditedAdmin[PublishedContextValue]):
    """A context value as its task was published: written by publishing only."""

    list_display = ["rubric_version", "variable", "value", "text", "number"]

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Review)
class ReviewAdmin(AuditedAdmin[Review]):
    list_display = ["task", "action", "by", "at"]
    list_filter = ["action"]

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Response)
class ResponseAdmin(AuditedAdmin[Response]):
    list_display = ["task", "model_name", "model_family", "kind", "external_id", "version"]
    list_filter = ["model_family", "kind"]
    search_fields = ["task__key", "model_name", "external_id"]
    raw_id_fields = ["task"]
    readonly_fields = ["version", "superseded_at"]
    inlines = [TurnInline]

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return not _response_is_held(obj) and super().has_change_permission(request, obj)


@admin.register(Turn)
class TurnAdmin(AuditedAdmin[Turn]):
    list_display = ["response", "index", "role"]
    raw_id_fields = ["response"]
