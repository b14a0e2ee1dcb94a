"""Plain builders for every test module: frameworks, tasks, criteria, responses, studies,
grades, judge runs, import files and jobs, and one object of each kind for the tests that walk
every route with every role. Generated data only, never L2-Bench items. Rubrics are published
through rubrics.publishing and studies are made, assigned and graded through the grading
services, so those rows are what the application would have made. (The builders of
tests/interchange/builders.py are hypothesis strategies for the pure file formats.)"""

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from itertools import count
from pathlib import Path
from typing import Any

import pyotp
from django.conf import settings
from django.db.models import Model
from django.utils import timezone

from accounts import second_factor
from accounts.models import SecondFactor, User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from core.formats.l2bench_csv import TaskRecord
from core.formats.synthetic import synthetic_tasks, write_benchmark
from demo.benchmark import seed_demo_benchmark
from grading import services as grading_services
from grading.adjudication import record_gold_verdict
from grading.models import (
    Assignment,
    Flag,
    LikertItem,
    PoolMember,
    Study,
    StudyItem,
    TurnGrade,
    Verdict,
)
from interchange.models import ImportJob
from jobs.lease import this_worker
from jobs.models import Job
from judging.models import JudgeRun, JudgeVerdict
from rubrics import publishing
from rubrics import services as rubric_services
from rubrics.models import (
    Criterion,
    CriterionVersion,
    EffectiveCriterion,
    Response,
    Task,
    Turn,
)
from taxonomy import services as taxonomy_services
from taxonomy.models import (
    Competency,
    ContextValue,
    ContextVariable,
    Framework,
    ProficiencyLevel,
    ProficiencyScale,
    SubCompetency,
)
from taxonomy.scales import sync_scale_values
from taxonomy.seedfile import read_context_variables, read_scales, read_taxonomy
from tests.replay import Replayed, replayed_by_arguments
from webhooks.models import Answer, Delivery, Event, Hook

# ----- taxonomy ----------------------------------------------------------------------------


def _load_starter_framework() -> Framework:
    fixtures = settings.BASE_DIR / "fixtures"
    framework, _ = taxonomy_services.load_framework(read_taxonomy(fixtures / "taxonomy.json"))
    taxonomy_services.load_scales(framework, read_scales(fixtures / "proficiency_scales.json"))
    taxonomy_services.load_context_variables(
        framework, read_context_variables(fixtures / "context_variables.json")
    )
    return framework


# The starter taxonomy and context variables, loaded the way `make run` loads them (the rows the
# loaders wrote the first time, written again: tests/replay.py).
load_starter_framework = Replayed(_load_starter_framework)


def make_framework(code: str = "test-fw") -> Framework:
    framework = Framework.objects.create(code=code, name=f"Framework {code}")
    competency = Competency.objects.create(framework=framework, code="01", name="Planning", order=1)
    SubCompetency.objects.create(competency=competency, code="01a", name="Objectives", order=1)
    SubCompetency.objects.create(competency=competency, code="01b", name="Sequencing", order=2)
    Competency.objects.create(framework=framework, code="02", name="Learners", order=2)
    level = ContextVariable.objects.create(
        framework=framework, key="cefr_level", label="CEFR level", kind="ordinal", order=1
    )
    for order, label in enumerate(["A1", "A2", "B1"], start=1):
        ContextValue.objects.create(variable=level, code=label.lower(), label=label, order=order)
    ContextVariable.objects.create(
        framework=framework,
        key="class_size",
        label="Class size",
        kind="number",
        order=2,
        minimum=1,
        maximum=200,
    )
    return framework


def scale_bound_variable() -> ContextVariable:
    """make_framework()'s cefr_level (values A1, A2, B1) bound to a scale "CEFR" of levels A1
    and A2: A1 and A2 become the levels' values, B1 stays, held by no level."""
    framework = make_framework()
    scale = ProficiencyScale.objects.create(framework=framework, code="cefr", name="CEFR")
    for order, label in enumerate(["A1", "A2"], start=1):
        ProficiencyLevel.objects.create(scale=scale, code=label.lower(), label=label, order=order)
    variable = ContextVariable.objects.get(framework=framework, key="cefr_level")
    variable.scale = scale
    variable.save()
    sync_scale_values(variables=[variable])
    return variable


