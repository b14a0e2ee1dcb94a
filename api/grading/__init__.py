"""Studies, assignments, grades and gold verdicts.

Blindness, as in the browser: an annotator never sees a model's name, another grader's grades
or a judge's verdicts. Here that means:
- studies: read by every role holding *View tasks...*, *Grade* or *Run grading studies*; an
  annotator (only *Grade*) sees only the studies whose pool they are in, and no counts of
  other graders' work;
- assignments and grades: read by *Grade* or *Run grading studies*; whoever cannot run studies
  sees only their own (`visible()`): another grader's is a 404, as if it did not exist;
- a grade is written only by the grader of its assignment, through grading.services.save_grade,
  so another grader's assignment (404), a closed study (409) or a criterion outside the frozen
  rubric (400) is refused as in the browser (api/exceptions.py maps the service's errors);
- the response inside an assignment is shown without model name, family or version;
- gold verdicts: *Run grading studies* only.
"""

from api.grading.assignments import AssignmentViewSet
from api.grading.gold import GoldVerdictViewSet
from api.grading.grades import GradeViewSet, TurnGradeViewSet
from api.grading.studies import StudyViewSet

__all__ = [
    "AssignmentViewSet",
    "GoldVerdictViewSet",
    "GradeViewSet",
    "StudyViewSet",
    "TurnGradeViewSet",
]
