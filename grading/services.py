"""Operations on studies that span several models, each in one transaction."""

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, F, Max, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy, ngettext

from accounts.models import User
from audit import services as audit
from audit.errors import Conflict, NotFound
from audit.models import AuditEvent
from grading import escalation, gold, tallies, timing
from grading.assignment import AnnotatorSpec, ItemSpec, mix_gold, overlapping, plan_assignment
from grading.expertise import annotator_tags, expertise_tags, item_tags, study_item_tags
from grading.models import (
    Assignment,
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
    Verdict,
    check_graders,
    question_keys,
)
from rubrics.models import CriterionVersion, Response, RubricItem, RubricVersion, Turn
from rubrics.models.criteria import LAYER_RANK, Layer
from rubrics.scoring import adverse_verdict, turn_verdict, verdict_label, verdict_labels
from taxonomy.models import Framework

# A pause longer than this between two actions on a response counts as this long: the time
# spent measures work, not a tab left open overnight.
IDLE_CAP = timedelta(minutes=5)
# Time per criterion (docs/grading.md, "Time per criterion"): the grading page counts a stretch
# without input as at most CRITERION_IDLE_CAP, and one save adds at most
# CRITERION_TIME_PER_SAVE_CAP to a criterion, whatever a client sends.
CRITERION_IDLE_CAP = timedelta(seconds=60)
CRITERION_TIME_PER_SAVE_CAP = timedelta(minutes=30)

STUDY_NAME_TAKEN = gettext_lazy(
    "A study named '%(name)s' already exists (names are compared without regard to case): "
    "choose another name."
)

DEFAULT_LIKERT_PROMPTS = (
    "This task is authentic: a teacher could meet it in their work.",
    "The criteria are adequate for judging a response to this task.",
)
DEFAULT_LIKERT_KEYS = ("authenticity", "criteria-adequacy")


class GradingError(ValidationError):
    """A save or submission the study's rules refuse; the message is shown to the annotator."""


class StudyClosed(GradingError, Conflict):
    """The study is closed (by a maintainer or its deadline): no grade or rating changes."""


class Incomplete(GradingError, Conflict):
    """The assignment still lacks answers (`problems`, in page order): its state, not the
    request, refuses the submission, so a retry succeeds once they are given (409)."""

    def __init__(self, problems: Sequence[ValidationError]) -> None:
        super().__init__(list(problems))
        self.problems = self.messages


class SubmittedIncomplete(GradingError, Conflict):
    """A change to a submitted grade that would leave its assignment incomplete (an adverse
    finding without the rationale the study asks for): the grade's state refuses it (409)."""


class SetAside(GradingError, Conflict):
    """The grader set the response aside with a flag: it waits for a maintainer."""

    def __init__(self) -> None:
        super().__init__(
            gettext(
                "You set this response aside with a flag: a maintainer will return it to you or "
                "give it to another grader."
            )
        )


class NotYourAssignment(NotFound):
    """Only an assignment's own grader opens, grades, rates or submits it."""

    def __init__(self) -> None:
        super().__init__(gettext("No such assignment among yours."))


def _check_own(assignment: Assignment, by: User) -> None:
    if assignment.annotator_id != by.pk:
        raise NotYourAssignment


# ----- building a study -------------------------------------------------------------------------
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
    add_responses(study, responses)
    audit.record_creation(study, ["name", "framework", *CREATION_FIELDS], actor=by)
    return study


@transaction.atomic
def add_responses(study: Study, responses: Iterable[Response]) -> list[Response]:
    """Add responses to the study, each graded against its task's latest published rubric.
    Returns the responses left out: their task has no published rubric version yet. A version
    a newer one has superseded is refused: a new study grades what is current."""
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
        StudyItem.objects.select_for_update()
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


@dataclass(frozen=True)
class LoadPreview:
    """What assigning a study would give, before it exists: `units` responses, `overlapping`
    of them graded by k (the rest by one: `overlap_percent` below 100), `gradings` assignments
    in all, each annotator's load, and how many responses get fewer graders than they want (a
    pool smaller than k, or no annotator with the expertise). Gold checks are not counted."""

    units: int
    overlap: int
    gradings: int
    loads: list[tuple[User, int]]
    short: int
    overlapping: int = 0
    overlap_percent: int = 100

    @property
    def single(self) -> int:
        return self.units - self.overlapping


