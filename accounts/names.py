"""How a page names a person to whoever manages them: the name they chose to be shown by, with
the user name that tells two people of one name apart (and finds them on the people page)."""


def person_name(display_name: str, username: str) -> str:
    """ "Ana Ruiz (aruiz)"; the user name alone when no other name is set."""
    shown = (display_name or "").strip()
    if not shown or shown == username:
        return username
    return f"{shown} ({username})"
