"""Assignments: a grader's own (blind: no model's identity), their rubric with their grades,
their 1-5 ratings, and submitting them."""

from typing import Any, cast

from django.db.models import QuerySet
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.roles import Action
from api import schema
from api.filters import FilterSet, IntegerFilter
from api.permissions import acting_user, manages_studies
from api.rubrics import TurnSerializer
from api.serializers import (
    ApiModelSerializer,
    ApiSerializer,
)
from api.viewsets import ReadOnlyViewSet
from grading import services
from grading.models import (
    Assignment,
    AssignmentQuerySet,
    LikertItem,
)
from rubrics.models import PublishedResource, TaskResource
from rubrics.models import Response as ModelResponse


class BlindResponseSerializer(ApiSerializer):
    """A response as its grader sees it, from its study item: the task as published in the
    rubric version it is graded against (an author's later draft is not shown) and the answer,
    never the model."""

    task_key = serializers.CharField(source="response.task.key", read_only=True)
    instruction = serializers.CharField(source="rubric_version.instruction", read_only=True)
    kind = serializers.ChoiceField(
        source="response.kind", choices=ModelResponse.Kind.choices, read_only=True
    )
    text = serializers.CharField(source="response.text", read_only=True)
    turns = TurnSerializer(source="response.turns", many=True, read_only=True)
    response_version = serializers.IntegerField(
        source="response.version",
        read_only=True,
        help_text="The version of the response the study grades (a newer one may exist: the "
        "study keeps grading this one).",
    )


class PublishedContextSerializer(ApiSerializer):
    """One context value of the task as published."""

    variable = serializers.CharField(source="variable.key", read_only=True)
    variable_label = serializers.CharField(source="variable.label", read_only=True)
    value = serializers.CharField(source="display_value", read_only=True)


class PublishedResourceSerializer(ApiSerializer):
    """One resource of the task as published: a markdown text, or a file (its name; the grading
    page offers it for download)."""

    title = serializers.CharField(read_only=True)
    kind = serializers.ChoiceField(choices=TaskResource.Kind.choices, read_only=True)
    text = serializers.CharField(read_only=True)
    file_name = serializers.SerializerMethodField()

    def get_file_name(self, resource: PublishedResource) -> str:
        return (resource.file.name or "").rsplit("/", 1)[-1]


class GradedLineSerializer(ApiSerializer):
    """One line of the frozen rubric the response is graded against."""

    criterion_version = serializers.IntegerField(source="version.pk")
    code = serializers.CharField()
    layer = serializers.CharField()
    weight = serializers.IntegerField(
        help_text='Negative for a penalty: its verdict "pass" means the behaviour is present '
        "(shown as Present), and that is the verdict that needs a rationale."
    )
    wording = serializers.CharField(source="version.wording")
    passes = serializers.CharField(source="version.passes")
    fails = serializers.CharField(source="version.fails")
    pass_example = serializers.CharField(source="version.pass_example")
    fail_example = serializers.CharField(source="version.fail_example")
    applicable = serializers.BooleanField()
    na_reason = serializers.CharField()


class AssignmentSerializer(ApiModelSerializer):
    study = serializers.IntegerField(source="study_item.study_id")
    annotator = serializers.CharField(source="annotator.username")
    response = BlindResponseSerializer(source="study_item")

    class Meta:
        model = Assignment
        fields = [
            *("id", "study", "study_item", "annotator", "position", "status", "started_at"),
            *("submitted_at", "time_spent_seconds", "response"),
        ]
        read_only_fields = fields


class RatingSerializer(ApiSerializer):
    """One 1-5 question of the study with the grader's rating (null until rated)."""

    item = serializers.IntegerField(help_text="The question's id: send it to `.../rate/`.")
    prompt = serializers.CharField()
    labels = serializers.ListField(child=serializers.CharField(), help_text="For 1 to 5.")
    value = serializers.IntegerField(allow_null=True, min_value=1, max_value=5)


class RateSerializer(ApiSerializer):
    item = serializers.IntegerField(help_text="A question of the study (`ratings[].item`).")
    value = serializers.IntegerField(min_value=1, max_value=5)


