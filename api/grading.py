"""Studies, assignments, grades and gold verdicts.

Blindness, as in the browser: an annotator never sees a model's name, another grader's grades
or a judge's verdicts. Here that means:
- studies: read by every role holding *View tasks...*, *Grade* or *Run grading studies*; an
  annotator (only *Grade*) sees only the studies whose pool they are in, and no counts of
  other graders' work;
- assignments and grades: read by *Grade* or *Run grading studies*; whoever cannot run studies
  sees only their own (`visible()`): another grader's is a 404, as if it did not exist;
- a grade is written only by the grader of its assignment, through grading.services.save_grade,
  so another grader's assignment (404), a closed study (409) or a criterion outside the frozen
  rubric (400) is refused as in the browser (api/exceptions.py maps the service's errors);
- the response inside an assignment is shown without model name, family or version;
- gold verdicts: *Run grading studies* only.
"""

from typing import Any, cast

import django_filters
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.http.response import HttpResponseBase
from drf_spectacular.utils import (
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import exceptions, serializers, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from accounts.permissions import user_can
from accounts.roles import Action
from api import exports, schema
from api.agreement import AgreementActions
from api.filters import FilterSet, IntegerFilter
from api.permissions import acting_user
from api.rubrics import TurnSerializer
from api.serializers import (
    ApiModelSerializer,
    ApiSerializer,
    RevisionedSerializer,
    SlugRelatedField,
)
from api.viewsets import ReadOnlyViewSet, RevisionedModelViewSet
from core import timing
from grading import adjudication, gold, services
from grading.forms import StudySelectionForm
from grading.models import (
    Assignment,
    AssignmentQuerySet,
    GoldVerdict,
    Grade,
    LikertItem,
    Study,
    StudyItem,
    StudyQuerySet,
    TurnGrade,
    Verdict,
    check_graders,
)
from rubrics.models import PublishedResource, Task, TaskResource, Turn
from rubrics.models import Response as ModelResponse
from taxonomy.models import Competency, ContextVariable, Framework, SubCompetency


def manages_studies(user: Any) -> bool:
    return user_can(user, Action.MANAGE_STUDIES)


# ----- assignments ---------------------------------------------------------------------------
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

    def visible(self, queryset: QuerySet) -> QuerySet:
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

    def get_serializer_class(self) -> type[serializers.Serializer]:
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

    def visible(self, queryset: QuerySet) -> QuerySet:
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
        return self.get_queryset().get(pk=grade.pk)

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

    def visible(self, queryset: QuerySet) -> QuerySet:
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


# ----- gold verdicts -------------------------------------------------------------------------
class GoldVerdictSerializer(RevisionedSerializer):
    parent_field = "study_item"
    study = serializers.IntegerField(source="study_item.study_id", read_only=True)
    code = serializers.CharField(source="criterion_version.criterion.code", read_only=True)
    by = serializers.CharField(source="by.username", read_only=True, default=None)
    level = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="On an ordinal criterion: the gold level of its scale (the verdict is then "
        "empty; na is its verdict N/A).",
    )

    class Meta:
        model = GoldVerdict
        fields = [
            *("id", "study", "study_item", "criterion_version", "code", "verdict", "level"),
            "note",
            *("by", "at", "revision"),
        ]
        read_only_fields = ["at"]
        validators: list[Any] = []  # a second gold verdict of a pair is a 409 from the service

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        version = attrs.get("criterion_version")
        if self.instance is not None and version and version != self.instance.criterion_version:
            raise serializers.ValidationError(
                {"criterion_version": ["Cannot be changed: record a gold verdict for it."]}
            )
        return attrs


class GoldVerdictFilter(FilterSet):
    study = IntegerFilter("study_item__study", label="Study id")
    study_item = IntegerFilter(label="Study item id")
    criterion = django_filters.CharFilter(
        "criterion_version__criterion__code", label="Criterion code"
    )

    class Meta:
        model = GoldVerdict
        fields = ["study", "study_item", "criterion", "verdict"]


