"""The first paragraph of the compare page, in words: which run may replace the experts overall
and on which criteria (the alternative annotator test, with its interval and n), which run
agrees with the experts more where two differ, and where the data are too few to say. The
summary is pure (core.analysis.comparison_summary); its words are the page's partial."""

import html
import re
from types import SimpleNamespace

import numpy as np
from django.template.loader import render_to_string
from django.utils import translation

from core.analysis.calibration import MISSING
from core.analysis.comparison import RunVerdicts, compare_runs
from core.analysis.comparison_summary import comparison_summary
from core.analysis.ratings import CriterionInfo, ItemInfo, ratings_from_rows

N_CRITERIA, N_EXPERTS = 3, 3


def study(n_items=90, seed=5):
    """Truth passes with p = 0.5; each expert flips it with p = 0.05."""
    rng = np.random.default_rng(seed)
    criteria = [CriterionInfo(i, f"c{i}", "", "task", "01a", "01") for i in range(N_CRITERIA)]
    items = [ItemInfo(i, f"t{i}", "01a", "01", "acme") for i in range(n_items)]
    truth = (rng.random((n_items, N_CRITERIA)) < 0.5).astype(int)
    rows = []
    for expert in range(N_EXPERTS):
        flips = rng.random(truth.shape) < 0.05
        for (item, crit), value in np.ndenumerate(np.where(flips, 1 - truth, truth)):
            rows.append((item, crit, expert, int(value)))
    ratings = ratings_from_rows(rows, criteria, items, [f"E{n}" for n in range(N_EXPERTS)])
    unit_truth = truth[ratings.unit_item, ratings.unit_criterion].astype(np.int64)
    return ratings, unit_truth, tuple(item.model_family for item in items)


def summarize(ratings, families, **runs):
    gold = np.full(ratings.n_units, MISSING)
    found = [RunVerdicts(name, verdicts) for name, verdicts in runs.items()]
    return comparison_summary(compare_runs(ratings, found, gold, families, n_resamples=50, seed=1))


def words(summary) -> str:
    context = {"summary": summary, "settings": SimpleNamespace(epsilon=0.2)}
    page = render_to_string("judging/compare.html#summary", context)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page))).strip()


def test_the_run_that_passes_overall_is_named_first_with_its_winning_rate_interval_and_n():
    ratings, truth, families = study()
    summary = summarize(ratings, families, coin=1 - truth, sonnet=truth)
    assert [run.run for run in summary.replacing] == ["sonnet"]
    sonnet = summary.replacing[0]
    assert (sonnet.overall.won, sonnet.overall.tested) == (3, 3)
    assert sonnet.replaces_on == ("c0", "c1", "c2")
    assert [run.run for run in summary.not_replacing] == ["coin"]
    text = words(summary)
    assert (
        "sonnet may replace the experts overall (winning rate 100%, 95% CI 44% to 100%: "
        "it wins against 3 of 3 experts, 270 units each). It may also replace them on 3 "
        "criteria: c0, c1, c2."
    ) in text
    assert "coin may not replace the experts, overall or on any criterion tested" in text
    assert "No run may replace" not in text
    assert "sonnet agrees with the experts more often than coin (McNemar's test on" in text
    assert "p < 0.001); sonnet agrees more on 3 criteria: c0, c1, c2." in text


def test_a_run_that_passes_on_some_criteria_only_says_which():
    ratings, truth, families = study()
    mixed = np.where(ratings.unit_criterion == 0, truth, 1 - truth)
    summary = summarize(ratings, families, mixed=mixed, sonnet=truth)
    (found, _) = summary.runs
    assert found.overall.can_replace is False
    assert (found.replaces_on, found.not_on) == (("c0",), ("c1", "c2"))
    assert summary.partly_replacing == (found,)
    text = words(summary)
    assert (
        "mixed may replace the experts on criterion c0 only; not overall (winning rate 0%" in text
    )
    # The pair: the second run agrees more overall and on the criteria where the first erred.
    assert "sonnet agrees with the experts more often than mixed" in text
    assert (
        "sonnet agrees more on 2 criteria: c1, c2; no detectable difference on 1 criterion." in text
    )


def test_when_no_run_passes_the_paragraph_says_so_first():
    ratings, truth, families = study()
    rng = np.random.default_rng(1)
    coin = (rng.random(truth.size) < 0.5).astype(np.int64)
    summary = summarize(ratings, families, coin=coin, contrary=1 - truth)
    assert summary.replacing == () and summary.partly_replacing == ()
    text = words(summary)
    assert text.startswith("What the comparison says A run may replace the experts when")
    assert "No run may replace the experts overall. coin may not replace the experts" in text
    assert "contrary may not replace the experts, overall or on any criterion tested" in text


def test_too_few_units_is_said_as_too_little_data_never_as_cannot_replace():
    ratings, truth, families = study(n_items=8)  # 24 units an expert: the test needs 30
    summary = summarize(ratings, families, v1=truth, v2=truth)
    assert summary.untested == summary.runs and summary.unknown_everywhere
    text = words(summary)
    assert "Too little data to say whether v1 may replace the experts (not enough data" in text
    assert "may not replace" not in text and "No run may replace the experts overall." in text
    assert "No detectable difference overall between v1 and v2 (McNemar's test on 24 units" in text
    assert (
        "Too little data to say whether any run may replace the experts on any single "
        "criterion: the test needs at least 3 experts with 30 units each on a criterion."
    ) in text


def test_the_words_are_read_in_spanish():
    ratings, truth, families = study()
    mixed = np.where(ratings.unit_criterion == 0, truth, 1 - truth)
    summary = summarize(ratings, families, mixed=mixed, sonnet=truth)
    with translation.override("es"):
        text = words(summary)
    assert "Qué dice la comparación" in text
    assert "sonnet puede sustituir a los expertos en conjunto" in text
    assert "mixed puede sustituir a los expertos solo en el criterio c0" in text
    assert "sonnet coincide con los expertos más a menudo que mixed" in text
    assert "p < 0,001" in text and "ε = 0,20" in text
    assert "may replace" not in text and "agrees" not in text
