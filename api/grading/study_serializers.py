"""The study endpoints' serializers and schema answers (api/grading/studies.py): what a study,
its pool, questions, preview, plan, gold checks and criterion times look like on the wire."""

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from accounts.models import User
from api import schema
from api.serializers import ApiModelSerializer, ApiSerializer, SlugRelatedField
from core import timing
from grading import services
from grading.models import Study, StudyItem
from judging.models import JudgeRun
from rubrics.models import Response as ModelResponse
from rubrics.models import Task
from taxonomy.models import Framework

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
    split_reasons = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text="The reasons an adjudicator may give why the experts split (a gold "
        "verdict's split_reason), set on the study's page.",
    )

    class Meta:
        model = Study
        fields = [
            *("id", "name", "framework", "description", "overlap", "match_expertise"),
            *("deadline", "status", "require_rationale_on_fail"),
            *("show_grader_names_to_adjudicator", "created_at", "items", "assignments"),
            *("submitted", "annotators", "responses", "assign_now", "split_reasons"),
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
    sampling_budget = serializers.IntegerField(
        min_value=2,
        max_value=2**31 - 1,
        required=False,
        allow_null=True,
        help_text=(
            "For a study sampled for the judge's scores: the expert grades wanted per model. "
            "The preview is then of the responses each model is expected to draw."
        ),
    )


class LoadSerializer(ApiSerializer):
    annotator = serializers.CharField()
    responses = serializers.IntegerField()


class DrawSerializer(ApiSerializer):
    model = serializers.CharField()
    expected = serializers.IntegerField(
        help_text="Responses expected to be drawn: min(budget, selected)."
    )
    selected = serializers.IntegerField(help_text="The model's responses in the selection.")


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
    selected = serializers.IntegerField(help_text="Responses given (the selection).")
    drawn = DrawSerializer(
        many=True,
        help_text="With sampling_budget: each model's responses expected to be drawn; else empty.",
    )


class PlanRequestSerializer(ApiSerializer):
    half_width = serializers.FloatField(
        min_value=0.005,
        max_value=0.5,
        default=services.DEFAULT_HALF_WIDTH,
        help_text="Target half-width of each model's score (0.05: +/- 5 points).",
    )
    accuracy = serializers.FloatField(
        min_value=0.5,
        max_value=1.0,
        default=services.DEFAULT_ACCURACY,
        help_text="The judge's accuracy assumed when none was measured on the framework.",
    )
    responses = serializers.IntegerField(
        min_value=2, max_value=100_000, help_text="Judged responses of each model (the pool)."
    )
    framework = SlugRelatedField(
        slug_field="code",
        queryset=Framework.objects.all(),
        required=False,
        help_text="Code of the framework whose latest judge run is measured, if any.",
    )
    sampling_run = serializers.PrimaryKeyRelatedField(
        queryset=JudgeRun.objects.all(),
        required=False,
        help_text="Id of the judge run the study will be sampled by: measured instead of the "
        "framework's latest run.",
    )


class PlanSerializer(ApiSerializer):
    half_width = serializers.FloatField()
    responses = serializers.IntegerField(help_text="Judged responses of each model.")
    uniform = serializers.IntegerField(
        allow_null=True,
        help_text="Expert grades of each model, drawn at random; null: more than the pool.",
    )
    active = serializers.IntegerField(
        allow_null=True,
        help_text="Drawn by the judge's uncertainty; null without a measured run of several "
        "epochs, or more than the pool.",
    )
    without_judge = serializers.IntegerField(help_text="The experts' mean alone.")
    accuracy = serializers.FloatField(help_text="The judge's accuracy the answer rests on.")
    measured_on = serializers.IntegerField(help_text="Verdicts it was measured on; 0: assumed.")
    judge_run = serializers.IntegerField(
        allow_null=True, help_text="Id of the judge run measured; null when assumed."
    )


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