class GoldVerdictViewSet(RevisionedModelViewSet):
    """Adjudicated verdicts, through grading.adjudication.record_gold_verdict: a stale
    revision is refused and every replaced value is kept."""

    read_action = Action.MANAGE_STUDIES
    write_action = Action.MANAGE_STUDIES
    http_method_names = ["get", "post", "put", "patch", "head", "options"]
    queryset = GoldVerdict.objects.select_related(
        "study_item", "criterion_version__criterion", "by"
    )
    serializer_class = GoldVerdictSerializer
    filterset_class = GoldVerdictFilter
    ordering_fields = ["id", "at"]
    ordering = ["id"]

    def _record(self, gold_of: dict[str, Any], base_revision: int) -> GoldVerdict:
        gold = adjudication.record_gold_verdict(
            gold_of["study_item"],
            gold_of["criterion_version"].pk,
            verdict=gold_of.get("verdict", ""),
            level=gold_of.get("level"),
            note=gold_of.get("note", ""),
            by=acting_user(self.request),
            base_revision=base_revision,
        )
        return self.get_queryset().get(pk=gold.pk)

    def perform_create(self, serializer: serializers.BaseSerializer) -> None:
        serializer.instance = self._record(serializer.validated_data, base_revision=0)

    def save_changes(self, instance: GoldVerdict, changes: dict[str, Any], expected: int) -> Any:
        wanted = {
            "study_item": instance.study_item,
            "criterion_version": instance.criterion_version,
            "verdict": changes.get("verdict", instance.verdict),
            # A verdict given without a level replaces the level (N/A on an ordinal criterion).
            "level": changes.get("level", None if "verdict" in changes else instance.level),
            "note": changes.get("note", instance.note),
        }
        return self._record(wanted, base_revision=expected)


# ----- studies -------------------------------------------------------------------------------


# Adaptive overlap and gold checks (docs/user-guide.md): set on creation, the escalation and
# gold settings also changed later (services.SETTINGS_FIELDS).
ADAPTIVE_FIELDS = ("overlap_percent", *services.CREATION_FIELDS[2:])


class StudySerializer(ApiModelSerializer):
    framework = SlugRelatedField(slug_field="code", queryset=Framework.objects.all())
    annotators = SlugRelatedField(
        slug_field="username",
        queryset=User.objects.filter(is_active=True),
        many=True,
        write_only=True,
        help_text="Usernames of the pool (on creation).",
    )
    responses = serializers.PrimaryKeyRelatedField(
        queryset=ModelResponse.objects.all(),
        many=True,
        write_only=True,
        help_text="Ids of the responses to grade (on creation); each is graded against its "
        "task's latest published rubric, responses of unpublished tasks are left out.",
    )
    assign_now = serializers.BooleanField(
        write_only=True, default=True, help_text="Plan the assignments at once."
    )
    items = serializers.IntegerField(source="items_count", read_only=True)
    assignments = serializers.IntegerField(source="assignments_count", read_only=True)
    submitted = serializers.IntegerField(source="submitted_count", read_only=True)

    class Meta:
        model = Study
        fields = [
            *("id", "name", "framework", "description", "overlap", "match_expertise"),
            *("deadline", "status", "require_rationale_on_fail"),
            *("show_grader_names_to_adjudicator", "created_at", "items", "assignments"),
            *("submitted", "annotators", "responses", "assign_now"),
            *ADAPTIVE_FIELDS,
        ]
        read_only_fields = ["status", "created_at"]


class AnnotatorStudySerializer(ApiModelSerializer):
    """A study as a member of its pool sees it: their own progress, nobody else's."""

    framework = serializers.CharField(source="framework.code")
    my_assignments = serializers.IntegerField(source="own_count")
    my_submitted = serializers.IntegerField(source="own_submitted")

    class Meta:
        model = Study
        fields = [
            *("id", "name", "framework", "description", "deadline", "status"),
            *("require_rationale_on_fail", "my_assignments", "my_submitted"),
        ]
        read_only_fields = fields


