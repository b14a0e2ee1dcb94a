"""Frameworks, competencies, sub-competencies, context variables and their values.

Read with Action.VIEW_TAXONOMY, changed with Action.EDIT_TAXONOMY; filters are those the browser
offers (framework code, competency code, variable kind and group)."""

import re
from typing import Any, cast

import django_filters
from django.db import models, transaction
from django.http.response import HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.decorators import action
from rest_framework.request import Request

from accounts.roles import Action
from api import exports, schema
from api.filters import FilterSet, IntegerFilter
from api.permissions import acting_user
from api.serializers import ApiModelSerializer, RevisionedSerializer, SlugRelatedField
from api.viewsets import RevisionedModelViewSet
from interchange.forms import RubricsExportForm
from taxonomy.models import (
    Competency,
    ContextValue,
    ContextVariable,
    Framework,
    ProficiencyLevel,
    ProficiencyScale,
    SubCompetency,
)
from taxonomy.scales import sync_scale_values

SLUG = re.compile(r"[-a-zA-Z0-9_]+")
ORDER = {"min_value": 0, "max_value": 2**31 - 1, "required": False}


# ----- serializers ---------------------------------------------------------------------------
class FrameworkSerializer(RevisionedSerializer):
    class Meta:
        model = Framework
        fields = ["id", "code", "name", "description", "note", "revision"]


