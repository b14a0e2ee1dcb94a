"""A study's (response, criterion) units as the LLM judge sees them."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.db.models import Prefetch
from django.db.models.functions import Length

from core.prompting import Unit, UnitSizes, filled_length, prompt_shape
from core.prompting import asking_probability as with_probability_request
from grading.models import Study, StudyItem
from rubrics.models import CriterionVersion, RubricItem, TaskContextValue, Turn


@dataclass(frozen=True)
class PlannedCall:
    response_id: str
    task_key: str
    criterion_id: str
    weight: int
    version_pk: int
    response_pk: int
    unit: Unit
    scale: tuple[int, int] | None = None  # an ordinal criterion's (min, max): it takes a level
    turn: int | None = None  # the tutor turn judged (its index), on a turn-level criterion
    response_version: int = 1  # the version the study grades (a newer one may exist)


TURN_NOTE = (
    "This criterion is judged on one tutor turn: judge only the tutor's last turn of the "
    "dialogue above, in the light of what came before it."
)


def study_units(study: Study, *, limit: int | None = None) -> list[PlannedCall]:
    """The study's (response, criterion) units as the judge sees them: every applicable
    criterion of the frozen rubric version each response was graded against (an ordinal one
    asks for a level of its scale). Responses are named by their id and the version the study
    grades (a response without an id cannot receive verdicts and is left out). A turn-level
    criterion on a dialogue is one unit per tutor turn, the judge seeing the dialogue up to that
    turn (the importer folds the turns' verdicts by the criterion's rule). Gold checks are left
    out: they are another study's responses, and their grades are no part of this study's
    data."""
    items = (
        StudyItem.objects.filter(study=study)
        .data()
        .exclude(response__external_id="")
        .select_related("response__task")
        .prefetch_related(
            Prefetch("response__turns", queryset=Turn.objects.order_by("index")),
            Prefetch(
                "response__task__context_values",
                queryset=TaskContextValue.objects.select_related("variable", "value").order_by(
                    "variable__order", "variable__key"
                ),
            ),
            Prefetch(
                "rubric_version__items",
                queryset=RubricItem.objects.filter(applicable=True)
                .select_related("criterion_version__criterion")
                .prefetch_related("criterion_version__scale_points")
                .order_by("order", "pk"),
            ),
        )
        .order_by("pk")
    )
    calls: list[PlannedCall] = []
    for item in items:
        response, task = item.response, item.response.task
        context = {value.variable.key: value.display_value for value in task.context_values.all()}
        turns = tuple((turn.role, turn.content) for turn in response.turns.all())
        tutor = [n for n, (role, _) in enumerate(turns) if role == Turn.Role.ASSISTANT]
        for rubric_item in item.rubric_version.items.all():
            version = rubric_item.criterion_version
            text = criterion_text(version)
            seen: list[tuple[int | None, tuple[tuple[str, str], ...], str]] = [(None, turns, text)]
            if version.per_turn and tutor:
                seen = [(n, turns[: n + 1], f"{text}\n{TURN_NOTE}") for n in tutor]
            for turn, shown, criterion in seen:
                calls.append(
                    PlannedCall(
                        response_id=response.external_id,
                        task_key=task.key,
                        criterion_id=version.criterion.code,
                        weight=version.weight,
                        version_pk=version.pk,
                        response_pk=response.pk,
                        scale=_scale(version),
                        unit=Unit(
                            task=task.instruction,
                            response=response.text,
                            criterion=criterion,
                            reference_answer=task.reference_answer,
                            context=context,
                            turns=shown,
                        ),
                        turn=turn,
                        response_version=response.version,
                    )
                )
                if limit is not None and len(calls) >= limit:
                    return calls
    return calls


def prompt_lengths(
    study: Study, template: str, *, limit: int | None = None, asking_probability: bool = False
) -> list[int]:
    """The characters of each prompt `template` makes for `study_units(study, limit=limit)`,
    in their order, without filling a prompt: equal to `len(render(template, call.unit))` for
    each call (with `core.prompting.asking_probability` around it on a binary criterion when
    `asking_probability`). The texts' lengths come from the database (`Length`); only the few
    criterion versions' texts and the tasks' context values are read."""
    shape = prompt_shape(template)
    items = (
        StudyItem.objects.filter(study=study)
        .data()
        .exclude(response__external_id="")
        .order_by("pk")
    )
    turns: dict[int, list[tuple[str, int]]] = {}
    dialogue_turns = Turn.objects.filter(response__in=items.values("response"))
    for response_id, role, chars in dialogue_turns.order_by("response", "index").values_list(
        "response_id", "role", Length("content")
    ):
        turns.setdefault(response_id, []).append((role, chars))
    contexts: dict[int, dict[str, int]] = {}
    if any(slot.partition(".")[0] == "context" for slot in shape.slots):
        values = (
            TaskContextValue.objects.filter(task__in=items.values("response__task"))
            .select_related("variable", "value")
            .order_by("task", "variable__order", "variable__key")
        )
        for value in values:
            contexts.setdefault(value.task_id, {})[value.variable.key] = len(value.display_value)
    criteria: dict[int, list[tuple[int, bool, int]]] = {}
    in_study = RubricItem.objects.filter(rubric_version__in=items.values("rubric_version"))
    rubric_items = (
        in_study.filter(applicable=True)
        .select_related("criterion_version")
        .prefetch_related("criterion_version__scale_points")
        .order_by("rubric_version", "order", "pk")
    )
    texts: dict[int, int] = {}
    request = len(with_probability_request("")) if asking_probability else 0
    for rubric_item in rubric_items:
        version = rubric_item.criterion_version
        if version.pk not in texts:
            texts[version.pk] = len(criterion_text(version))
        asked = request if _scale(version) is None else 0  # after the filled prompt
        criteria.setdefault(rubric_item.rubric_version_id, []).append(
            (texts[version.pk], version.per_turn, asked)
        )
    per_criterion = shape.slots.get("criterion", 0)
    turn_note = len(TURN_NOTE) + 1  # after a line break
    lengths: list[int] = []
    for (
        response_id,
        task_id,
        rubric_id,
        response_chars,
        task_chars,
        reference_chars,
    ) in items.values_list(
        "response_id",
        "response__task_id",
        "rubric_version_id",
        Length("response__text"),
        Length("response__task__instruction"),
        Length("response__task__reference_answer"),
    ):
        dialogue = turns.get(response_id, [])
        sizes = UnitSizes(
            task=task_chars,
            response=response_chars,
            criterion=0,
            reference_answer=reference_chars,
            context=contexts.get(task_id, {}),
            turns=dialogue,
        )
        whole = filled_length(shape, sizes)
        tutor = [n for n, (role, _) in enumerate(dialogue) if role == Turn.Role.ASSISTANT]
        up_to_turn: list[int] = []  # the prompt up to each tutor turn, without the criterion
        for criterion_chars, per_turn, asked in criteria.get(rubric_id, []):
            if per_turn and tutor:
                if not up_to_turn:
                    up_to_turn = [
                        filled_length(shape, replace(sizes, turns=dialogue[: n + 1])) for n in tutor
                    ]
                shown = [
                    n + per_criterion * (criterion_chars + turn_note) + asked for n in up_to_turn
                ]
            else:
                shown = [whole + per_criterion * criterion_chars + asked]
            for length in shown:
                lengths.append(length)
                if limit is not None and len(lengths) >= limit:
                    return lengths
    return lengths


def _scale(version: CriterionVersion) -> tuple[int, int] | None:
    if not version.is_ordinal or version.scale_min is None or version.scale_max is None:
        return None
    return (version.scale_min, version.scale_max)


def criterion_text(version: CriterionVersion) -> str:
    """What the judge is told about a criterion: its wording, then what passes and fails; for
    an ordinal criterion its scale, and that the answer is a level instead of true or false."""
    parts = [version.wording]
    if version.passes:
        parts.append(f"Passes when: {version.passes}")
    if version.fails:
        parts.append(f"Fails when: {version.fails}")
    scale = _scale(version)
    if scale is not None:
        parts.append(
            f"This criterion is rated on a scale from {scale[0]} to {scale[1]}: instead of true "
            f"or false, answer with the one whole number from {scale[0]} to {scale[1]} that "
            "the response reaches."
        )
        parts += [f"{value}: {label}" for value, label in version.scale() if label]
    return "\n".join(parts)
