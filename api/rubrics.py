"""Tasks with their effective rubric, criteria, the review workflow, and model responses.

Read with Action.VIEW_BENCHMARK. Tasks are written with Action.EDIT_RUBRICS through
rubrics.services (the same rules as the authoring screens: a task in review is locked, an edit
after publication reopens the draft); approving and returning need Action.REVIEW_RUBRICS.
Responses are created in bulk with Action.IMPORT_DATA through the responses importer, so a POST
and an uploaded file obey the same rules."""

from typing import Any

import django_filters
from django.db.models import OuterRef, QuerySet, Subquery
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse

from accounts.roles import Action
from api import imports, schema
from api.filters import BooleanFilter, FilterSet, IntegerFilter
from api.permissions import acting_user
from api.serializers import ApiModelSerializer, ApiSerializer, RevisionedSerializer
from api.viewsets import ReadOnlyViewSet, RevisionedModelViewSet, etag
from interchange.importers import import_responses
from rubrics import services
from rubrics.models import Criterion, CriterionVersion, Layer, Response, Task, Turn
from taxonomy.models import SubCompetency


# ----- tasks ---------------------------------------------------------------------------------
class RubricLineSerializer(ApiSerializer):
    """One line of Task.effective_rubric(): a criterion at its latest version."""

    criterion = serializers.IntegerField(source="criterion.pk", help_text="Criterion id.")
    code = serializers.CharField()
    layer = serializers.ChoiceField(choices=Layer.choices)
    weight = serializers.IntegerField(help_text="Negative for a penalty.")
    version = serializers.IntegerField(source="version.number")
    criterion_version = serializers.IntegerField(source="version.pk")
    wording = serializers.CharField(source="version.wording")
    scoring_type = serializers.CharField(source="version.scoring_type")
    applicable = serializers.BooleanField()
    na_reason = serializers.CharField()


class TaskSerializer(RevisionedSerializer):
    framework = serializers.CharField(source="framework.code", read_only=True)
    sub_competency = serializers.PrimaryKeyRelatedField(
        queryset=SubCompetency.objects.select_related("competency")
    )
    sub_competency_code = serializers.CharField(source="sub_competency.code", read_only=True)

    class Meta:
        model = Task
        fields = [
            *("id", "framework", "key", "sub_competency", "sub_competency_code", "instruction"),
            *("system_prompt", "reference_answer", "difficulty", "language", "task_type"),
            *("status", "revision", "created_at", "updated_at"),
        ]
        read_only_fields = ["status", "created_at", "updated_at"]


class TaskDetailSerializer(TaskSerializer):
    published_version = serializers.SerializerMethodField(
        allow_null=True,
        help_text="Number of the latest published rubric version; null before the first.",
    )
    rubric = serializers.SerializerMethodField(
        help_text="The criteria the task is graded on now: universal, consensus, then its own."
    )

    class Meta(TaskSerializer.Meta):
        fields = [*TaskSerializer.Meta.fields, "published_version", "rubric"]

    @extend_schema_field(OpenApiTypes.INT)
    def get_published_version(self, task: Task) -> int | None:
        return task.rubric_versions.order_by("-number").values_list("number", flat=True).first()

    @extend_schema_field(RubricLineSerializer(many=True))
    def get_rubric(self, task: Task) -> list[dict[str, Any]]:
        return list(RubricLineSerializer(task.effective_rubric(), many=True).data)


class CommentSerializer(ApiSerializer):
    comment = serializers.CharField(required=False, allow_blank=True, default="")


class ReturnSerializer(ApiSerializer):
    comment = serializers.CharField(help_text="What needs changing.")


class TaskFilter(FilterSet):
    framework = django_filters.CharFilter("framework__code", label="Framework code")
    sub_competency = IntegerFilter(label="Sub-competency id")
    competency_code = django_filters.CharFilter(
        "sub_competency__competency__code", label="Competency code"
    )
    sub_competency_code = django_filters.CharFilter(
        "sub_competency__code", label="Sub-competency code"
    )

    class Meta:
        model = Task
        fields = [
            *("framework", "key", "sub_competency", "sub_competency_code", "competency_code"),
            *("status", "difficulty", "language", "task_type"),
        ]


WORKFLOW_RESPONSES = {
    200: TaskDetailSerializer,
    400: schema.INVALID,
    401: schema.UNAUTHENTICATED,
    403: schema.FORBIDDEN,
    404: schema.NOT_FOUND,
    409: schema.REFUSED,
}


