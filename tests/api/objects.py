"""One object of every API resource, for tests that walk every route with every role."""

from django.db.models import Model

from accounts.models import User
from grading import services
from grading.adjudication import record_gold_verdict
from grading.models import Assignment
from judging.models import JudgeRun, JudgeVerdict
from rubrics.models import Criterion, Response, Task
from tests.grading import factories


def benchmark_objects() -> dict[str, object]:
    """A published task with criteria, a response to it and a judge verdict on the response,
    in the test framework (tests.taxonomy.factories.make_framework)."""
    task = factories.published_task(factories.framework())
    response = factories.response(task, model="secret-model-x")
    version = task.criteria.first().versions.get()
    run = JudgeRun.objects.create(judge_model="judge-1")
    verdict = JudgeVerdict.objects.create(
        run=run, response=response, criterion_version=version, verdict=True
    )
    return {"task": task, "response": response, "run": run, "verdict": verdict}


def first_task() -> Task:
    return Task.objects.order_by("pk").first()


def first_criterion() -> Criterion:
    return Criterion.objects.order_by("pk").first()


def first_response() -> Response:
    return Response.objects.order_by("pk").first()


def grading_objects(grader: User) -> dict[str, object]:
    """A study of one response (from benchmark_objects) graded by `grader` alone: their
    assignment, one grade of theirs, and a gold verdict on the same criterion."""
    response = first_response()
    study = services.create_study(
        name="Permissions study",
        framework=response.task.framework,
        responses=[response],
        annotators=[grader],
        overlap=1,
    )
    services.assign_study(study)
    assignment = Assignment.objects.get(study_item__study=study)
    version = factories.rubric_of(assignment)[0]
    grade = services.save_grade(assignment, version.pk, verdict="pass", rationale="", by=grader)
    gold = record_gold_verdict(
        assignment.study_item, version.pk, verdict="pass", note="", by=grader, base_revision=0
    )
    return {"study": study, "assignment": assignment, "grade": grade, "gold": gold}


def first(model: type[Model]) -> Model:
    return model._default_manager.order_by("pk").first()
