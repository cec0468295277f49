"""docs/agents.md: its code runs as written — the bot plays legal games and registers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import new_state

from agents import REGISTRY, make_bot, play_game, seat_seed

DOC = Path(__file__).resolve().parent.parent / "docs" / "agents.md"


def test_the_documented_bot_registers_and_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agents.registry.REGISTRY", dict(REGISTRY))
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) == 2
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(block, namespace)  # noqa: S102 - the doc's own examples
    state = new_state(3, 4)
    bots = [make_bot("greedy" if s else "greedy:eager=false", seat_seed(4, s)) for s in range(3)]
    play_game(state, bots)
    assert state.is_terminal()
    assert "greedy" not in REGISTRY  # the registry seen by other tests is untouched