# ----- tasks, responses, studies -----------------------------------------------------------

_serial = count(1)


def framework() -> Framework:
    return Framework.objects.first() or make_framework()


def published_task(
    fw: Framework | None = None,
    criteria: int = 3,
    language: str = "en",
    resources: Sequence[str] = (),
    not_applicable: Sequence[Criterion] = (),
    turn_rule: str = "",
    turn_share: int | None = None,
    scale: tuple[int, int] | None = None,
) -> Task:
    """A task with `criteria` task criteria (the last one a penalty), a markdown resource of
    each title in `resources`, the universal criteria `not_applicable` marked as not applying
    to it, and rubric version 1. With a `turn_rule`, the first criterion is graded per tutor
    turn by that rule (and `turn_share`), and the penalty per turn by "any". With `scale`
    (min, max) the first criterion is ordinal on that scale, its points labelled "Level <n>"."""
    fw = fw or framework()
    sub = SubCompetency.objects.filter(competency__framework=fw).first()
    key = f"ft{next(_serial)}"  # "ft": never a key the tests write by hand ("t101")
    task = Task.objects.create(
        framework=fw,
        key=key,
        sub_competency=sub,
        instruction=f"Write a warm-up activity for task {key}.",
        language=language,
    )
    for n in range(1, criteria + 1):
        criterion = Criterion.objects.create(
            framework=fw, code=f"{key}-{n:02d}", layer="task", task=task, order=n
        )
        ordinal = scale is not None and n == 1
        version = CriterionVersion.objects.create(
            criterion=criterion,
            number=1,
            wording=f"The activity meets expectation {n} of {key}.",
            passes=f"Guidance: what passes {key}-{n:02d}.",
            weight=-2 if n == criteria else 3,
            **(
                {
                    "applies_to": "turn",
                    "turn_rule": turn_rule if n == 1 else "any",
                    "turn_share": turn_share if n == 1 else None,
                }
                if turn_rule and n in (1, criteria)
                else {}
            ),
            scoring_type="ordinal" if ordinal else "binary",
            scale_min=scale[0] if ordinal and scale else None,
            scale_max=scale[1] if ordinal and scale else None,
        )
        if ordinal and scale:
            for value in range(scale[0], scale[1] + 1):
                version.scale_points.create(value=value, label=f"Level {value}")
    for title in resources:
        rubric_services.add_resource(task, title, None, text=f"Read this ({title}).")
    for universal in not_applicable:
        rubric_services.exclude_universal(task, universal, "No learner age is given.", None)
    publishing.publish([task], None)
    return task


def universal_criterion(fw: Framework | None = None, weight: int = 1) -> Criterion:
    """A universal criterion of the framework (every task published after it has it)."""
    fw, n = fw or framework(), next(_serial)
    wording = f"The activity suits the learners' age ({n})."
    return rubric_services.add_criterion(fw, wording, weight, None, code=f"90u{n}")


def response(task: Task, model: str = "secret-model-x", turns: int = 0) -> Response:
    if turns:
        answer = Response.objects.create(task=task, model_name=model, kind="conversation")
        for index in range(turns):
            role = "user" if index % 2 == 0 else "assistant"
            Turn.objects.create(response=answer, index=index, role=role, content=f"Turn {index}")
        return answer
    return Response.objects.create(
        task=task, model_name=model, text=f"**Warm-up** for {task.key}: say hello."
    )


def study(
    annotators: list[User],
    responses: int = 2,
    overlap: int = 2,
    resources: Sequence[str] = (),
    not_applicable: Sequence[Criterion] = (),
    **options: object,
) -> Study:
    answers = [
        response(published_task(resources=resources, not_applicable=not_applicable))
        for _ in range(responses)
    ]
    graders, others = _graders_and_others(annotators)
    new = grading_services.create_study(
        name=f"Study {next(_serial)}",
        framework=framework(),
        responses=answers,
        annotators=graders,
        overlap=overlap,
        **options,
    )
    _join_directly(new, others)
    return new