# What a study reads as depends on who asks (StudyViewSet.blind): the schema says both.
STUDY_FOR_ROLE = PolymorphicProxySerializer(
    component_name="StudyForRole",
    serializers=[StudySerializer, AnnotatorStudySerializer],
    resource_type_field_name=None,
)
STUDIES_FOR_ROLE = PolymorphicProxySerializer(
    component_name="StudyForRole",
    serializers=[StudySerializer, AnnotatorStudySerializer],
    resource_type_field_name=None,
    many=True,
)


class StudySettingsSerializer(ApiModelSerializer):
    """What may change once a study runs (grading.services.update_settings)."""

    class Meta:
        model = Study
        fields = list(services.SETTINGS_FIELDS)


class PoolSerializer(ApiSerializer):
    annotators = SlugRelatedField(
        slug_field="username",
        queryset=User.objects.filter(is_active=True),
        many=True,
        allow_empty=False,
        help_text="Usernames.",
    )


class PoolChangeSerializer(ApiSerializer):
    """What a change of the pool did."""

    annotators = serializers.ListField(child=serializers.CharField(), help_text="The pool now.")
    assignments = serializers.IntegerField(
        help_text="Adding: assignments planned again (the work nobody had started, shared with "
        "the newcomers). Removing: unfinished assignments taken from the annotators removed."
    )


class QuestionsSerializer(ApiSerializer):
    prompts = serializers.ListField(
        child=serializers.CharField(max_length=300),
        allow_empty=True,
        help_text="The 1-5 questions in order. A question kept keeps its key.",
    )


class QuestionSerializer(ApiSerializer):
    key = serializers.CharField()
    prompt = serializers.CharField()


class PreviewRequestSerializer(ApiSerializer):
    responses = serializers.PrimaryKeyRelatedField(
        queryset=ModelResponse.objects.all(), many=True, help_text="Ids of the responses."
    )
    annotators = SlugRelatedField(
        slug_field="username",
        queryset=User.objects.filter(is_active=True),
        many=True,
        help_text="Usernames of the pool.",
    )
    overlap = serializers.IntegerField(min_value=1, max_value=100, default=3)
    overlap_percent = serializers.IntegerField(
        min_value=1,
        max_value=100,
        default=100,
        help_text="Share (%) of the responses graded by k graders; the rest get one.",
    )
    match_expertise = serializers.BooleanField(default=False)


class LoadSerializer(ApiSerializer):
    annotator = serializers.CharField()
    responses = serializers.IntegerField()


class PreviewSerializer(ApiSerializer):
    units = serializers.IntegerField(help_text="Responses the study would hold.")
    overlap = serializers.IntegerField()
    gradings = serializers.IntegerField(help_text="Assignments the plan makes.")
    short = serializers.IntegerField(
        help_text="Responses that would get fewer graders than they want."
    )
    overlapping = serializers.IntegerField(help_text="Responses graded by k graders.")
    single = serializers.IntegerField(help_text="Responses graded by one (overlap_percent).")
    loads = LoadSerializer(many=True)


class GoldChecksRequestSerializer(ApiSerializer):
    sources = serializers.PrimaryKeyRelatedField(
        queryset=StudyItem.objects.filter(gold_source__isnull=True),
        many=True,
        allow_empty=False,
        help_text="Ids of adjudicated study items of other studies of the framework (their "
        "gold verdicts are the answers); GET .../gold-checks/ lists the candidates.",
    )


class GoldCheckRemovalSerializer(ApiSerializer):
    gold_checks = serializers.PrimaryKeyRelatedField(
        queryset=StudyItem.objects.filter(gold_source__isnull=False),
        many=True,
        allow_empty=False,
        help_text="Ids of the study's gold checks (GET .../gold-checks/) to take out.",
    )


class GoldCheckSerializer(ApiSerializer):
    id = serializers.IntegerField(help_text="The gold check's study item.")
    task = serializers.CharField(source="response.task.key")
    response = serializers.IntegerField(source="response_id")
    gold_source = serializers.IntegerField(
        source="gold_source_id", help_text="The adjudicated item its answers come from."
    )
    source_study = serializers.CharField(source="gold_source.study.name")


class GoldCandidateSerializer(ApiSerializer):
    id = serializers.IntegerField(help_text="The adjudicated study item: a source to add.")
    task = serializers.CharField(source="response.task.key")
    response = serializers.IntegerField(source="response_id")
    study = serializers.CharField(source="study.name")
    gold_verdicts = serializers.IntegerField(source="gold_count")


