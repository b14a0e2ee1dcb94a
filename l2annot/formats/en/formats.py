# Django's English short formats are American (12/04/2026 8:50 p.m.), which readers in other
# countries take for 12 April; the pages spell the month instead. Spanish keeps Django's
# (04/12/2026 20:50).
SHORT_DATE_FORMAT = "j M Y"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
