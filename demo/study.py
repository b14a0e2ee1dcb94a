"""A demo grading study over the demo benchmark's responses, with some grades already in.

The grades are generated, not real: each criterion gets a "consensus" verdict drawn at random and
each demo annotator departs from it with their own probability, so agreement pages have realistic
disagreement to show. A generated judge run scores every response on the study's 1-5 questions,
a little more generously than the annotators, for the judge calibration page. Seeded, so every
`make demo` gives the same study."""

import random

from django.db import transaction
from django.db.models import Exists, OuterRef

from accounts.models import User
from core.scoring import adverse_verdict
from grading import services
from grading.models import Assignment, Study, Verdict
from judging.models import JudgeConfig, JudgeRating, JudgeRun, PromptVersion
from rubrics.models import CriterionVersion, EffectiveCriterion, Response, RubricVersion, Turn

NAME = "Demo study: pilot grading"
ANNOTATORS = {"annotator": 0.10, "annotator2": 0.20, "annotator3": 0.30}  # chance to disagree
GRADED_PER_ANNOTATOR = 10  # of 12: each demo annotator still has work to do
SEED = 2026
JUDGE = "demo-judge"
# A judge on a local OpenAI-compatible server (Ollama, vLLM ...): Inspect reaches it through
# LOCAL_BASE_URL (say http://localhost:11434/v1) and LOCAL_API_KEY, both from the environment.
LOCAL_JUDGE = "openai-api/local/llama3.1"


def seed_demo_judge() -> JudgeConfig | None:
    """A judge configuration to start from: the shipped reference-guided prompt on a local
    model (idempotent); None when the shipped prompt is gone."""
    prompt = PromptVersion.objects.filter(template__name="reference-guided").order_by("number")
    if not prompt.exists():
        return None
    config, _ = JudgeConfig.objects.get_or_create(
        name="demo-local-judge",
        defaults={"model": LOCAL_JUDGE, "prompt": prompt[0], "model_family": "llama"},
    )
    return config


@transaction.atomic
def seed_demo_study() -> Study | None:
    """Create the demo study (idempotent); None when there are no responses or annotators."""
    existing = Study.objects.filter(name=NAME).first()
    if existing is not None:
        return existing
    graders = list(User.objects.filter(username__in=ANNOTATORS).order_by("username"))
    published = RubricVersion.objects.filter(task=OuterRef("task"))
    responses = list(Response.objects.current().filter(Exists(published)).select_related("task"))
    if not responses or not graders:
        return None
    study = services.create_study(
        name=NAME,
        framework=responses[0].task.framework,
        responses=responses,
        annotators=graders,
        overlap=min(3, len(graders)),
        seed=SEED,
        description="Generated demo data: three annotators, each response graded by all three.",
    )
    services.assign_study(study)
    rng = random.Random(SEED)
    consensus: dict[tuple[int, int, int], str] = {}
    for grader in graders:
        for _ in range(GRADED_PER_ANNOTATOR):
            assignment = services.claim_next(study, grader)
            if assignment is None:
                break
            _grade(assignment, grader, ANNOTATORS[grader.username], consensus, rng)
    _judge_ratings(study, rng)
    return study


def _judge_ratings(study: Study, rng: random.Random) -> None:
    run, _ = JudgeRun.objects.get_or_create(judge_model=JUDGE, prompt_version="demo")
    JudgeRating.objects.bulk_create(
        JudgeRating(
            run=run,
            response_id=item.response_id,
            question=question.key,
            value=min(5, max(1, round(rng.gauss(4.7, 0.6)))),
            rationale="Demo rationale: generated score.",
        )
        for item in study.items.order_by("pk")
        for question in study.likert_items.all()
    )


def _grade(
    assignment: Assignment,
    grader: User,
    disagreement: float,
    consensus: dict[tuple[int, int, int], str],
    rng: random.Random,
) -> None:
    turns = services.tutor_turns(assignment.study_item.response_id)
    rubric = assignment.study_item.rubric_version.effective_rubric()
    with services.locked_for_saves(assignment, grader) as locked:
        _answer_rubric(locked, grader, rubric, turns, disagreement, consensus, rng)
    for item in assignment.study_item.study.likert_items.all():
        services.save_likert(
            assignment, item.pk, min(5, max(1, round(rng.gauss(4.2, 0.8)))), by=grader
        )
    services.submit(assignment, by=grader)


def _answer_rubric(
    assignment: Assignment,
    grader: User,
    rubric: list[EffectiveCriterion],
    turns: list[Turn],
    disagreement: float,
    consensus: dict[tuple[int, int, int], str],
    rng: random.Random,
) -> None:
    for line in rubric:
        if not line.applicable:
            continue
        penalty = line.weight < 0
        if line.version.is_ordinal:
            _grade_level(assignment, grader, line.version, disagreement, consensus, rng)
            continue
        # A turn-level criterion on a dialogue takes a verdict on each tutor turn.
        for turn in turns if line.version.per_turn and turns else [None]:
            key = (assignment.study_item_id, line.version.pk, turn.pk if turn else 0)
            verdict = _verdict(key, consensus, disagreement, rng)
            rationale = ""
            if verdict == adverse_verdict(penalty=penalty):  # Fail, or Present on a penalty
                rationale = (
                    "Demo rationale: the response shows this behaviour."
                    if penalty
                    else "Demo rationale: the response does not meet this criterion."
                )
            if turn is None:
                services.save_grade_line(
                    assignment,
                    line.version.pk,
                    verdict=verdict,
                    rationale=rationale,
                    by=grader,
                    locked=True,
                )
            else:
                services.save_turn_grade(
                    assignment,
                    line.version.pk,
                    turn.pk,
                    verdict=verdict,
                    rationale=rationale,
                    by=grader,
                    locked=True,
                )


def _verdict(
    key: tuple[int, int, int],
    consensus: dict[tuple[int, int, int], str],
    disagreement: float,
    rng: random.Random,
) -> str:
    """The verdict most graders give on a (study item, criterion, turn), drawn once, from
    which this grader departs with their own probability."""
    agreed = consensus.setdefault(key, Verdict.PASS if rng.random() < 0.7 else Verdict.FAIL)
    if rng.random() < disagreement:
        return rng.choice([v for v in (Verdict.PASS, Verdict.FAIL, Verdict.NA) if v != agreed])
    return agreed


def _grade_level(
    assignment: Assignment,
    grader: User,
    version: CriterionVersion,
    disagreement: float,
    consensus: dict[tuple[int, int, int], str],
    rng: random.Random,
) -> None:
    """An ordinal criterion: a level near the one most graders give, drawn once."""
    low, high = int(version.scale_min or 0), int(version.scale_max or 0)
    key = (assignment.study_item_id, version.pk, -1)
    agreed = int(consensus.setdefault(key, str(rng.randint(low + 1, high))))
    level = agreed
    if rng.random() < disagreement:
        level = min(high, max(low, agreed + rng.choice((-1, 1))))
    adverse = level == (high if version.is_penalty else low)
    rationale = "Demo rationale: the lowest level of the scale." if adverse else ""
    services.save_grade_line(
        assignment,
        version.pk,
        verdict=None,
        level=level,
        rationale=rationale,
        by=grader,
        locked=True,
    )
