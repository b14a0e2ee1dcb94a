"""Building a study: its pool, 1-5 questions and responses, and the plan of who grades what."""

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.utils.translation import gettext, gettext_lazy

from accounts.models import User
from audit import services as audit
from core.assignment import AnnotatorSpec, ItemSpec, mix_gold, overlapping, plan_assignment
from grading import deadlines, gold
from grading.expertise import annotator_tags, expertise_tags, item_tags, study_item_tags
from grading.models import (
    DEFAULT_LIKERT_PROMPTS,
    Assignment,
    LikertItem,
    PoolMember,
    Study,
    StudyItem,
    check_graders,
    question_keys,
)
from grading.services.sampling import draw_for_judge
from rubrics.models import Response, RubricVersion
from taxonomy.models import Framework

STUDY_NAME_TAKEN = gettext_lazy(
    "A study named '%(name)s' already exists (names are compared without regard to case): "
    "choose another name."
)

RUN_JUDGED_NONE = gettext_lazy(
    "This judge run judged none of the responses selected: choose a run that judged them."
)

NONE_DRAWN = gettext_lazy(
    "No response was drawn (each is drawn at random, so a small number per model may draw "
    "none): ask for more expert grades per model."
)

DEFAULT_LIKERT_KEYS = ("authenticity", "criteria-adequacy")


@transaction.atomic
def create_study(
    *,
    name: str,
    framework: Framework,
    responses: Iterable[Response],
    annotators: Iterable[User],
    by: User | None = None,
    likert_prompts: Sequence[str] = DEFAULT_LIKERT_PROMPTS,
    **options: Any,
) -> Study:
    if Study.objects.filter(name__iexact=name).exists():
        raise ValidationError({"name": [STUDY_NAME_TAKEN % {"name": name}]})
    annotators = list(annotators)
    check_graders(annotators)
    study = Study(name=name, framework=framework, created_by=by, **options)
    study.full_clean(exclude=["name", "framework", "created_by"], validate_constraints=False)
    study.save()
    PoolMember.objects.bulk_create(PoolMember(study=study, annotator=a) for a in annotators)
    keys = DEFAULT_LIKERT_KEYS if tuple(likert_prompts) == DEFAULT_LIKERT_PROMPTS else None
    LikertItem.objects.bulk_create(
        LikertItem(study=study, order=n, key=key, prompt=prompt)
        for n, (key, prompt) in enumerate(
            zip(keys or question_keys(list(likert_prompts)), likert_prompts, strict=True)
        )
    )
    chosen = list(responses)
    probability = None
    if study.sampling_run_id is not None and study.sampling_budget is not None:
        sampled = draw_for_judge(
            chosen,
            run_id=study.sampling_run_id,
            budget=study.sampling_budget,
            floor_share=study.sampling_floor,
            seed=study.seed,
        )
        if not sampled.judged:
            raise ValidationError({"sampling_run": [RUN_JUDGED_NONE]})
        if not sampled.drawn:
            raise ValidationError({"sampling_budget": [NONE_DRAWN]})
        chosen, probability = sampled.drawn, sampled.probability
    add_responses(study, chosen, probability)
    audit.record_creation(study, ["name", "framework", *CREATION_FIELDS], actor=by)
    if study.deadline is not None:
        deadlines.settle(study)
    return study


@transaction.atomic
def add_responses(
    study: Study, responses: Iterable[Response], probability: Mapping[int, float] | None = None
) -> list[Response]:
    """Add responses to the study, each graded against its task's latest published rubric
    (with its inclusion probability, by response id, in a study sampled for the judge's
    scores). Returns the responses left out: their task has no published rubric version yet.
    A version a newer one has superseded is refused: a new study grades what is current."""
    latest = RubricVersion.objects.filter(task=OuterRef("task")).order_by("-number")
    ids = [r.pk for r in responses]
    # Locked until the study commits (a foreign key is checked only then): an import changing
    # one of them meanwhile waits, then finds it held and makes its next version.
    rows = list(
        Response.objects.select_for_update(no_key=True, of=("self",))
        .filter(pk__in=ids)
        .annotate(rv=Subquery(latest.values("pk")[:1]))
    )
    superseded = [r for r in rows if not r.is_current]
    if superseded:
        first = superseded[0]
        raise ValidationError(
            {
                "responses": [
                    ValidationError(
                        gettext(
                            "Response %(pk)s is version %(version)s of response '%(id)s', which "
                            "a newer version has superseded: a new study grades the current "
                            "version."
                        ),
                        params={"pk": first.pk, "version": first.version, "id": first.external_id},
                    )
                ]
            }
        )
    present = set(study.items.values_list("response_id", flat=True))
    skipped: list[Response] = [r for r in rows if r.rv is None]
    new = [r for r in rows if r.rv is not None and r.pk not in present]
    # "k graders on p% of the responses, one on the rest": the share is drawn among the
    # responses added now, with the study's seed.
    full = overlapping([r.pk for r in new], study.overlap_percent, study.seed)
    StudyItem.objects.bulk_create(
        StudyItem(
            study=study,
            response=r,
            rubric_version_id=r.rv,
            graders_wanted=None if r.pk in full else 1,
            inclusion_probability=probability.get(r.pk) if probability else None,
        )
        for r in new
    )
    return skipped


