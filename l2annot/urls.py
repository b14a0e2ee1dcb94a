from django.contrib import admin
from django.urls import include, path
from django.views.decorators.cache import cache_control
from django.views.decorators.http import last_modified
from django.views.i18n import JavaScriptCatalog

from l2annot import started

# The JavaScript translations (static/*.js call gettext): loaded only for a language other than
# English, cached by the browser and revalidated against the server's start time.
javascript_catalog = cache_control(max_age=3600, private=True)(
    last_modified(lambda request, **kwargs: started.AT)(JavaScriptCatalog.as_view())
)

admin.site.site_header = "L2 Annot administration"
admin.site.site_title = "L2 Annot"

urlpatterns = [
    path("", include("home.urls")),
    path("", include("accounts.urls")),
    path("taxonomy/", include("taxonomy.urls")),
    path("rubrics/", include("rubrics.urls")),
    path("grading/", include("grading.urls")),
    path("people/", include("people.urls")),
    path("webhooks/", include("webhooks.urls")),
    path("agreement/", include("agreement.urls")),
    path("history/", include("audit.urls")),
    path("interchange/", include("interchange.urls")),
    path("", include("judging.urls")),  # /workbench/ and the judge's pages under /agreement/
    path("jsi18n/", javascript_catalog, name="javascript-catalog"),
    path("api/", include("api.urls")),
    path("admin/", admin.site.urls),
]

# No MEDIA_URL route, not even with DEBUG: uploads are read through views that check the reader's
# role (rubrics.views.resources), never by a path anyone could guess.
