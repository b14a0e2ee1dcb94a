"""Judge prompt versions and saved judge configurations: read with Action.VIEW_BENCHMARK (as a
run's prompt is), created with Action.MANAGE_STUDIES through the services the prompts page
and the "Run the judge" form call (judging.services), never changed or deleted: a version a
run used is frozen and a configuration never changes under its runs, so a change is a new
version or a configuration under a new name.

A POST answers 201 with what it made, or 200 with the version or configuration that already
holds exactly these values (the same request twice makes one)."""

from typing import Any

import django_filters
from django.conf import settings
from django.db.models import Count
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.roles import Action
from api import schema
from api.filters import FilterSet
from api.permissions import acting_user
from api.serializers import ApiModelSerializer, ApiSerializer
from api.viewsets import ReadOnlyViewSet
from judging.models import JudgeConfig, PromptVersion
from judging.services import default_prompt, find_prompt, save_prompt, saved_config

SLUG = r"^[-a-zA-Z0-9_]+$"
# What a create answers besides its success (the views name their answers, so the schema's
# defaults are not added).
WRITE_ERRORS = {
    400: schema.INVALID,
    401: schema.UNAUTHENTICATED,
    403: schema.FORBIDDEN,
    409: OpenApiResponse(
        schema.ErrorSerializer,
        description="The state of the data refuses it (the message says why), or it clashes "
        "with data saved at the same time.",
    ),
}


class PromptVersionSerializer(ApiModelSerializer):
    name = serializers.CharField(source="template.name", help_text="The prompt's name.")
    reference = serializers.CharField(
        source="__str__",
        help_text="`name@number`: how a judge configuration, a run and `run_judge --prompt` "
        "name this version.",
    )
    description = serializers.CharField(
        source="template.description", help_text="The prompt's description."
    )
    created_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    runs = serializers.IntegerField(
        source="run_count", help_text="How many judge runs sent this version."
    )
    frozen = serializers.SerializerMethodField(
        help_text="A run sent it: nothing changes it (as every version is never edited here)."
    )

    class Meta:
        model = PromptVersion
        fields = [
            *("id", "name", "number", "reference", "style", "text", "note", "description"),
            *("created_by", "created_at", "runs", "frozen"),
        ]
        read_only_fields = fields

    def get_frozen(self, version: PromptVersion) -> bool:
        return bool(getattr(version, "run_count", 0))


class NewPromptVersionSerializer(ApiSerializer):
    name = serializers.RegexField(
        SLUG,
        max_length=60,
        help_text="The prompt: a new name makes the prompt with this text as its version 1.",
    )
    text = serializers.CharField(
        trim_whitespace=False,
        help_text="The prompt's text with its slots (`{{response}}` and `{{criterion}}` "
        "required; docs/formats.md), at most JUDGE_PROMPT_MAX_CHARS characters.",
    )
    # A declared field named as DRF's `Field.style` (the metaclass takes it as a field).
    style = serializers.ChoiceField(  # type: ignore[assignment]
        choices=PromptVersion.Style.choices, default=PromptVersion.Style.BINARY
    )
    note = serializers.CharField(
        required=False, default="", allow_blank=True, help_text="What changed, and why."
    )
    description = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        help_text="The prompt's description, when the request makes the prompt.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["text"].max_length = settings.JUDGE_PROMPT_MAX_CHARS  # type: ignore[attr-defined]


class PromptVersionFilter(FilterSet):
    name = django_filters.CharFilter("template__name", label="The prompt's name")

    class Meta:
        model = PromptVersion
        fields = ["name", "number", "style"]


class PromptVersionViewSet(ReadOnlyViewSet):
    read_action = Action.VIEW_BENCHMARK
    write_action = Action.MANAGE_STUDIES
    queryset = PromptVersion.objects.select_related("template", "created_by").annotate(
        run_count=Count("runs")
    )
    serializer_class = PromptVersionSerializer
    filterset_class = PromptVersionFilter
    ordering_fields = ["id", "number", "created_at"]
    ordering = ["template__name", "number"]

    @extend_schema(
        request=NewPromptVersionSerializer,
        responses={
            201: PromptVersionSerializer,
            200: OpenApiResponse(
                PromptVersionSerializer,
                description="The prompt's latest version already has this text and style.",
            ),
            **WRITE_ERRORS,
        },
    )
    def create(self, request: Request) -> Response:
        """Save a prompt's next version (or a new prompt), as the prompts page does: a text
        equal to the latest version's (and its style) is that version. A version is never
        changed: this is the way to change a prompt."""
        body = NewPromptVersionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        version, made = save_prompt(**body.validated_data, by=acting_user(request))
        saved = self.get_queryset().get(pk=version.pk)
        answer = status.HTTP_201_CREATED if made else status.HTTP_200_OK
        return Response(PromptVersionSerializer(saved).data, status=answer)


