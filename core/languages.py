"""Target languages: ISO 639-1 codes and their English names, as data (no Django).

A task's target language and an annotator's language expertise are stored as a code ("en",
"es"); people see the name. Files and forms may give either: `language_code` reads a code or a
known name, ignoring case, and says what it could not read. "und" (ISO 639-2, undetermined)
marks a language whose name could not be read when the codes were introduced (the task's
history keeps the name it had).
"""

UNDETERMINED = "und"

# ISO 639-1 (the two-letter codes), with the English names the standard's registration
# authority lists first.
ISO_639_1 = """\
aa Afar|ab Abkhazian|ae Avestan|af Afrikaans|ak Akan|am Amharic|an Aragonese|ar Arabic|\
as Assamese|av Avaric|ay Aymara|az Azerbaijani|ba Bashkir|be Belarusian|bg Bulgarian|\
bi Bislama|bm Bambara|bn Bengali|bo Tibetan|br Breton|bs Bosnian|ca Catalan|ce Chechen|\
ch Chamorro|co Corsican|cr Cree|cs Czech|cu Church Slavic|cv Chuvash|cy Welsh|da Danish|\
de German|dv Divehi|dz Dzongkha|ee Ewe|el Greek|en English|eo Esperanto|es Spanish|\
et Estonian|eu Basque|fa Persian|ff Fulah|fi Finnish|fj Fijian|fo Faroese|fr French|\
fy Western Frisian|ga Irish|gd Scottish Gaelic|gl Galician|gn Guarani|gu Gujarati|gv Manx|\
ha Hausa|he Hebrew|hi Hindi|ho Hiri Motu|hr Croatian|ht Haitian Creole|hu Hungarian|\
hy Armenian|hz Herero|ia Interlingua|id Indonesian|ie Interlingue|ig Igbo|ii Sichuan Yi|\
ik Inupiaq|io Ido|is Icelandic|it Italian|iu Inuktitut|ja Japanese|jv Javanese|ka Georgian|\
kg Kongo|ki Kikuyu|kj Kuanyama|kk Kazakh|kl Kalaallisut|km Khmer|kn Kannada|ko Korean|\
kr Kanuri|ks Kashmiri|ku Kurdish|kv Komi|kw Cornish|ky Kyrgyz|la Latin|lb Luxembourgish|\
lg Ganda|li Limburgish|ln Lingala|lo Lao|lt Lithuanian|lu Luba-Katanga|lv Latvian|\
mg Malagasy|mh Marshallese|mi Maori|mk Macedonian|ml Malayalam|mn Mongolian|mr Marathi|\
ms Malay|mt Maltese|my Burmese|na Nauru|nb Norwegian Bokmål|nd North Ndebele|ne Nepali|\
ng Ndonga|nl Dutch|nn Norwegian Nynorsk|no Norwegian|nr South Ndebele|nv Navajo|ny Chichewa|\
oc Occitan|oj Ojibwa|om Oromo|or Odia|os Ossetian|pa Punjabi|pi Pali|pl Polish|ps Pashto|\
pt Portuguese|qu Quechua|rm Romansh|rn Rundi|ro Romanian|ru Russian|rw Kinyarwanda|\
sa Sanskrit|sc Sardinian|sd Sindhi|se Northern Sami|sg Sango|si Sinhala|sk Slovak|\
sl Slovenian|sm Samoan|sn Shona|so Somali|sq Albanian|sr Serbian|ss Swati|st Southern Sotho|\
su Sundanese|sv Swedish|sw Swahili|ta Tamil|te Telugu|tg Tajik|th Thai|ti Tigrinya|\
tk Turkmen|tl Tagalog|tn Tswana|to Tonga|tr Turkish|ts Tsonga|tt Tatar|tw Twi|ty Tahitian|\
ug Uyghur|uk Ukrainian|ur Urdu|uz Uzbek|ve Venda|vi Vietnamese|vo Volapük|wa Walloon|\
wo Wolof|xh Xhosa|yi Yiddish|yo Yoruba|za Zhuang|zh Chinese|zu Zulu"""

LANGUAGES: dict[str, str] = dict(entry.split(" ", 1) for entry in ISO_639_1.split("|")) | {
    UNDETERMINED: "Undetermined"
}

# Other names people write for a language, beside the listed one.
ALIASES = {
    "castilian": "es",
    "farsi": "fa",
    "flemish": "nl",
    "gaelic": "gd",
    "mandarin": "zh",
    "moldovan": "ro",
    "oriya": "or",
    "panjabi": "pa",
    "pushto": "ps",
    "sinhalese": "si",
    "valencian": "ca",
}

_BY_NAME = {name.casefold(): code for code, name in LANGUAGES.items()} | ALIASES

# Form and model choices: by name, "Undetermined" last.
_NAMED = sorted(
    ((code, name) for code, name in LANGUAGES.items() if code != UNDETERMINED),
    key=lambda pair: pair[1],
)
CHOICES: list[tuple[str, str]] = [*_NAMED, (UNDETERMINED, LANGUAGES[UNDETERMINED])]


class UnknownLanguage(ValueError):
    """Text that is neither an ISO 639-1 code nor a known language name."""


def language_code(text: str) -> str:
    """The ISO 639-1 code of `text`, a code ("es", "ES") or a known name ("Spanish",
    "castilian"). Raises UnknownLanguage naming the text."""
    key = text.strip().casefold()
    if key in LANGUAGES:
        return key
    if key in _BY_NAME:
        return _BY_NAME[key]
    raise UnknownLanguage(
        f"{text.strip()!r} is not a language this application knows: give its ISO 639-1 code "
        "(like 'en' or 'es') or its English name (like 'Spanish')."
    )


def language_name(code: str) -> str:
    """The English name of `code`; an unknown code is returned as it is."""
    return LANGUAGES.get(code, code)
