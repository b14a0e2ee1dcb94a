"""/api/v1/<resource>/ for every resource, /api/schema/ (OpenAPI 3) and /api/docs/ (Swagger UI).

To add a resource, register its viewset here (docs/api.md, "Adding a resource")."""

from django.contrib.auth.decorators import login_required
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import SimpleRouter

from api import flags, grading, judging, people, prompts, rubrics, taxonomy, views

app_name = "api"

router = SimpleRouter()
router.register("frameworks", taxonomy.FrameworkViewSet)
router.register("competencies", taxonomy.CompetencyViewSet)
router.register("sub-competencies", taxonomy.SubCompetencyViewSet)
router.register("context-variables", taxonomy.ContextVariableViewSet)
router.register("context-values", taxonomy.ContextValueViewSet)
router.register("proficiency-scales", taxonomy.ProficiencyScaleViewSet)
router.register("proficiency-levels", taxonomy.ProficiencyLevelViewSet)
router.register("tasks", rubrics.TaskViewSet)
router.register("criteria", rubrics.CriterionViewSet)
router.register("responses", rubrics.ResponseViewSet)
router.register("judge-prompts", prompts.PromptVersionViewSet)
router.register("judge-configs", prompts.JudgeConfigViewSet)
router.register("judge-runs", judging.JudgeRunViewSet)
router.register("judge-verdicts", judging.JudgeVerdictViewSet)
router.register("studies", grading.StudyViewSet)
router.register("assignments", grading.AssignmentViewSet)
router.register("grades", grading.GradeViewSet)
router.register("turn-grades", grading.TurnGradeViewSet)
router.register("gold-verdicts", grading.GoldVerdictViewSet)
router.register("flags", flags.FlagViewSet)
router.register("people", people.PersonViewSet, basename="person")

urlpatterns = [
    path("v1/", include(router.urls)),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", login_required(views.SwaggerView.as_view()), name="docs"),
]
