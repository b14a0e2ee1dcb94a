"""Flags: a grader flags their response or one of its criteria (and may set the response
aside); a maintainer lists and resolves them. Everything goes through grading.flags, as on the
pages.

Blindness: whoever cannot run studies reads only the flags they raised (`visible()`); another
grader's flag is a 404. A flag names an assignment of the caller's own (another's does not
exist here). A grader reads their flag without `reassigned_to`: who took their response over is
another grader, whom blind grading never names to them."""

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema, extend_schema_view
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from accounts.roles import Action
from api import schema
from api.filters import FilterSet, IntegerFilter
from api.permissions import acting_user, manages_studies
from api.serializers import ApiModelSerializer, ApiSerializer, SlugRelatedField
from api.viewsets import ReadOnlyViewSet
from grading import flags
from grading.models import Assignment, Flag


class FlagSerializer(ApiModelSerializer):
    study = serializers.IntegerField(source="study_item.study_id", read_only=True)
    code = serializers.CharField(
        source="criterion_version.criterion.code", read_only=True, default=None
    )
    by = serializers.CharField(source="by.username", read_only=True)
    resolved_by = serializers.CharField(source="resolved_by.username", read_only=True, default=None)
    reassigned_to = serializers.CharField(
        source="reassigned_to.username", read_only=True, default=None
    )

    class Meta:
        model = Flag
        fields = [
            *("id", "study", "study_item", "criterion_version", "code", "kind", "comment"),
            *("skipped", "by", "created_at", "status", "resolution_note", "outcome"),
            *("reassigned_to", "draft", "resolved_by", "resolved_at"),
        ]
        read_only_fields = fields


class GraderFlagSerializer(FlagSerializer):
    """A flag as the grader who raised it reads it: everything but who took their response
    over (`outcome` says it was reassigned)."""

    reassigned_to = None  # type: ignore[assignment]

    class Meta(FlagSerializer.Meta):
        fields = [name for name in FlagSerializer.Meta.fields if name != "reassigned_to"]
        read_only_fields = fields


# What a flag reads as depends on who asks (FlagViewSet.get_serializer_class): the schema says
# both.
FLAG_FOR_ROLE = PolymorphicProxySerializer(
    component_name="FlagForRole",
    serializers=[FlagSerializer, GraderFlagSerializer],
    resource_type_field_name=None,
)
FLAGS_FOR_ROLE = PolymorphicProxySerializer(
    component_name="FlagForRole",
    serializers=[FlagSerializer, GraderFlagSerializer],
    resource_type_field_name=None,
    many=True,
)
READ_ERRORS = {401: schema.UNAUTHENTICATED, 403: schema.FORBIDDEN, 404: schema.NOT_FOUND}


class RaiseFlagSerializer(ApiSerializer):
    assignment = serializers.PrimaryKeyRelatedField(
        queryset=Assignment.objects.none(), help_text="Your assignment of the response."
    )
    kind = serializers.ChoiceField(choices=Flag.Kind.choices)
    comment = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="Required for `other`."
    )
    criterion_version = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="A criterion version of the response's rubric; leave out to flag the "
        "response as a whole. Required for `criterion_unclear`.",
    )
    skip = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Set the response aside: it leaves your queue until a maintainer resolves "
        "the flag (returned to you or given to another grader). Not for a submitted response.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = self.context.get("request")
        if request is not None:  # only the caller's own assignments can be named
            field = self.fields["assignment"]
            field.queryset = Assignment.objects.of(  # type: ignore[attr-defined]
                request.user.pk
            ).select_related("study_item__study")


