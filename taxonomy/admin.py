from collections.abc import Sequence
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from audit.admin import AuditedAdmin, admin_user
from taxonomy.models import (
    Competency,
    ContextValue,
    ContextVariable,
    Framework,
    ProficiencyLevel,
    ProficiencyScale,
    SubCompetency,
    ValueFollowsScale,
)
from taxonomy.scales import sync_scale_values


class SubCompetencyInline(admin.TabularInline[SubCompetency, Competency]):
    model = SubCompetency
    extra = 0


class ContextValueInline(admin.TabularInline[ContextValue, ContextVariable]):
    """Read-only on a variable that takes a scale's levels: its values follow the levels."""

    model = ContextValue
    extra = 0

    def _free(self, obj: ContextVariable | None) -> bool:
        return obj is None or obj.scale_id is None

    # An inline's takes the parent object; the stubs type it against ModelAdmin's.
    def has_add_permission(  # type: ignore[override]
        self, request: HttpRequest, obj: ContextVariable | None
    ) -> bool:
        return self._free(obj) and super().has_add_permission(request, obj)

    def has_change_permission(
        self, request: HttpRequest, obj: ContextVariable | None = None
    ) -> bool:
        return self._free(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(
        self, request: HttpRequest, obj: ContextVariable | None = None
    ) -> bool:
        return self._free(obj) and super().has_delete_permission(request, obj)


class ContextValueForm(forms.ModelForm[ContextValue]):
    class Meta:
        model = ContextValue
        fields = ["variable", "code", "label", "description", "order", "level"]

    def clean_variable(self) -> ContextVariable:
        variable: ContextVariable = self.cleaned_data["variable"]
        if self.instance.pk is None:  # a saved value's variable: the change permission decides
            try:
                ContextValue(variable=variable).check_editable_by_hand()
            except ValueFollowsScale as refused:
                raise forms.ValidationError(str(refused)) from refused
        return variable


@admin.register(Framework)
class FrameworkAdmin(AuditedAdmin[Framework]):
    list_display = ["code", "name"]
    search_fields = ["code", "name"]


@admin.register(Competency)
class CompetencyAdmin(AuditedAdmin[Competency]):
    list_display = ["code", "name", "framework", "order"]
    list_filter = ["framework"]
    search_fields = ["code", "name"]
    inlines = [SubCompetencyInline]


@admin.register(SubCompetency)
class SubCompetencyAdmin(AuditedAdmin[SubCompetency]):
    list_display = ["code", "name", "competency", "order"]
    list_filter = ["competency__framework", "competency"]
    search_fields = ["code", "name"]


@admin.register(ContextVariable)
class ContextVariableAdmin(AuditedAdmin[ContextVariable]):
    list_display = ["key", "label", "kind", "group", "framework", "order"]
    list_filter = ["framework", "kind", "group"]
    search_fields = ["key", "label"]
    inlines = [ContextValueInline]

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        sync_scale_values(variables=[form.instance], actor=admin_user(request))


@admin.register(ContextValue)
class ContextValueAdmin(AuditedAdmin[ContextValue]):
    """A value tied to a scale's level is read-only (ContextValue.check_editable_by_hand)."""

    form = ContextValueForm
    list_display = ["label", "code", "variable", "order"]
    list_filter = ["variable__framework", "variable"]
    search_fields = ["label", "code"]

    def has_change_permission(self, request: HttpRequest, obj: ContextValue | None = None) -> bool:
        return (obj is None or obj.level_id is None) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: ContextValue | None = None) -> bool:
        return (obj is None or obj.level_id is None) and super().has_delete_permission(request, obj)

    def get_deleted_objects(
        self, objs: Sequence[ContextValue] | QuerySet[ContextValue], request: HttpRequest
    ) -> tuple[list[str], dict[str, int], set[str], list[str]]:
        # "Delete selected" asks no per-object permission: a tied value stops it here.
        deleted, counts, refused, protected = super().get_deleted_objects(objs, request)
        for value in objs:
            try:
                value.check_editable_by_hand()
            except ValueFollowsScale as error:
                refused.add(str(error))
        return deleted, counts, refused, protected


class ProficiencyLevelInline(admin.TabularInline[ProficiencyLevel, ProficiencyScale]):
    model = ProficiencyLevel
    fk_name = "scale"
    extra = 0


@admin.register(ProficiencyScale)
class ProficiencyScaleAdmin(AuditedAdmin[ProficiencyScale]):
    list_display = ["code", "name", "framework", "order"]
    list_filter = ["framework"]
    search_fields = ["code", "name"]
    inlines = [ProficiencyLevelInline]

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        sync_scale_values(scales=[form.instance], actor=admin_user(request))


@admin.register(ProficiencyLevel)
class ProficiencyLevelAdmin(AuditedAdmin[ProficiencyLevel]):
    list_display = ["label", "code", "scale", "order", "corresponds_to"]
    list_filter = ["scale__framework", "scale"]
    search_fields = ["label", "code"]

    def save_model(
        self, request: HttpRequest, obj: ProficiencyLevel, form: Any, change: bool
    ) -> None:
        super().save_model(request, obj, form, change)
        sync_scale_values(scales=[obj.scale], actor=admin_user(request))
