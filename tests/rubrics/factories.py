"""Rubric objects for tests that walk URLs (the route-by-role table) rather than test rules."""

from typing import Any

from rubrics import services
from rubrics.models import Task
from taxonomy.models import SubCompetency

ROUTE_TASK_KEY = "route-1"


def route_objects(sub: SubCompetency) -> dict[str, Any]:
    """A draft task under `sub` with a resource and a criterion of its own, keyed by the names
    the rubric routes use (`rubrics:<name>_<action>`)."""
    task = services.create_task(sub, ROUTE_TASK_KEY, "Plan a lesson.", None)
    return {
        "task": task,
        "resource": services.add_resource(task, "Handout", None, text="Read this."),
        "criterion": services.add_criterion(task, "Gives a time plan.", 2, None),
        "consensus": sub,
    }


def route_task() -> Task:
    return Task.objects.get(key=ROUTE_TASK_KEY)


# What a `<name>_create` route with a pk creates its object under.
CREATE_UNDER = {
    "resource": route_task,
    "criterion": route_task,
    "consensus": lambda: SubCompetency.objects.get(code="01b"),
}
