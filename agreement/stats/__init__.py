"""Pure statistics core of L2 Annot: agreement, reliability and judge calibration.

NumPy arrays in, frozen dataclasses out; no Django imports anywhere in this package.
See ``docs/statistics.md`` for what each coefficient means for a rubric criterion.
"""

from .alpha import (
    alpha_from_coincidences,
    alpha_from_counts,
    alpha_stack,
    difference_matrix,
)
from .binary import BinarySummary, binary_summary, pass_rate, specific_agreement
from .bootstrap import (
    DEFAULT_RESAMPLES,
    Interval,
    alpha_resample_stack,
    bootstrap_ac,
    bootstrap_alpha,
    jackknife_alpha,
    resample_index_blocks,
    weights_from_indices,
)
from .consistency import cronbach_alpha
from .counts import (
    coincidence_matrix,
    counts_from_dense,
    counts_from_pairs,
    ratings_per_unit,
    unit_pair_products,
)
from .distributions import (
    benjamini_yekutieli,
    holm,
    mcnemar_exact,
    regularized_incomplete_beta,
    student_t_cdf,
    student_t_quantile,
)
from .gwet import brennan_prediger, gwet_ac, gwet_weights, percent_agreement, scott_pi
from .judge import (
    AltTestResult,
    BlandAltman,
    Calibration,
    ExpertComparison,
    Leniency,
    LevelMatch,
    OrdinalCalibration,
    alternative_annotator_test,
    bland_altman,
    calibrate,
    leave_one_expert_out,
    leniency,
    level_match,
    majority_reference,
    median_reference,
    ordinal_calibration,
)
from .kappa import agreement_weights, cohen_kappa, cohen_kappa_from_table, fleiss_kappa
from .limits import FEWER_THAN_TWO_PAIRS
from .ordinal import KappaComparison, OrdinalAgreement, ordinal_agreement, pooled_tables
from .paired import McNemar, mcnemar, wilson_interval
from .results import FEWER_THAN_TWO_PAIRABLE, NO_VARIATION, Coefficient, Ratio

__all__ = [
    "DEFAULT_RESAMPLES",
    "FEWER_THAN_TWO_PAIRABLE",
    "FEWER_THAN_TWO_PAIRS",
    "NO_VARIATION",
    "AltTestResult",
    "BinarySummary",
    "BlandAltman",
    "Calibration",
    "Coefficient",
    "ExpertComparison",
    "Interval",
    "KappaComparison",
    "Leniency",
    "LevelMatch",
    "McNemar",
    "OrdinalAgreement",
    "OrdinalCalibration",
    "Ratio",
    "agreement_weights",
    "alpha_from_coincidences",
    "alpha_from_counts",
    "alpha_resample_stack",
    "alpha_stack",
    "alternative_annotator_test",
    "benjamini_yekutieli",
    "binary_summary",
    "bland_altman",
    "bootstrap_ac",
    "bootstrap_alpha",
    "brennan_prediger",
    "calibrate",
    "cohen_kappa",
    "cohen_kappa_from_table",
    "coincidence_matrix",
    "counts_from_dense",
    "counts_from_pairs",
    "cronbach_alpha",
    "difference_matrix",
    "fleiss_kappa",
    "gwet_ac",
    "gwet_weights",
    "holm",
    "jackknife_alpha",
    "leave_one_expert_out",
    "leniency",
    "level_match",
    "majority_reference",
    "mcnemar",
    "mcnemar_exact",
    "median_reference",
    "ordinal_agreement",
    "ordinal_calibration",
    "pass_rate",
    "percent_agreement",
    "pooled_tables",
    "ratings_per_unit",
    "regularized_incomplete_beta",
    "resample_index_blocks",
    "scott_pi",
    "specific_agreement",
    "student_t_cdf",
    "student_t_quantile",
    "unit_pair_products",
    "weights_from_indices",
    "wilson_interval",
]