class GoldChecksSerializer(ApiSerializer):
    gold_checks = GoldCheckSerializer(many=True)
    candidates = GoldCandidateSerializer(many=True)


class AccuracySerializer(ApiSerializer):
    annotator = serializers.CharField(source="username")
    n = serializers.IntegerField(help_text="Verdicts on criteria with a gold verdict.")
    correct = serializers.IntegerField()
    accuracy = serializers.FloatField(source="rate", allow_null=True)
    low = serializers.FloatField(allow_null=True, help_text="Wilson 95% interval, low bound.")
    high = serializers.FloatField(allow_null=True)
    below_warning = serializers.BooleanField(help_text="Below the study's gold_warning threshold.")


FILTER_FIELDS = (
    *("q", "competency", "sub_competency", "language", "variable", "value"),
    *("task_status", "model"),
)


class StudyFromFiltersSerializer(StudySerializer):
    """A new study over every response of the published tasks matching the filters (those of
    the new study page), instead of a list of response ids."""

    q = serializers.CharField(required=False, allow_blank=True, help_text="Words of the task.")
    competency = serializers.CharField(required=False, help_text="Competency code.")
    sub_competency = serializers.CharField(required=False, help_text="Sub-competency code.")
    language = serializers.CharField(required=False)
    variable = serializers.CharField(required=False, help_text="Context variable key.")
    value = serializers.CharField(required=False, help_text="The context variable's value.")
    task_status = serializers.ChoiceField(
        choices=Task.Status.choices, required=False, help_text="Review status of the task."
    )
    model = serializers.CharField(required=False, help_text="Only this model's responses.")

    class Meta(StudySerializer.Meta):
        fields = [f for f in StudySerializer.Meta.fields if f != "responses"] + [*FILTER_FIELDS]


READ_ERRORS = {401: schema.UNAUTHENTICATED, 403: schema.FORBIDDEN, 404: schema.NOT_FOUND}

STATUS_ERRORS = {
    400: schema.INVALID,
    401: schema.UNAUTHENTICATED,
    403: schema.FORBIDDEN,
    404: schema.NOT_FOUND,
    409: schema._error("The study is closed, or its questions have been answered."),
}
STATUS_RESPONSES = {
    200: StudySerializer,
    400: schema.INVALID,
    401: schema.UNAUTHENTICATED,
    403: schema.FORBIDDEN,
    404: schema.NOT_FOUND,
    409: schema._error("Changed at the same time elsewhere: retry."),
}


class TimeRowSerializer(ApiSerializer):
    key = serializers.CharField(help_text="The criterion's code, or the annotator's user name.")
    median_seconds = serializers.FloatField()
    n = serializers.IntegerField(help_text="How many measured times the median is of.")
    stands_out = serializers.ChoiceField(
        choices=[("", "no"), ("slow", "slow"), ("quick", "quick")],
        help_text="`slow`: median over twice the typical one; `quick`: under half (n >= 3).",
    )


class PairTimeSerializer(ApiSerializer):
    criterion = serializers.CharField()
    annotator = serializers.CharField()
    median_seconds = serializers.FloatField()
    n = serializers.IntegerField()
    stands_out = serializers.ChoiceField(choices=[("", "no"), ("slow", "slow"), ("quick", "quick")])


class CriterionTimesSerializer(ApiSerializer):
    """Time per criterion in the study's submitted responses (docs/grading.md): grades whose
    time was not measured (given through the API or the offline workbook) are left out."""

    overall_median_seconds = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField()
    per_criterion = TimeRowSerializer(many=True)
    per_annotator = TimeRowSerializer(many=True)
    per_pair = PairTimeSerializer(many=True)


def criterion_times_data(summary: timing.TimeSummary) -> dict[str, Any]:
    return {
        "overall_median_seconds": summary.overall_median_seconds,
        "n": summary.n,
        "per_criterion": [vars(row) for row in summary.per_criterion],
        "per_annotator": [vars(row) for row in summary.per_annotator],
        "per_pair": [
            {
                "criterion": code,
                "annotator": row.key,
                "median_seconds": row.median_seconds,
                "n": row.n,
                "stands_out": row.stands_out,
            }
            for (code, _), row in sorted(summary.per_pair.items())
        ],
    }


