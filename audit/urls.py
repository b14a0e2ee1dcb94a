from django.urls import path

from audit import views

app_name = "audit"
urlpatterns = [
    path("<slug:app_label>/<slug:model>/<str:pk>/", views.history, name="history"),
]
