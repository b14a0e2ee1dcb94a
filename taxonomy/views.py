from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from accounts.permissions import require
from accounts.roles import Action
from taxonomy.forms import CompetencyForm, ContextValueForm, ContextVariableForm, SubCompetencyForm
from taxonomy.models import Competency, ContextValue, ContextVariable, Framework, SubCompetency
from taxonomy.outline import Level, OutlineEditor

competency_editor = OutlineEditor(
    slug="competencies",
    template="taxonomy/outline.html",
    title="Competencies",
    item=Level(Competency, CompetencyForm, "framework", ("code", "name", "description", "order")),
    sub=Level(
        SubCompetency, SubCompetencyForm, "competency", ("code", "name", "description", "order")
    ),
    items_of=lambda framework: framework.competencies.all(),
    subs_related_name="sub_competencies",
    item_label="competency",
    sub_label="sub-competency",
)

context_variable_editor = OutlineEditor(
    slug="context-variables",
    template="taxonomy/outline.html",
    title="Context variables",
    item=Level(
        ContextVariable,
        ContextVariableForm,
        "framework",
        ("key", "label", "kind", "group", "minimum", "maximum", "description", "order"),
    ),
    sub=Level(
        ContextValue, ContextValueForm, "variable", ("code", "label", "description", "order")
    ),
    items_of=lambda framework: framework.context_variables.all(),
    subs_related_name="values",
    item_label="context variable",
    sub_label="value",
    takes_children=lambda variable: variable.has_listed_values,
)


@require(Action.VIEW_TAXONOMY)
def index(request: HttpRequest) -> HttpResponse:
    framework = Framework.objects.order_by("pk").first()
    if framework is None:
        return redirect("home")
    return redirect("taxonomy:competencies", framework.code)