def ratings_of(assignment: Assignment) -> list[dict[str, Any]]:
    given = dict(assignment.likert_ratings.values_list("item_id", "value"))
    return [
        {
            "item": item.pk,
            "prompt": item.prompt,
            "labels": [getattr(item, f"label_{n}") for n in LikertItem.SCALE],
            "value": given.get(item.pk),
        }
        for item in LikertItem.objects.filter(study=assignment.study_item.study_id)
    ]


class AssignmentDetailSerializer(AssignmentSerializer):
    context_values = PublishedContextSerializer(
        source="study_item.rubric_version.context_values", many=True, read_only=True
    )
    resources = PublishedResourceSerializer(
        source="study_item.rubric_version.resources", many=True, read_only=True
    )
    rubric = serializers.SerializerMethodField()
    ratings = serializers.SerializerMethodField()

    class Meta(AssignmentSerializer.Meta):
        fields = [
            *AssignmentSerializer.Meta.fields,
            *("context_values", "resources", "rubric", "ratings"),
        ]
        read_only_fields = fields

    @extend_schema_field(GradedLineSerializer(many=True))
    def get_rubric(self, assignment: Assignment) -> list[dict[str, Any]]:
        lines = assignment.study_item.rubric_version.effective_rubric()
        return list(GradedLineSerializer(lines, many=True).data)

    @extend_schema_field(RatingSerializer(many=True))
    def get_ratings(self, assignment: Assignment) -> list[dict[str, Any]]:
        return list(RatingSerializer(ratings_of(assignment), many=True).data)


class AssignmentFilter(FilterSet):
    study = IntegerFilter("study_item__study", label="Study id")

    class Meta:
        model = Assignment
        fields = ["study", "status"]


class AssignmentViewSet(ReadOnlyViewSet):
    read_action = (Action.GRADE, Action.MANAGE_STUDIES)
    action_overrides = {"submit": Action.GRADE, "rate": Action.GRADE}
    queryset = Assignment.objects.select_related(
        "annotator", "study_item__response__task", "study_item__rubric_version"
    ).prefetch_related("study_item__response__turns")
    filterset_class = AssignmentFilter
    ordering_fields = ["id", "position"]
    ordering = ["id"]

    def visible(self, queryset: QuerySet[Assignment]) -> QuerySet[Assignment]:
        user = self.request.user
        own = cast(AssignmentQuerySet, queryset)
        mine = queryset if manages_studies(user) else own.of(acting_user(self.request))
        if self.action == "list":
            return mine
        return mine.prefetch_related(  # what AssignmentDetailSerializer adds
            "study_item__rubric_version__context_values__variable",
            "study_item__rubric_version__context_values__value",
            "study_item__rubric_version__resources",
        )

    def get_serializer_class(self) -> type[serializers.Serializer[Any]]:
        return AssignmentSerializer if self.action == "list" else AssignmentDetailSerializer

    @extend_schema(
        request=None,
        responses={
            200: AssignmentDetailSerializer,
            401: schema.UNAUTHENTICATED,
            403: schema.FORBIDDEN,
            404: schema.NOT_FOUND,
            409: schema.SUBMIT_REFUSED,
        },
    )
    @action(detail=True, methods=["post"])
    def submit(self, request: Request, pk: str) -> Response:
        """Submit your assignment (grading.services.submit); 409 lists what is missing."""
        services.submit(self.get_object(), by=acting_user(request))
        return Response(AssignmentDetailSerializer(self.get_object()).data)

    @extend_schema(
        request=RateSerializer,
        responses={
            200: RatingSerializer,
            400: schema.INVALID,
            401: schema.UNAUTHENTICATED,
            403: schema.FORBIDDEN,
            404: schema.NOT_FOUND,
            409: schema._error("The study is closed."),
        },
    )
    @action(detail=True, methods=["post"])
    def rate(self, request: Request, pk: str) -> Response:
        """Rate one 1-5 question of the study for your assignment (grading.services.
        save_likert); rating it again changes the value (after submission, with history)."""
        assignment = self.get_object()
        serializer = RateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        item_id, value = serializer.validated_data["item"], serializer.validated_data["value"]
        services.save_likert(assignment, item_id, value, by=acting_user(request))
        rating = next(r for r in ratings_of(assignment) if r["item"] == item_id)
        return Response(RatingSerializer(rating).data)
