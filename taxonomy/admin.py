from django import forms
from django.contrib import admin

from audit.admin import AuditedAdmin
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


class SubCompetencyInline(admin.TabularInline):
    model = SubCompetency
    extra = 0


class ContextValueInline(admin.TabularInline):
    """Read-only on a variable that takes a scale's levels: its values follow the levels."""

    model = ContextValue
    extra = 0

    def _free(self, obj: ContextVariable | None) -> bool:
        return obj is None or obj.scale_id is None

    def has_add_permission(self, request, obj):  # type: ignore[no-untyped-def]
        return self._free(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return self._free(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return self._free(obj) and super().has_delete_permission(request, obj)


class ContextValueForm(forms.ModelForm):
    class Meta:
        model = ContextValue
        fields = ["variable", "code", "label", "description", "order", "level"]

    def clean_variable(self) -> ContextVariable:
        variable = self.cleaned_data["variable"]
        if self.instance.pk is None:  # a saved value's variable: the change permission decides
            try:
                ContextValue(variable=variable).check_editable_by_hand()
            except ValueFollowsScale as refused:
                raise forms.ValidationError(str(refused)) from refused
        return variable


@admin.register(Framework)
class FrameworkAdmin(AuditedAdmin):
    list_display = ["code", "name"]
    search_fields = ["code", "name"]


@admin.register(Competency)
class CompetencyAdmin(AuditedAdmin):
    list_display = ["code", "name", "framework", "order"]
    list_filter = ["framework"]
    search_fields = ["code", "name"]
    inlines = [SubCompetencyInline]


@admin.register(SubCompetency)
class SubCompetencyAdmin(AuditedAdmin):
    list_display = ["code", "name", "competency", "order"]
    list_filter = ["competency__framework", "competency"]
    search_fields = ["code", "name"]


@admin.register(ContextVariable)
class ContextVariableAdmin(AuditedAdmin):
    list_display = ["key", "label", "kind", "group", "framework", "order"]
    list_filter = ["framework", "kind", "group"]
    search_fields = ["key", "label"]
    inlines = [ContextValueInline]

    def save_related(self, request, form, formsets, change):  # type: ignore[no-untyped-def]
        super().save_related(request, form, formsets, change)
        sync_scale_values(variables=[form.instance], actor=request.user)


@admin.register(ContextValue)
class ContextValueAdmin(AuditedAdmin):
    """A value tied to a scale's level is read-only (ContextValue.check_editable_by_hand)."""

    form = ContextValueForm
    list_display = ["label", "code", "variable", "order"]
    list_filter = ["variable__framework", "variable"]
    search_fields = ["label", "code"]

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return (obj is None or obj.level_id is None) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return (obj is None or obj.level_id is None) and super().has_delete_permission(request, obj)

    def get_deleted_objects(self, objs, request):  # type: ignore[no-untyped-def]
        # "Delete selected" asks no per-object permission: a tied value stops it here.
        deleted, counts, refused, protected = super().get_deleted_objects(objs, request)
        for value in objs:
            try:
                value.check_editable_by_hand()
            except ValueFollowsScale as error:
                refused.add(str(error))
        return deleted, counts, refused, protected


class ProficiencyLevelInline(admin.TabularInline):
    model = ProficiencyLevel
    fk_name = "scale"
    extra = 0


@admin.register(ProficiencyScale)
class ProficiencyScaleAdmin(AuditedAdmin):
    list_display = ["code", "name", "framework", "order"]
    list_filter = ["framework"]
    search_fields = ["code", "name"]
    inlines = [ProficiencyLevelInline]

    def save_related(self, request, form, formsets, change):  # type: ignore[no-untyped-def]
        super().save_related(request, form, formsets, change)
        sync_scale_values(scales=[form.instance], actor=request.user)


@admin.register(ProficiencyLevel)
class ProficiencyLevelAdmin(AuditedAdmin):
    list_display = ["label", "code", "scale", "order", "corresponds_to"]
    list_filter = ["scale__framework", "scale"]
    search_fields = ["label", "code"]

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        super().save_model(request, obj, form, change)
        sync_scale_values(scales=[obj.scale], actor=request.user)
