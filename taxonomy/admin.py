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
)
from taxonomy.scales import sync_scale_values


class SubCompetencyInline(admin.TabularInline):
    model = SubCompetency
    extra = 0


class ContextValueInline(admin.TabularInline):
    model = ContextValue
    extra = 0


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
    list_display = ["label", "code", "variable", "order"]
    list_filter = ["variable__framework", "variable"]
    search_fields = ["label", "code"]


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
