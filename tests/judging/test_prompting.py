"""Filling judge prompts and reading the judge's answers (pure: no database)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.prompting import (
    AnswerStyle,
    Unit,
    UnitSizes,
    filled_length,
    parse_answer,
    parse_probability,
    prompt_shape,
    render,
    split_probability,
    template_problems,
)

UNIT = Unit(
    task="Explain the present perfect to a 12-year-old.",
    response="We use it for things that started in the past and still matter now.",
    criterion="Uses an example from a child's life.",
    reference_answer="'I have lost my key' means the key is still lost.",
    context={"cefr_level": "A2", "learner_age": "12"},
)


def test_every_slot_is_filled_from_the_unit():
    text = (
        "T={{task}} R={{ reference_answer }} A={{response}} C={{criterion}}\n"
        "{{context}}\nlevel={{context.cefr_level}}"
    )
    assert render(text, UNIT) == (
        f"T={UNIT.task} R={UNIT.reference_answer} A={UNIT.response} C={UNIT.criterion}\n"
        "cefr_level: A2\nlearner_age: 12\nlevel=A2"
    )


def test_a_context_value_the_task_lacks_is_blank():
    assert render("[{{context.native_language}}]", UNIT) == "[]"


def test_a_dialogue_is_shown_turn_by_turn_as_the_response_and_the_dialogue():
    unit = Unit(task="t", response="", criterion="c", turns=(("user", "Hi"), ("assistant", "Yo")))
    assert render("{{response}}|{{dialogue}}", unit) == (
        "[user]\nHi\n\n[assistant]\nYo|[user]\nHi\n\n[assistant]\nYo"
    )
    assert render("[{{dialogue}}]", UNIT) == "[]"


def test_braces_in_the_filled_text_are_left_alone():
    unit = Unit(task="{{criterion}}", response="{x}", criterion="c")
    assert render("{{task}} {{response}}", unit) == "{{criterion}} {x}"


def test_a_usable_template_has_no_problems():
    assert template_problems("{{task}} {{response}} {{criterion}} {{context.cefr_level}}") == []


def test_an_unknown_slot_is_a_problem_naming_it():
    (problem,) = template_problems("{{response}} {{criterion}} {{refrence_answer}}")
    assert "unknown slot {{refrence_answer}}" in problem


def test_a_template_without_the_response_or_the_criterion_is_refused():
    assert template_problems("{{task}}") == [
        "the template never shows the judge the {{response}}",
        "the template never shows the judge the {{criterion}}",
    ]


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("true", True),
        ("FALSE", False),
        ("  True\n", True),
        ("true.", None),
        ("yes", None),
        ("The response is true", None),
        ("", None),
        ("true\nfalse", None),
    ],
)
def test_a_binary_answer_is_true_or_false_and_nothing_else(answer, verdict):
    assert parse_answer(answer, AnswerStyle.BINARY) is verdict


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("It quotes a school day.\nfalse", False),
        ("Good.\n\nTrue\n\n", True),
        ("true\nbut then it fails", None),
        ("", None),
        ("Verdict: pass", None),
    ],
)
def test_a_critique_ends_with_the_verdict_alone_on_its_last_line(answer, verdict):
    assert parse_answer(answer, "critique") is verdict


_TEXT = st.text(alphabet=st.sampled_from("ab {}.\n\u00e9\u4e2d\U0001f600"), max_size=12)
_PIECES = st.sampled_from(
    [
        "{{task}}",
        "{{ response }}",
        "{{criterion}}",
        "{{reference_answer}}",
        "{{context}}",
        "{{context.level}}",
        "{{context.missing}}",
        "{{dialogue}}",
        "{{unknown}}",
        "{{",
        "}}",
        "Judge this:\n",
        "\u00bfEs correcto?",
    ]
)


@given(
    template=st.lists(_PIECES, max_size=10).map("".join),
    task=_TEXT,
    response=_TEXT,
    criterion=_TEXT,
    reference_answer=_TEXT,
    context=st.dictionaries(st.sampled_from(["level", "age", "l1"]), _TEXT, max_size=3),
    turns=st.lists(st.tuples(st.sampled_from(["user", "assistant"]), _TEXT), max_size=4),
)
def test_a_prompts_length_is_known_from_its_templates_shape_and_its_texts_lengths(
    template, task, response, criterion, reference_answer, context, turns
):
    unit = Unit(task, response, criterion, reference_answer, context, tuple(turns))
    expected = len(render(template, unit))
    assert filled_length(prompt_shape(template), UnitSizes.of(unit)) == expected


@pytest.mark.parametrize(
    ("stated", "probability"),
    [
        ("0.8", 0.8),
        ("0", 0.0),
        ("1", 1.0),
        ("1.0", 1.0),
        (".25", 0.25),
        (" `0.7` ", 0.7),
        ("1.5", None),
        ("-0.1", None),
        ("nan", None),
        ("NaN", None),
        ("inf", None),
        ("80%", None),
        ("4/5", None),
        ("1e-1", None),
        ("0,8", None),
        ("high", None),
        ("", None),
    ],
)
def test_a_stated_probability_is_a_plain_number_from_0_to_1(stated, probability):
    assert parse_probability(stated) == probability


@pytest.mark.parametrize(
    ("answer", "rest", "probability"),
    [
        ("probability: 0.8\ntrue", "true", 0.8),
        ("Quotes a school day.\nProbability = 0.35\nfalse", "Quotes a school day.\nfalse", 0.35),
        ("**Probability:** 0.9\ntrue", "true", 0.9),
        ("probability: 1.5\ntrue", "true", None),
        ("probability: nan\nfalse", "false", None),
        ("probability: 80%\ntrue", "true", None),
        ("true", "true", None),
        ("probability: 0.2\nprobability: 0.6\ntrue", "true", 0.6),
    ],
)
def test_the_probability_line_is_taken_out_and_the_verdict_kept(answer, rest, probability):
    found = split_probability(answer)
    assert found == (rest, probability)
    style = AnswerStyle.CRITIQUE if "\n" in rest else AnswerStyle.BINARY
    assert parse_answer(found[0], style) is not None


def test_without_the_line_taken_out_a_binary_answer_with_a_probability_is_unreadable():
    # The line is read only when the run asked for it: otherwise the answer is as before.
    assert parse_answer("probability: 0.8\ntrue", AnswerStyle.BINARY) is None
