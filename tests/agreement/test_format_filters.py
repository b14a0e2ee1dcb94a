"""The agreement pages' figures: in the interface language's notation, undefined as a dash."""

import pytest
from django.utils import translation

from agreement.templatetags.agreement_format import figure, grader_name, percent


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ["0.86", "-0.01", "0.857", "46%", "yes"]),
        ("es", ["0,86", "-0,01", "0,857", "46%", "sí"]),
    ],
)
def test_figures_follow_the_interface_language(language, expected):
    with translation.override(language):
        assert [
            figure(0.8567),
            figure(-0.0051),
            figure(0.8567, 3),
            percent(0.456),
            figure(True),
        ] == expected


def test_an_undefined_or_infinite_figure_is_a_dash():
    assert [figure(None), figure(""), figure(float("nan")), percent(float("inf"))] == ["—"] * 4


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ["Annotator 12", "Expert B", "maria.lopez", "Annotator", "Expert B and C"]),
        ("es", ["Anotador/a 12", "Experto/a B", "maria.lopez", "Annotator", "Expert B and C"]),
    ],
)
def test_hidden_graders_pseudonyms_follow_the_interface_language_and_names_stay(language, expected):
    names = ["Annotator 12", "Expert B", "maria.lopez", "Annotator", "Expert B and C"]
    with translation.override(language):
        assert [grader_name(name) for name in names] == expected
