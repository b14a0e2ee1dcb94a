"""Studies: creating one (from responses or from filters), its progress, pool, settings,
questions, gold checks, status and results."""

from typing import Any, cast

from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.http.response import HttpResponseBase
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_view,
)
from rest_framework import exceptions, serializers, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import user_can
from accounts.roles import Action
from api import exports, schema
from api.agreement import AgreementActions
from api.grading.assignments import AssignmentDetailSerializer
from api.grading.study_serializers import (
    FILTER_FIELDS,
    READ_ERRORS,
    STATUS_ERRORS,
    STATUS_RESPONSES,
    STUDIES_FOR_ROLE,
    STUDY_FOR_ROLE,
    AccuracySerializer,
    AnnotatorStudySerializer,
    CriterionTimesSerializer,
    GoldCheckRemovalSerializer,
    GoldCheckSerializer,
    GoldChecksRequestSerializer,
    GoldChecksSerializer,
    PlanRequestSerializer,
    PlanSerializer,
    PoolChangeSerializer,
    PoolSerializer,
    PreviewRequestSerializer,
    PreviewSerializer,
    QuestionSerializer,
    QuestionsSerializer,
    StudyFromFiltersSerializer,
    StudySerializer,
    StudySettingsSerializer,
    criterion_times_data,
)
from api.permissions import acting_user, manages_studies
from api.viewsets import ReadOnlyViewSet
from grading import gold, services
from grading.forms import StudySelectionForm
from grading.models import (
    Assignment,
    LikertItem,
    Study,
    StudyQuerySet,
    check_graders,
)
from rubrics.models import Response as ModelResponse
from taxonomy.models import Competency, ContextVariable, Framework, SubCompetency

# ----- studies -------------------------------------------------------------------------------


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
        "plan": Action.MANAGE_STUDIES,
        "from_filters": Action.MANAGE_STUDIES,
        "gold_checks": Action.MANAGE_STUDIES,
        "add_gold_checks": Action.MANAGE_STUDIES,
        "gold_accuracy": Action.MANAGE_STUDIES,
        "grades_csv": Action.EXPORT_DATA,
        "grades_xlsx": Action.EXPORT_DATA,
        "agreement": Action.VIEW_BENCHMARK,
        "drift": Action.VIEW_BENCHMARK,
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

    def visible(self, queryset: QuerySet[Study]) -> QuerySet[Study]:
        if self.blind():
            me = acting_user(self.request)
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

    def get_queryset(self) -> QuerySet[Study]:
        queryset = cast(StudyQuerySet, super().get_queryset())
        return queryset if self.blind() else queryset.with_progress()

    def get_serializer_class(self) -> type[serializers.Serializer[Any]]:
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
            "pk", "task__sub_competency_id", "task__language", "model_name"
        )
        preview = services.preview_assignment(
            rows,
            data["annotators"],
            overlap=data["overlap"],
            overlap_percent=data["overlap_percent"],
            match_expertise=data["match_expertise"],
            sampling_budget=data.get("sampling_budget"),
        )
        loads = [{"annotator": a.username, "responses": n} for a, n in preview.loads]
        drawn = [
            {"model": model, "expected": expected, "selected": selected}
            for model, expected, selected in preview.drawn_per_model
        ]
        body = {
            "units": preview.units,
            "overlap": preview.overlap,
            "gradings": preview.gradings,
            "short": preview.short,
            "overlapping": preview.overlapping,
            "single": preview.single,
            "loads": loads,
            "selected": preview.selected,
            "drawn": drawn,
        }
        return Response(PreviewSerializer(body).data)

    @extend_schema(
        parameters=[PlanRequestSerializer],
        responses={200: PlanSerializer, 400: schema.INVALID, **READ_ERRORS},
    )
    @action(detail=False, methods=["get"])
    def plan(self, request: Request) -> Response:
        """How many responses of each model experts must grade for a score within
        +/- half_width, drawn at random and by the judge's uncertainty, before a study is
        created (grading.services.plan_expert_grades; docs/statistics.md)."""
        serializer = PlanRequestSerializer(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        plan = services.plan_expert_grades(
            data.get("framework"),
            half_width=data["half_width"],
            pool=data["responses"],
            accuracy=data["accuracy"],
            sampling_run=data["sampling_run"].pk if data.get("sampling_run") else None,
        )
        needed, judge = plan.needed, plan.judge
        body = {
            "half_width": needed.half_width,
            "responses": needed.pool,
            "uniform": needed.uniform,
            "active": needed.active,
            "without_judge": needed.without_judge,
            "accuracy": judge.accuracy,
            "measured_on": judge.n,
            "judge_run": judge.run.pk if judge.run else None,
        }
        return Response(PlanSerializer(body).data)

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
        responses = selection.responses(framework).only("pk", "model_name")
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