def _graders_and_others(people: Sequence[User]) -> tuple[list[User], list[User]]:
    annotators = set(
        User.objects.filter(
            pk__in=[p.pk for p in people], groups__name=Role.ANNOTATOR.value
        ).values_list("pk", flat=True)
    )
    return [p for p in people if p.pk in annotators], [p for p in people if p.pk not in annotators]


def _join_directly(study: Study, people: Sequence[User]) -> None:
    """The route walks give an admin, who may open every grading route, work of their own: the
    services admit only annotators to a pool (grading.models.check_graders), so anyone else
    joins here, directly."""
    PoolMember.objects.bulk_create(PoolMember(study=study, annotator=p) for p in people)


TEXT_V1 = "**Version one**: say hello to your partner."
DIALOGUE_V1 = (("user", "Can you help me practise?"), ("assistant", "Of course: say hello."))


def graded_imported_study(
    graders: list[User], *, dialogue: bool = False, external_id: str = "r1", **options: object
) -> Study:
    """A study of one response recorded with an id (as an import records it), every grader's
    assignment completed with Pass and submitted. A text (TEXT_V1) or, with `dialogue`, a
    dialogue (DIALOGUE_V1) on a task whose first criterion is graded turn by turn."""
    task = published_task(turn_rule="all" if dialogue else "")
    content: dict[str, Any] = (
        {"turns": [rubric_services.TurnSpec(role, text) for role, text in DIALOGUE_V1]}
        if dialogue
        else {"text": TEXT_V1}
    )
    answer, _ = rubric_services.record_response(
        task,
        "model-a",
        external_id=external_id,
        model_family="family-a",
        model_version="1.0",
        **content,
    )
    made = grading_services.create_study(
        **({"name": f"Study {next(_serial)}"} | options),
        framework=task.framework,
        responses=[answer],
        annotators=graders,
        overlap=len(graders),
    )
    grading_services.assign_study(made)
    for assignment in Assignment.objects.filter(study_item__study=made):
        complete(assignment, assignment.annotator)
        grading_services.submit(assignment, by=assignment.annotator)
    return made


def rubric_of(assignment) -> list[CriterionVersion]:
    return [line.version for line in assignment.study_item.rubric_version.effective_rubric()]


def answer(
    assignment, version, verdict: str, rationale: str, by: User, *, locked: bool = False
) -> None:
    """Give `verdict` on one criterion: on each tutor turn when it is a turn-level criterion and
    the response a dialogue (the dialogue's verdict is then `verdict` by every rule). An ordinal
    criterion takes its top level for "pass", its lowest for "fail". `locked`: `assignment`
    comes from `grading_services.locked_for_saves()`, inside it."""
    if version.is_ordinal and verdict != "na":
        level = version.scale_max if verdict == "pass" else version.scale_min
        grading_services.save_grade_line(
            assignment,
            version.pk,
            verdict=None,
            level=level,
            rationale=rationale,
            by=by,
            locked=locked,
        )
        return
    turns = (
        grading_services.tutor_turns(assignment.study_item.response_id) if version.per_turn else []
    )
    for turn in turns:
        grading_services.save_turn_grade(
            assignment,
            version.pk,
            turn.pk,
            verdict=verdict,
            rationale=rationale,
            by=by,
            locked=locked,
        )
    if not turns:
        grading_services.save_grade_line(
            assignment, version.pk, verdict=verdict, rationale=rationale, by=by, locked=locked
        )


def complete(assignment, by: User, verdict: str = "pass") -> None:
    """Answer every criterion and Likert item of `assignment` (not submitted). An ordinal
    criterion takes its top level for "pass", its lowest for "fail"."""
    with grading_services.locked_for_saves(assignment, by) as locked:
        for version in rubric_of(locked):
            answer(locked, version, verdict, "ok", by, locked=True)
    for item in assignment.study_item.study.likert_items.all():
        grading_services.save_likert(assignment, item.pk, 4, by=by)


