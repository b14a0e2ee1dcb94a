"""Admin for grading. Grades, ratings and gold verdicts are read-only here: they change only
through grading.services, which keeps every submitted value's history."""

from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest

from audit.admin import AuditedAdmin
from grading import deadlines
from grading.models import (
    AdjudicationRequest,
    Assignment,
    Expertise,
    Flag,
    GoldVerdict,
    GoldVerdictRevision,
    Grade,
    GradeRevision,
    LikertItem,
    LikertRating,
    PairTally,
    PoolMember,
    ResultsRevision,
    Study,
    StudyItem,
    TurnGrade,
    TurnGradeRevision,
)
from l2annot.read_only_admin import ReadOnly


class ReadOnlyAdmin[M: models.Model](ReadOnly, admin.ModelAdmin[M]):
    pass


class PoolMemberInline(admin.TabularInline[PoolMember, Study]):
    model = PoolMember
    extra = 0
    autocomplete_fields = ["annotator"]


class LikertItemInline(admin.TabularInline[LikertItem, Study]):
    model = LikertItem
    extra = 0
    prepopulated_fields = {"key": ["prompt"]}


@admin.register(Study)
class StudyAdmin(AuditedAdmin[Study]):
    list_display = ["name", "framework", "overlap", "status", "deadline", "created_at"]
    list_filter = ["status", "framework"]
    search_fields = ["name"]
    inlines = [PoolMemberInline, LikertItemInline]

    def save_model(self, request: HttpRequest, obj: Study, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if {"status", "deadline"} & set(form.changed_data):
            deadlines.settle(obj)  # a closing is told, as from the study's page


@admin.register(Expertise)
class ExpertiseAdmin(AuditedAdmin[Expertise]):
    list_display = ["annotator", "sub_competency", "language"]
    list_filter = ["sub_competency", "language"]
    autocomplete_fields = ["annotator"]


@admin.register(StudyItem)
class StudyItemAdmin(ReadOnlyAdmin[StudyItem]):
    list_display = ["study", "response", "rubric_version"]
    list_filter = ["study"]


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin[Assignment]):
    list_display = ["study_item", "annotator", "status", "submitted_at", "time_spent_seconds"]
    list_filter = ["status", "study_item__study"]


@admin.register(Grade)
class GradeAdmin(ReadOnlyAdmin[Grade]):
    list_display = ["assignment", "criterion_version", "verdict", "updated_at"]
    list_filter = ["verdict", "assignment__study_item__study"]


@admin.register(GradeRevision)
class GradeRevisionAdmin(ReadOnlyAdmin[GradeRevision]):
    list_display = ["grade", "verdict", "written_at", "replaced_at", "replaced_by"]


@admin.register(TurnGrade)
class TurnGradeAdmin(ReadOnlyAdmin[TurnGrade]):
    list_display = ["assignment", "criterion_version", "turn", "verdict", "updated_at"]
    list_filter = ["verdict", "assignment__study_item__study"]


@admin.register(TurnGradeRevision)
class TurnGradeRevisionAdmin(ReadOnlyAdmin[TurnGradeRevision]):
    list_display = ["turn_grade", "verdict", "written_at", "replaced_at", "replaced_by"]


@admin.register(PairTally)
class PairTallyAdmin(ReadOnlyAdmin[PairTally]):
    """Counts kept by grading.tallies from the submitted grades; shown to check them."""

    list_display = ["study_item", "criterion_version", "passes", "fails", "nas", "levels"]
    list_filter = ["study"]


@admin.register(ResultsRevision)
class ResultsRevisionAdmin(ReadOnlyAdmin[ResultsRevision]):
    """Counted by grading.services as submitted data changes; the agreement results' cache
    key."""

    list_display = ["study", "value"]


@admin.register(LikertRating)
class LikertRatingAdmin(ReadOnlyAdmin[LikertRating]):
    list_display = ["assignment", "item", "value", "updated_at"]


@admin.register(GoldVerdict)
class GoldVerdictAdmin(ReadOnlyAdmin[GoldVerdict]):
    list_display = ["study_item", "criterion_version", "verdict", "by", "at"]


@admin.register(Flag)
class FlagAdmin(ReadOnlyAdmin[Flag]):
    """Flags change only through grading.flags (the study's flags page), which keeps their
    history and returns or reassigns a response set aside."""

    list_display = ["study_item", "criterion_version", "kind", "by", "status", "created_at"]
    list_filter = ["status", "kind"]


@admin.register(GoldVerdictRevision)
class GoldVerdictRevisionAdmin(ReadOnlyAdmin[GoldVerdictRevision]):
    list_display = ["gold", "revision", "verdict", "written_at", "replaced_by"]


@admin.register(AdjudicationRequest)
class AdjudicationRequestAdmin(ReadOnlyAdmin[AdjudicationRequest]):
    list_display = ["study_item", "criterion_version", "by", "at"]


@admin.register(PoolMember)
class PoolMemberAdmin(AuditedAdmin[PoolMember]):
    list_display = ["study", "annotator", "capacity"]
    list_filter = ["study"]
    autocomplete_fields = ["annotator"]


@admin.register(LikertItem)
class LikertItemAdmin(AuditedAdmin[LikertItem]):
    list_display = ["study", "order", "key", "prompt"]
    list_filter = ["study"]
    prepopulated_fields = {"key": ["prompt"]}
