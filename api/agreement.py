"""Agreement, judge calibration and the model leaderboard of a study, as JSON: actions on the
studies resource, read with Action.VIEW_BENCHMARK (never by annotators).

The study report is core.analysis.export.report_to_dict, the same document as the JSON
download. The calibration report and the leaderboard are frozen dataclasses of the pure
statistics core; `as_json` turns any of them into JSON (fields by name, then the properties that
compute one value, such as an accuracy's `value` or a leaderboard row's `gap`; tuples and arrays
as lists, a NaN as null), so a field added to a report appears here without a change."""

import dataclasses
import math
from dataclasses import replace
from typing import Any

import numpy as np
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from agreement.pool import study_drift
from agreement.services import final_labels, study_report
from api import schema
from core.analysis.export import (
    judge_calibration_rows,
    judge_turn_row,
    labels_to_dict,
    report_to_dict,
)
from grading.models import Study
from judging.calibration import (
    judge_calibration_summary,
    judge_report,
    judge_scale_report,
    study_leaderboard,
)
from judging.data import study_run
from judging.models import JudgeRun


def as_json(value: Any) -> Any:
    """A report (nested frozen dataclasses, numpy values) as JSON-ready data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {f.name: as_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return data | computed(value)
    if isinstance(value, np.ndarray):
        return as_json(value.tolist())
    if isinstance(value, np.generic):
        return as_json(value.item())
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {str(k): as_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [as_json(v) for v in value]
    return value


SCALARS = (type(None), bool, int, float, np.generic)


def computed(report: Any) -> dict[str, Any]:
    """A dataclass's public properties that compute one value (a proportion's `value`, a
    leaderboard row's `gap`, a group's `mean_accuracy_gap`); properties that regroup other
    fields (`groups`) are left out, the fields already carry them."""
    values = {}
    for name in dir(type(report)):
        if name.startswith("_") or not isinstance(getattr(type(report), name), property):
            continue
        value = getattr(report, name)
        if isinstance(value, SCALARS):
            values[name] = as_json(value)
    return values


REPORT_RESPONSES = {
    200: OpenApiTypes.OBJECT,
    401: schema.UNAUTHENTICATED,
    403: schema.FORBIDDEN,
    404: schema.NOT_FOUND,
}
WITHOUT_SINGLE = OpenApiParameter(
    "without_single",
    OpenApiTypes.BOOL,
    description="true: leave out the labels resting on a single expert's verdict (`single`).",
)
JUDGE = OpenApiParameter(
    "judge", OpenApiTypes.INT, description="A judge run id: adds the judge's scores."
)


def judge_run(study: Study, raw: Any) -> JudgeRun | None:
    """The study's judge run `raw` (judging.data.study_run): a run of another study, or one
    that judged only the study's gold checks, is not found."""
    if raw is None:
        return None
    if not str(raw).isdecimal():
        raise exceptions.ValidationError({"judge": ["A judge run id."]})
    run = study_run(study, int(raw))
    if run is None:
        raise exceptions.NotFound("No such judge run in this study.")
    return run


class AgreementActions:
    """Mixed into the studies viewset: /studies/{id}/agreement/, .../drift/, .../leaderboard/,
    .../judges/{run}/calibration/."""

    @extend_schema(responses=REPORT_RESPONSES)
    @action(detail=True, methods=["get"])
    def agreement(self, request: Request, pk: str) -> Response:
        """Inter-annotator agreement of the study's submitted grades (report_to_dict)."""
        study = self.get_object()  # type: ignore[attr-defined]
        return Response(report_to_dict(study.name, study_report(study)))

    @extend_schema(responses=REPORT_RESPONSES)
    @action(detail=True, methods=["get"])
    def drift(self, request: Request, pk: str) -> Response:
        """The study's agreement week by week (core.analysis.pool.drift): `periods` (the Monday
        of each week), the week's alpha, and per week the share of agreeing pairs with its n,
        overall, per criterion code and per annotator (named as the agreement report names
        them)."""
        study = self.get_object()  # type: ignore[attr-defined]
        return Response(as_json(study_drift(study).drift))

    @extend_schema(parameters=[WITHOUT_SINGLE], responses=REPORT_RESPONSES | {400: schema.INVALID})
    @action(detail=True, methods=["get"], url_path="final-labels")
    def final_labels(self, request: Request, pk: str) -> Response:
        """Each graded (response, criterion) with the experts' verdicts and rationales, the gold
        verdict, how the label was reached (adjudicated, unanimous, majority, single, tied, not
        applicable), who decided and when (core.analysis.labels)."""
        study = self.get_object()  # type: ignore[attr-defined]
        raw = request.query_params.get("without_single", "false").lower()
        if raw not in ("true", "false", "1", "0"):
            raise exceptions.ValidationError({"without_single": ["Must be true or false."]})
        single = raw in ("false", "0")
        return Response(labels_to_dict(study.name, final_labels(study, single=single)))

    @extend_schema(parameters=[JUDGE], responses=REPORT_RESPONSES | {400: schema.INVALID})
    @action(detail=True, methods=["get"])
    def leaderboard(self, request: Request, pk: str) -> Response:
        """Model scores by experts (and by a judge run with `?judge=`, each row then with its
        prediction-powered score in `ppi`), every score with its interval and n."""
        study = self.get_object()  # type: ignore[attr-defined]
        run = judge_run(study, request.query_params.get("judge"))
        return Response(as_json(study_leaderboard(study, run)))

    @extend_schema(responses=REPORT_RESPONSES)
    @action(detail=True, methods=["get"], url_path=r"judges/(?P<run>[^/]+)/calibration")
    def calibration(self, request: Request, pk: str, run: str) -> Response:
        """The judge of a run against the study's experts (judging.calibration.judge_report),
        and under `figures` its calibration overall and per criterion as flat rows, every
        figure with its interval and n (the same rows as the downloads); under `turn figures`
        the turn-level criteria judged turn by turn (each tutor turn's verdict against the
        experts' majority on it)."""
        study = self.get_object()  # type: ignore[attr-defined]
        if not run.isdecimal():  # any segment reaches the view: a malformed id is a JSON 404
            raise exceptions.NotFound("No such judge run.")
        judge = judge_run(study, run)
        assert judge is not None  # judge_run raises NotFound for an unknown run
        report = replace(judge_report(study, judge), scales=judge_scale_report(study, judge))
        figures = judge_calibration_rows(judge_calibration_summary(study, judge))
        turns = [judge_turn_row(judge, turn) for turn in report.turns]
        return Response(
            as_json(report) | {"figures": as_json(figures), "turn figures": as_json(turns)}
        )