class TaskViewSet(RevisionedModelViewSet):
    read_action = Action.VIEW_BENCHMARK
    write_action = Action.EDIT_RUBRICS
    action_overrides = {
        "submit": Action.EDIT_RUBRICS,
        "approve": Action.REVIEW_RUBRICS,
        "return_for_changes": Action.REVIEW_RUBRICS,
    }
    # No delete: the authoring screens retire a task, they never delete one.
    http_method_names = ["get", "post", "put", "patch", "head", "options"]
    queryset = Task.objects.select_related("framework", "sub_competency")
    filterset_class = TaskFilter
    search_fields = ["key", "instruction"]
    ordering_fields = ["key", "id", "updated_at", "status"]
    ordering = ["framework__name", "key", "id"]

    def get_serializer_class(self) -> type[serializers.Serializer[Any]]:
        return TaskSerializer if self.action == "list" else TaskDetailSerializer

    def perform_create(self, serializer: serializers.BaseSerializer[Any]) -> None:
        data = {k: v for k, v in serializer.validated_data.items() if k != "revision"}
        serializer.instance = services.create_task(
            data.pop("sub_competency"), data.pop("key"), data.pop("instruction"),
            acting_user(self.request), **data,
        )  # fmt: skip

    def save_changes(self, instance: Task, changes: dict[str, Any], expected: int) -> Task:
        return services.edit_task(instance, changes, expected, acting_user(self.request))

    def _answer(self, task: Task) -> ApiResponse:
        fresh = self.get_queryset().get(pk=task.pk)
        return ApiResponse(TaskDetailSerializer(fresh).data, headers={"ETag": etag(fresh)})

    @extend_schema(request=CommentSerializer, responses=WORKFLOW_RESPONSES)
    @action(detail=True, methods=["post"])
    def submit(self, request: Request, pk: str) -> ApiResponse:
        """Submit a draft for review (*Write tasks and criteria*). 409 lists what is missing."""
        task, comment = self.get_object(), self._comment(request, CommentSerializer)
        services.submit_for_review(task, acting_user(request), comment)
        return self._answer(task)

    @extend_schema(request=CommentSerializer, responses=WORKFLOW_RESPONSES)
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str) -> ApiResponse:
        """Approve a task in review and publish its next rubric version."""
        task, comment = self.get_object(), self._comment(request, CommentSerializer)
        services.approve(task, acting_user(request), comment)
        return self._answer(task)

    @extend_schema(request=ReturnSerializer, responses=WORKFLOW_RESPONSES)
    @action(detail=True, methods=["post"], url_path="return", url_name="return")
    def return_for_changes(self, request: Request, pk: str) -> ApiResponse:
        """Return a task in review to its authors, saying what needs changing."""
        task, comment = self.get_object(), self._comment(request, ReturnSerializer)
        services.return_for_changes(task, acting_user(request), comment)
        return self._answer(task)

    def _comment(
        self, request: Request, serializer_class: type[serializers.Serializer[Any]]
    ) -> str:
        serializer = serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        comment: str = serializer.validated_data["comment"]
        return comment


# ----- criteria ------------------------------------------------------------------------------
class CriterionSerializer(ApiModelSerializer):
    framework = serializers.CharField(source="framework.code")
    sub_competency_code = serializers.CharField(
        source="sub_competency.code", default=None, allow_null=True
    )
    task_key = serializers.CharField(source="task.key", default=None, allow_null=True)
    version = serializers.IntegerField(help_text="Latest version number.")
    weight = serializers.IntegerField(help_text="Weight of the latest version.")
    wording = serializers.CharField(help_text="Wording of the latest version.")

    class Meta:
        model = Criterion
        fields = [
            *("id", "framework", "code", "layer", "sub_competency", "sub_competency_code"),
            *("task", "task_key", "order", "retired", "version", "weight", "wording"),
        ]
        read_only_fields = fields


class CriterionFilter(FilterSet):
    framework = django_filters.CharFilter("framework__code", label="Framework code")
    sub_competency = IntegerFilter(label="Sub-competency id")
    task = IntegerFilter(label="Task id")
    sub_competency_code = django_filters.CharFilter(
        "sub_competency__code", label="Sub-competency code"
    )
    task_key = django_filters.CharFilter("task__key", label="Task key")

    class Meta:
        model = Criterion
        fields = [
            *("framework", "code", "layer", "sub_competency", "sub_competency_code", "task"),
            *("task_key", "retired"),
        ]


