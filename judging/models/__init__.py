"""What an LLM judge said about model responses, kept apart from the experts' grades so the two
can be compared (judge calibration) without one ever overwriting the other."""

from judging.models.prompts import PromptFrozen, PromptTemplate, PromptVersion
from judging.models.runs import (
    JudgeBatch,
    JudgeConfig,
    JudgeRun,
    ModelPrice,
    ModelPriceQuerySet,
    StatedProbabilities,
)
from judging.models.verdicts import (
    JudgeRating,
    JudgeVerdict,
    JudgeVerdictQuerySet,
    TriageResolution,
)

__all__ = [
    "JudgeBatch",
    "JudgeConfig",
    "JudgeRating",
    "JudgeRun",
    "JudgeVerdict",
    "JudgeVerdictQuerySet",
    "ModelPrice",
    "ModelPriceQuerySet",
    "PromptFrozen",
    "PromptTemplate",
    "PromptVersion",
    "StatedProbabilities",
    "TriageResolution",
]
