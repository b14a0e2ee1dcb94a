"""The judge's parts of a study's agreement report, which the judge app gives as it loads
(judging.apps): the judge runs the study's page links to, the judges' 1-5 scales,
calibrations and leaderboards that its downloads and `manage.py agreement_report` write (and
the cache keys they are kept under, so that a download knows whether they are ready), and the
judges' answers a study's dataset holds. Agreement sits below the judge app and does not
import it; without it, a report has none."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.analysis.comparison import RunSummary
from core.analysis.dataset import JudgeAnswer
from core.analysis.export import JudgeScales
from core.analysis.leaderboard import Leaderboard
from grading.models import Study


@dataclass(frozen=True)
class JudgeParts:
    scales: JudgeScales = ()
    calibrations: Sequence[RunSummary] = ()
    leaderboards: Sequence[Leaderboard] = ()


@dataclass(frozen=True)
class JudgeSource:
    runs: Callable[[Study], Sequence[Any]]  # the judge runs (models) the study's page lists
    parts: Callable[[Study], JudgeParts]
    keys: Callable[[Study], Sequence[str]]  # the cache keys of `parts`, one per result
    # Every answer of the study's judge runs on the given responses and criterion versions.
    answers: Callable[[Study, Sequence[int], Sequence[int]], Sequence[JudgeAnswer]]


_source: JudgeSource | None = None


def take_judge_parts_from(source: JudgeSource) -> None:
    global _source
    _source = source


def judge_runs(study: Study) -> Sequence[Any]:
    return _source.runs(study) if _source is not None else []


def judge_parts(study: Study) -> JudgeParts:
    return _source.parts(study) if _source is not None else JudgeParts()


def judge_part_keys(study: Study) -> Sequence[str]:
    return _source.keys(study) if _source is not None else []


def judge_answers(
    study: Study, responses: Sequence[int], criteria: Sequence[int]
) -> Sequence[JudgeAnswer]:
    return _source.answers(study, responses, criteria) if _source is not None else []
