"""How many expert grades a study needs, before it is created.

The answer rests on the judge's agreement with the experts: measured on the framework's
studies where one exists (a judge run's verdicts against the experts' unanimous submitted
verdicts, read from the pair tallies: two queries), otherwise an accuracy the person assumes.
The run measured is the one chosen to sample the study by, when one is; else the latest run
with verdicts on those responses. The sample sizes themselves are `core.stats.ppi_planning`'s.

The judge's verdicts are the judge app's data, and that app sits above grading: it registers
the reader of a run's verdicts when it loads (`read_planning_verdicts_with`, called by
judging.apps), so grading never imports it. Without a reader no run is measured.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from core.stats.ppi_planning import (
    ExpertGradesNeeded,
    assumed_judge_agreement,
    expert_grades_needed,
    measured_judge_agreement,
    uncertainty_from_epochs,
)
from grading.models import PairTally
from taxonomy.models import Framework

#: The half-width a setup asks for unless told otherwise: +/- 5 points of a pass rate.
DEFAULT_HALF_WIDTH = 0.05
#: The judge's accuracy assumed when none was measured (a common figure for rubric judges).
DEFAULT_ACCURACY = 0.85
#: The experts' pass rate assumed with it: 0.5 has the largest variance, so the answer is safe.
ASSUMED_PASS_RATE = 0.5
#: Verdicts on unanimous pairs a measured figure needs; fewer, and the assumed one is used.
MIN_MEASURED = 20


@dataclass(frozen=True, slots=True)
class MeasuredRun:
    """The judge run a plan was measured on, as the plan shows it."""

    pk: int
    judge_model: str
    name: str = ""  # the run's one name (JudgeRun.display_name)

    def __str__(self) -> str:
        return self.name or self.judge_model


#: (response, criterion version, epoch, verdict) of one judge verdict on a whole response.
VerdictRow = tuple[int, int, int, bool]
#: The judge run asked for by id (None: the latest with verdicts on some of these responses),
#: and its verdicts on them.
PlanningVerdicts = Callable[[set[int], int | None], tuple[MeasuredRun | None, list[VerdictRow]]]


def _no_judge(responses: set[int], run: int | None) -> tuple[MeasuredRun | None, list[VerdictRow]]:
    return None, []


_planning_verdicts: PlanningVerdicts = _no_judge


def read_planning_verdicts_with(reader: PlanningVerdicts) -> None:
    """Set how plans read the verdicts of the run they measure the judge on (the judge app,
    as it loads)."""
    global _planning_verdicts
    _planning_verdicts = reader


@dataclass(frozen=True, slots=True)
class JudgeFigure:
    """The judge's accuracy a plan rests on, and where it comes from.

    Attributes:
        accuracy: Share of the judge's verdicts that match the experts'.
        n: Verdicts it was measured on (0: assumed).
        run: The judge run measured, or None when assumed.
        sampling_run: The run chosen to sample the study by, which the plan measures (and
            assumes the accuracy when it has too few verdicts to measure); None: the
            framework's latest run was measured.
    """

    accuracy: float
    n: int = 0
    run: MeasuredRun | None = None
    sampling_run: MeasuredRun | None = None


@dataclass(frozen=True, slots=True)
class GradesPlan:
    """About how many responses of each model the experts must grade."""

    needed: ExpertGradesNeeded
    judge: JudgeFigure


def _unanimous_labels(framework: Framework) -> dict[tuple[int, int], bool]:
    """(response, criterion version) -> the experts' verdict, where the submitted verdicts of
    the framework's studies are all the same (a pass or a fail, none not applicable)."""
    rows = PairTally.objects.filter(
        study__framework=framework, split=False, nas=0, levels=0
    ).values_list("study_item__response_id", "criterion_version_id", "passes", "fails")
    return {(r, c): passes > 0 for r, c, passes, fails in rows if (passes > 0) != (fails > 0)}


def _run_verdicts(
    labels: dict[tuple[int, int], bool], run_id: int | None
) -> tuple[MeasuredRun | None, list[VerdictRow]]:
    """Run `run_id` (None: the latest run with verdicts on those responses), and its verdicts
    on their pairs."""
    run, rows = _planning_verdicts({response for response, _ in labels}, run_id)
    return run, [row for row in rows if (row[0], row[1]) in labels]


def _fold_epochs(
    rows: Iterable[VerdictRow],
) -> dict[tuple[int, int], tuple[int, int]]:
    """(response, criterion version) -> (passes, epochs) of the judge's verdicts."""
    folded: dict[tuple[int, int], tuple[int, int]] = {}
    for response, criterion, _epoch, verdict in rows:
        passes, epochs = folded.get((response, criterion), (0, 0))
        folded[(response, criterion)] = (passes + int(verdict), epochs + 1)
    return folded


def plan_expert_grades(
    framework: Framework | None,
    *,
    half_width: float,
    pool: int,
    accuracy: float = DEFAULT_ACCURACY,
    sampling_run: int | None = None,
) -> GradesPlan:
    """How many of a model's ``pool`` judged responses the experts must grade for
    ``+/- half_width`` on its score, uniform and active.

    With at least ``MIN_MEASURED`` verdicts of the framework's latest judge run on pairs the
    experts agreed on, the judge's agreement is measured there (its majority verdict per pair);
    otherwise ``accuracy`` is assumed at a pass rate of one half. With ``sampling_run`` (the
    id of the run the study is sampled by) that run is measured instead of the latest, and
    only it: with too few verdicts, ``accuracy`` is assumed. Active sampling needs the judge's
    uncertainty per response: taken from the measured run's disagreement across epochs (its
    pairs' figures repeated over the pool); without several epochs there is none.
    """
    labels = _unanimous_labels(framework) if framework is not None else {}
    asked = labels or sampling_run is not None
    run, rows = _run_verdicts(labels, sampling_run) if asked else (None, [])
    chosen = run if sampling_run is not None else None
    folded = _fold_epochs(rows)
    uncertainty = None
    if len(folded) >= MIN_MEASURED and run is not None:
        keys = sorted(folded)
        passes = np.array([folded[key][0] for key in keys], dtype=np.float64)
        epochs = np.array([folded[key][1] for key in keys], dtype=np.float64)
        judge = (2 * passes >= epochs).astype(np.float64)
        experts = np.array([float(labels[key]) for key in keys])
        agreement = measured_judge_agreement(experts, judge)
        figure = JudgeFigure(
            accuracy=float((judge == experts).mean()), n=len(keys), run=run, sampling_run=chosen
        )
        if float(epochs.max()) > 1:
            uncertainty = np.resize(uncertainty_from_epochs(passes, epochs, judge), pool)
    else:
        agreement = assumed_judge_agreement(accuracy, ASSUMED_PASS_RATE)
        figure = JudgeFigure(accuracy=accuracy, sampling_run=chosen)
    needed = expert_grades_needed(
        agreement, half_width=half_width, pool=pool, uncertainty=uncertainty
    )
    return GradesPlan(needed=needed, judge=figure)
