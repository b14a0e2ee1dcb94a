"""argparse's messages in a language: the swap of its module-level functions holds for one
thread at a time."""

import argparse
import threading
import time

from django.utils import translation
from django.utils.translation import gettext

from l2annot.argparse_text import argparse_in


def test_two_threads_each_read_argparse_in_their_own_language():
    spanish_inside = threading.Event()
    read: dict[str, str] = {}

    def spanish() -> None:
        with argparse_in("es"):
            spanish_inside.set()
            time.sleep(0.2)  # the English thread asks for its language meanwhile
            read["es"] = argparse._("usage: ")  # type: ignore[attr-defined]

    def english() -> None:
        spanish_inside.wait()
        with argparse_in("en"):
            time.sleep(0.3)
            read["en"] = argparse._("usage: ")  # type: ignore[attr-defined]

    threads = [threading.Thread(target=spanish), threading.Thread(target=english)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with translation.override("es"):
        assert read == {"es": gettext("usage: "), "en": "usage: "}
    assert read["es"] != "usage: "
