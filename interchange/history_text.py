"""How the histories of what an import writes read its comments (interchange.apps registers
them, audit.history): the stored messages' templates, and a task's changes, listed in English
before, by the names an import gives them (interchange.importers.writing)."""

import re

from audit import history
from interchange.importers import benchmark, responses, writing
from l2annot.shown import message_text

_TASK_CHANGED = re.compile(
    r"Imported from an L2-Bench file\. Changed: (?P<changes>.+)\.", re.DOTALL
)


def _task_changed(found: re.Match[str]) -> str:
    named = [writing.TASK_CHANGES.get(name, name) for name in found["changes"].split(", ")]
    return message_text(writing.CHANGED_COMMENT.fill(changes=named))


def register() -> None:
    from rubrics.models import Criterion, Response, Task
    from taxonomy.models import SubCompetency

    history.register(
        Task,
        comments=[(_TASK_CHANGED, _task_changed)],
        messages=[writing.COMMENT, writing.PUBLISHED_COMMENT],
    )
    history.register(Criterion, messages=[writing.COMMENT])
    history.register(Response, messages=[responses.COMMENT, responses.CHANGE_COMMENT])
    history.register(SubCompetency, messages=[benchmark.CREATED_SUB_COMPETENCY])
