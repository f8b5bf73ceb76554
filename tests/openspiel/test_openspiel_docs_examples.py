"""Every Python example in docs/openspiel.md runs as written (MCCFR on each game, ISMCTS, exact
NashConv and CFR on a tiny configuration)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "openspiel.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_page_has_its_examples() -> None:
    assert len(EXAMPLES) >= 4
    text = "\n".join(EXAMPLES)
    for needle in ("outcome_sampling_mccfr", "ISMCTSBot", "nash_conv", "CFRSolver"):
        assert needle in text
    for name in ("promise_war", "ironman_war", "beast_wars", "cardline"):
        assert f"cardarena_{name}" in EXAMPLES[1]


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_example_runs(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(EXAMPLES[index], f"{DOC}:example{index}", "exec"), {"__name__": "__example__"})
    assert capsys.readouterr().out.strip()