def preview_assignment(
    responses: Iterable[tuple[int, int | None, str]],
    annotators: Sequence[User],
    *,
    overlap: int,
    match_expertise: bool,
    overlap_percent: int = 100,
    seed: int = 0,
) -> LoadPreview:
    """Plan a study's assignment without writing it, with the planner assign_study uses.
    `responses`: (response id, task's sub-competency id, task's language) rows. Which responses
    get k graders depends on the study's seed, so only the loads may differ by one from the
    study's."""
    rows = list(responses)
    tags = (
        annotator_tags([a.pk for a in annotators], [(s, lang) for _, s, lang in rows])
        if match_expertise
        else {a.pk: None for a in annotators}
    )
    full = overlapping([pk for pk, _, _ in rows], overlap_percent, seed)
    wanted = {pk: overlap if pk in full else 1 for pk, _, _ in rows}
    plan = plan_assignment(
        [
            ItemSpec(pk, wanted[pk], item_tags(sub, lang) if match_expertise else frozenset())
            for pk, sub, lang in rows
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
    )


# ----- claiming work ----------------------------------------------------------------------------
def _touch(assignment: Assignment, now: datetime) -> None:
    """Add the time since the annotator's last action (capped) while the response is open."""
    if assignment.is_submitted:
        return
    if assignment.last_activity_at is not None:
        gap = min(now - assignment.last_activity_at, IDLE_CAP)
        assignment.time_spent_seconds += max(0, int(gap.total_seconds()))
    assignment.last_activity_at = now


def _record_activity(assignment: Assignment, now: datetime) -> None:
    """Save the time an answer adds; the first answer starts an assignment nobody started
    (its page was opened without JavaScript, which starts it as it loads)."""
    _touch(assignment, now)
    fields = ["time_spent_seconds", "last_activity_at"]
    if assignment.status == Assignment.Status.ASSIGNED:
        assignment.status, assignment.started_at = Assignment.Status.IN_PROGRESS, now
        fields += ["status", "started_at"]
    assignment.save(update_fields=fields)


def _start(assignment: Assignment, now: datetime) -> Assignment:
    if assignment.status == Assignment.Status.ASSIGNED:
        assignment.status = Assignment.Status.IN_PROGRESS
        assignment.started_at = now
        assignment.last_activity_at = now
        assignment.save(update_fields=["status", "started_at", "last_activity_at"])
    return assignment


@transaction.atomic
def start(assignment: Assignment, *, by: User) -> Assignment:
    """Mark an assignment opened directly (not through claim_next) as in progress: its page
    asks as it loads (a POST: opening a link, a GET, changes nothing)."""
    _check_own(assignment, by)
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    _start(locked, timezone.now())
    assignment.status, assignment.started_at = locked.status, locked.started_at
    assignment.last_activity_at = locked.last_activity_at
    return assignment


@transaction.atomic
def claim_next(study: Study, annotator: User) -> Assignment | None:
    """The annotator's next unfinished assignment in the study, started; None when done.

    First their own planned work, in their random order (gold checks mixed in). When that is
    finished, they may take an item still short of the graders it wants (responses added after
    the plan, or a pool member who left): the item row is locked (rows other annotators are
    claiming are skipped) and its graders recounted under the lock, so no item ever gets more.
    In a study with a qualification round, an annotator who has not passed it gets only their
    gold checks."""
    now = timezone.now()
    if study.is_closed(now):
        return None
    qualified = gold.qualification(study, annotator) == gold.Qualification.PASSED
    own = (
        Assignment.objects.select_for_update(skip_locked=True)
        .filter(study_item__study=study, annotator=annotator, skipped_at__isnull=True)
        .exclude(status=Assignment.Status.SUBMITTED)
        .order_by("-status", "position", "pk")  # in_progress sorts before assigned
    )
    if not qualified:  # the qualification round first: only their gold checks until passed
        own = own.filter(study_item__gold_source__isnull=False)
    first = own.first()
    if first is not None:
        return _start(first, now)
    member = PoolMember.objects.filter(study=study, annotator=annotator).first()
    if member is None or not qualified:
        return None
    held = Assignment.objects.filter(study_item__study=study, annotator=annotator)
    real = held.filter(study_item__gold_source__isnull=True)
    if member.capacity is not None and real.count() >= member.capacity:
        return None
    tags = expertise_tags(study, [annotator])[annotator.pk]
    wanted = Coalesce("graders_wanted", Value(study.overlap))
    short = (
        StudyItem.objects.filter(study=study)
        .data()
        .exclude(assignments__annotator=annotator)
        .annotate(graders=Count("assignments"), wanted=wanted)
        .filter(graders__lt=F("wanted"))
        .select_related("response__task")
        .order_by("graders", "pk")
    )
    candidates = [i for i in short[:50] if tags is None or study_item_tags(study, i) <= tags]
    for candidate in candidates:
        item = StudyItem.objects.select_for_update(skip_locked=True).filter(pk=candidate.pk)
        if not item.exists():
            continue  # another annotator is claiming it right now
        if Assignment.objects.filter(study_item=candidate).count() >= candidate.wanted:
            continue
        claimed = Assignment.objects.create(
            study_item=candidate, annotator=annotator, position=held.next_order()
        )
        return _start(claimed, now)
    return None


def why_nothing_to_grade(study: Study, annotator: User) -> str:
    """Why claim_next found nothing for the annotator, and what they can do: the message shown
    instead of a grading page. Read after claim_next returned None; a few queries. Each message
    is one whole sentence for the translators (word order differs between languages)."""
    name = {"study": study.name}
    if study.is_closed():
        return gettext("“%(study)s” is closed: grades can no longer be given or changed.") % name
    mine = Assignment.objects.filter(study_item__study=study, annotator=annotator)
    submitted = mine.filter(status=Assignment.Status.SUBMITTED).count()
    skipped = mine.filter(skipped_at__isnull=False).count()
    if skipped:
        return ngettext(
            "The rest of your work in “%(study)s” is %(count)s response you set aside with a "
            "flag: a maintainer will return it to you or give it to another grader.",
            "The rest of your work in “%(study)s” is %(count)s responses you set aside with a "
            "flag: a maintainer will return them to you or give them to another grader.",
            skipped,
        ) % {**name, "count": skipped}
    member = PoolMember.objects.filter(study=study, annotator=annotator).first()
    if member is not None:
        state = gold.qualification(study, annotator)
        if state == gold.Qualification.FAILED:
            return (
                gettext(
                    "Your first responses in “%(study)s” did not reach the agreement the study "
                    "asks before its other responses. Ask the study's maintainers how to go on."
                )
                % name
            )
        if state == gold.Qualification.PENDING:
            return (
                gettext(
                    "“%(study)s” starts with a few responses for every new grader; none is planned "
                    "for you yet. Ask the study's maintainers to assign you responses."
                )
                % name
            )
    if member is not None and member.capacity is not None and submitted >= member.capacity:
        return ngettext(
            "You have graded the %(count)s response you agreed to grade in “%(study)s”. "
            "Thank you! Ask the study's maintainers if you can take more.",
            "You have graded all %(count)s responses you agreed to grade in “%(study)s”. "
            "Thank you! Ask the study's maintainers if you can take more.",
            submitted,
        ) % {**name, "count": submitted}
    if submitted:
        return gettext(
            "You have graded every response assigned to you in “%(study)s” (%(count)s), and "
            "every other response already has its graders. Thank you!"
        ) % {**name, "count": submitted}
    if not study.items.exists():
        return (
            gettext(
                "“%(study)s” has no responses to grade yet. Ask the study's maintainers to add "
                "responses; this page will then have work for you."
            )
            % name
        )
    if member is None:
        return (
            gettext(
                "You are not in the pool of graders of “%(study)s”. Ask the study's maintainers "
                "to add you."
            )
            % name
        )
    values = {**name, "count": study.overlap}
    if study.match_expertise:
        return (
            ngettext(
                "Nothing is assigned to you in “%(study)s” yet: every response already has its "
                "%(count)s grader, or needs expertise not recorded on your profile. Ask the "
                "study's maintainers to assign you responses or to raise the number of graders "
                "per response.",
                "Nothing is assigned to you in “%(study)s” yet: every response already has its "
                "%(count)s graders, or needs expertise not recorded on your profile. Ask the "
                "study's maintainers to assign you responses or to raise the number of graders "
                "per response.",
                study.overlap,
            )
            % values
        )
    return (
        ngettext(
            "Nothing is assigned to you in “%(study)s” yet: every response already has its "
            "%(count)s grader. Ask the study's maintainers to assign you responses or to raise the "
            "number of graders per response.",
            "Nothing is assigned to you in “%(study)s” yet: every response already has its "
            "%(count)s graders. Ask the study's maintainers to assign you responses or to raise "
            "the number of graders per response.",
            study.overlap,
        )
        % values
    )


# ----- grading ----------------------------------------------------------------------------------
def _check_study_open(assignment: Assignment, now: datetime) -> None:
    study = assignment.study_item.study
    if study.is_closed(now):
        raise StudyClosed(
            gettext("The study “%(study)s” is closed: grades can no longer change."),
            params={"study": study.name},
        )


def _check_open(assignment: Assignment, now: datetime) -> None:
    """The assignment takes grades: its study is open and the grader has not set it aside."""
    _check_study_open(assignment, now)
    if assignment.skipped_at is not None:
        raise SetAside()


def _check_in_rubric(assignment: Assignment, criterion_version_id: int) -> RubricItem:
    item = (
        RubricItem.objects.filter(
            rubric_version_id=assignment.study_item.rubric_version_id,
            criterion_version_id=criterion_version_id,
        )
        .select_related("criterion_version__criterion")
        .first()
    )
    if item is None:
        raise GradingError(
            gettext("This criterion is not part of the rubric this response is graded on.")
        )
    if not item.applicable:
        raise GradingError(
            gettext("This criterion does not apply to this task; it takes no verdict.")
        )
    return item


def _locked(assignment: Assignment) -> Assignment:
    """The assignment, row-locked, with its item and study. Only the assignment's row is
    locked (`of`): locking the joined study row too would make every grader of the study
    wait for each other's saves on PostgreSQL."""
    return (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("study_item__study")
        .get(pk=assignment.pk)
    )


def save_grade(
    assignment: Assignment,
    criterion_version_id: int,
    *,
    verdict: str | None,
    rationale: str | None,
    by: User,
    level: int | None = None,
    active_ms: int | None = None,
) -> Grade:
    """Save one verdict (or, on an ordinal criterion, a level of its scale) and/or rationale
    (None leaves it as it is). After submission the old value is first copied to a
    GradeRevision, so a submitted grade is never lost. `active_ms`: time the grader spent on
    the criterion since its last save (the grading page measures it), added to the grade's
    until the response is submitted."""
    grade, _ = save_grade_line(
        assignment,
        criterion_version_id,
        verdict=verdict,
        level=level,
        rationale=rationale,
        by=by,
        active_ms=active_ms,
    )
    return grade


def _answer(
    version: CriterionVersion, grade: Grade, verdict: str | None, level: int | None
) -> tuple[str, int | None]:
    """The (verdict, level) a save leaves: a level replaces a verdict and the verdict N/A a
    level; an ordinal criterion takes a level or N/A, a binary one a verdict."""
    if level is not None:
        error = version.level_error(level)
        if error:
            raise GradingError(error)
        return "", level
    if verdict is None:
        return grade.verdict, grade.level
    if verdict not in Verdict.values:
        raise GradingError(gettext("Choose Pass, Fail or N/A."))
    if version.is_ordinal and verdict != Verdict.NA:
        low, high = version.scale_min, version.scale_max
        raise GradingError(
            gettext("%(code)s: choose a level from %(low)s to %(high)s or N/A."),
            params={"code": version.criterion.code, "low": low, "high": high},
        )
    return verdict, None


def save_grade_line(
    assignment: Assignment,
    criterion_version_id: int,
    *,
    verdict: str | None,
    rationale: str | None,
    by: User,
    level: int | None = None,
    locked: bool = False,
    active_ms: int | None = None,
) -> tuple[Grade, RubricItem]:
    """save_grade, also answering the rubric line it checked (with its criterion version and
    criterion), so the autosave can show the saved line without reading it again.

    `locked`: the caller has already read `assignment` with _locked()'s lock and study, in
    the transaction it is still in (the autosave view finds it among the user's own that way,
    in the same query); it is not read again. Ownership is checked here either way."""
    # The caller's transaction is the one to roll back: no savepoint (a round trip each way).
    with transaction.atomic(savepoint=not locked):
        now = timezone.now()
        if not (locked and transaction.get_connection().in_atomic_block):
            assignment = _locked(assignment)
        _check_own(assignment, by)
        _check_open(assignment, now)
        item = _check_in_rubric(assignment, criterion_version_id)
        if verdict is None and level is None and rationale is None:
            raise GradingError(gettext("Nothing to save: choose a verdict or write a rationale."))
        version = item.criterion_version
        if verdict is not None and not version.is_ordinal and verdict not in Verdict.values:
            raise GradingError(gettext("Choose Pass, Fail or N/A."))
        if item.criterion_version.per_turn and tutor_turns(assignment.study_item.response_id):
            raise GradingError(
                gettext(
                    "This criterion is graded on each tutor turn of the dialogue: grade the turns."
                )
            )
        _check_time(active_ms)
        grade, _ = Grade.objects.get_or_create(
            assignment=assignment, criterion_version_id=criterion_version_id
        )
        new_verdict, new_level = _answer(version, grade, verdict, level)
        new_rationale = grade.rationale if rationale is None else rationale.strip()
        if assignment.is_submitted and _rationale_missing(
            assignment, version, new_verdict, new_level, new_rationale
        ):
            label = answer_label(version, new_verdict, new_level)
            raise SubmittedIncomplete(
                gettext("This grade is submitted: write the rationale before choosing %(answer)s."),
                params={"answer": label},
            )
        changed: list[str] = []
        recount = False  # a submitted verdict changes: its pair's counts too (PairTally)
        if (new_verdict, new_level, new_rationale) != (grade.verdict, grade.level, grade.rationale):
            if assignment.is_submitted:
                ResultsRevision.objects.bump(assignment.study_item.study_id)
                GradeRevision.objects.create(
                    grade=grade,
                    verdict=grade.verdict,
                    level=grade.level,
                    rationale=grade.rationale,
                    written_at=grade.updated_at,
                    replaced_by=by,
                )
            recount = assignment.is_submitted and (grade.verdict, grade.level) != (
                new_verdict,
                new_level,
            )
            grade.verdict, grade.level, grade.rationale = new_verdict, new_level, new_rationale
            changed = ["verdict", "level", "rationale", "updated_at"]
        if _add_time(grade, assignment, active_ms):
            changed.append("active_ms")
        if changed:  # one write for the answer and its time
            grade.save(update_fields=changed)
        if recount:
            tallies.refresh([assignment.study_item_id], criterion_version_id)
        _record_activity(assignment, now)
        return grade, item


def tutor_turns(response_id: int) -> list[Turn]:
    """The tutor's (assistant's) turns of a dialogue response, in order: what a turn-level
    criterion is graded on. Empty for a text response, which is graded as a whole."""
    return list(
        Turn.objects.filter(response_id=response_id, role=Turn.Role.ASSISTANT).order_by("index")
    )


def turn_label(turn: Turn) -> str:
    """How a turn is named to people: its place in the dialogue, counted from 1."""
    return f"Turn {turn.index + 1}"


def _check_time(active_ms: int | None) -> None:
    if active_ms is not None and active_ms < 0:
        raise GradingError(gettext("active_ms: the time spent cannot be negative."))


def _add_time(grade: Grade, assignment: Assignment, active_ms: int | None) -> bool:
    """Add the time a save carries to the criterion's grade (capped; not saved here), while
    the response is not submitted: a later change is a correction, not grading time. Whether
    it changed the grade."""
    if active_ms is None or assignment.is_submitted:
        return False
    cap = int(CRITERION_TIME_PER_SAVE_CAP.total_seconds() * 1000)
    grade.active_ms = (grade.active_ms or 0) + min(active_ms, cap)
    return True


def save_turn_grade(
    assignment: Assignment,
    criterion_version_id: int,
    turn_id: int,
    *,
    verdict: str | None,
    rationale: str | None,
    by: User,
    locked: bool = False,
    active_ms: int | None = None,
) -> tuple[TurnGrade, Grade, RubricItem]:
    """Save one verdict and/or rationale on one tutor turn for a turn-level criterion (None
    leaves it as it is), then the response's grade on that criterion, derived from every turn's
    verdict by the criterion's turn rule (empty while a turn has none; its rationale is the
    turns' rationales, each after its turn's name). After submission the old values are first
    copied to revision rows, so a submitted grade is never lost. `locked` as in
    save_grade_line; `active_ms` as in save_grade, added to the criterion's grade."""
    with transaction.atomic(savepoint=not locked):
        now = timezone.now()
        if not (locked and transaction.get_connection().in_atomic_block):
            assignment = _locked(assignment)
        _check_own(assignment, by)
        _check_open(assignment, now)
        item = _check_in_rubric(assignment, criterion_version_id)
        version = item.criterion_version
        if not version.per_turn:
            raise GradingError(
                gettext("This criterion is graded on the whole response, not per turn.")
            )
        turns = tutor_turns(assignment.study_item.response_id)
        turn = next((t for t in turns if t.pk == turn_id), None)
        if turn is None:
            raise GradingError(gettext("This is not one of the tutor's turns in this response."))
        if verdict is None and rationale is None:
            raise GradingError(gettext("Nothing to save: choose a verdict or write a rationale."))
        if verdict is not None and verdict not in Verdict.values:
            raise GradingError(gettext("Choose Pass, Fail or N/A."))
        _check_time(active_ms)
        turn_grade, _ = TurnGrade.objects.get_or_create(
            assignment=assignment, criterion_version_id=criterion_version_id, turn=turn
        )
        new_verdict = turn_grade.verdict if verdict is None else verdict
        new_rationale = turn_grade.rationale if rationale is None else rationale.strip()
        penalty = version.is_penalty
        if assignment.is_submitted and _rationale_missing(
            assignment, version, new_verdict, None, new_rationale
        ):
            label = shown_label(verdict_label(new_verdict, penalty=penalty))
            raise SubmittedIncomplete(
                gettext("This grade is submitted: write the rationale before choosing %(answer)s."),
                params={"answer": label},
            )
        if (new_verdict, new_rationale) != (turn_grade.verdict, turn_grade.rationale):
            if assignment.is_submitted:  # the turn's grade, and any grade derived from it
                ResultsRevision.objects.bump(assignment.study_item.study_id)
                TurnGradeRevision.objects.create(
                    turn_grade=turn_grade,
                    verdict=turn_grade.verdict,
                    rationale=turn_grade.rationale,
                    written_at=turn_grade.updated_at,
                    replaced_by=by,
                )
            turn_grade.verdict, turn_grade.rationale = new_verdict, new_rationale
            turn_grade.save(update_fields=["verdict", "rationale", "updated_at"])
        grade = _derive_grade(assignment, version, turns, by)
        if _add_time(grade, assignment, active_ms):  # a turn's time is its criterion's
            grade.save(update_fields=["active_ms"])
        _record_activity(assignment, now)
        return turn_grade, grade, item


def _derive_grade(
    assignment: Assignment, version: CriterionVersion, turns: Sequence[Turn], by: User
) -> Grade:
    """The response's grade on a turn-level criterion from its turns' grades (see
    save_turn_grade); a change after submission keeps the old value in a GradeRevision."""
    by_turn = {
        g.turn_id: g
        for g in TurnGrade.objects.filter(assignment=assignment, criterion_version=version)
    }
    verdicts = [by_turn[t.pk].verdict if t.pk in by_turn else "" for t in turns]
    verdict = turn_verdict(verdicts, version.turn_rule, version.turn_share)
    rationale = "\n".join(
        f"{turn_label(t)}: {by_turn[t.pk].rationale}"
        for t in turns
        if t.pk in by_turn and by_turn[t.pk].rationale
    )
    grade, _ = Grade.objects.get_or_create(assignment=assignment, criterion_version=version)
    if (verdict, rationale) != (grade.verdict, grade.rationale):
        if assignment.is_submitted:
            GradeRevision.objects.create(
                grade=grade,
                verdict=grade.verdict,
                rationale=grade.rationale,
                written_at=grade.updated_at,
                replaced_by=by,
            )
        recount = assignment.is_submitted and grade.verdict != verdict
        grade.verdict, grade.rationale = verdict, rationale
        grade.save(update_fields=["verdict", "rationale", "updated_at"])
        if recount:
            tallies.refresh([assignment.study_item_id], version.pk)
    return grade


def parse_level(text: str | None) -> int | None:
    """A level as a form or file gives it: None for nothing, else a whole number
    (GradingError otherwise)."""
    if text is None or not str(text).strip():
        return None
    try:
        return int(str(text).strip())
    except ValueError:
        raise GradingError(
            gettext("'%(text)s' is not a level: give a whole number of the scale."),
            params={"text": text},
        ) from None


def answer_label(version: CriterionVersion, verdict: str, level: int | None) -> str | Promise:
    """How an answer reads to a grader: a level with its scale point's label ("1 (Not at
    all)"), or the verdict as it reads on this criterion (Fail, Present, N/A...), translated
    where it is read."""
    if level is not None:
        label = dict(version.scale()).get(level, "")
        return f"{level} ({label})" if label else str(level)
    return shown_label(verdict_label(verdict, penalty=version.is_penalty))


def shown_label(label: str) -> str | Promise:
    """A verdict label of rubrics.scoring (marked for the catalogue by the grading_verdicts
    template tags), translated in the language of whoever reads the message holding it."""
    return gettext_lazy(label)


def is_adverse(version: CriterionVersion, verdict: str, level: int | None) -> bool:
    """The finding against the response, which the study may ask a reason for: Fail on an
    ordinary criterion, Present (stored "pass") on a penalty; on an ordinal criterion the
    level that earns nothing (its minimum; its maximum on a penalty)."""
    if level is not None:
        return level == (version.scale_max if version.is_penalty else version.scale_min)
    return verdict == adverse_verdict(penalty=version.is_penalty)


def _rationale_missing(
    assignment: Assignment,
    version: CriterionVersion,
    verdict: str,
    level: int | None,
    rationale: str,
) -> bool:
    """The study asks for a reason for the adverse finding (`require_rationale_on_fail`) and
    none was written."""
    study = assignment.study_item.study
    adverse = is_adverse(version, verdict, level)
    return study.require_rationale_on_fail and adverse and not rationale.strip()


@transaction.atomic
def save_likert(assignment: Assignment, item_id: int, value: int, *, by: User) -> LikertRating:
    now = timezone.now()
    assignment = _locked(assignment)
    _check_own(assignment, by)
    _check_open(assignment, now)
    item = LikertItem.objects.filter(pk=item_id, study=assignment.study_item.study_id).first()
    if item is None:
        raise GradingError(gettext("This question does not exist in the study."))
    if value not in LikertItem.SCALE:
        raise GradingError(gettext("Choose a value from 1 to 5."))
    rating = LikertRating.objects.filter(assignment=assignment, item=item).first()
    changed = rating is None or rating.value != value
    if rating is None:
        rating = LikertRating.objects.create(assignment=assignment, item=item, value=value)
    elif changed:
        if assignment.is_submitted:  # kept in the audit trail, like any later change
            audit.record(rating, AuditEvent.Kind.UPDATED, by, {"value": [rating.value, value]})
        rating.value = value
        rating.save()
    if changed and assignment.is_submitted:
        ResultsRevision.objects.bump(assignment.study_item.study_id)
    _record_activity(assignment, now)
    return rating


@dataclass(frozen=True)
class Problem:
    """One answer still missing: where it is on the grading page, and what to do, as a
    refusal whose values stay apart (read in the language of whoever reads it)."""

    anchor: str  # element id on the grading page
    refusal: ValidationError

    @property
    def message(self) -> str:
        return self.refusal.messages[0]


def _missing(anchor: str, message: str, **values: object) -> Problem:
    return Problem(anchor, ValidationError(message, params=values))


def missing_answers(assignment: Assignment) -> list[Problem]:
    """What still stops the assignment from being submitted, in page order. Four queries."""
    rubric = assignment.study_item.rubric_version.effective_rubric()
    grades = {g.criterion_version_id: g for g in assignment.grades.all()}
    turns: list[Turn] | None = None
    problems = []
    for line in rubric:
        if not line.applicable:
            continue
        grade = grades.get(line.version.pk)
        anchor = f"criterion-{line.version.pk}"
        version = line.version
        penalty = version.is_penalty
        if version.per_turn:
            if turns is None:
                turns = tutor_turns(assignment.study_item.response_id)
                turn_grades = {
                    (g.criterion_version_id, g.turn_id): g for g in assignment.turn_grades.all()
                }
            if turns:
                problems += _missing_turn_answers(
                    assignment, version, line.code, turns, turn_grades
                )
                continue
        if grade is None or not grade.answered:
            labels = _choices(penalty)
            if version.is_ordinal:
                message = gettext("%(code)s: choose a level from %(low)s to %(high)s or %(na)s.")
                low, high = version.scale_min, version.scale_max
                problems.append(
                    _missing(anchor, message, code=line.code, low=low, high=high, **labels)
                )
            else:
                message = gettext("%(code)s: choose %(pass)s, %(fail)s or %(na)s.")
                problems.append(_missing(anchor, message, code=line.code, **labels))
        elif _rationale_missing(assignment, version, grade.verdict, grade.level, grade.rationale):
            label = answer_label(version, grade.verdict, grade.level)
            message = gettext("%(code)s: %(answer)s needs a rationale.")
            problems.append(_missing(anchor, message, code=line.code, answer=label))
    rated = set(assignment.likert_ratings.values_list("item_id", flat=True))
    for item in assignment.study_item.study.likert_items.all():
        if item.pk not in rated:
            message = gettext("Rate: %(prompt)s")
            problems.append(_missing(f"likert-{item.pk}", message, prompt=item.prompt))
    return problems


def _choices(penalty: bool) -> dict[str, str | Promise]:
    """The verdicts a criterion offers, as the values `pass`, `fail` and `na` of a message."""
    return {key: shown_label(label) for key, label in verdict_labels(penalty=penalty).items()}


def _missing_turn_answers(
    assignment: Assignment,
    version: CriterionVersion,
    code: str,
    turns: Sequence[Turn],
    turn_grades: Mapping[tuple[int, int], TurnGrade],
) -> list[Problem]:
    problems = []
    version_id, penalty = version.pk, version.is_penalty
    for turn in turns:
        grade = turn_grades.get((version_id, turn.pk))
        anchor = f"criterion-{version_id}-turn-{turn.pk}"
        number = turn.index + 1  # as turn_label counts
        if grade is None or not grade.verdict:
            message = gettext("%(code)s, Turn %(turn)s: choose %(pass)s, %(fail)s or %(na)s.")
            problems.append(_missing(anchor, message, code=code, turn=number, **_choices(penalty)))
        elif _rationale_missing(assignment, version, grade.verdict, None, grade.rationale):
            label = shown_label(verdict_label(grade.verdict, penalty=penalty))
            message = gettext("%(code)s, Turn %(turn)s: %(answer)s needs a rationale.")
            problems.append(_missing(anchor, message, code=code, turn=number, answer=label))
    return problems


@transaction.atomic
def submit(assignment: Assignment, *, by: User) -> None:
    """Mark the assignment submitted; Incomplete listing what is missing otherwise."""
    now = timezone.now()
    assignment = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("study_item__study", "study_item__rubric_version")
        .get(pk=assignment.pk)
    )
    _check_own(assignment, by)
    _check_open(assignment, now)
    if assignment.is_submitted:
        return
    problems = missing_answers(assignment)
    if problems:
        raise Incomplete([p.refusal for p in problems])
    _touch(assignment, now)
    assignment.status = Assignment.Status.SUBMITTED
    assignment.submitted_at = now
    assignment.save()
    tallies.refresh([assignment.study_item_id])
    ResultsRevision.objects.bump(assignment.study_item.study_id)
    if assignment.study_item.study.escalation != Study.Escalation.OFF:
        escalation.escalate(assignment.study_item_id, by=by)


