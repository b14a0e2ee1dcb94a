"""The starter framework, and small taxonomy objects for tests that do not need all of it."""

from django.conf import settings

from taxonomy import services
from taxonomy.models import Competency, ContextValue, ContextVariable, Framework, SubCompetency
from taxonomy.seedfile import read_context_variables, read_taxonomy


def load_starter_framework() -> Framework:
    """The starter taxonomy and context variables, loaded the way `make run` loads them."""
    fixtures = settings.BASE_DIR / "fixtures"
    framework, _ = services.load_framework(read_taxonomy(fixtures / "taxonomy.json"))
    services.load_context_variables(
        framework, read_context_variables(fixtures / "context_variables.json")
    )
    return framework


def make_framework(code: str = "test-fw") -> Framework:
    framework = Framework.objects.create(code=code, name=f"Framework {code}")
    competency = Competency.objects.create(framework=framework, code="01", name="Planning", order=1)
    SubCompetency.objects.create(competency=competency, code="01a", name="Objectives", order=1)
    SubCompetency.objects.create(competency=competency, code="01b", name="Sequencing", order=2)
    Competency.objects.create(framework=framework, code="02", name="Learners", order=2)
    level = ContextVariable.objects.create(
        framework=framework, key="cefr_level", label="CEFR level", kind="ordinal", order=1
    )
    for order, label in enumerate(["A1", "A2", "B1"], start=1):
        ContextValue.objects.create(variable=level, code=label.lower(), label=label, order=order)
    ContextVariable.objects.create(
        framework=framework,
        key="class_size",
        label="Class size",
        kind="number",
        order=2,
        minimum=1,
        maximum=200,
    )
    return framework
