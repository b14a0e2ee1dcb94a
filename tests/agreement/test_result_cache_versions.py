"""Cached agreement results are keyed by the code that computes them: results pickled by an
earlier release, whose classes may lack fields the pages now read, are never loaded."""

import inspect
from pathlib import Path

import pytest
from django.core.cache import cache
from django.urls import reverse

from accounts.roles import Role
from agreement import cache as results
from agreement.models import AnalysisSettings
from core.analysis.calibration import CalibrationReport
from core.analysis.leaderboard import Leaderboard
from core.analysis.reports import StudyAgreement
from core.stats.ppi import PPIMean
from tests.factories import study

pytestmark = pytest.mark.django_db


def test_the_fingerprint_follows_the_sources_contents(tmp_path):
    first, second = tmp_path / "reports.py", tmp_path / "results.py"
    first.write_text("class Report: pass\n")
    second.write_text("class Result: pass\n")
    before = results.code_fingerprint([first, second])
    assert results.code_fingerprint([second, first]) == before
    first.write_text("class Report:\n    unreliable_reason = ''\n")
    assert results.code_fingerprint([first, second]) != before


def test_a_result_stored_by_other_code_is_not_read(make_user, client_as, monkeypatch):
    found = study([make_user(Role.ANNOTATOR) for _ in range(2)], responses=1, overlap=2)
    settings = AnalysisSettings.for_study(found)
    monkeypatch.setattr(results, "CODE_VERSION", "old-release")
    old_key = results.report_key(found, settings)
    cache.set(old_key, object(), 60)  # what the pages could not read
    monkeypatch.undo()

    assert results.report_key(found, settings) != old_key
    page = client_as(Role.MAINTAINER).get(reverse("agreement:study", args=[found.pk]))
    assert page.status_code == 200


def test_the_fingerprint_reads_the_modules_that_define_the_cached_results():
    sources = {path.resolve() for path in results.RESULT_SOURCES}
    for cls in (StudyAgreement, CalibrationReport, Leaderboard, PPIMean):
        assert Path(inspect.getsourcefile(cls) or "").resolve() in sources, cls