# ----- progress ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class QueueRow:
    """One study an annotator grades in, with their own progress."""

    study: Study
    closed: bool
    total: int
    done: int
    in_progress: int
    skipped: int = 0

    @property
    def left(self) -> int:
        """Responses still to grade; those set aside with a flag wait for a maintainer."""
        return self.total - self.done - self.skipped


def annotator_queue(annotator: User, now: datetime | None = None) -> list[QueueRow]:
    """The studies `annotator` grades in (their pool, or one holding their work), open ones
    first, each with how many of their responses are submitted, started and left. Two queries."""
    now = now or timezone.now()
    counts: dict[int, dict[str, int]] = {
        row["study_item__study"]: {
            "total": row["total"],
            "done": row["done"],
            "started": row["started"],
            "skipped": row["skipped"],
        }
        for row in Assignment.objects.filter(annotator=annotator)
        .values("study_item__study")
        .annotate(
            total=Count("pk"),
            done=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
            started=Count(
                "pk", filter=Q(status=Assignment.Status.IN_PROGRESS, skipped_at__isnull=True)
            ),
            skipped=Count("pk", filter=Q(skipped_at__isnull=False)),
        )
    }
    studies = Study.objects.filter(Q(pool__annotator=annotator) | Q(pk__in=counts.keys()))
    none = {"total": 0, "done": 0, "started": 0, "skipped": 0}  # in the pool, nothing yet
    rows = [
        QueueRow(
            study,
            study.is_closed(now),
            counts.get(study.pk, none)["total"],
            counts.get(study.pk, none)["done"],
            counts.get(study.pk, none)["started"],
            counts.get(study.pk, none)["skipped"],
        )
        for study in studies.distinct().order_by("created_at", "pk")
    ]
    # Open studies first, the nearest deadline first among them.
    return sorted(rows, key=lambda r: (r.closed, r.study.deadline is None, r.study.deadline or now))


