from django.contrib import admin
from django.urls import include, path

admin.site.site_header = "L2 Annot administration"
admin.site.site_title = "L2 Annot"

urlpatterns = [
    path("", include("home.urls")),
    path("", include("accounts.urls")),
    path("taxonomy/", include("taxonomy.urls")),
    path("rubrics/", include("rubrics.urls")),
    path("grading/", include("grading.urls")),
    path("people/", include("people.urls")),
    path("agreement/", include("agreement.urls")),
    path("history/", include("audit.urls")),
    path("interchange/", include("interchange.urls")),
    path("workbench/", include("workbench.urls")),
    path("api/", include("api.urls")),
    path("admin/", admin.site.urls),
]

# No MEDIA_URL route, not even with DEBUG: uploads are read through views that check the reader's
# role (rubrics.views.resources), never by a path anyone could guess.