def grading_route_values(grader: User) -> dict[str, int]:
    """For the route-by-role walks: `grader`'s own assignment in a new study, as the values of
    the grading routes' URL arguments (grading_route_kwargs picks a route's)."""
    new = study([grader], responses=1, overlap=1, resources=["Handout"])
    grading_services.assign_study(new)
    assignment = new.items.get().assignments.get()
    return {
        "study_id": new.pk,
        "study_item_id": assignment.study_item_id,
        "assignment_id": assignment.pk,
        "criterion_version_id": rubric_of(assignment)[0].pk,
        "likert_item_id": new.likert_items.first().pk,
        "resource_id": assignment.study_item.rubric_version.resources.get().pk,
        "user_id": grader.pk,  # a pool member
    }


def grading_route_kwargs(params: set[str], values: dict[str, int]) -> dict[str, int]:
    """The URL arguments `params` of a grading route, from grading_route_values: a flag on the
    assignment's response and a tutor turn of it are made here, for the routes that name one."""
    values = dict(values)
    item = StudyItem.objects.get(pk=values["study_item_id"])
    if "flag_id" in params:
        values["flag_id"] = Flag.objects.create(
            study_item=item, kind=Flag.Kind.RESPONSE_BROKEN, by_id=values["user_id"]
        ).pk
    if "turn_id" in params:  # a tutor turn of the response (a text one: the grade is refused)
        values["turn_id"] = Turn.objects.create(
            response_id=item.response_id, index=0, role="assistant", content="Hello."
        ).pk
    return {name: values[name] for name in params}


def graded_study(graders: list[User], verdicts: list[str], responses: int = 2, **options: object):
    """A study where each grader submits every response, grader i giving verdicts[i] on every
    criterion: with verdicts that differ, every (response, criterion) pair disagrees."""
    new = study(graders, responses=responses, overlap=len(graders), **options)
    grading_services.assign_study(new)
    for grader, verdict in zip(graders, verdicts, strict=True):
        for assignment in Assignment.objects.filter(study_item__study=new, annotator=grader):
            complete(assignment, grader, verdict)
            grading_services.submit(assignment, by=assignment.annotator)
    return new


# (grader's index, assignment, line's position in the rubric, line) -> the grader's verdict
VerdictRule = Callable[[int, Assignment, int, EffectiveCriterion], str]
# (grader's index, assignment, Likert item) -> the grader's answer
LikertRule = Callable[[int, Assignment, LikertItem], int]


def grade_study(
    study: Study,
    graders: list[User],
    verdict: VerdictRule,
    likert: LikertRule | None = None,
    rationale: str = "",
) -> None:
    """Each grader in turn claims every assignment of theirs (grading.services.claim_next),
    gives each applicable line of its rubric the verdict `verdict` says, answers each Likert
    item as `likert` says, and submits. `rationale` may name `{grader}`, the grader's index."""
    for index, grader in enumerate(graders):
        while (assignment := grading_services.claim_next(study, grader)) is not None:
            rubric = assignment.study_item.rubric_version.effective_rubric()
            with grading_services.locked_for_saves(assignment, grader) as locked:
                for position, line in enumerate(rubric):
                    if line.applicable:
                        answer(
                            locked,
                            line.version,
                            verdict(index, assignment, position, line),
                            rationale.format(grader=index),
                            grader,
                            locked=True,
                        )
            if likert is not None:
                for item in study.likert_items.all():
                    value = likert(index, assignment, item)
                    grading_services.save_likert(assignment, item.pk, value, by=grader)
            grading_services.submit(assignment, by=assignment.annotator)


# ----- the demo benchmark and judge runs ---------------------------------------------------


