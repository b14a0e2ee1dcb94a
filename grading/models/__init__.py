"""Grading studies: who grades which response against which frozen rubric, and what they said.

Grades point at CriterionVersion rows of a published RubricVersion, never at the live rubric, so
later edits to a criterion cannot change what a grade meant. Grades and ratings are protected
from deletion, and a change after submission first copies the old value into a revision row.

One module per part: `studies` (studies, pools, expertise, questions, items, assignments),
`grades` (grades, turn grades, ratings and their revisions), `adjudication` (gold verdicts,
adjudication requests), `flags` and `results` (pair tallies, the results revision).
"""

from grading.models.adjudication import (
    AdjudicationRequest,
    Confidence,
    GoldVerdict,
    GoldVerdictRevision,
)
from grading.models.flags import (
    Flag,
    FlagQuerySet,
)
from grading.models.grades import (
    Grade,
    GradeRevision,
    LikertRating,
    TurnGrade,
    TurnGradeRevision,
    Verdict,
)
from grading.models.results import (
    PairTally,
    ResultsRevision,
    ResultsRevisionQuerySet,
)
from grading.models.studies import (
    DEFAULT_LIKERT_PROMPTS,
    QUESTION_KEY_LENGTH,
    SPLIT_REASONS,
    Assignment,
    AssignmentQuerySet,
    Escalation,
    Expertise,
    LikertItem,
    PoolMember,
    Study,
    StudyItem,
    StudyItemQuerySet,
    StudyQuerySet,
    check_graders,
    graders,
    new_seed,
    question_keys,
    shown_likert_text,
    split_reason_label,
)

__all__ = [
    "DEFAULT_LIKERT_PROMPTS",
    "QUESTION_KEY_LENGTH",
    "SPLIT_REASONS",
    "AdjudicationRequest",
    "Assignment",
    "AssignmentQuerySet",
    "Confidence",
    "Escalation",
    "Expertise",
    "Flag",
    "FlagQuerySet",
    "GoldVerdict",
    "GoldVerdictRevision",
    "Grade",
    "GradeRevision",
    "LikertItem",
    "LikertRating",
    "PairTally",
    "PoolMember",
    "ResultsRevision",
    "ResultsRevisionQuerySet",
    "Study",
    "StudyItem",
    "StudyItemQuerySet",
    "StudyQuerySet",
    "TurnGrade",
    "TurnGradeRevision",
    "Verdict",
    "check_graders",
    "graders",
    "new_seed",
    "question_keys",
    "shown_likert_text",
    "split_reason_label",
]
