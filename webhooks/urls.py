from django.urls import path

from webhooks.views import hooks

app_name = "webhooks"
urlpatterns = [
    path("", hooks.hooks, name="hooks"),
    path("add/", hooks.hook_create, name="hook_create"),
    path("<int:pk>/", hooks.hook, name="hook"),
    path("<int:pk>/active/", hooks.hook_active, name="hook_active"),
    path("<int:pk>/delete/", hooks.hook_delete, name="hook_delete"),
    path("deliveries/<int:pk>/send-again/", hooks.delivery_resend, name="delivery_resend"),
]
