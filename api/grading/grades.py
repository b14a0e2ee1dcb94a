"""Grades and turn grades: read by the grader (their own) and the study's maintainers;
written by the assignment's grader only, through grading.services."""

from typing import Any

import django_filters
from django.db.models import QuerySet
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.roles import Action
from api import schema
from api.filters import FilterSet, IntegerFilter
from api.permissions import acting_user, manages_studies
from api.serializers import (
    ApiModelSerializer,
)
from api.viewsets import ReadOnlyViewSet
from grading import services
from grading.models import (
    Assignment,
    Grade,
    TurnGrade,
    Verdict,
)
from rubrics.models import Turn


# ----- grades --------------------------------------------------------------------------------
class GradeSerializer(ApiModelSerializer):
    one_of_required = ("verdict", "level", "rationale")  # else nothing to save: a 400
    code = serializers.CharField(source="criterion_version.criterion.code", read_only=True)
    verdict = schema.GivenVerdictField(
        choices=Verdict.choices,
        required=False,
        help_text="Leave out to keep the verdict. An ordinal criterion takes only na here. "
        "Read back empty while no verdict is given (a rationale alone, or a level).",
    )
    level = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="On an ordinal criterion: a level of its scale (the verdict is then empty). "
        "Leave out to keep it; a binary criterion takes none.",
    )
    rationale = serializers.CharField(
        required=False, allow_blank=True, help_text="Leave out to keep the rationale."
    )

    class Meta:
        model = Grade
        fields = [
            *("id", "assignment", "criterion_version", "code", "verdict", "level", "rationale"),
            *("updated_at", "active_ms"),
        ]
        read_only_fields = ["updated_at", "active_ms"]
        validators: list[Any] = []  # save_grade updates the grade of a pair that has one

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = self.context.get("request")
        if request is not None and "assignment" in self.fields:
            # Only the caller's own assignments can be named: another's does not exist here.
            self.fields["assignment"].queryset = Assignment.objects.of(  # type: ignore[attr-defined]
                request.user.pk
            )


class GradeFilter(FilterSet):
    study = IntegerFilter("assignment__study_item__study", label="Study id")
    assignment = IntegerFilter(label="Assignment id")
    criterion = django_filters.CharFilter(
        "criterion_version__criterion__code", label="Criterion code"
    )

    class Meta:
        model = Grade
        fields = ["study", "assignment", "criterion", "verdict"]


class GradeViewSet(ReadOnlyViewSet):
    read_action = (Action.GRADE, Action.MANAGE_STUDIES)
    write_action = Action.GRADE
    http_method_names = ["get", "post", "patch", "head", "options"]
    queryset = Grade.objects.select_related("criterion_version__criterion")
    serializer_class = GradeSerializer
    filterset_class = GradeFilter
    ordering_fields = ["id", "updated_at"]
    ordering = ["id"]

    def visible(self, queryset: QuerySet[Grade]) -> QuerySet[Grade]:
        if manages_studies(self.request.user):
            return queryset
        return queryset.filter(assignment__in=Assignment.objects.of(acting_user(self.request)))

    def _save(self, assignment: Assignment, version_id: int, data: dict[str, Any]) -> Grade:
        grade = services.save_grade(
            assignment,
            version_id,
            verdict=data.get("verdict"),
            level=data.get("level"),
            rationale=data.get("rationale"),
            by=acting_user(self.request),
        )
        shown: Grade = self.get_queryset().get(pk=grade.pk)
        return shown

    def create(self, request: Request) -> Response:
        """Save your verdict and/or rationale on one criterion of your assignment: creates the
        grade, or changes it if there is one."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        existed = Grade.objects.filter(
            assignment=data["assignment"], criterion_version=data["criterion_version"]
        ).exists()
        grade = self._save(data["assignment"], data["criterion_version"].pk, data)
        code = status.HTTP_200_OK if existed else status.HTTP_201_CREATED
        return Response(self.get_serializer(grade).data, status=code)

    def partial_update(self, request: Request, pk: str) -> Response:
        grade = self.get_object()
        serializer = self.get_serializer(grade, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        moved = any(
            name in data and data[name] != getattr(grade, name)
            for name in ("assignment", "criterion_version")
        )
        if moved:
            raise exceptions.ValidationError(
                {"criterion_version": ["A grade stays on its assignment and criterion."]}
            )
        saved = self._save(grade.assignment, grade.criterion_version_id, data)
        return Response(self.get_serializer(saved).data)


# ----- turn grades ---------------------------------------------------------------------------
class TurnGradeSerializer(ApiModelSerializer):
    code = serializers.CharField(source="criterion_version.criterion.code", read_only=True)
    verdict = schema.GivenVerdictField(
        choices=Verdict.choices,
        required=False,
        help_text="Leave out to keep the verdict. Read back empty while none is given.",
    )
    rationale = serializers.CharField(
        required=False, allow_blank=True, help_text="Leave out to keep the rationale."
    )
    turn = serializers.PrimaryKeyRelatedField(
        queryset=Turn.objects.all(), help_text="Id of a tutor (assistant) turn of the response."
    )

    class Meta:
        model = TurnGrade
        fields = [
            *("id", "assignment", "criterion_version", "code", "turn", "verdict", "rationale"),
            "updated_at",
        ]
        read_only_fields = ["updated_at"]
        validators: list[Any] = []  # save_turn_grade updates the grade of a turn that has one

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = self.context.get("request")
        if request is not None and "assignment" in self.fields:
            self.fields["assignment"].queryset = Assignment.objects.of(  # type: ignore[attr-defined]
                request.user.pk
            )


class TurnGradeFilter(FilterSet):
    study = IntegerFilter("assignment__study_item__study", label="Study id")
    assignment = IntegerFilter(label="Assignment id")

    class Meta:
        model = TurnGrade
        fields = ["study", "assignment", "verdict"]


class TurnGradeViewSet(ReadOnlyViewSet):
    """Verdicts on each tutor turn of a dialogue for its turn-level criteria; the response's
    grade on such a criterion (under /grades/) is derived from them by the criterion's rule."""

    read_action = (Action.GRADE, Action.MANAGE_STUDIES)
    write_action = Action.GRADE
    http_method_names = ["get", "post", "head", "options"]
    queryset = TurnGrade.objects.select_related("criterion_version__criterion")
    serializer_class = TurnGradeSerializer
    filterset_class = TurnGradeFilter
    ordering_fields = ["id", "updated_at"]
    ordering = ["id"]

    def visible(self, queryset: QuerySet[TurnGrade]) -> QuerySet[TurnGrade]:
        if manages_studies(self.request.user):
            return queryset
        return queryset.filter(assignment__in=Assignment.objects.of(acting_user(self.request)))

    def create(self, request: Request) -> Response:
        """Save your verdict and/or rationale on one tutor turn for a turn-level criterion of
        your assignment: creates the turn's grade, or changes it if there is one."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        existed = TurnGrade.objects.filter(
            assignment=data["assignment"],
            criterion_version=data["criterion_version"],
            turn=data["turn"],
        ).exists()
        saved, _, _ = services.save_turn_grade(
            data["assignment"],
            data["criterion_version"].pk,
            data["turn"].pk,
            verdict=data.get("verdict"),
            rationale=data.get("rationale"),
            by=acting_user(request),
        )
        code = status.HTTP_200_OK if existed else status.HTTP_201_CREATED
        return Response(self.get_serializer(self.get_queryset().get(pk=saved.pk)).data, status=code)
