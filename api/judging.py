"""Judge runs and their verdicts (a verdict is null when the judge's answer could not be read
as true or false, its output kept as the rationale): read with Action.VIEW_BENCHMARK (never by
annotators, whose grading must not be swayed by the judge). A run is queued with
Action.MANAGE_STUDIES through the service the study's judge page calls (judging.runs); verdicts
are created in bulk with Action.IMPORT_DATA through the verdicts importer, so a POST and an
uploaded file obey the same rules.

A turn-level criterion of a dialogue is judged once per tutor turn: those verdicts (with their
`turn`) sit beside the response's verdict that folds them. The verdict list gives the
responses' verdicts unless asked for the turns' (`turns=true`), so a count never mixes the two.
"""

from typing import Any

import django_filters
from django.db.models import Count, Q, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.roles import Action
from api import imports
from api.filters import BooleanFilter, FilterSet, IntegerFilter
from api.permissions import acting_user
from api.prompts import SLUG, WRITE_ERRORS, JudgeValuesSerializer, judge_values
from api.serializers import ApiModelSerializer, ApiSerializer, SlugRelatedField
from api.viewsets import ReadOnlyViewSet
from grading.models import Study
from judging import runs
from judging.models import JudgeConfig, JudgeRun, JudgeVerdict
from judging.verdict_import import import_verdicts


class UsageSerializer(ApiModelSerializer):
    class Meta:
        model = JudgeRun
        fields = ["input_tokens", "output_tokens", "total_tokens"]
        read_only_fields = fields


class CostSerializer(ApiModelSerializer):
    """What a run costs, at the price it started with (a later edit of the model's price
    leaves it alone); amounts are decimal strings in `currency`."""

    currency = serializers.CharField(
        read_only=True, help_text="ISO 4217 code; empty when no price was known."
    )
    input_per_million = serializers.DecimalField(
        source="price_input_per_million",
        max_digits=12,
        decimal_places=4,
        allow_null=True,
        read_only=True,
        help_text="The price of a million input tokens when the run started; null when none "
        "was known (and for an imported run).",
    )
    output_per_million = serializers.DecimalField(
        source="price_output_per_million",
        max_digits=12,
        decimal_places=4,
        allow_null=True,
        read_only=True,
        help_text="The price of a million output tokens when the run started.",
    )
    estimated = serializers.DecimalField(
        source="estimated_cost",
        max_digits=14,
        decimal_places=2,
        allow_null=True,
        read_only=True,
        help_text="The estimate before the run started, from the filled prompts (characters / "
        "4 input tokens) and the output tokens assumed for the prompt's answer style.",
    )
    actual = serializers.DecimalField(
        source="cost",
        max_digits=14,
        decimal_places=2,
        allow_null=True,
        read_only=True,
        help_text="The tokens the provider reported so far (every attempt; calls answered from "
        "the cache are free) at the run's price; null without a price.",
    )

    class Meta:
        model = JudgeRun
        fields = ["currency", "input_per_million", "output_per_million", "estimated", "actual"]
        fields += ["estimated_input_tokens", "estimated_output_tokens"]
        read_only_fields = fields


# The schema's JudgeRunStatus (settings.ENUM_NAME_OVERRIDES): what is stored, `stalled` and
# `stopping`.
RUN_STATUSES = [*JudgeRun.Status.values, JudgeRun.STALLED, JudgeRun.STOPPING]


