"""What the browser tests make of axe-core's reports (tests/browser/axe.py): a page state is
checked once per test process, and its failing violations fail every test that shows it."""

from tests.browser.axe import Findings

SERIOUS = {"id": "color-contrast", "impact": "serious", "help": "Contrast", "targets": ["p"]}
MINOR = {"id": "image-redundant-alt", "impact": "minor", "help": "Alt", "targets": ["img"]}
MINOR_BUT_HELD = {"id": "heading-order", "impact": "moderate", "help": "Order", "targets": ["h3"]}


def report(findings: Findings, url: str, key: str | None, *violations: dict) -> None:
    findings.report(None, {"url": url, "key": key, "violations": list(violations)})


def test_a_state_that_failed_fails_a_later_test_that_shows_it_without_checking_again():
    states: dict = {}
    report(Findings(states), "http://test/a/", "state-1", SERIOUS, MINOR)
    later = Findings(states)

    assert later.recall(None, {"url": "http://test/b/", "key": "state-1"})
    assert later.checked == {"http://test/b/"}
    assert later.failing == {"http://test/b/": [SERIOUS]}
    assert "http://test/b/" in later.message()


def test_a_state_that_passed_counts_as_checked_for_a_later_test():
    states: dict = {}
    report(Findings(states), "http://test/a/", "state-1", MINOR)
    later = Findings(states)

    assert later.recall(None, {"url": "http://test/a/", "key": "state-1"})
    assert later.checked == {"http://test/a/"}
    assert later.failing == {}


def test_a_state_not_seen_before_is_left_to_axe():
    findings = Findings({"state-1": []})

    assert not findings.recall(None, {"url": "http://test/a/", "key": "state-2"})
    assert findings.checked == set()


def test_a_result_of_no_single_state_fails_the_test_but_is_not_remembered():
    states: dict = {}
    findings = Findings(states)
    report(findings, "http://test/a/", None, SERIOUS)

    assert findings.failing == {"http://test/a/": [SERIOUS]}
    assert states == {}


def test_a_held_rule_fails_whatever_its_impact():
    states: dict = {}
    report(Findings(states), "http://test/a/", "state-1", MINOR, MINOR_BUT_HELD)
    later = Findings(states)
    later.recall(None, {"url": "http://test/a/", "key": "state-1"})

    assert later.failing == {"http://test/a/": [MINOR_BUT_HELD]}


def test_a_violation_seen_twice_on_a_page_is_listed_once():
    states: dict = {}
    findings = Findings(states)
    report(findings, "http://test/a/", "state-1", SERIOUS)
    findings.recall(None, {"url": "http://test/a/", "key": "state-1"})
    report(findings, "http://test/a/", "state-2", SERIOUS)

    assert findings.failing == {"http://test/a/": [SERIOUS]}
