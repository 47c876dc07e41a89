"""The lints give exactly the diagnostics of the committed snapshot (code, severity,
message, span, fix and order) on every fixture, a generated file and seeded mutations of
it, with no target and every check target, under each dialect (see lint_snapshot.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import lint_snapshot  # noqa: E402


def test_snapshot_covers_the_lints() -> None:
    data = lint_snapshot.load()
    assert len(data) >= 120
    assert sum(len(v["forms"]) for v in data.values()) >= 500
    codes = {
        d[0] for v in data.values() for _s, runs in v["forms"] for ds in runs.values() for d in ds
    }
    # nearly every spec and provider lint fires somewhere in the corpus
    assert len([c for c in codes if c.startswith("PS3")]) >= 34
    assert len([c for c in codes if c.startswith("PS4")]) >= 10


@pytest.mark.slow
def test_lints_match_snapshot() -> None:
    want = lint_snapshot.load()
    got = lint_snapshot.run([(name, v["text"]) for name, v in want.items()])
    assert sorted(got) == sorted(want)
    for name, w in want.items():
        g = got[name]
        assert len(g["forms"]) == len(w["forms"]), name
        for (gs, gruns), (ws, wruns) in zip(g["forms"], w["forms"], strict=True):
            assert gs == ws, name
            assert sorted(gruns) == sorted(wruns), name
            for key in wruns:
                assert gruns[key] == wruns[key], f"{name}: form at {ws}, run {key}"