class JudgeRunSerializer(ApiModelSerializer):
    status = serializers.ChoiceField(
        source="live_status",
        choices=RUN_STATUSES,
        read_only=True,
        help_text="`stalled`: the run was running, but its worker has given no sign of life for "
        "a minute (it was killed or the machine stopped), as the run's page says; run it again "
        "from the page. `stopping`: cancelled while it ran, its worker ends the calls under way "
        "(then `cancelled`); it can be run again once it has stopped.",
    )
    heartbeat = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="The last sign of life of the job running it; null for a run not made here "
        "or not started.",
    )
    verdicts = serializers.IntegerField(
        source="verdict_count",
        help_text="How many verdicts on whole responses (a dialogue's turns not counted).",
    )
    name = serializers.CharField(
        source="display_name",
        read_only=True,
        help_text="The run's one name, as every page and export gives it: its judge "
        "configuration's name and version (`strict-sonnet v2`, the configuration's second run "
        "on the study) for a run made here; its model, prompt and the start of its id for an "
        "imported one.",
    )
    prompt_template = serializers.CharField(
        source="prompt.text",
        allow_null=True,
        default=None,
        help_text="The prompt's text as the run sent it (slots unfilled); null for an imported "
        "run, whose prompt is known only by its `prompt_version` label.",
    )
    usage = UsageSerializer(source="*", read_only=True, help_text="Tokens the judge used.")
    cost = CostSerializer(source="*", read_only=True, help_text="What the run costs.")
    config: serializers.SlugRelatedField[JudgeConfig] = serializers.SlugRelatedField(
        slug_field="name",
        read_only=True,
        allow_null=True,
        help_text="The name of the saved judge configuration the run was made with; null for "
        "an imported run.",
    )
    model_family = serializers.CharField(
        read_only=True,
        help_text="The judge's model family, which self-preference compares with: its "
        "configuration's for a run made here.",
    )
    parameters = serializers.DictField(
        read_only=True,
        help_text="What the run was made with: temperature, epochs, max_connections, "
        "parse_retries, retry_temperature, the study and the limit; empty for an imported run.",
    )

    class Meta:
        model = JudgeRun
        fields = ["id", "name", "judge_model", "prompt_version", "prompt_template", "config"]
        fields += ["model_family"]
        fields += ["run_id", "status", "parameters", "calls_total", "calls_done", "errors"]
        fields += ["unparseable", "usage", "cost", "duration", "started", "heartbeat"]
        fields += ["finished"]
        fields += ["created_at"]
        fields += ["verdicts"]
        read_only_fields = fields


class NewJudgeRunSerializer(JudgeValuesSerializer):
    """A run as the study's "Run the judge" form asks for it: a saved configuration by name,
    or the values of one (saved under `name` when given, else found by its values)."""

    study = serializers.PrimaryKeyRelatedField(
        queryset=Study.objects.all(), help_text="The study whose responses the judge reads."
    )
    config = SlugRelatedField(
        slug_field="name",
        queryset=JudgeConfig.objects.select_related("prompt__template"),
        required=False,
        help_text="A saved judge configuration, used as it is: then give none of its values.",
    )
    name = serializers.RegexField(
        SLUG,
        max_length=60,
        required=False,
        default="",
        allow_blank=True,
        help_text="Without `config`: the name to save these values under, to reuse them.",
    )
    model = serializers.CharField(
        max_length=200,
        required=False,
        help_text="Without `config` (then required): an Inspect AI model string of a provider "
        "the server allows (JUDGE_ALLOWED_PROVIDERS).",
    )
    limit = serializers.IntegerField(
        min_value=1,
        max_value=2**31 - 1,
        required=False,
        allow_null=True,
        default=None,
        help_text="Judge only the first N units (a trial run).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        given = set(self.initial_data) if isinstance(self.initial_data, dict) else set()
        values = set(JudgeValuesSerializer().fields) | {"name"}
        if attrs.get("config") is not None:
            both = sorted(given & values)
            if both:
                raise serializers.ValidationError(
                    {field: ["Give a saved `config` or its values, not both."] for field in both}
                )
            return {key: attrs[key] for key in ("study", "config", "limit")}
        if not attrs.get("model"):
            raise serializers.ValidationError(
                {"model": ["Name the model, or give a saved `config`."]}
            )
        return attrs


class JudgeVerdictSerializer(ApiModelSerializer):
    judge_model = serializers.CharField(source="run.judge_model")
    task_key = serializers.CharField(source="response.task.key")
    response_version = serializers.IntegerField(
        source="response.version", help_text="The version of the response the judge read."
    )
    criterion = serializers.CharField(source="criterion_version.criterion.code")
    version = serializers.IntegerField(
        source="criterion_version.number", help_text="The criterion version the judge saw."
    )
    turn = serializers.IntegerField(
        source="turn.index",
        allow_null=True,
        read_only=True,
        help_text="The tutor turn judged (its index in the dialogue, from 0) on a turn-level "
        "criterion; null for the verdict on the whole response.",
    )

    class Meta:
        model = JudgeVerdict
        fields = [
            *("id", "run", "judge_model", "response", "response_version", "task_key"),
            *("criterion", "version"),
            *("criterion_version", "epoch", "turn", "verdict", "level", "rationale"),
            "pass_probability",
        ]
        read_only_fields = fields


class VerdictItemSerializer(ApiSerializer):
    """One item of a bulk upload: the fields of a line of a verdicts JSONL file."""

    response_id = serializers.CharField(
        required=False, help_text="The response's `id` (or give task_key, model and epoch)."
    )
    task_key = serializers.CharField(required=False)
    model = serializers.CharField(required=False)
    epoch = serializers.IntegerField(required=False, min_value=1, default=1)
    criterion_id = serializers.CharField(help_text="The criterion's code.")
    verdict = serializers.BooleanField()
    judge_model = serializers.CharField()
    rationale = serializers.CharField(required=False)
    prompt_version = serializers.CharField(required=False)
    run_id = serializers.CharField(required=False)
    weight = serializers.IntegerField(required=False, help_text="The weight the judge saw.")
    turn = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="On a turn-level criterion of a dialogue: the tutor turn judged (its index, "
        "from 0); the turns' verdicts are folded into the response's by the criterion's rule.",
    )
    response_version = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="The version of the response the judge read, when not the current one.",
    )


