"""A graded demo study and two judge runs on it, for the workbench's pages."""

from grading import services as grading
from grading.models import Assignment, Study, Verdict
from judging.models import JudgeRun, JudgeVerdict
from rubrics.models import Response
from tests.factories import demo_benchmark_and_graders
from tests.grading.factories import complete, rubric_of

DISSENTER = 2  # the third expert fails every universal criterion; the majority passes all


def graded_demo_study(responses: int = 8) -> Study:
    """Three experts grade `responses` demo responses: all pass, but the third fails every
    universal criterion (with a rationale), so the majority passes every unit."""
    framework, graders = demo_benchmark_and_graders(3)
    study = grading.create_study(
        name="Pilot",
        framework=framework,
        responses=list(Response.objects.order_by("pk")[:responses]),
        annotators=graders,
        overlap=3,
        seed=1,
        require_rationale_on_fail=False,
    )
    grading.assign_study(study)
    for index, grader in enumerate(graders):
        while (assignment := grading.claim_next(study, grader)) is not None:
            for line in assignment.study_item.rubric_version.effective_rubric():
                if not line.applicable:
                    continue
                fails = index == DISSENTER and line.layer == "universal"
                grading.save_grade(
                    assignment,
                    line.version.pk,
                    verdict=Verdict.FAIL if fails else Verdict.PASS,
                    rationale=f"reason number {index}",
                    by=grader,
                )
            for item in study.likert_items.all():
                grading.save_likert(assignment, item.pk, 4, by=grader)
            grading.submit(assignment, by=assignment.annotator)
    return study


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


def disagreeing_run(study_id: int) -> JudgeRun:
    """For the route walk: the study's first assignment submitted with every criterion passed,
    and a run that fails every one of them, so each is in the run's triage queue."""
    assignment = Assignment.objects.filter(study_item__study_id=study_id).order_by("pk").first()
    assert assignment is not None
    complete(assignment, assignment.annotator)
    grading.submit(assignment, by=assignment.annotator)
    run = JudgeRun.objects.create(judge_model="a judge")
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