def studies_with_progress(studies: Any) -> list[Study]:
    """Each study with .items_count, .assignments_count and .submitted_count. One query."""
    return list(studies.with_progress())


def progress_per_annotator(study: Study) -> list[dict[str, Any]]:
    """One row per pool member or grader: assigned, submitted, in progress, time spent.
    Two queries."""
    rows = (
        Assignment.objects.filter(study_item__study=study)
        .values("annotator_id", "annotator__username")
        .annotate(
            assigned=Count("pk"),
            submitted=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
            in_progress=Count("pk", filter=Q(status=Assignment.Status.IN_PROGRESS)),
            seconds=Sum("time_spent_seconds"),
        )
        .order_by("annotator__username")
    )
    by_user: dict[int, dict[str, Any]] = {row["annotator_id"]: dict(row) for row in rows}
    empty = {"assigned": 0, "submitted": 0, "in_progress": 0, "seconds": 0}
    for user_id, username in study.pool.values_list("annotator_id", "annotator__username"):
        by_user.setdefault(
            user_id, {"annotator_id": user_id, "annotator__username": username} | empty
        )
    return sorted(by_user.values(), key=lambda r: str(r["annotator__username"]))


def progress_per_task(study: Study) -> list[dict[str, Any]]:
    """One row per task: task (key), responses, assigned, submitted. One query."""
    rows = (
        StudyItem.objects.filter(study=study)
        .values(task=F("response__task__key"))
        .annotate(
            responses=Count("pk", distinct=True),
            assigned=Count("assignments", distinct=True),
            submitted=Count(
                "assignments",
                filter=Q(assignments__status=Assignment.Status.SUBMITTED),
                distinct=True,
            ),
        )
        .order_by("task")
    )
    return cast(list[dict[str, Any]], list(rows))


