"""Small published tasks, responses and studies for grading tests (generated, not L2-Bench data)."""

from collections.abc import Sequence
from itertools import count

from accounts.models import User
from accounts.roles import Role
from grading import services
from grading.models import Assignment, Study
from rubrics import publishing
from rubrics import services as rubric_services
from rubrics.models import (
    Criterion,
    CriterionVersion,
    Response,
    Task,
    Turn,
)
from taxonomy.models import Framework, SubCompetency
from tests.taxonomy.factories import make_framework

_serial = count(1)


def framework() -> Framework:
    return Framework.objects.first() or make_framework()


def published_task(
    fw: Framework | None = None,
    criteria: int = 3,
    language: str = "English",
    resources: Sequence[str] = (),
) -> Task:
    """A task with `criteria` task criteria (the last one a penalty), a markdown resource of
    each title in `resources`, and rubric version 1."""
    fw = fw or framework()
    sub = SubCompetency.objects.filter(competency__framework=fw).first()
    key = f"t{next(_serial)}"
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
        CriterionVersion.objects.create(
            criterion=criterion,
            number=1,
            wording=f"The activity meets expectation {n} of {key}.",
            passes=f"Guidance: what passes {key}-{n:02d}.",
            weight=-2 if n == criteria else 3,
        )
    for title in resources:
        rubric_services.add_resource(task, title, None, text=f"Read this ({title}).")
    publishing.publish([task], None)
    return task


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
    **options: object,
) -> Study:
    answers = [response(published_task(resources=resources)) for _ in range(responses)]
    return services.create_study(
        name=f"Study {next(_serial)}",
        framework=framework(),
        responses=answers,
        annotators=annotators,
        overlap=overlap,
        **options,
    )


def rubric_of(assignment) -> list[CriterionVersion]:  # type: ignore[no-untyped-def]
    return [line.version for line in assignment.study_item.rubric_version.effective_rubric()]


def complete(assignment, by: User, verdict: str = "pass") -> None:  # type: ignore[no-untyped-def]
    """Answer every criterion and Likert item of `assignment` (not submitted)."""
    for version in rubric_of(assignment):
        services.save_grade(assignment, version.pk, verdict=verdict, rationale="ok", by=by)
    for item in assignment.study_item.study.likert_items.all():
        services.save_likert(assignment, item.pk, 4, by=by)


def route_kwargs(params: set[str], user: User | None, make_user) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """URL arguments for the route-by-role walk: `user`'s own assignment in a new study."""
    grader = user or make_user(Role.ANNOTATOR)
    new = study([grader], responses=1, overlap=1, resources=["Handout"])
    services.assign_study(new)
    assignment = new.items.get().assignments.get()
    values = {
        "study_id": new.pk,
        "study_item_id": assignment.study_item_id,
        "assignment_id": assignment.pk,
        "criterion_version_id": rubric_of(assignment)[0].pk,
        "likert_item_id": new.likert_items.first().pk,
        "resource_id": assignment.study_item.rubric_version.resources.get().pk,
    }
    return {name: values[name] for name in params}


def graded_study(graders: list[User], verdicts: list[str], responses: int = 2, **options: object):  # type: ignore[no-untyped-def]
    """A study where each grader submits every response, grader i giving verdicts[i] on every
    criterion: with verdicts that differ, every (response, criterion) pair disagrees."""
    new = study(graders, responses=responses, overlap=len(graders), **options)
    services.assign_study(new)
    for grader, verdict in zip(graders, verdicts, strict=True):
        for assignment in Assignment.objects.filter(study_item__study=new, annotator=grader):
            complete(assignment, grader, verdict)
            services.submit(assignment, by=assignment.annotator)
    return new