# Recorded when a study is created (besides its name and framework).
CREATION_FIELDS = (
    "overlap",
    "overlap_percent",
    "escalation",
    "escalation_threshold",
    "escalation_cap",
    "gold_rate",
    "gold_warning",
    "qualification_items",
    "qualification_accuracy",
    "sampling_run",
    "sampling_budget",
    "sampling_floor",
)


@transaction.atomic
def assign_study(study: Study) -> int:
    """Plan graders for every item short of the graders it wants (the study's k, or one for the
    responses left out of the overlap, more after escalation) and write the Assignment rows,
    each annotator's gold checks mixed in at the study's rate (a new annotator's qualification
    round first). Safe to re-run after adding responses or annotators: existing assignments are
    kept and counted. Returns the number of assignments created."""
    # Locking the items makes claim_next wait, so no item can pass k between plan and write.
    items = list(
        StudyItem.objects.select_for_update(of=("self",))
        .filter(study=study)
        .select_related("response__task")
        .order_by("pk")
    )
    members = list(PoolMember.objects.filter(study=study).select_related("annotator"))
    gold_ids = {item.pk for item in items if item.gold_source_id is not None}
    taken: dict[int, set[int]] = defaultdict(set)
    load: dict[int, int] = defaultdict(int)  # real items held; gold checks are not load
    gold_held: dict[int, set[int]] = defaultdict(set)
    last_position: dict[int, int] = defaultdict(int)
    for item_id, user_id, position in Assignment.objects.filter(
        study_item__study=study
    ).values_list("study_item_id", "annotator_id", "position"):
        taken[item_id].add(user_id)
        if item_id in gold_ids:
            gold_held[user_id].add(item_id)
        else:
            load[user_id] += 1
        last_position[user_id] = max(last_position[user_id], position)
    tags = expertise_tags(study, [m.annotator for m in members])
    plan = plan_assignment(
        [
            ItemSpec(item.pk, wanted, study_item_tags(study, item), frozenset(taken[item.pk]))
            for item in items
            if item.pk not in gold_ids
            and len(taken[item.pk]) < (wanted := item.graders_wanted or study.overlap)
        ],
        [
            AnnotatorSpec(m.annotator_id, m.capacity, tags[m.annotator_id], load[m.annotator_id])
            for m in members
        ],
        seed=study.seed + sum(load.values()),
    )
    # The planner hands back the keys it was given: user and item pks.
    order = cast(Mapping[int, Sequence[int]], plan.order)
    rows = []
    for user_id, item_ids in order.items():
        queue: Sequence[tuple[Any, bool]] = [(item_id, False) for item_id in item_ids]
        if gold_ids and (study.gold_rate or study.qualification_items):
            held = len(gold_held[user_id])
            queue = mix_gold(
                item_ids,
                sorted(gold_ids - gold_held[user_id]),
                rate=study.gold_rate,
                qualification=study.qualification_items,
                held_real=load[user_id],
                held_gold=max(0, held - study.qualification_items) if load[user_id] else held,
                seed=study.seed + user_id,
            )
        rows += [
            Assignment(
                study_item_id=item_id, annotator_id=user_id, position=last_position[user_id] + n
            )
            for n, (item_id, _) in enumerate(queue, start=1)
        ]
    Assignment.objects.bulk_create(rows)
    return len(rows)


@transaction.atomic
def create_and_assign_study(
    *,
    name: str,
    framework: Framework,
    responses: Iterable[Response],
    annotators: Iterable[User],
    assign_now: bool,
    by: User | None = None,
    **options: Any,
) -> tuple[Study, int]:
    """create_study, then (`assign_now`) assign_study, as the study form and the API create
    one: the study and the number of assignments made (0 when not assigned now)."""
    study = create_study(
        name=name,
        framework=framework,
        responses=responses,
        annotators=annotators,
        by=by,
        **options,
    )
    return study, assign_study(study) if assign_now else 0