def expected_graders(study: Study) -> list[tuple[int, str, str, int]]:
    """Per criterion version of the study's rubrics: (version, code, layer, graders assigned to
    a response whose rubric applies it). Cached under the study's count of assignments and its
    newest one, which change with any assignment made or taken away (ids only grow); the rest
    it is read from does not change once a study uses it (a study item's rubric version is
    published, and a criterion with a published version keeps its code and layer). Two
    queries when cached (its key and the cache's row); a large study's rubric lines are tens
    of thousands of rows otherwise."""
    assignments = Assignment.objects.filter(study_item__study=study)
    state = assignments.aggregate(n=Count("pk"), last=Max("pk"))
    key = f"expected-graders:{study.pk}:{state['n']}:{state['last']}"
    found: list[tuple[int, str, str, int]] | None = cache.get(key)
    if found is not None:
        return found
    graders = dict(
        assignments.values_list("study_item__rubric_version").annotate(n=Count("pk")).order_by()
    )
    lines = RubricItem.objects.filter(rubric_version__in=list(graders), applicable=True)
    per_version: dict[int, list[Any]] = {}
    for rubric_id, version_id, code, layer in lines.values_list(
        "rubric_version",
        "criterion_version",
        "criterion_version__criterion__code",
        "criterion_version__criterion__layer",
    ):
        per_version.setdefault(version_id, [code, layer, 0])[2] += graders[rubric_id]
    found = [(version, code, layer, n) for version, (code, layer, n) in per_version.items()]
    cache.set(key, found, EXPECTED_GRADERS_SECONDS)
    return found


