"""What most judge tests start from: a demo study of two responses (built once per module, each
test's changes rolled back), its own judge logs and Inspect cache, and a maintainer's client."""

import pytest

from accounts.roles import Role
from grading.models import Study
from tests.factories import demo_study


@pytest.fixture(scope="module")
def built_study(module_db) -> int:
    return demo_study(2).pk


@pytest.fixture
def study(built_study, db) -> Study:
    return Study.objects.get(pk=built_study)


@pytest.fixture
def judge_files(settings, tmp_path) -> None:
    """The test's own `.eval` logs and Inspect cache: a cached answer would skip its call."""
    settings.JUDGE_LOG_DIR = tmp_path / "logs"
    settings.JUDGE_CACHE_DIR = tmp_path / "cache"


@pytest.fixture
def maintainer(client_as):
    return client_as(Role.MAINTAINER)
