from django.contrib import admin

from judging.models import JudgeRating, JudgeRun, JudgeVerdict


@admin.register(JudgeRun)
class JudgeRunAdmin(admin.ModelAdmin):
    list_display = ["judge_model", "prompt_version", "run_id", "created_at"]


@admin.register(JudgeVerdict)
class JudgeVerdictAdmin(admin.ModelAdmin):
    list_display = ["run", "response", "criterion_version", "epoch", "verdict"]
    list_select_related = ["run", "response", "criterion_version__criterion"]
    raw_id_fields = ["response", "criterion_version"]


@admin.register(JudgeRating)
class JudgeRatingAdmin(admin.ModelAdmin):
    list_display = ["run", "response", "question", "epoch", "value"]
    list_filter = ["question"]
    list_select_related = ["run", "response"]
    raw_id_fields = ["response"]
