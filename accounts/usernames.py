"""User names that read alike are one name: `admin` written with a dotless i, with a Cyrillic
a, in full-width letters or as `adrnin` would pass for `admin` on a page, in the history or in
an email, so a new account may not take one while another account holds it.

`username_key` reduces a name to what a reader sees, after Unicode's own rules for confusable
text (UTS #39, "skeleton"), narrowed to what a user name can hold: the compatibility forms
folded (NFKC, as Django normalises every user name), case ignored, accents and other marks
dropped, and the letters and digits that look like a Latin letter (dotless i, long s, the
Cyrillic and Greek look-alikes, 0 and 1, `rn` for `m`) written as that letter. The key is stored
beside the name (`User.username_key`, unique), so two accounts racing for look-alike names
cannot both be saved either.
"""

import unicodedata

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

# One character that reads as a Latin letter, after case folding (UTS #39 confusables,
# the ones a user name's letters and digits can bring).
LOOK_ALIKES = str.maketrans(
    {
        # Latin letters without their dot or with another shape of the same letter
        "\N{LATIN SMALL LETTER DOTLESS I}": "i",
        "\N{LATIN SMALL LETTER DOTLESS J}": "j",
        "\N{LATIN SMALL LETTER IOTA}": "i",
        "\N{LATIN SMALL LETTER SCRIPT G}": "g",
        "\N{LATIN SMALL LETTER ALPHA}": "a",
        "\N{LATIN SMALL LETTER LONG S}": "s",
        "\N{LATIN SMALL LETTER O WITH STROKE}": "o",
        "\N{LATIN SMALL LETTER D WITH STROKE}": "d",
        "\N{LATIN SMALL LETTER H WITH STROKE}": "h",
        "\N{LATIN SMALL LETTER L WITH MIDDLE DOT}": "l",
        "\N{LATIN SMALL LETTER L WITH STROKE}": "l",
        # Cyrillic
        "\N{CYRILLIC SMALL LETTER A}": "a",
        "\N{CYRILLIC SMALL LETTER VE}": "b",
        "\N{CYRILLIC SMALL LETTER IE}": "e",
        "\N{CYRILLIC SMALL LETTER IO}": "e",
        "\N{CYRILLIC SMALL LETTER SHHA}": "h",
        "\N{CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I}": "i",
        "\N{CYRILLIC SMALL LETTER YI}": "i",
        "\N{CYRILLIC SMALL LETTER JE}": "j",
        "\N{CYRILLIC SMALL LETTER KA}": "k",
        "\N{CYRILLIC SMALL LETTER PALOCHKA}": "l",
        "\N{CYRILLIC SMALL LETTER EM}": "m",
        "\N{CYRILLIC SMALL LETTER EN}": "h",
        "\N{CYRILLIC SMALL LETTER O}": "o",
        "\N{CYRILLIC SMALL LETTER ER}": "p",
        "\N{CYRILLIC SMALL LETTER ES}": "c",
        "\N{CYRILLIC SMALL LETTER TE}": "t",
        "\N{CYRILLIC SMALL LETTER U}": "y",
        "\N{CYRILLIC SMALL LETTER HA}": "x",
        "\N{CYRILLIC SMALL LETTER DZE}": "s",
        "\N{CYRILLIC SMALL LETTER KOMI DE}": "d",
        "\N{CYRILLIC SMALL LETTER QA}": "q",
        "\N{CYRILLIC SMALL LETTER WE}": "w",
        # Greek
        "\N{GREEK SMALL LETTER ALPHA}": "a",
        "\N{GREEK SMALL LETTER BETA}": "b",
        "\N{GREEK SMALL LETTER EPSILON}": "e",
        "\N{GREEK SMALL LETTER ETA}": "n",
        "\N{GREEK SMALL LETTER IOTA}": "i",
        "\N{GREEK SMALL LETTER KAPPA}": "k",
        "\N{GREEK SMALL LETTER MU}": "u",
        "\N{GREEK SMALL LETTER NU}": "v",
        "\N{GREEK SMALL LETTER OMICRON}": "o",
        "\N{GREEK SMALL LETTER RHO}": "p",
        "\N{GREEK SMALL LETTER TAU}": "t",
        "\N{GREEK SMALL LETTER UPSILON}": "u",
        "\N{GREEK SMALL LETTER CHI}": "x",
        "\N{GREEK SMALL LETTER OMEGA}": "w",
        # Digits that pass for letters
        "0": "o",
        "1": "l",
    }
)
# Pairs of letters that pass for one (UTS #39 maps them so too).
LOOK_ALIKE_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))


def username_key(username: str) -> str:
    """What `username` reads as: equal keys, names a reader cannot tell apart."""
    folded = unicodedata.normalize("NFKC", username).casefold()
    # Marks dropped: "ádmin" and "admin" differ by an accent a glance misses.
    bare = "".join(
        char
        for char in unicodedata.normalize("NFKD", folded)
        if not unicodedata.category(char).startswith("M")
    )
    key = bare.translate(LOOK_ALIKES)
    for pair, letter in LOOK_ALIKE_PAIRS:
        key = key.replace(pair, letter)
    return key


def not_like_another(username: str) -> None:
    """Refuse a user name that reads like another account's (the same name is that account's
    own, and left to the field's own uniqueness check)."""
    key = username_key(username)
    users = get_user_model()._default_manager
    other = users.filter(username_key=key).exclude(username=username).first()
    if other is not None:
        raise ValidationError(
            _("This user name reads like %(other)s, another account's: choose another."),
            code="confusable",
            params={"other": other.username},
        )
