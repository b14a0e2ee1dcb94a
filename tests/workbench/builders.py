"""A graded demo study and two judge runs on it, for the workbench's pages."""

from grading import services as grading
from grading.models import Study, Verdict
from judging.models import JudgeRun, JudgeVerdict
from rubrics.models import Response
from tests.factories import demo_benchmark_and_graders

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
                    rationale=f"expert {grader.username} explains",
                    by=grader,
                )
            for item in study.likert_items.all():
                grading.save_likert(assignment, item.pk, 4, by=grader)
            grading.submit(assignment, by=assignment.annotator)
    return study


def judge_run(study: Study, prompt: str, *, fails_universal: bool) -> JudgeRun:
    """A run that passes every unit, or fails the universal ones (against the majority)."""
    run = JudgeRun.objects.create(judge_model="judge-m", prompt_version=prompt)
    JudgeVerdict.objects.bulk_create(
        JudgeVerdict(
            run=run,
            response=item.response,
            criterion_version=line.version,
            verdict=not (fails_universal and line.layer == "universal"),
            rationale=f"judge {prompt} reasons about {line.version.criterion.code}",
        )
        for item in study.items.select_related("response", "rubric_version")
        for line in item.rubric_version.effective_rubric()
        if line.applicable
    )
    return run
