from django.urls import path

from people.views import people

app_name = "people"
urlpatterns = [
    path("", people.people, name="people"),
    path("invite/", people.invite, name="invite"),
    path("<int:pk>/", people.person, name="person"),
    path("<int:pk>/role/", people.person_role, name="person_role"),
    path("<int:pk>/expertise/", people.person_expertise, name="person_expertise"),
    path("<int:pk>/access/", people.person_active, name="person_active"),
    path("<int:pk>/invitation/", people.person_invite, name="person_invite"),
]
