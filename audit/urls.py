from django.urls import path

from audit.views import history

app_name = "audit"
urlpatterns = [
    path("<slug:app_label>/<slug:model>/<str:pk>/", history.history, name="history"),
]
