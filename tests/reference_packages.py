"""The reference packages the statistics are checked against, imported when a test first calls
them: ppi-python pulls numba and scikit-learn, seconds of import that every test process would
otherwise spend collecting the tests, most of which never call them."""

import importlib
from collections.abc import Callable
from typing import Any


def _imported_when_called(module: str, name: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


ppi_mean_pointestimate = _imported_when_called("ppi_py", "ppi_mean_pointestimate")
ppi_mean_ci = _imported_when_called("ppi_py", "ppi_mean_ci")
ppi_mean_power = _imported_when_called("ppi_py", "ppi_mean_power")
ppi_power = _imported_when_called("ppi_py", "ppi_power")
# ppi-python's own choice of the power-tuning λ (a private function of its package).
calc_lam_glm = _imported_when_called("ppi_py.ppi", "_calc_lam_glm")
cohen_kappa_score = _imported_when_called("sklearn.metrics", "cohen_kappa_score")
# statsmodels comes with ppi-python.
proportion_confint = _imported_when_called("statsmodels.stats.proportion", "proportion_confint")
