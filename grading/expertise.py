"""Expertise matching: planner tags for annotators (from their Expertise rows) and for items
(their task's sub-competency and language), used by every way work is handed out."""

from collections import defaultdict
from collections.abc import Iterable, Sequence

from accounts.models import User
from grading.models import Expertise, Study, StudyItem


def expertise_tags(study: Study, annotators: Sequence[User]) -> dict[int, frozenset[str] | None]:
    """Tags per annotator for the planner (None: the study does not match expertise)."""
    if not study.match_expertise:
        return {a.pk: None for a in annotators}
    values = study.items.values_list(
        "response__task__sub_competency_id", "response__task__language"
    ).distinct()
    return annotator_tags([a.pk for a in annotators], values)


def annotator_tags(
    annotator_ids: Sequence[int], values: Iterable[tuple[int | None, str]]
) -> dict[int, frozenset[str] | None]:
    """Each annotator's expertise as planner tags, for items of these (sub-competency id,
    language) values. An annotator untagged in one dimension may grade every value of it, so
    that dimension's values are added to their tags."""
    values = list(values)
    all_subs = {f"sub:{s}" for s, _ in values}
    all_langs = {f"lang:{lang}" for _, lang in values}
    subs: dict[int, set[str]] = defaultdict(set)
    langs: dict[int, set[str]] = defaultdict(set)
    for user_id, sub_id, language in Expertise.objects.filter(
        annotator__in=annotator_ids
    ).values_list("annotator_id", "sub_competency_id", "language"):
        if sub_id is not None:
            subs[user_id].add(f"sub:{sub_id}")
        else:
            langs[user_id].add(f"lang:{language}")
    return {
        pk: frozenset((subs[pk] or all_subs) | (langs[pk] or all_langs)) for pk in annotator_ids
    }


def item_tags(sub_competency_id: int | None, language: str) -> frozenset[str]:
    return frozenset({f"sub:{sub_competency_id}", f"lang:{language}"})


def study_item_tags(study: Study, item: StudyItem) -> frozenset[str]:
    if not study.match_expertise:
        return frozenset()
    task = item.response.task
    return item_tags(task.sub_competency_id, task.language)
