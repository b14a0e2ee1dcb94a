"""One object of every API resource, for tests that walk every route with every role."""

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