EXPECTED_GRADERS_SECONDS = 24 * 3600


def progress_per_criterion(study: Study) -> list[dict[str, Any]]:
    """One row per criterion of the study's rubrics: code, layer, expected (graders assigned to
    a response whose rubric applies it), graded (verdicts given, drafts included) and submitted
    (verdicts in submitted assignments). Four queries with `expected_graders` cached: its two,
    the submitted verdicts from their counts (PairTally) and the open assignments' verdicts from
    the grades, added up per code here."""
    rows: dict[str, dict[str, Any]] = {}
    code_of: dict[int, str] = {}
    for version_id, code, layer, graders in expected_graders(study):
        row = rows.setdefault(
            code, {"code": code, "layer": layer, "expected": 0, "graded": 0, "submitted": 0}
        )
        row["expected"] += graders
        code_of[version_id] = code
    # Submitted verdicts from their counts per pair; verdicts not yet submitted (the open
    # assignments' only) from the grades.
    submitted = (
        PairTally.objects.filter(study=study)
        .values_list("criterion_version")
        .annotate(n=Sum(F("passes") + F("fails") + F("nas")))
        .order_by()
    )
    drafts = (
        Grade.objects.filter(assignment__study_item__study=study)
        .exclude(assignment__status=Assignment.Status.SUBMITTED)
        .exclude(verdict="")
        .values_list("criterion_version")
        .annotate(n=Count("pk"))
        .order_by()
    )
    for version_id, n in submitted:
        if version_id in code_of:
            rows[code_of[version_id]]["graded"] += n
            rows[code_of[version_id]]["submitted"] += n
    for version_id, n in drafts:
        if version_id in code_of:
            rows[code_of[version_id]]["graded"] += n
    return sorted(rows.values(), key=lambda r: (LAYER_RANK[Layer(r["layer"])], r["code"]))


