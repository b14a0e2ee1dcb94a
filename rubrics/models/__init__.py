from rubrics.models.criteria import (
    LAYER_RANK,
    Criterion,
    CriterionVersion,
    EffectiveCriterion,
    Layer,
    ScalePoint,
)
from rubrics.models.responses import Response, Turn
from rubrics.models.rubric import RubricItem, RubricVersion
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
