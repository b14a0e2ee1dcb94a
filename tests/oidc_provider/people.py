"""The provider's people, and what its tokens say of them. Some are made to test a refusal:
`late`'s ID tokens have expired when issued, `stranger`'s are addressed to another client."""

from typing import Any

CLIENT_ID = "l2annot"
CLIENT_SECRET = "l2annot-client-secret"
PASSWORD = "provider-pass"
ROLE_CLAIM = "l2annot_role"

# username at the provider: (preferred_username, email, role claim or None)
PEOPLE: dict[str, tuple[str, str, str | None]] = {
    "ana": ("ana", "ana@uni.example", "Maintainer"),
    "ben": ("ben", "ben@uni.example", None),
    "eve": ("\N{CYRILLIC SMALL LETTER A}dmin", "eve@uni.example", None),  # reads as `admin`
    "late": ("late", "late@uni.example", None),
    "stranger": ("stranger", "stranger@uni.example", None),
}


def userinfo(claims: dict[str, Any], user: Any) -> dict[str, Any]:
    preferred, email, _role = PEOPLE[user.username]
    claims.update(preferred_username=preferred, email=email, given_name=user.username.title())
    return claims


def id_token(id_token: dict[str, Any], user: Any, **kwargs: Any) -> dict[str, Any]:
    role = PEOPLE[user.username][2]
    if role is not None:
        id_token[ROLE_CLAIM] = role
    if user.username == "late":
        id_token["exp"] = id_token["iat"] - 120
    if user.username == "stranger":
        id_token["aud"] = "another-client"
    return id_token
