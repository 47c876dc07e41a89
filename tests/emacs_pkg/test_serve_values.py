"""plistspec-serve.el's tool results, as Emacs 28 and 30 turn them into JSON: an infinite or
NaN float (which ``json-serialize`` refuses) becomes its printed text. Emacs 30's
byte-compiler showed the old test, ``memq`` on literal floats, could never match."""

from __future__ import annotations

import json

from emacs_pkg.emacs_session import ELISP, lisp_string


def test_infinite_and_nan_results_become_text(emacs) -> None:
    out = emacs.run(
        f"(load {lisp_string(str(ELISP / 'plistspec-serve.el'))} nil t)\n"
        "(princ (decode-coding-string (json-serialize (plistspec-serve--jsonable"
        ' (vector 1.0e+INF -1.0e+INF 0.0e+NaN 1.5 2 "Zoë") 0)) \'utf-8))'
    )
    assert json.loads(out) == ["1.0e+INF", "-1.0e+INF", "0.0e+NaN", 1.5, 2, "Zoë"]