class FrameworkField(SlugRelatedField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("queryset", Framework.objects.all())
        super().__init__(slug_field="code", help_text="The framework's code.", **kwargs)

    def to_internal_value(self, data: Any) -> Framework:
        # Only a slug can name a framework; anything else (a NUL, which PostgreSQL would refuse
        # with an error) is "no such framework" without asking the database.
        if not isinstance(data, str) or not SLUG.fullmatch(data):
            self.fail("does_not_exist", slug_name=self.slug_field, value=str(data))
        framework: Framework = super().to_internal_value(data)
        return framework


class CompetencySerializer(RevisionedSerializer):
    parent_field = "framework"
    framework = FrameworkField()

    class Meta:
        model = Competency
        fields = ["id", "framework", "code", "name", "description", "order", "revision"]
        extra_kwargs = {"order": ORDER}


class SubCompetencySerializer(RevisionedSerializer):
    parent_field = "competency"
    framework = serializers.CharField(source="competency.framework.code", read_only=True)
    competency_code = serializers.CharField(source="competency.code", read_only=True)

    class Meta:
        model = SubCompetency
        fields = [
            *("id", "framework", "competency", "competency_code", "code", "name"),
            *("description", "placeholder", "order", "revision"),
        ]
        extra_kwargs = {"order": ORDER}


class ContextValueSerializer(RevisionedSerializer):
    parent_field = "variable"
    framework = serializers.CharField(source="variable.framework.code", read_only=True)
    variable_key = serializers.CharField(source="variable.key", read_only=True)

    class Meta:
        model = ContextValue
        fields = [
            *("id", "framework", "variable", "variable_key", "code", "label", "description"),
            *("order", "revision"),
        ]
        extra_kwargs = {"order": ORDER}

    def validate_variable(self, variable: ContextVariable) -> ContextVariable:
        # ContextValue.clean says the same when the value is saved; said here, the error is
        # keyed on the field the client sent.
        variable.check_takes_listed_values()
        return variable


class ListedValueSerializer(ApiModelSerializer):
    class Meta:
        model = ContextValue
        fields = ["id", "code", "label", "description", "order", "revision"]
        read_only_fields = fields


class ScaleCodeField(serializers.CharField):
    """A scale named by its code (unique within a framework, so resolved by the serializer)."""

    def to_representation(self, value: Any) -> str:
        return str(value.code)


class ContextVariableSerializer(RevisionedSerializer):
    parent_field = "framework"
    framework = FrameworkField()
    scale = ScaleCodeField(
        required=False,
        allow_null=True,
        help_text="Code of the proficiency scale of the variable's framework whose levels are "
        "the values (ordinal variables only).",
    )
    values = ListedValueSerializer(
        many=True, read_only=True, help_text="Allowed values (edit them as context-values)."
    )

    class Meta:
        model = ContextVariable
        fields = [
            *("id", "framework", "key", "label", "description", "kind", "group"),
            *("minimum", "maximum", "whole_numbers", "source", "scale", "order", "values"),
            "revision",
        ]
        extra_kwargs = {"order": ORDER}

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("scale") is not None:
            framework = attrs.get("framework") or getattr(self.instance, "framework", None)
            found = ProficiencyScale.objects.filter(framework=framework, code=attrs["scale"])
            attrs["scale"] = found.first()
            if attrs["scale"] is None:
                raise serializers.ValidationError({"scale": ["No such scale in this framework."]})
        return super().validate(attrs)


class ProficiencyScaleSerializer(RevisionedSerializer):
    parent_field = "framework"
    framework = FrameworkField()

    class Meta:
        model = ProficiencyScale
        fields = [
            *("id", "framework", "code", "name", "description", "source", "order", "revision"),
        ]
        extra_kwargs = {"order": ORDER}


class ProficiencyLevelSerializer(RevisionedSerializer):
    parent_field = "scale"
    scale_code = serializers.CharField(source="scale.code", read_only=True)
    corresponds_to = serializers.PrimaryKeyRelatedField(
        queryset=ProficiencyLevel.objects.all(),
        required=False,
        allow_null=True,
        help_text="Id of the closest level of another scale (approximate); reports group on it.",
    )
    corresponds_to_upper = serializers.PrimaryKeyRelatedField(
        queryset=ProficiencyLevel.objects.all(),
        required=False,
        allow_null=True,
        help_text="Id of the highest level, when the level spans a range of the other scale.",
    )

    class Meta:
        model = ProficiencyLevel
        fields = [
            *("id", "scale", "scale_code", "code", "label", "description", "order"),
            *("corresponds_to", "corresponds_to_upper", "revision"),
        ]
        extra_kwargs = {"order": ORDER}


# ----- filters -------------------------------------------------------------------------------
class FrameworkCode(django_filters.CharFilter):  # type: ignore[misc]  # django-filter: untyped
    def __init__(self, field_name: str) -> None:
        super().__init__(field_name=field_name, label="Framework code")


class CompetencyFilter(FilterSet):
    framework = FrameworkCode("framework__code")

    class Meta:
        model = Competency
        fields = ["framework", "code"]


class SubCompetencyFilter(FilterSet):
    framework = FrameworkCode("competency__framework__code")
    competency = IntegerFilter(label="Competency id")
    competency_code = django_filters.CharFilter("competency__code", label="Competency code")

    class Meta:
        model = SubCompetency
        fields = ["framework", "competency", "competency_code", "code"]


class ContextVariableFilter(FilterSet):
    framework = FrameworkCode("framework__code")

    class Meta:
        model = ContextVariable
        fields = ["framework", "key", "kind", "group"]


class ContextValueFilter(FilterSet):
    framework = FrameworkCode("variable__framework__code")
    variable = IntegerFilter(label="Variable id")
    variable_key = django_filters.CharFilter("variable__key", label="Variable key")

    class Meta:
        model = ContextValue
        fields = ["framework", "variable", "variable_key", "code"]


class ScaleFilter(FilterSet):
    framework = FrameworkCode("framework__code")

    class Meta:
        model = ProficiencyScale
        fields = ["framework", "code"]


class LevelFilter(FilterSet):
    framework = FrameworkCode("scale__framework__code")
    scale = IntegerFilter(label="Scale id")
    scale_code = django_filters.CharFilter("scale__code", label="Scale code")

    class Meta:
        model = ProficiencyLevel
        fields = ["framework", "scale", "scale_code", "code"]


# ----- viewsets ------------------------------------------------------------------------------
class TaxonomyViewSet(RevisionedModelViewSet):
    read_action = Action.VIEW_TAXONOMY
    write_action = Action.EDIT_TAXONOMY
    siblings_of: str | None = None  # parent field: a new object goes last among its siblings

    def prepare_new(self, instance: models.Model) -> None:
        if self.siblings_of and not instance.order:  # type: ignore[attr-defined]
            parent = getattr(instance, self.siblings_of)
            siblings = type(instance)._default_manager.filter(**{self.siblings_of: parent})
            instance.order = siblings.next_order()  # type: ignore[attr-defined]


class FrameworkViewSet(TaxonomyViewSet):
    queryset = Framework.objects.all()
    serializer_class = FrameworkSerializer
    lookup_field = "code"
    search_fields = ["code", "name"]
    ordering_fields = ["code", "name", "id"]
    ordering = ["name", "id"]
    filterset_fields = ["code"]
    action_overrides = {"rubrics_xlsx": Action.EXPORT_DATA}

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "validated_by",
                OpenApiTypes.STR,
                description="A study's id, or `all`: each criterion's validation in that study "
                "(or every study of the framework that graded it), with alpha, its interval, "
                "n, the threshold and the study.",
            ),
            OpenApiParameter(
                "only_validated",
                OpenApiTypes.BOOL,
                description="true: only the criteria a study validated (needs validated_by).",
            ),
        ],
        responses=exports.responses(exports.XLSX) | {400: schema.INVALID},
    )
    @action(detail=True, methods=["get"], url_path="rubrics-xlsx")
    def rubrics_xlsx(self, request: Request, code: str) -> HttpResponseBase:
        """The framework's rubrics as an .xlsx workbook: a task sheet, then one sheet per layer
        (interchange.exporters.export_rubrics_xlsx, as the export page's download)."""
        framework = self.get_object()
        form = RubricsExportForm(request.query_params, framework=framework)
        if not form.is_valid():
            raise exceptions.ValidationError(
                {name: [str(e) for e in errors] for name, errors in form.errors.items()}
            )
        return exports.rubrics_xlsx(
            framework, form.cleaned_data["studies"], form.cleaned_data["only_validated"]
        )