@extend_schema_view(
    list=extend_schema(responses={200: STUDIES_FOR_ROLE, 400: schema.INVALID, **READ_ERRORS}),
    retrieve=extend_schema(responses={200: STUDY_FOR_ROLE, **READ_ERRORS}),
)
class StudyViewSet(AgreementActions, ReadOnlyViewSet):
    read_action = (Action.VIEW_BENCHMARK, Action.GRADE, Action.MANAGE_STUDIES)
    write_action = Action.MANAGE_STUDIES
    action_overrides = {
        "claim": Action.GRADE,
        "close": Action.MANAGE_STUDIES,
        "reopen": Action.MANAGE_STUDIES,
        "add_annotators": Action.MANAGE_STUDIES,
        "remove_annotators": Action.MANAGE_STUDIES,
        "questions": Action.MANAGE_STUDIES,
        "preview": Action.MANAGE_STUDIES,
        "from_filters": Action.MANAGE_STUDIES,
        "gold_checks": Action.MANAGE_STUDIES,
        "add_gold_checks": Action.MANAGE_STUDIES,
        "gold_accuracy": Action.MANAGE_STUDIES,
        "grades_csv": Action.EXPORT_DATA,
        "grades_xlsx": Action.EXPORT_DATA,
        "agreement": Action.VIEW_BENCHMARK,
        "final_labels": Action.EXPORT_DATA,
        "leaderboard": Action.VIEW_BENCHMARK,
        "calibration": Action.VIEW_BENCHMARK,
        "criterion_times": Action.VIEW_BENCHMARK,
    }
    http_method_names = ["get", "post", "patch", "head", "options"]
    queryset = Study.objects.select_related("framework")
    filterset_fields = ["status"]
    search_fields = ["name"]
    ordering_fields = ["id", "name", "created_at"]
    ordering = ["-created_at", "id"]

    def blind(self) -> bool:
        user = self.request.user
        return not (user_can(user, Action.VIEW_BENCHMARK) or manages_studies(user))

    def visible(self, queryset: QuerySet) -> QuerySet:
        if self.blind():
            me = self.request.user
            return queryset.filter(pool__annotator=me).annotate(
                own_count=Count("items__assignments", filter=Q(items__assignments__annotator=me)),
                own_submitted=Count(
                    "items__assignments",
                    filter=Q(
                        items__assignments__annotator=me,
                        items__assignments__status=Assignment.Status.SUBMITTED,
                    ),
                ),
            )
        return queryset

    def get_queryset(self) -> QuerySet:
        queryset = cast(StudyQuerySet, super().get_queryset())
        return queryset if self.blind() else queryset.with_progress()

    def get_serializer_class(self) -> type[serializers.Serializer]:
        if getattr(self, "swagger_fake_view", False):
            return StudySerializer
        return AnnotatorStudySerializer if self.blind() else StudySerializer

    def create(self, request: Request) -> Response:
        serializer = StudySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return self._create(request, dict(serializer.validated_data))

    def _create(self, request: Request, data: dict[str, Any]) -> Response:
        annotators, responses = data.pop("annotators"), data.pop("responses")
        assign_now = data.pop("assign_now")
        study, _planned = services.create_and_assign_study(
            name=data.pop("name"),
            framework=data.pop("framework"),
            responses=responses,
            annotators=annotators,
            assign_now=assign_now,
            by=acting_user(request),
            **data,
        )
        created = Study.objects.filter(pk=study.pk).with_progress().select_related("framework")
        return Response(StudySerializer(created.get()).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        responses={
            200: CriterionTimesSerializer,
            401: schema.UNAUTHENTICATED,
            403: schema.FORBIDDEN,
            404: schema.NOT_FOUND,
        }
    )
    @action(detail=True, methods=["get"], url_path="criterion-times")
    def criterion_times(self, request: Request, pk: str) -> Response:
        """Time per criterion: median seconds per criterion, per annotator and per pair, each
        with n, and which stand out (grading.services.criterion_times; docs/grading.md)."""
        summary = services.criterion_times(self.get_object())
        return Response(CriterionTimesSerializer(criterion_times_data(summary)).data)

    @extend_schema(
        request=None,
        responses={
            200: AssignmentDetailSerializer,
            204: None,
            400: schema.INVALID,
            401: schema.UNAUTHENTICATED,
            403: schema.FORBIDDEN,
            404: schema.NOT_FOUND,
            409: schema._error("Claimed at the same time elsewhere: retry."),
        },
    )
    @action(detail=True, methods=["post"])
    def claim(self, request: Request, pk: str) -> Response:
        """The caller's next unfinished assignment in the study, started (grading.services.
        claim_next); 204 when there is nothing left to grade."""
        study = self.get_object()
        assignment = services.claim_next(study, acting_user(request))
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(AssignmentDetailSerializer(assignment).data)

    def _set_status(self, request: Request, wanted: Study.Status) -> Response:
        study = self.get_object()
        services.set_status(study, wanted, by=acting_user(request))
        return Response(StudySerializer(self.get_queryset().get(pk=study.pk)).data)

    @extend_schema(request=None, responses=STATUS_RESPONSES)
    @action(detail=True, methods=["post"])
    def close(self, request: Request, pk: str) -> Response:
        """Close the study (grading.services.set_status): no grade or rating may change any
        more. Closing a closed study changes nothing."""
        return self._set_status(request, Study.Status.CLOSED)

    @extend_schema(request=None, responses=STATUS_RESPONSES)
    @action(detail=True, methods=["post"])
    def reopen(self, request: Request, pk: str) -> Response:
        """Open the study again (a study past its deadline stays closed until the deadline is
        moved)."""
        return self._set_status(request, Study.Status.OPEN)

    @extend_schema(request=StudySettingsSerializer, responses=STATUS_RESPONSES)
    def partial_update(self, request: Request, pk: str) -> Response:
        """Change the study's settings (description, match_expertise, deadline,
        require_rationale_on_fail, show_grader_names_to_adjudicator, escalation,
        escalation_threshold, escalation_cap, gold_rate, gold_warning), with history. Matching
        expertise and the gold rate apply to the work planned from then on, escalation to the
        submissions from then on."""
        study = self.get_object()
        serializer = StudySettingsSerializer(study, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        services.update_settings(study, serializer.validated_data, by=acting_user(request))
        return Response(StudySerializer(self.get_queryset().get(pk=study.pk)).data)

    def _pool_changed(self, study: Study, assignments: int) -> Response:
        names = sorted(study.pool.values_list("annotator__username", flat=True))
        return Response(
            PoolChangeSerializer({"annotators": names, "assignments": assignments}).data
        )

    @extend_schema(request=PoolSerializer, responses={200: PoolChangeSerializer, **STATUS_ERRORS})
    @action(detail=True, methods=["post"], url_path="add-annotators")
    def add_annotators(self, request: Request, pk: str) -> Response:
        """Add annotators to the pool; the work nobody has opened yet is planned again, shared
        with them (grading.services.add_annotators). A closed study is a 409."""
        study = self.get_object()
        serializer = PoolSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        annotators = serializer.validated_data["annotators"]
        planned = services.add_annotators(study, annotators, by=acting_user(request))
        return self._pool_changed(study, planned)

    @extend_schema(request=PoolSerializer, responses={200: PoolChangeSerializer, **STATUS_ERRORS})
    @action(detail=True, methods=["post"], url_path="remove-annotators")
    def remove_annotators(self, request: Request, pk: str) -> Response:
        """Take annotators out of the pool: what they submitted is kept; their unfinished
        assignments, drafts included, go to the rest of the pool. Someone not in the pool is a
        400."""
        study = self.get_object()
        serializer = PoolSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        annotators = serializer.validated_data["annotators"]
        members = set(study.pool.values_list("annotator_id", flat=True))
        outside = sorted(a.username for a in annotators if a.pk not in members)
        if outside:
            raise exceptions.ValidationError(
                {"annotators": [f"Not in the pool: {', '.join(outside)}."]}
            )
        by = acting_user(request)
        taken = sum(services.remove_annotator(study, a, by=by) for a in annotators)
        return self._pool_changed(study, taken)

    @extend_schema(
        request=QuestionsSerializer,
        responses={200: QuestionSerializer(many=True), **STATUS_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def questions(self, request: Request, pk: str) -> Response:
        """Replace the study's 1-5 questions while nobody has answered any (409 after)."""
        study = self.get_object()
        serializer = QuestionsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.set_likert_prompts(
            study, serializer.validated_data["prompts"], by=acting_user(request)
        )
        items = LikertItem.objects.filter(study=study).order_by("order", "pk")
        return Response(QuestionSerializer(items, many=True).data)

    @extend_schema(
        request=PreviewRequestSerializer,
        responses={
            200: PreviewSerializer,
            400: schema.INVALID,
            **READ_ERRORS,
            409: schema._error("Changed at the same time elsewhere: retry."),
        },
    )
    @action(detail=False, methods=["post"])
    def preview(self, request: Request) -> Response:
        """What a study of these responses and annotators would give, before it is created: the
        assignments, each annotator's load, the responses short of k. Creates nothing."""
        serializer = PreviewRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        check_graders(data["annotators"])  # as the study itself would be
        rows = ModelResponse.objects.filter(pk__in=[r.pk for r in data["responses"]]).values_list(
            "pk", "task__sub_competency_id", "task__language"
        )
        preview = services.preview_assignment(
            rows,
            data["annotators"],
            overlap=data["overlap"],
            overlap_percent=data["overlap_percent"],
            match_expertise=data["match_expertise"],
        )
        loads = [{"annotator": a.username, "responses": n} for a, n in preview.loads]
        body = {
            "units": preview.units,
            "overlap": preview.overlap,
            "gradings": preview.gradings,
            "short": preview.short,
            "overlapping": preview.overlapping,
            "single": preview.single,
            "loads": loads,
        }
        return Response(PreviewSerializer(body).data)

    @extend_schema(
        request=StudyFromFiltersSerializer,
        responses={
            201: StudySerializer,
            400: schema.INVALID,
            **READ_ERRORS,
            409: schema._error("Changed at the same time elsewhere: retry."),
        },
    )
    @action(detail=False, methods=["post"], url_path="from-filters")
    def from_filters(self, request: Request) -> Response:
        """Create a study over every response of the framework's published tasks that match
        the filters (those of the new study page: codes for the competency, sub-competency and
        context variable). No matching response is a 400."""
        serializer = StudyFromFiltersSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        filters = {name: data.pop(name) for name in FILTER_FIELDS if name in data}
        framework = data["framework"]
        selection = _selection(framework, filters)
        responses = selection.responses(framework).only("pk")
        if not responses.exists():
            raise exceptions.ValidationError(
                {"non_field_errors": ["No response of a published task matches the filters."]}
            )
        return self._create(request, data | {"responses": responses})

    @extend_schema(request=None, responses={200: GoldChecksSerializer, **READ_ERRORS})
    @action(detail=True, methods=["get"], url_path="gold-checks")
    def gold_checks(self, request: Request, pk: str) -> Response:
        """The study's gold checks and the adjudicated items of other studies that may become
        gold checks (grading.gold)."""
        study = self.get_object()
        checks = study.items.gold_checks().select_related("response__task", "gold_source__study")
        body = {"gold_checks": checks, "candidates": gold.gold_candidates(study)}
        return Response(GoldChecksSerializer(body).data)

    @extend_schema(
        request=GoldChecksRequestSerializer,
        responses={200: GoldCheckSerializer(many=True), **STATUS_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="add-gold-checks")
    def add_gold_checks(self, request: Request, pk: str) -> Response:
        """Make gold checks of adjudicated items of other studies and plan them into the
        queues (an open study): they are mixed in unannounced at the study's gold_rate, and
        their grades are not study data. Anything not a candidate is a 400."""
        study = self.get_object()
        serializer = GoldChecksRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.add_gold_checks_and_assign(
            study, serializer.validated_data["sources"], by=acting_user(request)
        )
        checks = study.items.gold_checks().select_related("response__task", "gold_source__study")
        return Response(GoldCheckSerializer(checks, many=True).data)

    @extend_schema(
        request=GoldCheckRemovalSerializer,
        responses={
            200: GoldCheckSerializer(many=True),
            **STATUS_ERRORS,
            409: schema._error("Somebody has graded one of these gold checks: it stays."),
        },
    )
    @action(detail=True, methods=["post"], url_path="remove-gold-checks")
    def remove_gold_checks(self, request: Request, pk: str) -> Response:
        """Take gold checks out of the study, with their planned assignments: all or none.
        One somebody has opened stays (409), its grades being their record. Answers the gold
        checks left."""
        study = self.get_object()
        serializer = GoldCheckRemovalSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        items = serializer.validated_data["gold_checks"]
        strangers = [item.pk for item in items if item.study_id != study.pk]
        if strangers:
            raise exceptions.ValidationError(
                {"gold_checks": [f"Not gold checks of this study: {strangers}."]}
            )
        with transaction.atomic():
            for item in items:
                gold.remove_gold_check(study, item, by=acting_user(request))
        checks = study.items.gold_checks().select_related("response__task", "gold_source__study")
        return Response(GoldCheckSerializer(checks, many=True).data)

    @extend_schema(
        request=None,
        filters=False,  # a list answer, but of annotators: the study filters do not apply
        responses={200: AccuracySerializer(many=True), **READ_ERRORS},
    )
    @action(detail=True, methods=["get"], url_path="gold-accuracy")
    def gold_accuracy(self, request: Request, pk: str) -> Response:
        """Each annotator's accuracy on the gold checks: correct of n verdicts on criteria with
        a gold verdict, with its Wilson 95% interval, flagged below the study's gold_warning."""
        rows = gold.accuracy_per_annotator(self.get_object())
        return Response(AccuracySerializer(rows, many=True).data)

    @extend_schema(responses=exports.responses("text/csv"))
    @action(detail=True, methods=["get"], url_path="grades-csv")
    def grades_csv(self, request: Request, pk: str) -> HttpResponseBase:
        """Every grade of the study as CSV (interchange.grades_export, as the study page's
        download): one row per grade, graders pseudonymised."""
        return exports.grades_csv(self.get_object())

    @extend_schema(responses=exports.responses(exports.XLSX))
    @action(detail=True, methods=["get"], url_path="grades-xlsx")
    def grades_xlsx(self, request: Request, pk: str) -> HttpResponseBase:
        """The study's grades and scores as an .xlsx workbook (interchange.grades_export)."""
        return exports.grades_xlsx(self.get_object())


def _selection(framework: Framework, filters: dict[str, Any]) -> StudySelectionForm:
    """The new study page's selection form for the API's filters (codes and keys turned into
    the form's ids; one unknown in the framework is a 400 naming it)."""
    lookups: dict[str, QuerySet[Any]] = {
        "competency": Competency.objects.filter(
            framework=framework, code=filters.get("competency")
        ),
        "sub_competency": SubCompetency.objects.filter(
            competency__framework=framework, code=filters.get("sub_competency")
        ),
        "variable": ContextVariable.objects.filter(
            framework=framework, key=filters.get("variable")
        ),
    }
    data: dict[str, Any] = {"scope": StudySelectionForm.MATCHING}
    for name, found in lookups.items():
        if filters.get(name):
            pk = found.values_list("pk", flat=True).first()
            if pk is None:
                raise exceptions.ValidationError(
                    {name: [f"Not in {framework.code}: {filters[name]}."]}
                )
            data[name] = pk
    for name in ("q", "language", "value", "model"):
        if filters.get(name):
            data[name] = filters[name]
    if filters.get("task_status"):
        data["status"] = filters["task_status"]
    language, model = filters.get("language"), filters.get("model")
    form = StudySelectionForm(
        data, languages=[language] if language else [], models=[model] if model else []
    )
    if not form.is_valid():
        raise exceptions.ValidationError({k: [str(e) for e in v] for k, v in form.errors.items()})
    return form
