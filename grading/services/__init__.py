"""Operations on studies that span several models, each in one transaction, by what they do:

- `setup`: building a study (pool, 1-5 questions, responses) and planning who grades what;
- `claiming`: an annotator's next assignment, and why there is none;
- `grades`: saving verdicts, levels, rationales and ratings, and submitting;
- `progress`: the queues and progress tables (reads only);
- `planning`: how many expert grades a study needs, from the judge's agreement;
- `sampling`: which responses a study sampled for the judge's scores grades;
- `changes`: a study's status, pool, settings and questions after creation;
- `refusals`: what the grading rules refuse, and the ownership and open-study checks.

The names the pages, the API, the importers and the commands use are importable from here.
"""

from grading.models import DEFAULT_LIKERT_PROMPTS
from grading.services.changes import (
    SETTINGS_FIELDS,
    add_annotators,
    remove_annotator,
    set_likert_prompts,
    set_split_reasons,
    set_status,
    update_settings,
)
from grading.services.claiming import (
    IDLE_CAP,
    claim_next,
    start,
    why_nothing_to_grade,
)
from grading.services.grades import (
    CRITERION_IDLE_CAP,
    CRITERION_TIME_PER_SAVE_CAP,
    answer_label,
    is_adverse,
    locked_for_saves,
    missing_answers,
    parse_level,
    save_grade,
    save_grade_line,
    save_likert,
    save_turn_grade,
    submit,
    turn_label,
    tutor_turns,
)
from grading.services.planning import (
    DEFAULT_ACCURACY,
    DEFAULT_HALF_WIDTH,
    GradesPlan,
    plan_expert_grades,
)
from grading.services.progress import (
    OVERDUE_IDLE_DAYS,
    annotator_queue,
    criterion_times,
    overdue_assignments,
    progress_per_annotator,
    progress_per_criterion,
    progress_per_task,
    studies_with_progress,
)
from grading.services.refusals import (
    SAVE_REFUSALS,
    GradingError,
    Incomplete,
    NotYourAssignment,
    QuestionsAnswered,
    SetAside,
    StudyClosed,
    SubmittedIncomplete,
)
from grading.services.sampling import SampledResponses, draw_for_judge
from grading.services.setup import (
    CREATION_FIELDS,
    add_gold_checks_and_assign,
    add_responses,
    assign_study,
    create_and_assign_study,
    create_study,
    preview_assignment,
)

__all__ = [
    "CREATION_FIELDS",
    "CRITERION_IDLE_CAP",
    "CRITERION_TIME_PER_SAVE_CAP",
    "DEFAULT_ACCURACY",
    "DEFAULT_HALF_WIDTH",
    "DEFAULT_LIKERT_PROMPTS",
    "IDLE_CAP",
    "OVERDUE_IDLE_DAYS",
    "SAVE_REFUSALS",
    "SETTINGS_FIELDS",
    "GradesPlan",
    "GradingError",
    "Incomplete",
    "NotYourAssignment",
    "QuestionsAnswered",
    "SampledResponses",
    "SetAside",
    "StudyClosed",
    "SubmittedIncomplete",
    "add_annotators",
    "add_gold_checks_and_assign",
    "add_responses",
    "annotator_queue",
    "answer_label",
    "assign_study",
    "claim_next",
    "create_and_assign_study",
    "create_study",
    "criterion_times",
    "draw_for_judge",
    "is_adverse",
    "locked_for_saves",
    "missing_answers",
    "overdue_assignments",
    "parse_level",
    "plan_expert_grades",
    "preview_assignment",
    "progress_per_annotator",
    "progress_per_criterion",
    "progress_per_task",
    "remove_annotator",
    "save_grade",
    "save_grade_line",
    "save_likert",
    "save_turn_grade",
    "set_likert_prompts",
    "set_split_reasons",
    "set_status",
    "start",
    "studies_with_progress",
    "submit",
    "turn_label",
    "tutor_turns",
    "update_settings",
    "why_nothing_to_grade",
]
