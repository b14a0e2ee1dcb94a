"""People, for admins (*Invite people, set their role and expertise, deactivate them*): the
same operations as the People pages, through people.services, with the same history.

POST invites (an email with a set-password link goes to the address given, once the account is
committed; a refused invitation creates nothing); PATCH changes the role, the access
(`is_active`) or the expertise; `POST .../invitation/` sends a new link. A mail server that
refuses the email or does not answer leaves the account with `invitation_unsent: true`; sending
again while it still fails is a 503."""

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from accounts.roles import Action, Role
from api import schema
from api.permissions import acting_user
from api.serializers import ApiModelSerializer
from api.viewsets import ReadOnlyViewSet
from core.languages import LANGUAGES
from people import services
from taxonomy.models import SubCompetency

FIXED = ("username", "email")
ROLES = [r.value for r in Role]  # the schema's PersonRole (settings.ENUM_NAME_OVERRIDES)
WRITE_ERRORS = {400: schema.INVALID, 401: schema.UNAUTHENTICATED, 403: schema.FORBIDDEN}
RACE = schema._error("The same user name was taken at the same time: retry.")
UNSENT = schema._error(
    "The mail server refused the email or did not answer: the account is kept, marked "
    "`invitation_unsent`; send it again once mail works."
)
ONE_ERRORS = {
    404: schema.NOT_FOUND,
    409: schema._error(
        "Your own role or access, or an invitation to a deactivated account or to one "
        "without an email address."
    ),
}


@extend_schema_field({"type": "string", "enum": sorted(LANGUAGES)})
class LanguageField(serializers.CharField):
    """A language by its ISO 639-1 code, which the schema lists; the people services also read
    a known English name ("Spanish"), beside what the schema promises."""


class PersonSerializer(ApiModelSerializer):
    role = serializers.ChoiceField(choices=ROLES, allow_null=True)
    invited = serializers.SerializerMethodField(
        help_text="True until the person has chosen a password."
    )
    invitation_unsent = serializers.BooleanField(
        read_only=True,
        help_text="True when the last email with a set-password link could not be sent (the "
        "mail server refused it or did not answer): send it again with POST "
        ".../invitation/ once mail works.",
    )
    sub_competencies = serializers.PrimaryKeyRelatedField(
        queryset=SubCompetency.objects.all(),
        many=True,
        required=False,
        help_text="Expertise: ids of the sub-competencies they grade (none: any).",
    )
    languages = serializers.ListField(
        child=LanguageField(max_length=64),
        required=False,
        help_text="Expertise: target languages they grade (none: any), as ISO 639-1 codes; "
        "a known English name is accepted on input ('Spanish' is read as 'es').",
    )

    class Meta:
        model = User
        fields = [
            *("id", "username", "email", "display_name", "role", "is_active", "invited"),
            *("invitation_unsent", "last_login", "date_joined", "sub_competencies", "languages"),
        ]
        read_only_fields = ["last_login", "date_joined"]
        extra_kwargs = {"email": {"required": True, "allow_blank": False}}

    def get_invited(self, person: User) -> bool:
        return not person.has_usable_password()

    def to_representation(self, person: User) -> dict[str, Any]:
        tags = list(person.expertise.all())
        groups = {g.name for g in person.groups.all()}
        data: dict[str, Any] = super().to_representation(person)
        data["role"] = next((r.value for r in Role if r.value in groups), None)
        data["sub_competencies"] = sorted(e.sub_competency_id for e in tags if e.sub_competency_id)
        data["languages"] = sorted(e.language for e in tags if e.language)
        return data


class InvitationSerializer(PersonSerializer):
    """A person as invited: a role is required (a person read back may have none)."""

    role = serializers.ChoiceField(choices=ROLES)


class PersonViewSet(ReadOnlyViewSet):
    read_action = Action.MANAGE_PEOPLE
    write_action = Action.MANAGE_PEOPLE
    http_method_names = ["get", "post", "patch", "head", "options"]
    queryset = User.objects.prefetch_related("groups", "expertise")
    serializer_class = PersonSerializer
    filterset_fields = ["is_active"]
    search_fields = ["username", "email", "display_name"]
    ordering_fields = ["id", "username", "date_joined"]
    ordering = ["username"]

    def _read(self, person: User) -> dict[str, Any]:
        return dict(PersonSerializer(self.get_queryset().get(pk=person.pk)).data)

    @extend_schema(
        request=InvitationSerializer,
        responses={201: PersonSerializer, **WRITE_ERRORS, 409: RACE},
    )
    def create(self, request: Request) -> Response:
        """Invite someone: the account is created with the role and no password, and once it
        is committed an email with a link to choose one goes to their address. Everything is
        checked first: a refused invitation (400) creates nothing and sends nothing. A mail
        server that refuses the email or does not answer leaves the account made, with
        `invitation_unsent: true`."""
        serializer = InvitationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        person = services.invite(
            username=data["username"],
            email=data["email"],
            display_name=data.get("display_name", ""),
            role=Role(data["role"]),
            base_url=request.build_absolute_uri("/"),
            by=acting_user(request),
            sub_competencies=data.get("sub_competencies", []),
            languages=data.get("languages", []),
        )
        return Response(self._read(person), status=status.HTTP_201_CREATED)

    @extend_schema(
        request=PersonSerializer, responses={200: PersonSerializer, **WRITE_ERRORS, **ONE_ERRORS}
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        """Change the role, the access (`is_active`: false deactivates) or the expertise (both
        lists replace the old ones; either alone keeps the other). Your own role and access
        are changed by another admin (409)."""
        person: User = self.get_object()
        serializer = PersonSerializer(person, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        fixed = [name for name in FIXED if name in data and data[name] != getattr(person, name)]
        if fixed or ("display_name" in data and data["display_name"] != person.display_name):
            names = fixed or ["display_name"]
            raise serializers.ValidationError({n: ["Cannot be changed here."] for n in names})
        services.change_person(
            person,
            role=Role(data["role"]) if data.get("role") is not None else None,
            active=data.get("is_active"),
            sub_competencies=data.get("sub_competencies"),
            languages=data.get("languages"),
            by=acting_user(request),
        )
        return Response(self._read(person))

    @extend_schema(request=None, responses={204: None, **WRITE_ERRORS, **ONE_ERRORS, 503: UNSENT})
    @action(detail=True, methods=["post"])
    def invitation(self, request: Request, pk: str) -> Response:
        """Email the person a new link to choose their password (an invitation that expired,
        or one the mail server did not take: 503 when it does not take this one either)."""
        services.send_invitation(
            self.get_object(), request.build_absolute_uri("/"), by=acting_user(request)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)
