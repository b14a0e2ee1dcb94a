"""The one cache of agreement results.

Every result (the study report; the judge app's calibrations, leaderboards, 1-5 scales,
comparisons and triage, with keys of their own in `judging.calibration`) is stored under a
key made of the state of the data it was computed from (`agreement.data`) and of the study's
analysis settings (`study_part`): a new or changed grade, verdict, rating or setting (or new
code computing the results) makes a new key, so nothing is ever invalidated by hand and an old
entry simply expires. The cache itself is Django's default cache, a database table shared by
the web processes and the worker.
"""

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path
from threading import Lock
from typing import Any, cast

from django.core.cache import cache

from agreement.data import scales_state
from agreement.models import AnalysisSettings
from grading.models import ResultsRevision, Study
from l2annot.db_routers import reports_alias

CACHE_SECONDS = 24 * 3600


def code_fingerprint(files: Iterable[Path]) -> str:
    """A short hash of these source files' contents."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


# Results are stored pickled: a result computed by other code (an upgrade that adds a field to
# a report, renames a class) would load as an object the pages cannot read. Every key names the
# code that defines and computes the results, so a new release never reads an old one's.
_CORE = Path(__file__).resolve().parent.parent / "core"
#: The sources of the cached results: the pure statistics, the reports composed from them and
#: the scoring rules they follow.
RESULT_SOURCES = sorted(
    [*(_CORE / "stats").glob("*.py"), *(_CORE / "analysis").glob("*.py"), _CORE / "scoring.py"]
)
CODE_VERSION = code_fingerprint(RESULT_SOURCES)


def study_part(study: Study, settings: AnalysisSettings) -> str:
    revision = ResultsRevision.objects.using(reports_alias()).of(study.pk)
    return (
        f"{CODE_VERSION}:{study.pk}:{revision}:{settings.validation_threshold}:{settings.minimum_units}:"
        f"{settings.resamples}:"
        f"{settings.seed}:{settings.show_annotator_names}:{settings.epsilon}:{scales_state(study)}"
    )


def report_key(study: Study, settings: AnalysisSettings) -> str:
    return f"agreement:{study_part(study, settings)}"


# The last results this process read are kept in it as well: the result of a large study is
# tens of thousands of frozen objects, and unpickling them from the shared cache took seconds
# on every visit (a thousand-criterion judge calibration, 2.5 s). A key names the state of the
# data, so a kept result is never stale; it is used while the shared cache still holds its
# key (a query that reads no value), so clearing or expiring the shared entry drops it too.
# The oldest is dropped beyond LOCAL_RESULTS.
LOCAL_RESULTS = 8
_local: OrderedDict[str, object] = OrderedDict()
_local_lock = Lock()


def _remember(key: str, result: object) -> None:
    with _local_lock:
        _local[key] = result
        _local.move_to_end(key)
        while len(_local) > LOCAL_RESULTS:
            _local.popitem(last=False)


def _recall(key: str) -> Any:
    with _local_lock:
        result = _local.get(key)
        if result is not None:
            _local.move_to_end(key)
    if result is not None:
        if cache.has_key(key):
            return result
        with _local_lock:  # the shared entry expired or was cleared: so is this one
            _local.pop(key, None)
        return None
    result = cache.get(key)
    if result is not None:
        _remember(key, result)
    return result


def stored(keys: Iterable[str]) -> int:
    """How many of `keys` the shared cache holds (without reading their results)."""
    return sum(cache.has_key(key) for key in keys)


def cached[T](key: str) -> T | None:
    """The result stored under `key`, or None when it has not been computed yet."""
    return cast(T | None, _recall(key))


def get_or_compute[T](key: str, compute: Callable[[], T]) -> T:
    """The result stored under `key`, computed and stored first if it is not there."""
    result = cast(T | None, _recall(key))
    if result is None:
        result = compute()
        cache.set(key, result, CACHE_SECONDS)
        _remember(key, result)
    return result
