"""The judge's rows in a study's backup (interchange.backup, which this app gives them to as
it loads): its verdicts and 1-5 ratings on the responses the study grades, and the shipped
prompts that `migrate` writes into every new database."""

from typing import Any

from django.db import models
from django.db.models import Q

from judging.models import JudgeRating, JudgeVerdict, PromptTemplate, PromptVersion
from judging.shipped import shipped_prompt_names
from rubrics.models import Response


def study_rows(graded: models.QuerySet[Response]) -> list[models.QuerySet[Any]]:
    return [
        JudgeVerdict.objects.filter(response__in=graded),
        JudgeRating.objects.filter(response__in=graded),
    ]


def made_by_migrate() -> dict[type[models.Model], Q]:
    shipped = shipped_prompt_names()
    return {
        PromptTemplate: Q(name__in=shipped),
        PromptVersion: Q(template__name__in=shipped, number=1),
    }
