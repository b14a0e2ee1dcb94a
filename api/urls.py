"""/api/v1/<resource>/ for every resource, /api/schema/ (OpenAPI 3) and /api/docs/ (Swagger UI).

To add a resource, register its viewset here (docs/api.md, "Adding a resource")."""

from django.contrib.auth.decorators import login_required
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import SimpleRouter

from api import taxonomy, views

app_name = "api"

router = SimpleRouter()
router.register("frameworks", taxonomy.FrameworkViewSet)
router.register("competencies", taxonomy.CompetencyViewSet)
router.register("sub-competencies", taxonomy.SubCompetencyViewSet)
router.register("context-variables", taxonomy.ContextVariableViewSet)
router.register("context-values", taxonomy.ContextValueViewSet)

urlpatterns = [
    path("v1/", include(router.urls)),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", login_required(views.SwaggerView.as_view()), name="docs"),
]
