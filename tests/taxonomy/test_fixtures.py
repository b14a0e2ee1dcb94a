import pytest

from taxonomy.models import Competency, ContextValue, ContextVariable, SubCompetency

pytestmark = pytest.mark.django_db


def test_starter_framework_has_12_competencies_and_31_sub_competencies(starter_framework):
    assert Competency.objects.filter(framework=starter_framework).count() == 12
    assert SubCompetency.objects.filter(competency__framework=starter_framework).count() == 31


def test_starter_framework_has_the_33_l2bench_context_variables_and_an_actfl_level(
    starter_framework,
):
    assert ContextVariable.objects.filter(framework=starter_framework).count() == 34


def test_cefr_level_is_ordinal_from_a1_up_to_c2(starter_framework):
    cefr = ContextVariable.objects.get(framework=starter_framework, key="cefr_level")
    assert cefr.kind == ContextVariable.Kind.ORDINAL
    labels = list(cefr.values.values_list("label", flat=True))
    assert labels[labels.index("A1") :] == ["A1", "A2", "B1", "B2", "C1", "C2"]


def test_number_variables_carry_their_range(starter_framework):
    class_size = ContextVariable.objects.get(key="class_size")
    assert (class_size.minimum, class_size.maximum) == (1, 200)
    assert not ContextValue.objects.filter(variable=class_size).exists()
