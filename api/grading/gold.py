"""Gold verdicts: the adjudicated answers of a study's items (*Run grading studies* only)."""

from typing import Any

import django_filters
from rest_framework import serializers

from accounts.roles import Action
from api.filters import FilterSet, IntegerFilter
from api.permissions import acting_user
from api.serializers import (
    RevisionedSerializer,
)
from api.viewsets import RevisionedModelViewSet
from grading import adjudication
from grading.models import (
    GoldVerdict,
    split_reason_label,
)


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
    split_reason = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=100,
        help_text="Why the experts split: one of the study's split_reasons (GET "
        "/studies/{id}/), or empty. Left out of a change, the recorded one is kept.",
    )
    split_reason_label = serializers.SerializerMethodField(
        help_text="The split reason as a person reads it (a built-in one translated)."
    )

    def get_split_reason_label(self, gold: GoldVerdict) -> str:
        return split_reason_label(gold.split_reason)

    class Meta:
        model = GoldVerdict
        fields = [
            *("id", "study", "study_item", "criterion_version", "code", "verdict", "level"),
            *("note", "split_reason", "split_reason_label", "confidence"),
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
            split_reason=gold_of.get("split_reason"),  # None keeps the recorded one
            confidence=gold_of.get("confidence"),
            by=acting_user(self.request),
            base_revision=base_revision,
        )
        shown: GoldVerdict = self.get_queryset().get(pk=gold.pk)
        return shown

    def perform_create(self, serializer: serializers.BaseSerializer[Any]) -> None:
        serializer.instance = self._record(serializer.validated_data, base_revision=0)

    def save_changes(self, instance: GoldVerdict, changes: dict[str, Any], expected: int) -> Any:
        wanted = {
            "study_item": instance.study_item,
            "criterion_version": instance.criterion_version,
            "verdict": changes.get("verdict", instance.verdict),
            # A verdict given without a level replaces the level (N/A on an ordinal criterion).
            "level": changes.get("level", None if "verdict" in changes else instance.level),
            "note": changes.get("note", instance.note),
            "split_reason": changes.get("split_reason"),
            "confidence": changes.get("confidence"),
        }
        return self._record(wanted, base_revision=expected)
