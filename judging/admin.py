from django.contrib import admin

from judging.models import (
    JudgeConfig,
    JudgeRating,
    JudgeRun,
    JudgeVerdict,
    PromptTemplate,
    PromptVersion,
    TriageResolution,
)


@admin.register(JudgeRun)
class JudgeRunAdmin(admin.ModelAdmin[JudgeRun]):
    list_display = ["__str__", "judge_model", "prompt_version", "model_family", "run_id", "status"]
    list_filter = ["status"]


@admin.register(PromptTemplate)
class PromptTemplateAdmin(admin.ModelAdmin[PromptTemplate]):
    list_display = ["name", "description"]


@admin.register(PromptVersion)
class PromptVersionAdmin(admin.ModelAdmin[PromptVersion]):
    list_display = ["template", "number", "style", "created_at"]
    readonly_fields = ["text"]  # a version's text is never edited: save a new version


@admin.register(JudgeConfig)
class JudgeConfigAdmin(admin.ModelAdmin[JudgeConfig]):
    list_display = ["name", "model", "prompt", "model_family", "temperature", "epochs"]


@admin.register(JudgeVerdict)
class JudgeVerdictAdmin(admin.ModelAdmin[JudgeVerdict]):
    list_display = ["run", "response", "criterion_version", "epoch", "turn", "verdict"]
    list_select_related = ["run", "response", "criterion_version__criterion"]
    raw_id_fields = ["response", "criterion_version"]


@admin.register(JudgeRating)
class JudgeRatingAdmin(admin.ModelAdmin[JudgeRating]):
    list_display = ["run", "response", "question", "epoch", "value"]
    list_filter = ["question"]
    list_select_related = ["run", "response"]
    raw_id_fields = ["response"]


@admin.register(TriageResolution)
class TriageResolutionAdmin(admin.ModelAdmin[TriageResolution]):
    list_display = ["run", "criterion_version", "kind", "prompt", "by", "created_at"]
    list_filter = ["kind"]
    list_select_related = ["run", "criterion_version__criterion", "prompt__template", "by"]
    raw_id_fields = ["response", "criterion_version", "draft"]
