"""Reading a study's ratings out of the database for the pure report code: the only package of
the app that queries the grades, 1-5 ratings, verdicts and judge ratings a report is computed
from, and the state of each that keys the report cache (`agreement.cache`).

The grades come back as one row per rating (no ORM objects), so a 100k-grade study costs one
query for the ratings plus one per lookup table, never one per grade.

Every query here reads from `reports_alias()`: the read replica when one is configured
(docs/deploy.md), so heavy reports do not load the primary. The states that key the report
cache are read from the same database as the ratings (and so is the study's results revision,
in agreement.cache), so a replica that lags gives a report that is a few seconds old, never one
cached under a newer state than its data.

One module per side: `experts` (grades, turn grades and 1-5 ratings, disagreements, lookup
tables), `judges` (judge runs, their verdicts and ratings) and `units` (one unit's grades and
verdicts, the final labels). The names the services, pages, exports and the cache read are
importable from here.
"""

from agreement.data.experts import (
    disagreements,
    last_graded_at,
    load_ordinal_ratings,
    load_study_ratings,
    load_turn_ratings,
    report_context,
    scales_state,
    submitted_grade_count,
    submitted_grades,
)
from agreement.data.judges import (
    calibration_runs,
    gold_state,
    judge_runs_for,
    load_judge_answers,
    load_judge_data,
    load_judged_responses,
    load_runs_data,
    load_scale_ratings,
    load_scale_scores,
    load_turn_judge,
    rating_runs_for,
    ratings_state,
    study_run,
    unmatched_questions,
    verdicts_state,
)
from agreement.data.units import (
    UnitDetail,
    load_label_units,
    load_unit_details,
)

__all__ = [
    "UnitDetail",
    "calibration_runs",
    "disagreements",
    "gold_state",
    "judge_runs_for",
    "last_graded_at",
    "load_judge_answers",
    "load_judge_data",
    "load_judged_responses",
    "load_label_units",
    "load_ordinal_ratings",
    "load_runs_data",
    "load_scale_ratings",
    "load_scale_scores",
    "load_study_ratings",
    "load_turn_judge",
    "load_turn_ratings",
    "load_unit_details",
    "rating_runs_for",
    "ratings_state",
    "report_context",
    "scales_state",
    "study_run",
    "submitted_grade_count",
    "submitted_grades",
    "unmatched_questions",
    "verdicts_state",
]
