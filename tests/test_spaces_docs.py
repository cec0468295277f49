"""docs/actions.md and docs/observations.md describe the spaces the code builds."""

from __future__ import annotations

import re
from pathlib import Path

from sm_env.actions import ActionTable
from sm_env.core.catalogue import load_catalogue
from sm_env.core.config import GameConfig
from sm_env.observations import ObservationEncoder

DOCS = Path(__file__).resolve().parent.parent / "docs"
CONFIG = GameConfig(offices=3, days=1)
HISTORY = "\n## Version history\n"


def current(name: str) -> str:
    """The part of a doc that describes v1 (before its version history)."""
    return (DOCS / name).read_text(encoding="utf-8").split(HISTORY)[0]


def v0_part(name: str) -> str:
    """The part of a doc that keeps v0's layout (its version history)."""
    return (DOCS / name).read_text(encoding="utf-8").split(HISTORY)[1]


def table_rows(text: str) -> dict[str, tuple[int, int]]:
    """``| `name` | start | size | text |`` rows of a markdown file (four columns)."""
    rows = re.findall(r"^\| `([a-z_]+)` \| (\d+) \| (\d+) \| \S", text, flags=re.MULTILINE)
    return {name: (int(start), int(size)) for name, start, size in rows}


def test_actions_doc_lists_every_block_of_the_layout() -> None:
    table = ActionTable(CONFIG, load_catalogue())
    documented = table_rows(v0_part("actions.md"))
    assert documented == {block.name: (block.start, block.size) for block in table.blocks.values()}
    assert f"N = {table.size})" in v0_part("actions.md")


def test_observations_doc_lists_every_section() -> None:
    cat = load_catalogue()
    encoder = ObservationEncoder(CONFIG, cat, ActionTable(CONFIG, cat))
    text = v0_part("observations.md")
    rows = table_rows(text)
    sections = {name: (s.start, s.stop - s.start) for name, s in encoder.sections.items()}
    assert {k: rows[k] for k in sections} == sections
    cells = re.findall(r"^\| `([a-z]+)` \| (\d+) \| (\d+) \|$", text, flags=re.MULTILINE)
    assert {
        name: (int(a), int(b)) for name, a, b in cells if name in encoder.cell_layout
    } == encoder.cell_layout
    assert f"`CELL_FEATURES` = {encoder.cell_features}" in text


def test_cached_card_planes_match_a_fresh_encoding() -> None:
    """The station card planes are cached by grid size and office card (cards are only added
    to a grid, or the office replaced): over random games the cached encoding always equals
    one built from scratch."""
    import numpy as np

    from sm_env import station_master_v0

    for seed in range(3):
        env = station_master_v0.env(num_offices=2, days=2)
        env.reset(seed=seed)
        raw = env.unwrapped
        rng = np.random.default_rng(seed)
        fresh = ObservationEncoder(raw.config, raw.catalogue, raw.table)
        placed = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            fresh.reset_cache()
            expected = fresh.encode(
                raw.game, raw.seat_of(agent), raw.spaces.builder, np.empty(fresh.size, np.float32)
            )
            assert np.array_equal(obs["observation"], expected)
            placed = max(placed, sum(len(st.grid) for st in raw.game.stations))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert placed > 6  # cards were laid, so the planes changed


def test_actions_doc_lists_every_v1_block() -> None:
    """docs/actions.md gives v1's layout at 3 offices, its size and its formula."""
    from sm_env.actions_v1 import TokenTable

    table = TokenTable(CONFIG, load_catalogue())
    text = current("actions.md")
    assert table_rows(text) == {block.name: (block.start, block.size) for block in table.blocks.values()}
    assert f"N = {table.size})" in text
    sizes = [TokenTable(GameConfig(offices=k), load_catalogue()).size for k in (1, 3, 6)]
    assert sizes == [432 + 3 * k for k in (1, 3, 6)]
    assert "N = 432 + 3 × offices: {} for 1 office, {} for 3, {} for 6".format(*sizes) in " ".join(
        text.split()
    )
    assert "## Version history" in (DOCS / "actions.md").read_text(encoding="utf-8")


def test_observations_doc_lists_every_v1_section() -> None:
    """docs/observations.md gives v1's sections at 3 offices, the sizes for 1..6 offices, the
    budgets and the widths of a tray and of each kind of slot."""
    from sm_env.actions_v1 import TokenTable
    from sm_env.observations_v1 import ObservationEncoderV1

    cat = load_catalogue()
    encoder = ObservationEncoderV1(CONFIG, cat, TokenTable(CONFIG, cat))
    text = current("observations.md")
    flat = " ".join(text.split())
    sections = {name: (s.start, s.stop - s.start) for name, s in encoder.sections.items()}
    assert table_rows(text) == sections
    sizes = []
    for offices in range(1, 7):
        config = GameConfig(offices=offices)
        other = ObservationEncoderV1(config, cat, TokenTable(config, cat))
        sizes.append(f"{offices}: {other.size}")
        n = offices
        assert (other.card_features, other.car_features, other.box_features) == (n + 23, n + 38, n + 37)
        if offices in (1, 3, 6):
            assert f"{offices} office{'s' if offices > 1 else ''} {other.budgets}" in flat
    assert "Sizes (offices: length): " + ", ".join(sizes) in flat
    assert f"`TRAY_FEATURES` = {encoder.tray_features} at 3 offices" in text
    assert "`n + 23` values" in text and "`n + 38` values" in text and "`n + 37` values" in text