PROMPT_HELP = "The prompt version: `name@number`, or `name` for its latest version."


class JudgeConfigSerializer(ApiModelSerializer):
    prompt = serializers.CharField(read_only=True, help_text=PROMPT_HELP)

    class Meta:
        model = JudgeConfig
        fields = [
            *("id", "name", "model", "prompt", "model_family", "temperature", "epochs"),
            *("max_connections", "parse_retries", "retry_temperature", "ask_probability"),
            "created_at",
        ]
        read_only_fields = fields


class JudgeValuesSerializer(ApiSerializer):
    """What a judge configuration holds (the "Run the judge" form's fields, with its bounds)."""

    model = serializers.CharField(
        max_length=200,
        help_text="An Inspect AI model string (`anthropic/claude-sonnet-4-6`, "
        "`openai-api/<service>/<model>`) of a provider the server allows "
        "(JUDGE_ALLOWED_PROVIDERS).",
    )
    prompt = serializers.CharField(
        max_length=100,
        required=False,
        help_text=f"{PROMPT_HELP} The shipped `reference-guided` when left out.",
    )
    model_family = serializers.CharField(
        max_length=200, required=False, default="", allow_blank=True
    )
    temperature = serializers.FloatField(min_value=0.0, max_value=2.0, default=0.0)
    epochs = serializers.IntegerField(min_value=1, max_value=10, default=1)
    max_connections = serializers.IntegerField(min_value=1, max_value=200, default=10)
    parse_retries = serializers.IntegerField(min_value=0, max_value=10, default=3)
    retry_temperature = serializers.FloatField(min_value=0.0, max_value=2.0, default=0.2)
    ask_probability = serializers.BooleanField(
        default=False,
        help_text="Ask the judge for its probability that the response meets each binary "
        "criterion (core.prompting.PROBABILITY_REQUEST after the prompt).",
    )

    def validate_prompt(self, reference: str) -> PromptVersion:
        return find_prompt(reference)


class NewJudgeConfigSerializer(JudgeValuesSerializer):
    name = serializers.RegexField(
        SLUG,
        max_length=60,
        required=False,
        default="",
        allow_blank=True,
        help_text="The name to reuse it by; left out, it is named after the model and prompt "
        "(and an existing configuration with the same values is the answer).",
    )


class JudgeConfigViewSet(ReadOnlyViewSet):
    read_action = Action.VIEW_BENCHMARK
    write_action = Action.MANAGE_STUDIES
    queryset = JudgeConfig.objects.select_related("prompt__template")
    serializer_class = JudgeConfigSerializer
    filterset_fields = ["name", "model"]
    ordering_fields = ["id", "name", "created_at"]
    ordering = ["name"]

    @extend_schema(
        request=NewJudgeConfigSerializer,
        responses={
            201: JudgeConfigSerializer,
            200: OpenApiResponse(
                JudgeConfigSerializer,
                description="A configuration already holds exactly these values (under this "
                "name, when one is given).",
            ),
            **WRITE_ERRORS,
        },
    )
    def create(self, request: Request) -> Response:
        """Save a judge configuration, as the "Run the judge" form's *Save as* does. A name that
        holds other values is refused (400): a configuration never changes under its runs."""
        body = NewJudgeConfigSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        config, made = saved_config(**judge_values(body.validated_data), by=acting_user(request))
        answer = status.HTTP_201_CREATED if made else status.HTTP_200_OK
        return Response(JudgeConfigSerializer(config).data, status=answer)


def judge_values(values: dict[str, Any]) -> dict[str, Any]:
    """A valid body's values as `saved_config` and `start_run` take them: the default prompt
    (the shipped reference-guided) when none is named."""
    values = dict(values)
    if values.get("prompt") is None:
        values["prompt"] = default_prompt()
    return values