def _demo_benchmark_and_graders(graders: int) -> tuple[Framework, list[User]]:
    """The starter framework holding the demo benchmark (universal criteria, published demo
    tasks and their responses), and `graders` annotators (grader0, grader1, ...) to grade it."""
    framework = load_starter_framework()
    sync_roles()
    seed_demo_benchmark(
        framework,
        create_user_with_role("author", "pw-author", Role.AUTHOR),
        create_user_with_role("maintainer", "pw-maintainer", Role.MAINTAINER),
    )
    annotators = [
        create_user_with_role(f"grader{n}", f"pw-grader{n}", Role.ANNOTATOR) for n in range(graders)
    ]
    return framework, annotators


# Built once per test process and arguments, written again after (tests/replay.py).
demo_benchmark_and_graders = replayed_by_arguments(_demo_benchmark_and_graders)


def _demo_study(responses: int, *, assign: bool = True) -> Study:
    """A study of the first `responses` demo responses for one grader (grader0), assigned
    unless `assign` is false, nothing graded yet."""
    framework, graders = demo_benchmark_and_graders(1)
    study = grading_services.create_study(
        name="Pilot",
        framework=framework,
        responses=list(Response.objects.order_by("pk")[:responses]),
        annotators=graders,
        overlap=1,
        seed=1,
    )
    if assign:
        grading_services.assign_study(study)
    return study


# Each picks the first responses: replayed while the test holds no other responses.
demo_study = replayed_by_arguments(_demo_study, reads=[Response])

DISSENTER = 2  # the third expert fails every universal criterion; the majority passes all


def _graded_demo_study(responses: int = 8) -> Study:
    """Three experts grade `responses` demo responses: all pass, but the third fails every
    universal criterion (with a rationale), so the majority passes every unit."""
    framework, graders = demo_benchmark_and_graders(3)
    study = grading_services.create_study(
        name="Pilot",
        framework=framework,
        responses=list(Response.objects.order_by("pk")[:responses]),
        annotators=graders,
        overlap=3,
        seed=1,
        require_rationale_on_fail=False,
    )
    grading_services.assign_study(study)
    grade_study(
        study,
        graders,
        lambda index, _, __, line: (
            Verdict.FAIL if index == DISSENTER and line.layer == "universal" else Verdict.PASS
        ),
        likert=lambda *_: 4,
        rationale="reason number {grader}",
    )
    return study


graded_demo_study = replayed_by_arguments(_graded_demo_study, reads=[Response])


def judge_run(
    study: Study, prompt: str, *, fails_universal: bool, fails_code: str = ""
) -> JudgeRun:
    """A run that passes every unit, or fails the universal ones (against the majority), or
    fails the criterion `fails_code` (which every expert passed)."""
    run = JudgeRun.objects.create(judge_model="judge-m", prompt_version=prompt)
    JudgeVerdict.objects.bulk_create(
        JudgeVerdict(
            run=run,
            response=item.response,
            criterion_version=line.version,
            verdict=not (
                (fails_universal and line.layer == "universal")
                or line.version.criterion.code == fails_code
            ),
            rationale=f"judge {prompt} reasons about {line.version.criterion.code}",
        )
        for item in study.items.select_related("response", "rubric_version")
        for line in item.rubric_version.effective_rubric()
        if line.applicable
    )
    return run


def disagreeing_run(study_id: int, judge_model: str = "a judge") -> JudgeRun:
    """For the route walk: the study's first assignment submitted with every criterion passed,
    and a run (of `judge_model`, one run per model) that fails every one of them, so each is in
    the run's triage queue."""
    assignment = Assignment.objects.filter(study_item__study_id=study_id).order_by("pk").first()
    assert assignment is not None
    complete(assignment, assignment.annotator)
    grading_services.submit(assignment, by=assignment.annotator)
    run = JudgeRun.objects.create(judge_model=judge_model)
    JudgeVerdict.objects.bulk_create(
        JudgeVerdict(
            run=run,
            response=assignment.study_item.response,
            criterion_version=version,
            verdict=False,
        )
        for version in rubric_of(assignment)
    )
    return run


# ----- one object of each kind, for the route-by-role walks --------------------------------

ROUTE_TASK_KEY = "route-1"


