from rubrics.models.criteria import (
    LAYER_RANK,
    Criterion,
    CriterionVersion,
    EffectiveCriterion,
    Layer,
    ScalePoint,
)
from rubrics.models.responses import Response, Turn
from rubrics.models.rubric import (
    PublishedContextValue,
    PublishedResource,
    RubricItem,
    RubricVersion,
)
from rubrics.models.tasks import (
    Review,
    Task,
    TaskContextValue,
    TaskResource,
    UniversalExclusion,
)

__all__ = [
    "LAYER_RANK",
    "Criterion",
    "CriterionVersion",
    "EffectiveCriterion",
    "Layer",
    "PublishedContextValue",
    "PublishedResource",
    "Response",
    "Review",
    "RubricItem",
    "RubricVersion",
    "ScalePoint",
    "Task",
    "TaskContextValue",
    "TaskResource",
    "Turn",
    "UniversalExclusion",
]