def criterion_times(study: Study) -> timing.TimeSummary:
    """Time per criterion in the study's submitted responses: medians per criterion, per
    annotator and per pair, with n (grading.timing). Grades whose time was not measured (the
    API, the workbook, a page without JavaScript) are left out. One query."""
    rows = (
        Grade.objects.filter(
            assignment__study_item__study=study,
            assignment__status=Assignment.Status.SUBMITTED,
            active_ms__isnull=False,
        )
        .exclude(verdict="")
        .values_list(
            "criterion_version__criterion__code",
            "criterion_version__criterion__layer",
            "assignment__annotator__username",
            "active_ms",
        )
    )
    data = list(rows)
    layers = {code: LAYER_RANK[Layer(layer)] for code, layer, _, _ in data}
    order = sorted(layers, key=lambda code: (layers[code], code))
    pairs = ((code, name, ms or 0) for code, _, name, ms in data)
    return timing.summarise(pairs, criterion_order=order)


# An unsubmitted assignment untouched for this long is listed as overdue on the study page.
OVERDUE_IDLE_DAYS = 7


def overdue_assignments(study: Study, idle_days: int, now: datetime | None = None) -> Any:
    """Unsubmitted assignments past the study's deadline, or idle for `idle_days` (an
    assignment never opened counts as idle since the study was created); most idle first,
    each with .idle_since."""
    now = now or timezone.now()
    late = study.deadline is not None and now >= study.deadline
    rows = (
        Assignment.objects.filter(study_item__study=study)
        .exclude(status=Assignment.Status.SUBMITTED)
        .annotate(idle_since=Coalesce("last_activity_at", "study_item__study__created_at"))
        .select_related("annotator", "study_item__response__task")
        .order_by("idle_since", "pk")
    )
    return rows if late else rows.filter(idle_since__lt=now - timedelta(days=idle_days))