@transaction.atomic
def add_gold_checks_and_assign(
    study: Study, sources: Iterable[StudyItem], *, by: User | None
) -> tuple[int, int]:
    """Make gold checks of `sources` (grading.gold.add_gold_checks) and, in an open study,
    plan them into the queues (assign_study). The numbers of gold checks added and of
    assignments planned (0 in a closed study)."""
    added = gold.add_gold_checks(study, sources, by=by)
    planned = assign_study(study) if not study.is_closed() else 0
    return added, planned


@dataclass(frozen=True)
class LoadPreview:
    """What assigning a study would give, before it exists: `units` responses, `overlapping`
    of them graded by k (the rest by one: `overlap_percent` below 100), `gradings` assignments
    in all, each annotator's load, and how many responses get fewer graders than they want (a
    pool smaller than k, or no annotator with the expertise). Gold checks are not counted.

    `selected` responses were selected; in a study sampled for the judge's scores `units` is
    the number expected to be drawn among them (`sampled`), per model in `drawn_per_model`
    as (model, expected drawn, selected), and the rest follows it."""

    units: int
    overlap: int
    gradings: int
    loads: list[tuple[User, int]]
    short: int
    overlapping: int = 0
    overlap_percent: int = 100
    selected: int = 0
    drawn_per_model: list[tuple[str, int, int]] = field(default_factory=list)

    @property
    def single(self) -> int:
        return self.units - self.overlapping

    @property
    def sampled(self) -> bool:
        return bool(self.drawn_per_model)


def expected_draw(
    rows: Sequence[tuple[int, int | None, str, str]], budget: int, seed: int
) -> tuple[list[tuple[int, int | None, str, str]], list[tuple[str, int, int]]]:
    """What a draw for the judge's scores is expected to give, before the run's uncertainty is
    read: of each model's `M` responses, `min(budget, M)` (the sum of the inclusion
    probabilities, `core.stats.judge_sampling`), stood for by as many of them taken at random
    with `seed`; and (model, expected drawn, selected) of each model, by name."""
    by_model: dict[str, list[tuple[int, int | None, str, str]]] = defaultdict(list)
    for row in rows:
        by_model[row[3]].append(row)
    rng = random.Random(seed)
    kept: list[tuple[int, int | None, str, str]] = []
    counts = []
    for model in sorted(by_model):
        members = by_model[model]
        expected = min(budget, len(members))
        kept += sorted(rng.sample(members, expected))
        counts.append((model, expected, len(members)))
    return kept, counts


def preview_assignment(
    responses: Iterable[tuple[int, int | None, str, str]],
    annotators: Sequence[User],
    *,
    overlap: int,
    match_expertise: bool,
    overlap_percent: int = 100,
    seed: int = 0,
    sampling_budget: int | None = None,
) -> LoadPreview:
    """Plan a study's assignment without writing it, with the planner assign_study uses.
    `responses`: (response id, task's sub-competency id, task's language, model) rows. Which
    responses get k graders depends on the study's seed, so only the loads may differ by one
    from the study's. With `sampling_budget` (a study sampled for the judge's scores) the plan
    is of the number of responses each model is expected to draw (`expected_draw`)."""
    selection = list(responses)
    rows, drawn_per_model = selection, list[tuple[str, int, int]]()
    if sampling_budget is not None:
        rows, drawn_per_model = expected_draw(selection, sampling_budget, seed)
    tags = (
        annotator_tags([a.pk for a in annotators], [(s, lang) for _, s, lang, _ in rows])
        if match_expertise
        else {a.pk: None for a in annotators}
    )
    full = overlapping([pk for pk, *_ in rows], overlap_percent, seed)
    wanted = {pk: overlap if pk in full else 1 for pk, *_ in rows}
    plan = plan_assignment(
        [
            ItemSpec(pk, wanted[pk], item_tags(sub, lang) if match_expertise else frozenset())
            for pk, sub, lang, _ in rows
        ],
        [AnnotatorSpec(a.pk, None, tags[a.pk]) for a in annotators],
        seed=seed,
    )
    return LoadPreview(
        units=len(rows),
        overlap=overlap,
        gradings=sum(len(g) for g in plan.graders.values()),
        loads=[(a, plan.load(a.pk)) for a in annotators],
        short=sum(1 for key, g in plan.graders.items() if len(g) < wanted[cast(int, key)]),
        overlapping=len(full),
        overlap_percent=overlap_percent,
        selected=len(selection),
        drawn_per_model=drawn_per_model,
    )
