"""plistspec-serve.el's tool results, as Emacs 28 and 30 turn them into JSON: an infinite or
NaN float (which ``json-serialize`` refuses) becomes its printed text. Emacs 30's
byte-compiler showed the old test, ``memq`` on literal floats, could never match."""

from __future__ import annotations

import base64
import json

from emacs_pkg.emacs_session import ELISP, lisp_string


def test_infinite_and_nan_results_become_text(emacs) -> None:
    out = emacs.run(
        f"(add-to-list 'load-path {lisp_string(str(ELISP))})\n"
        f"(load {lisp_string(str(ELISP / 'plistspec-serve.el'))} nil t)\n"
        "(princ (decode-coding-string (json-serialize (plistspec-serve--jsonable"
        ' (vector 1.0e+INF -1.0e+INF 0.0e+NaN 1.5 2 "Zoë") 0)) \'utf-8))'
    )
    assert json.loads(out) == ["1.0e+INF", "-1.0e+INF", "0.0e+NaN", 1.5, 2, "Zoë"]


def test_a_structured_result_with_any_text_is_replied(emacs) -> None:
    """A tool's non-string result is JSON inside the reply's JSON: on Emacs 30 the inner
    json-serialize returns unibyte UTF-8, which the outer one refused ("The result cannot be
    sent as JSON"); the reply reaches plistspec as base64 UTF-8 JSON."""
    out = emacs.run(
        f"(add-to-list 'load-path {lisp_string(str(ELISP))})\n"
        f"(load {lisp_string(str(ELISP / 'plistspec-serve.el'))} nil t)\n"
        "(princ (plistspec-serve--reply (plistspec-serve--result"
        ' (list :name "Zoë 日本 🎉" :n 1.0e+INF :tags (vector "ü")))))'
    )
    reply = json.loads(base64.b64decode(out).decode("utf-8"))
    assert reply["status"] == "ok" and reply["kind"] == "json", reply
    assert json.loads(reply["text"]) == {"name": "Zoë 日本 🎉", "n": "1.0e+INF", "tags": ["ü"]}
