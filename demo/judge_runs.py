"""Two judge runs on the demo study, so that the comparison page and the triage queue show real
content after `make run`: the demo's local judge with the shipped reference-guided prompt (v1),
then with the critique-then-verdict prompt (v2).

No model is called (the demo needs no network): the answers are generated from the experts'
submitted grades, v1 agreeing with their majority less often than v2 and leaving two answers
unreadable, and they land through the verdicts importer (`import_judge_file`), exactly as an
Inspect log made elsewhere would. On the dialogues' turn-level criteria they answer each tutor
turn (drawn from the experts' majority on that turn), so the importer keeps the turns' verdicts
beside the folded one and the judge page compares them turn by turn. Seeded, so every
`make demo` gives the same runs."""

import random
from collections import Counter, defaultdict

from django.db import transaction

from core.formats.verdicts import VerdictRecord
from core.prompting import AnswerStyle
from demo.study import LOCAL_JUDGE, SEED, seed_demo_judge
from grading.models import Assignment, Grade, Study, TurnGrade, Verdict
from judging.models import JudgeConfig, JudgeRun
from judging.runs import run_name
from judging.services import find_prompt, save_config
from judging.units import PlannedCall, study_units
from judging.verdict_import import JudgeFile, import_judge_file

FAMILY = "llama"
# (run id, how often it agrees with the experts' majority, unreadable answers)
RUNS = (("demo-judge-v1", 0.75, 2), ("demo-judge-v2", 0.92, 0))
UNREADABLE = "It depends on what the teacher wanted: partly, I would say."


def seed_demo_judge_runs(study: Study) -> list[JudgeRun]:
    """The two demo runs on `study` (idempotent: made once)."""
    existing = list(JudgeRun.objects.filter(run_id__in=[r[0] for r in RUNS]).order_by("pk"))
    if existing:
        return existing
    v1 = seed_demo_judge()
    if v1 is None:
        return []
    v2 = save_config(
        name="demo-local-critique",
        model=LOCAL_JUDGE,
        prompt=find_prompt("critique-then-verdict@1"),
        model_family=FAMILY,
        by=None,
    )
    units = study_units(study)
    majority = _experts_majority(study) | _experts_turn_majority(study)
    rng = random.Random(SEED)
    return [
        _import_run(study, config, run_id, units, majority, agreement, unreadable, rng)
        for config, (run_id, agreement, unreadable) in zip((v1, v2), RUNS, strict=True)
    ]


def _experts_turn_majority(study: Study) -> dict[tuple[int, ...], bool]:
    """(response, criterion version, turn index) -> the majority of the submitted grades of
    that tutor turn, so that the judge's verdicts on a dialogue's turns track the experts'
    turn by turn (the judge page compares them per turn)."""
    votes: dict[tuple[int, ...], Counter[str]] = defaultdict(Counter)
    rows = TurnGrade.objects.filter(
        assignment__study_item__study=study,
        assignment__status=Assignment.Status.SUBMITTED,
        verdict__in=[Verdict.PASS, Verdict.FAIL],
    ).values_list("turn__response_id", "criterion_version_id", "turn__index", "verdict")
    for response, version, turn, verdict in rows:
        votes[response, version, turn][verdict] += 1
    return {
        key: count[Verdict.PASS] > count[Verdict.FAIL]
        for key, count in votes.items()
        if count[Verdict.PASS] != count[Verdict.FAIL]
    }


def _experts_majority(study: Study) -> dict[tuple[int, ...], bool]:
    """(response, criterion version) -> the pass/fail majority of the submitted grades."""
    votes: dict[tuple[int, ...], Counter[str]] = defaultdict(Counter)
    rows = Grade.objects.filter(
        assignment__study_item__study=study,
        assignment__status=Assignment.Status.SUBMITTED,
        verdict__in=[Verdict.PASS, Verdict.FAIL],
    ).values_list("assignment__study_item__response_id", "criterion_version_id", "verdict")
    for response, version, verdict in rows:
        votes[response, version][verdict] += 1
    return {
        key: count[Verdict.PASS] > count[Verdict.FAIL]
        for key, count in votes.items()
        if count[Verdict.PASS] != count[Verdict.FAIL]
    }


@transaction.atomic
def _import_run(
    study: Study,
    config: JudgeConfig,
    run_id: str,
    units: list[PlannedCall],
    majority: dict[tuple[int, ...], bool],
    agreement: float,
    unreadable: int,
    rng: random.Random,
) -> JudgeRun:
    unreadable_at = set(rng.sample(range(len(units)), min(unreadable, len(units))))
    records = []
    for n, unit in enumerate(units):
        # A tutor turn follows the experts' majority on that turn, else on the response.
        key = (unit.response_pk, unit.version_pk)
        turn_key = key if unit.turn is None else (*key, unit.turn)
        expected = majority.get(turn_key, majority.get(key, rng.random() < 0.7))
        verdict = expected if rng.random() < agreement else not expected
        # An ordinal criterion takes a level: the top of its scale, or one below, by the same draw.
        level = None if unit.scale is None else unit.scale[1] - (0 if verdict else 1)
        records.append(
            VerdictRecord(
                criterion_id=unit.criterion_id,
                verdict=None if n in unreadable_at or level is not None else verdict,
                level=None if n in unreadable_at else level,
                judge_model=config.model,
                response_id=unit.response_id,
                task_key=unit.task_key,
                rationale=UNREADABLE if n in unreadable_at else _answer(config, verdict),
                prompt_version=str(config.prompt),
                run_id=run_id,
                turn=unit.turn,  # a dialogue's turn, on a turn-level criterion
            )
        )
    report = import_judge_file(JudgeFile((), records, (), []), study.framework, source=run_id)
    if not report.ok:
        raise RuntimeError(f"The demo judge run did not import: {report.problem_lines()}")
    run = JudgeRun.objects.get(run_id=run_id)
    run.name = run_name(study, config)  # as a run made here is named
    run.prompt, run.config, run.model_family = config.prompt, config, config.model_family
    run.parameters = config.parameters() | {"study": study.pk, "limit": None}
    run.calls_total = run.calls_done = len(records)
    run.unparseable = len(unreadable_at)
    run.save()
    return run


def _answer(config: JudgeConfig, verdict: bool) -> str:
    word = "true" if verdict else "false"
    if config.prompt.style != AnswerStyle.CRITIQUE:
        return word
    reading = "meets" if verdict else "does not meet"
    return f"Demo critique: read against the reference answer, the response {reading} it.\n{word}"
