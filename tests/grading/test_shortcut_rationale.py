"""Which rationales are only the grading page's shortcut keys (core.keystrokes)."""

import pytest

from core.keystrokes import is_shortcut_run


@pytest.mark.parametrize("text", ["kkkkps", "f", " jjp\n", "x?s", "p4"])
def test_a_run_of_shortcut_keys_is_one(text):
    assert is_shortcut_run(text)


@pytest.mark.parametrize("text", ["", "  ", "kkkk ps", "Pass", "pass.", "fast", "Too hard"])
def test_a_text_with_a_space_a_capital_or_another_letter_is_not(text):
    assert not is_shortcut_run(text)