class JudgeVerdictFilter(FilterSet):
    run = IntegerFilter(label="Judge run id")
    response = IntegerFilter(label="Response id")
    criterion = django_filters.CharFilter(
        "criterion_version__criterion__code", label="Criterion code"
    )
    judge_model = django_filters.CharFilter("run__judge_model", label="Judge model")
    task_key = django_filters.CharFilter("response__task__key", label="Task key")
    turns = BooleanFilter(
        method="by_turns",
        label="true: the verdicts on single tutor turns; false (the default): on whole responses",
    )

    class Meta:
        model = JudgeVerdict
        fields = ["run", "response", "criterion", "judge_model", "task_key", "epoch", "verdict"]

    def by_turns(
        self, queryset: QuerySet[JudgeVerdict], name: str, value: bool
    ) -> QuerySet[JudgeVerdict]:
        return queryset.filter(turn__isnull=not value)


class JudgeRunViewSet(ReadOnlyViewSet):
    read_action = Action.VIEW_BENCHMARK
    write_action = Action.MANAGE_STUDIES
    queryset = JudgeRun.objects.select_related("prompt", "config", "job").annotate(
        verdict_count=Count("verdicts", filter=Q(verdicts__turn__isnull=True))
    )
    serializer_class = JudgeRunSerializer
    filterset_fields = ["judge_model", "prompt_version", "run_id", "status"]
    ordering_fields = ["id", "created_at", "judge_model"]
    ordering = ["-created_at", "id"]

    @extend_schema(
        request=NewJudgeRunSerializer, responses={201: JudgeRunSerializer, **WRITE_ERRORS}
    )
    def create(self, request: Request) -> Response:
        """Queue a judge run on a study, as its judge page does (the same service: the
        allowed providers checked, the configuration saved or found, the run queued for the
        worker). A study with nothing to judge is a 409."""
        body = NewJudgeRunSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        values = dict(body.validated_data)
        study = values.pop("study")
        if values.get("config") is None:
            values = judge_values(values)
        run = runs.start_run(study, **values, by=acting_user(request))
        created = self.get_queryset().get(pk=run.pk)
        return Response(JudgeRunSerializer(created).data, status=status.HTTP_201_CREATED)


class JudgeVerdictViewSet(ReadOnlyViewSet):
    read_action = Action.VIEW_BENCHMARK
    write_action = Action.IMPORT_DATA
    queryset = JudgeVerdict.objects.select_related(
        "run", "response__task", "criterion_version__criterion", "turn"
    )
    serializer_class = JudgeVerdictSerializer
    filterset_class = JudgeVerdictFilter
    parser_classes = imports.PARSERS
    ordering_fields = ["id", "epoch"]
    ordering = ["id"]

    def get_queryset(self) -> QuerySet[JudgeVerdict]:
        queryset = super().get_queryset()
        if self.action == "list" and "turns" not in self.request.query_params:
            return queryset.filter(turn__isnull=True)  # whole responses unless asked
        return queryset

    @extend_schema(
        parameters=[imports.FRAMEWORK, imports.DRY_RUN],
        request={"application/json": VerdictItemSerializer(many=True)},
        responses=imports.IMPORT_RESPONSES,
    )
    def create(self, request: Request) -> Response:
        """Create or update verdicts in bulk, all or nothing: a JSON list of items (or JSON
        Lines). The responses they name must exist. Errors are keyed by item index and field."""
        return imports.bulk_import(request, import_verdicts)
