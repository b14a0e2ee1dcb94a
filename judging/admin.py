from django.contrib import admin
from django.http import HttpRequest

from judging.models import (
    JudgeBatch,
    JudgeConfig,
    JudgeRating,
    JudgeRun,
    JudgeVerdict,
    ModelPrice,
    PromptTemplate,
    PromptVersion,
    TriageResolution,
)
from l2annot.read_only_admin import ReadOnly


@admin.register(JudgeRun)
class JudgeRunAdmin(admin.ModelAdmin[JudgeRun]):
    list_display = ["__str__", "judge_model", "prompt_version", "model_family", "run_id", "status"]
    list_filter = ["status"]


@admin.register(JudgeBatch)
class JudgeBatchAdmin(ReadOnly, admin.ModelAdmin[JudgeBatch]):
    """The batches a run sent through its provider's batch API: written by the run as it goes
    (a later worker resumes from them), so shown, never changed here."""

    list_display = ["run", "batch_id", "size", "completed", "failed", "submitted_at", "ended_at"]
    list_select_related = ["run"]


@admin.register(PromptTemplate)
class PromptTemplateAdmin(admin.ModelAdmin[PromptTemplate]):
    list_display = ["name", "description"]

    def get_readonly_fields(
        self, request: HttpRequest, obj: PromptTemplate | None = None
    ) -> list[str]:
        # Runs name their prompt `name@number`: once one ran, the name stays.
        return ["name"] if obj is not None and obj.is_used() else []


@admin.register(PromptVersion)
class PromptVersionAdmin(admin.ModelAdmin[PromptVersion]):
    """Versions are written on the prompts page, by an import or through the API, which number
    them; here a version no run used may have its style or note corrected, and one a run used
    is shown, never changed (`PromptVersion.save` refuses it too)."""

    list_display = ["template", "number", "style", "created_at"]
    readonly_fields = ["template", "number", "text", "created_by"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: PromptVersion | None = None) -> bool:
        frozen = obj is not None and obj.is_used()
        return not frozen and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: PromptVersion | None = None) -> bool:
        frozen = obj is not None and obj.is_used()
        return not frozen and super().has_delete_permission(request, obj)


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


@admin.register(ModelPrice)
class ModelPriceAdmin(admin.ModelAdmin[ModelPrice]):
    list_display = ["model", "input_per_million", "output_per_million", "batch_discount"]
    list_display += ["currency", "source", "updated_at"]
    search_fields = ["model"]