def rubric_route_objects(sub: SubCompetency) -> dict[str, Any]:
    """A draft task under `sub` with a resource and a criterion of its own, keyed by the names
    the rubric routes use (`rubrics:<name>_<action>`)."""
    task = rubric_services.create_task(sub, ROUTE_TASK_KEY, "Plan a lesson.", None)
    return {
        "task": task,
        "resource": rubric_services.add_resource(task, "Handout", None, text="Read this."),
        "criterion": rubric_services.add_criterion(task, "Gives a time plan.", 2, None),
        "consensus": sub,
    }


def route_task() -> Task:
    return Task.objects.get(key=ROUTE_TASK_KEY)


# What a rubric `<name>_create` route with a pk creates its object under.
RUBRIC_CREATE_UNDER = {
    "resource": route_task,
    "criterion": route_task,
    "consensus": lambda: SubCompetency.objects.get(code="01b"),
}


def benchmark_objects() -> dict[str, object]:
    """A published task with criteria, a response to it and a judge verdict on the response,
    in the test framework (make_framework)."""
    task = published_task(framework())
    answer = response(task, model="secret-model-x")
    version = task.criteria.first().versions.get()
    run = JudgeRun.objects.create(judge_model="judge-1")
    verdict = JudgeVerdict.objects.create(
        run=run, response=answer, criterion_version=version, verdict=True
    )
    return {"task": task, "response": answer, "run": run, "verdict": verdict}


def grading_objects(grader: User, name: str = "Permissions study") -> dict[str, object]:
    """A study (of that name) of one response (from benchmark_objects) graded by `grader` alone:
    their assignment, one grade of theirs, and a gold verdict on the same criterion."""
    answer = first(Response)
    graders, others = _graders_and_others([grader])
    study = grading_services.create_study(
        name=name,
        framework=answer.task.framework,
        responses=[answer],
        annotators=graders,
        overlap=1,
    )
    _join_directly(study, others)
    grading_services.assign_study(study)
    assignment = Assignment.objects.get(study_item__study=study)
    version = rubric_of(assignment)[0]
    grade = grading_services.save_grade(
        assignment, version.pk, verdict="pass", rationale="", by=grader
    )
    gold = record_gold_verdict(
        assignment.study_item, version.pk, verdict="pass", note="", by=grader, base_revision=0
    )
    flag = Flag.objects.create(
        study_item=assignment.study_item, kind=Flag.Kind.RESPONSE_BROKEN, by=grader
    )
    turn, _ = Turn.objects.get_or_create(  # the response's tutor turn, one for every study
        response=answer, index=0, defaults={"role": "assistant", "content": "Hello."}
    )
    turn_grade = TurnGrade.objects.create(
        assignment=assignment, criterion_version=version, turn=turn, verdict="pass"
    )
    return {
        "study": study,
        "assignment": assignment,
        "grade": grade,
        "gold": gold,
        "flag": flag,
        "turn_grade": turn_grade,
    }


def first(model: type[Model]) -> Model:
    return model._default_manager.order_by("pk").first()


def fresh(built: dict[str, Any]) -> dict[str, Any]:
    """The objects of data built once for a module (`module_db`), each read again from the
    database, so that no test sees another test's changes to a Python object."""
    return {
        key: type(value)._default_manager.get(pk=value.pk) if isinstance(value, Model) else value
        for key, value in built.items()
    }


# ----- imports ----------------------------------------------------------------------------

CONTEXT = {"cefr_level": ["A1", "b2"], "learner_age": ["teenagers (12-17)"]}


def generated(n: int = 6, **options: object) -> list[TaskRecord]:
    defaults: dict[str, object] = {"context": CONTEXT, "resources_every": 2}
    return synthetic_tasks(n, ["01a", "02a", "03a"], **(defaults | options))


def benchmark_folder(folder: Path, tasks: list[TaskRecord] | None = None) -> Path:
    return write_benchmark(folder, tasks if tasks is not None else generated())