def with_latest_version(criteria: QuerySet[Criterion]) -> QuerySet[Criterion]:
    latest = CriterionVersion.objects.filter(criterion=OuterRef("pk")).order_by("-number")
    return criteria.annotate(
        version=Subquery(latest.values("number")[:1]),
        weight=Subquery(latest.values("weight")[:1]),
        wording=Subquery(latest.values("wording")[:1]),
    )


class CriterionViewSet(ReadOnlyViewSet):
    """Criteria of every layer, each with its latest version. Edited in the browser."""

    read_action = Action.VIEW_BENCHMARK
    queryset = with_latest_version(
        Criterion.objects.select_related("framework", "sub_competency", "task")
    )
    serializer_class = CriterionSerializer
    filterset_class = CriterionFilter
    search_fields = ["code"]
    ordering_fields = ["code", "order", "id"]
    ordering = ["framework__name", "layer", "order", "code", "id"]


# ----- responses -----------------------------------------------------------------------------
class TurnSerializer(ApiModelSerializer):
    class Meta:
        model = Turn
        fields = ["id", "index", "role", "content"]


class ResponseSerializer(ApiModelSerializer):
    task_key = serializers.CharField(source="task.key")
    turns = TurnSerializer(many=True)
    response_version = serializers.IntegerField(
        source="version",
        read_only=True,
        help_text="1, then one more for each change made after the response was graded or "
        "judged: a graded version is never rewritten.",
    )
    current = serializers.BooleanField(
        source="is_current",
        read_only=True,
        help_text="False for a version a newer one superseded (its studies keep grading it).",
    )

    class Meta:
        model = Response
        fields = [
            *("id", "task", "task_key", "external_id", "response_version", "current"),
            *("superseded_at", "model_name", "model_family", "model_version", "epoch"),
            *("kind", "text", "turns", "created_at"),
        ]
        read_only_fields = fields


class ResponseItemSerializer(ApiSerializer):
    """One item of a bulk upload: the fields of a line of a responses JSONL file
    (docs/formats.md)."""

    task_key = serializers.CharField()
    model = serializers.CharField()
    family = serializers.CharField(required=False)
    version = serializers.CharField(required=False)
    epoch = serializers.IntegerField(required=False, min_value=1, default=1)
    id = serializers.CharField(required=False, help_text="The response's id in your system.")
    response = serializers.CharField(required=False, help_text="The text (or give `turns`).")
    turns = TurnSerializer(many=True, required=False)


class ResponseFilter(FilterSet):
    framework = django_filters.CharFilter("task__framework__code", label="Framework code")
    task = IntegerFilter(label="Task id")
    task_key = django_filters.CharFilter("task__key", label="Task key")
    response_version = IntegerFilter("version", label="Response version")
    current = BooleanFilter(
        method="by_current",
        label="true: only current versions; false: only superseded ones",
    )

    class Meta:
        model = Response
        fields = ["framework", "task", "task_key", "external_id", "model_name", "epoch", "kind"]

    def by_current(
        self, queryset: QuerySet[Response], name: str, value: bool
    ) -> QuerySet[Response]:
        return queryset.filter(superseded_at__isnull=value)


class ResponseViewSet(ReadOnlyViewSet):
    """Model responses, every version of each (`current=true` for the current ones).
    Annotators have no access: they see a response only through their own assignment, without
    the model's name."""

    read_action = Action.VIEW_BENCHMARK
    write_action = Action.IMPORT_DATA
    queryset = Response.objects.select_related("task").prefetch_related("turns")
    serializer_class = ResponseSerializer
    filterset_class = ResponseFilter
    parser_classes = imports.PARSERS
    search_fields = ["external_id", "model_name"]
    ordering_fields = ["id", "model_name", "created_at"]
    ordering = ["id"]

    @extend_schema(
        parameters=[imports.FRAMEWORK, imports.DRY_RUN],
        request={"application/json": ResponseItemSerializer(many=True)},
        responses=imports.IMPORT_RESPONSES,
    )
    def create(self, request: Request) -> ApiResponse:
        """Create or update responses in bulk, all or nothing: a JSON list of items (or JSON
        Lines). Errors are keyed by item index and field, e.g. `2.task_key`. An item matches a
        response by task and `id`: unchanged, it is left as it is; changed, it is updated in
        place while nothing grades or judges it, and otherwise stored as the response's next
        version (listed in `new_versions`), the graded version kept as it was."""
        return imports.bulk_import(request, import_responses)
