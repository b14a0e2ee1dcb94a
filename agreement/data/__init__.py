"""Reading a study's ratings out of the database for the pure report code: the only package of
the app that queries the grades, 1-5 ratings and gold verdicts a report is computed from, and
the state of each that keys the report cache (`agreement.cache`). The judge's side (its runs,
verdicts and ratings lined up with the same units) is the judge app's (`judging.data`).

The grades come back as one row per rating (no ORM objects), so a 100k-grade study costs one
query for the ratings plus one per lookup table, never one per grade.

Every query here reads from `reports_alias()`: the read replica when one is configured
(docs/deploy.md), so heavy reports do not load the primary. The states that key the report
cache are read from the same database as the ratings (and so is the study's results revision,
in agreement.cache), so a replica that lags gives a report that is a few seconds old, never one
cached under a newer state than its data.

`experts` (grades, turn grades and 1-5 ratings, disagreements, lookup tables) and `units`
(the final labels). The names the services, pages, exports and the cache read are importable
from here.
"""

from agreement.data.experts import (
    disagreements,
    last_graded_at,
    load_ordinal_ratings,
    load_scale_ratings,
    load_study_ratings,
    load_turn_ratings,
    report_context,
    scales_state,
    submitted_grade_count,
    submitted_grades,
)
from agreement.data.units import load_label_units

__all__ = [
    "disagreements",
    "last_graded_at",
    "load_label_units",
    "load_ordinal_ratings",
    "load_scale_ratings",
    "load_study_ratings",
    "load_turn_ratings",
    "report_context",
    "scales_state",
    "submitted_grade_count",
    "submitted_grades",
]
