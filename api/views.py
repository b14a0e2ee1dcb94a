from drf_spectacular.views import SpectacularSwaggerSplitView


class SwaggerView(SpectacularSwaggerSplitView):
    """Swagger UI from our own static files (drf-spectacular-sidecar), its start-up script
    fetched from this view (`?script`), and no inline style: it loads under the strict CSP."""

    template_name = "api/swagger_ui.html"
    url_name = "api:schema"
    title = "L2 Annot API"