class ResolveFlagSerializer(ApiSerializer):
    note = serializers.CharField(help_text="What was done about the flag (kept in its history).")
    outcome = serializers.ChoiceField(
        choices=Flag.Outcome.choices,
        required=False,
        allow_blank=True,
        default="",
        help_text="For a flag that set its response aside: `returned` to its grader, or "
        "`reassigned` to `reassign_to`.",
    )
    reassign_to = SlugRelatedField(
        slug_field="username",
        queryset=User.objects.filter(is_active=True),
        required=False,
        allow_null=True,
        default=None,
        help_text="User name of a pool member who does not grade the response yet.",
    )
    open_draft = serializers.BooleanField(
        required=False,
        default=False,
        help_text="On a flag naming a criterion: open the draft of its next version.",
    )


class FlagFilter(FilterSet):
    study = IntegerFilter("study_item__study", label="Study id")
    study_item = IntegerFilter(label="Study item id")
    criterion = django_filters.CharFilter(
        "criterion_version__criterion__code", label="Criterion code"
    )

    class Meta:
        model = Flag
        fields = ["study", "study_item", "criterion", "kind", "status"]


@extend_schema_view(
    list=extend_schema(responses={200: FLAGS_FOR_ROLE, 400: schema.INVALID, **READ_ERRORS}),
    retrieve=extend_schema(responses={200: FLAG_FOR_ROLE, **READ_ERRORS}),
)
class FlagViewSet(ReadOnlyViewSet):
    """Flags on responses and criteria (grading.flags)."""

    read_action = (Action.GRADE, Action.MANAGE_STUDIES)
    write_action = Action.GRADE
    action_overrides = {"resolve": Action.MANAGE_STUDIES}
    http_method_names = ["get", "post", "head", "options"]
    queryset = Flag.objects.select_related(
        "by", "resolved_by", "reassigned_to", "criterion_version__criterion", "study_item"
    )
    serializer_class = FlagSerializer
    filterset_class = FlagFilter
    ordering_fields = ["id", "created_at"]
    ordering = ["id"]

    def visible(self, queryset: QuerySet[Flag]) -> QuerySet[Flag]:
        if manages_studies(self.request.user):
            return queryset
        return queryset.filter(by=acting_user(self.request))

    def get_serializer_class(self) -> type[serializers.Serializer[Any]]:
        if getattr(self, "swagger_fake_view", False) or manages_studies(self.request.user):
            return FlagSerializer
        return GraderFlagSerializer

    @extend_schema(
        request=RaiseFlagSerializer,
        responses={
            201: FLAG_FOR_ROLE,
            400: schema.INVALID,
            401: schema.UNAUTHENTICATED,
            403: schema.FORBIDDEN,
            409: schema._error(
                "Already flagged and still open, the study is closed, or `skip` on a response "
                "that is submitted or set aside already."
            ),
        },
    )
    def create(self, request: Request) -> Response:
        """Flag your response, or one criterion of its rubric (grading.flags.raise_flag)."""
        serializer = RaiseFlagSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        raised = flags.raise_flag(
            data["assignment"],
            kind=data["kind"],
            comment=data["comment"],
            criterion_version_id=data["criterion_version"],
            skip=data["skip"],
            by=acting_user(request),
        )
        return Response(
            self.get_serializer(self.get_queryset().get(pk=raised.pk)).data,
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        request=ResolveFlagSerializer,
        responses={
            200: FlagSerializer,
            400: schema.INVALID,
            401: schema.UNAUTHENTICATED,
            403: schema.FORBIDDEN,
            404: schema.NOT_FOUND,
            409: schema._error("The flag is resolved already, or the criterion's task is locked."),
        },
    )
    @action(detail=True, methods=["post"])
    def resolve(self, request: Request, pk: str) -> Response:
        """Resolve an open flag with a note (grading.flags.resolve_flag): who and when are
        recorded, and the flag's history keeps it."""
        flag = self.get_object()
        serializer = ResolveFlagSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        flags.resolve_flag(
            flag,
            note=data["note"],
            outcome=data["outcome"],
            reassign_to=data["reassign_to"],
            open_draft=data["open_draft"],
            by=acting_user(request),
        )
        return Response(FlagSerializer(self.get_queryset().get(pk=flag.pk)).data)
