"""The reference packages the statistics are checked against, imported when a test first calls
them: ppi-python pulls numba and scikit-learn, seconds of import that every test process would
otherwise spend collecting the tests, most of which never call them."""

from typing import Any


def ppi_mean_pointestimate(*args: Any, **kwargs: Any) -> Any:
    from ppi_py import ppi_mean_pointestimate as reference

    return reference(*args, **kwargs)


def ppi_mean_ci(*args: Any, **kwargs: Any) -> Any:
    from ppi_py import ppi_mean_ci as reference

    return reference(*args, **kwargs)


def ppi_mean_power(*args: Any, **kwargs: Any) -> Any:
    from ppi_py import ppi_mean_power as reference

    return reference(*args, **kwargs)


def ppi_power(*args: Any, **kwargs: Any) -> Any:
    from ppi_py import ppi_power as reference

    return reference(*args, **kwargs)


def calc_lam_glm(*args: Any, **kwargs: Any) -> Any:
    """ppi-python's own choice of the power-tuning λ (a private function of its package)."""
    from ppi_py.ppi import _calc_lam_glm as reference

    return reference(*args, **kwargs)


def cohen_kappa_score(*args: Any, **kwargs: Any) -> Any:
    from sklearn.metrics import cohen_kappa_score as reference

    return reference(*args, **kwargs)