class CompetencyViewSet(TaxonomyViewSet):
    queryset = Competency.objects.select_related("framework")
    serializer_class = CompetencySerializer
    filterset_class = CompetencyFilter
    search_fields = ["code", "name", "description"]
    ordering_fields = ["order", "code", "name", "id"]
    ordering = ["framework__name", "order", "code", "id"]
    siblings_of = "framework"


class SubCompetencyViewSet(TaxonomyViewSet):
    queryset = SubCompetency.objects.select_related("competency__framework")
    serializer_class = SubCompetencySerializer
    filterset_class = SubCompetencyFilter
    search_fields = ["code", "name", "description"]
    ordering_fields = ["order", "code", "name", "id"]
    ordering = ["competency__framework__name", "competency__order", "order", "code", "id"]
    siblings_of = "competency"


class ScaleFollowing(TaxonomyViewSet):
    """Saves that the values of scale-bound variables follow (taxonomy.scales)."""

    def follow(self, saved: Any) -> None:
        raise NotImplementedError

    def perform_create(self, serializer: serializers.BaseSerializer[Any]) -> None:
        with transaction.atomic():
            super().perform_create(serializer)
            self.follow(serializer.instance)

    def save_changes(
        self, instance: Any, changes: dict[str, Any], expected_revision: int
    ) -> models.Model:
        with transaction.atomic():
            saved = super().save_changes(instance, changes, expected_revision)
            self.follow(saved)
        return saved


class ProficiencyScaleViewSet(TaxonomyViewSet):
    queryset = ProficiencyScale.objects.select_related("framework")
    serializer_class = ProficiencyScaleSerializer
    filterset_class = ScaleFilter
    search_fields = ["code", "name"]
    ordering_fields = ["order", "code", "name", "id"]
    ordering = ["framework__name", "order", "code", "id"]
    siblings_of = "framework"


class ProficiencyLevelViewSet(ScaleFollowing):
    queryset = ProficiencyLevel.objects.select_related("scale__framework")
    serializer_class = ProficiencyLevelSerializer
    filterset_class = LevelFilter
    search_fields = ["code", "label"]
    ordering_fields = ["order", "code", "label", "id"]
    ordering = ["scale__framework__name", "scale__order", "order", "code", "id"]
    siblings_of = "scale"

    def follow(self, saved: Any) -> None:
        sync_scale_values(scales=[saved.scale], actor=acting_user(self.request))


class ContextVariableViewSet(ScaleFollowing):
    queryset = ContextVariable.objects.select_related("framework", "scale").prefetch_related(
        "values"
    )
    serializer_class = ContextVariableSerializer
    filterset_class = ContextVariableFilter
    search_fields = ["key", "label", "description"]
    ordering_fields = ["order", "key", "label", "id"]
    ordering = ["framework__name", "order", "key", "id"]
    siblings_of = "framework"

    def follow(self, saved: Any) -> None:
        sync_scale_values(variables=[saved], actor=acting_user(self.request))


class ContextValueViewSet(TaxonomyViewSet):
    """The values of a variable that takes a proficiency scale's levels follow the levels: a
    write to one is refused with 409 (ContextValue.check_editable_by_hand), the levels are
    edited as proficiency-levels."""

    queryset = ContextValue.objects.select_related("variable__framework")
    serializer_class = ContextValueSerializer
    filterset_class = ContextValueFilter
    search_fields = ["code", "label"]
    ordering_fields = ["order", "code", "label", "id"]
    ordering = ["variable__framework__name", "variable__order", "order", "code", "id"]
    siblings_of = "variable"

    def prepare_new(self, instance: models.Model) -> None:
        cast(ContextValue, instance).check_editable_by_hand()
        super().prepare_new(instance)

    def save_changes(
        self, instance: Any, changes: dict[str, Any], expected_revision: int
    ) -> models.Model:
        instance.check_editable_by_hand()
        return super().save_changes(instance, changes, expected_revision)

    def check_delete(self, instance: Any) -> None:
        instance.check_editable_by_hand()