def worker_last_seen(run: JudgeRun, at: datetime) -> Job:
    """Give a judge run a running job whose worker, on another machine, last gave a sign of
    life at `at` (so only its heartbeat says whether it is alive)."""
    job_id = JudgeRun.objects.values_list("job", flat=True).get(pk=run.pk)
    job = Job.objects.get(pk=job_id) if job_id else Job.objects.create(kind=Job.Kind.JUDGE_RUN)
    Job.objects.filter(pk=job.pk).update(
        state=Job.State.RUNNING, worker="elsewhere:1:1", heartbeat_at=at, started_at=at
    )
    JudgeRun.objects.filter(pk=run.pk).update(job=job)
    job.refresh_from_db()
    return job


IMPORT_JOB_STATES = {
    ImportJob.Status.QUEUED: Job.State.QUEUED,
    ImportJob.Status.RUNNING: Job.State.RUNNING,
    ImportJob.Status.SUCCEEDED: Job.State.FINISHED,
    ImportJob.Status.REFUSED: Job.State.FINISHED,
    ImportJob.Status.FAILED: Job.State.FAILED,
}


def make_job(framework, **fields):
    """A finished ImportJob row (no file needed to show it); a running one is this process's
    unless `worker` and `heartbeat_at` (its Job's) say otherwise."""
    status = fields.get("status", ImportJob.Status.SUCCEEDED)
    lease = {"worker": fields.pop("worker", ""), "heartbeat_at": fields.pop("heartbeat_at", None)}
    if status == ImportJob.Status.RUNNING and not lease["worker"]:
        lease = {"worker": this_worker(), "heartbeat_at": timezone.now()}
    fields.setdefault(
        "job",
        Job.objects.create(kind=Job.Kind.IMPORT, state=IMPORT_JOB_STATES[status], **lease),
    )
    defaults = {
        "kind": ImportJob.Kind.RESPONSES,
        "framework": framework,
        "token": f"t{ImportJob.objects.count() + 1}",
        "file": "2026/01/none.jsonl",
        "status": ImportJob.Status.SUCCEEDED,
        "summary": "responses: 1 created, 0 updated, 0 unchanged",
    }
    return ImportJob.objects.create(**(defaults | fields))


def totp_code(factor: SecondFactor, steps_ahead: int = 0) -> str:
    """The code the person's authenticator app shows now (or `steps_ahead` 30-second steps on)."""
    return pyotp.TOTP(factor.secret).at(time.time() + 30 * steps_ahead)


def turned_on_second_factor(user: User) -> tuple[SecondFactor, list[str]]:
    """A second factor set up as a person does, with its recovery codes. It is confirmed with
    the previous step's code, so the current code and the next are still unused."""
    factor = second_factor.start_setup(user)
    codes = second_factor.confirm(factor, totp_code(factor, -1))
    assert codes is not None
    return factor, codes


def make_hook(url: str = "https://hooks.example.org/l2annot", events=None, **fields) -> Hook:
    """A webhook asking for `events` (every event by default)."""
    return Hook.objects.create(url=url, events=list(events or Event.values), **fields)


def webhook_route_objects() -> dict[str, Model]:
    """The objects the webhook pages address, for the route-by-role walks."""
    hook = make_hook()
    return {"hook": hook, "delivery": make_delivery(hook)}


def make_delivery(hook: Hook, state: str = Delivery.State.FAILED, answers: int = 1) -> Delivery:
    """A delivery of a closed study to `hook` that ended in `state`, with `answers` logged
    (a 500 each)."""
    job_state = Job.State.FINISHED if state == Delivery.State.DELIVERED else Job.State.FAILED
    delivery = Delivery.objects.create(
        hook=hook,
        event=Event.STUDY_CLOSED,
        payload={"study": 1, "name": "Pilot"},
        state=state,
        attempts=answers,
        job=Job.objects.create(kind=Job.Kind.WEBHOOK, state=job_state),
    )
    for attempt in range(1, answers + 1):
        Answer.objects.create(
            delivery=delivery, attempt=attempt, seconds=0.01, status=500, body="broken"
        )
    return delivery
