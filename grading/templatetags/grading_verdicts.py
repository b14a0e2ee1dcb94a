"""`{{ grade.verdict|verdict_label:weight }}`: a stored verdict as it reads on its criterion
(Present / Absent on a penalty, whose weight is negative; rubrics.scoring.verdict_label)."""

from django import template

from rubrics.scoring import verdict_label as label_of

register = template.Library()


@register.filter
def verdict_label(verdict: str | None, weight: int) -> str:
    return label_of(verdict, penalty=weight < 0) if verdict else ""