@transaction.atomic
def set_status(study: Study, status: Study.Status, *, by: User | None = None) -> None:
    if study.status == status:
        return
    audit.record(study, AuditEvent.Kind.STATUS, by, {"status": [study.status, status.value]})
    study.status = status
    study.save(update_fields=["status"])


# ----- changing a study after creation ----------------------------------------------------------
class QuestionsAnswered(Conflict):
    """A study's 1-5 questions are fixed once someone has answered one."""


def _pool_names(study: Study) -> list[str]:
    return sorted(study.pool.values_list("annotator__username", flat=True))


def _replan_unstarted(study: Study) -> int:
    """Plan again every assignment nobody has opened or answered (no grade, no rating), with
    the pool as it is now: the planner balances the loads, counting the work already started.
    An assignment being opened meanwhile is kept (the delete re-reads its status)."""
    Assignment.objects.filter(
        study_item__study=study,
        status=Assignment.Status.ASSIGNED,
        started_at__isnull=True,
        grades__isnull=True,
        likert_ratings__isnull=True,
    ).delete()
    return assign_study(study)


@transaction.atomic
def add_annotators(study: Study, annotators: Iterable[User], *, by: User | None) -> int:
    """Add annotators to the pool and share the work nobody has started with them. Returns the
    number of assignments planned again."""
    if study.is_closed():
        raise StudyClosed(
            gettext("The study “%(study)s” is closed: reopen it to change the pool.")
            % {"study": study.name}
        )
    annotators = list(annotators)
    check_graders(annotators)
    before = _pool_names(study)
    present = set(study.pool.values_list("annotator_id", flat=True))
    PoolMember.objects.bulk_create(
        PoolMember(study=study, annotator=a) for a in annotators if a.pk not in present
    )
    after = _pool_names(study)
    if after == before:
        return 0
    audit.record(study, AuditEvent.Kind.UPDATED, by, {"annotators": [before, after]})
    return _replan_unstarted(study)


@transaction.atomic
def remove_annotator(study: Study, annotator: User, *, by: User | None) -> int:
    """Take an annotator out of the pool: what they submitted is kept (and counts towards k);
    their unfinished assignments, drafts included, are deleted and their responses planned for
    the rest of the pool. Returns the number of unfinished assignments taken from them."""
    member = PoolMember.objects.filter(study=study, annotator=annotator).first()
    if member is None:
        raise NotFound(
            gettext("%(username)s is not in this study's pool.") % {"username": annotator.username}
        )
    before = _pool_names(study)
    unfinished = Assignment.objects.filter(study_item__study=study, annotator=annotator).exclude(
        status=Assignment.Status.SUBMITTED
    )
    ids = list(unfinished.select_for_update().values_list("pk", flat=True))
    Grade.objects.filter(assignment__in=ids).delete()
    LikertRating.objects.filter(assignment__in=ids).delete()
    Assignment.objects.filter(pk__in=ids).delete()
    member.delete()
    audit.record(
        study,
        AuditEvent.Kind.UPDATED,
        by,
        {"annotators": [before, _pool_names(study)]},
        comment=f"{annotator.username} removed; {len(ids)} unfinished assignments planned again",
    )
    if not study.is_closed():
        assign_study(study)
    return len(ids)


SETTINGS_FIELDS = (
    "description",
    "match_expertise",
    "deadline",
    "require_rationale_on_fail",
    "show_grader_names_to_adjudicator",
    "escalation",
    "escalation_threshold",
    "escalation_cap",
    "gold_rate",
    "gold_warning",
)


@transaction.atomic
def update_settings(study: Study, changes: Mapping[str, Any], *, by: User | None) -> None:
    """Change the study's settings (SETTINGS_FIELDS). Matching expertise applies to the work
    planned from now on: assignments already made stay."""
    unknown = set(changes) - set(SETTINGS_FIELDS)
    if unknown:
        raise ValidationError(
            gettext("Not a setting of a study: %(names)s.") % {"names": ", ".join(sorted(unknown))}
        )
    before = audit.snapshot(study, changes)
    for name, value in changes.items():
        setattr(study, name, value)
    study.full_clean(exclude=["name", "framework", "created_by"], validate_constraints=False)
    difference = audit.diff(before, audit.snapshot(study, changes))
    if not difference:
        return
    study.save(update_fields=list(changes))
    audit.record(study, AuditEvent.Kind.UPDATED, by, difference)


@transaction.atomic
def set_likert_prompts(study: Study, prompts: Sequence[str], *, by: User | None) -> None:
    """Replace the study's 1-5 questions while nobody has answered any. A question kept keeps
    its key (a judge's ratings are matched on it); a new one gets a key from its words."""
    prompts = [p.strip() for p in prompts if p.strip()]
    if len(set(prompts)) != len(prompts):
        raise ValidationError(gettext("The same question is asked twice."))
    locked = Study.objects.select_for_update().get(pk=study.pk)
    if LikertRating.objects.filter(item__study=locked).exists():
        raise QuestionsAnswered(
            gettext("These questions have been answered: they can no longer change in this study.")
        )
    items = {item.prompt: item for item in locked.likert_items.all()}
    before = list(items)
    if before == prompts:
        return
    locked.likert_items.exclude(prompt__in=prompts).delete()
    taken = {items[p].key for p in prompts if p in items}
    for order, (prompt, key) in enumerate(zip(prompts, question_keys(prompts), strict=True)):
        item = items.get(prompt)
        if item is None:
            base, n = key, 2
            while key in taken:
                key, n = f"{base}-{n}", n + 1
            taken.add(key)
            LikertItem.objects.create(study=locked, order=order, key=key, prompt=prompt)
        elif item.order != order:
            item.order = order
            item.save(update_fields=["order"])
    audit.record(locked, AuditEvent.Kind.UPDATED, by, {"likert_questions": [before, prompts]})
