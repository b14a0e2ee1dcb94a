"""The annotator pool over time and a study's drift, as the pages show them: read by
`agreement.data.pool`, computed by the pure `core.analysis.pool`."""

from dataclasses import dataclass
from datetime import date

from agreement.data.pool import Person, PoolData, StudyDrift, load_drift, load_pool
from agreement.models import AnalysisSettings
from core.analysis.pool import AnnotatorPool, Figures, pool_figures, time_per_criterion
from grading.models import Study


@dataclass(frozen=True)
class PoolRow:
    person: Person
    overall: Figures
    n_studies: int
    last_month: date | None  # the latest month with a grade


@dataclass(frozen=True)
class AnnotatorHistory:
    person: Person
    overall: Figures
    studies: tuple[tuple[int, str, Figures], ...]  # (study id, name, figures)
    months: tuple[tuple[date, Figures], ...]
    times: tuple[tuple[str, float, int, str], ...]  # core.analysis.pool.time_per_criterion


def _figures(data: PoolData) -> tuple[AnnotatorPool, ...]:
    return pool_figures(
        data.ratings,
        data.grades,
        data.gold,
        n_units=data.n_units,
        n_annotators=len(data.annotators),
    )


def pool_overview() -> list[PoolRow]:
    """Every annotator with a submitted grade, by name, with their figures over all studies."""
    data = load_pool()
    found = _figures(data)
    rows = [
        PoolRow(
            data.annotators[p.annotator],
            p.overall,
            len(p.per_study),
            data.months[p.per_period[-1][0]] if p.per_period else None,
        )
        for p in found
    ]
    return sorted(rows, key=lambda row: row.person.name.casefold())


def annotator_history(annotator_id: int) -> AnnotatorHistory | None:
    """One annotator's figures over every study they graded, per study and per month, and
    their time per criterion; None when they have submitted nothing."""
    data = load_pool(annotator_id)
    index = next((n for n, p in enumerate(data.annotators) if p.pk == annotator_id), None)
    if index is None:
        return None
    found = _figures(data)
    mine = next(p for p in found if p.annotator == index)
    return AnnotatorHistory(
        person=data.annotators[index],
        overall=mine.overall,
        studies=tuple((*data.studies[s], figures) for s, figures in mine.per_study),
        months=tuple((data.months[m], figures) for m, figures in mine.per_period),
        times=time_per_criterion(data.grades, index),
    )


def study_drift(study: Study) -> StudyDrift:
    """The study's agreement week by week, graders named as its agreement page names them."""
    return load_drift(study, blind=not AnalysisSettings.for_study(study).show_annotator_names)
