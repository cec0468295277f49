"""Record the saved games the table's tests resume: ``tests/data/table/*.json``.

    python -m experiments.devtools.record_table_fixtures            # rewrites tests/data/table/*.json
    python -m experiments.devtools.record_table_fixtures --search   # lists other seeds that would do

Each file holds the first decisions of a 3-day game of freight bots (``make_bot("freight",
seat_seed(seed, s))`` in every seat), stopped at the first position where seat 0, recorded as
held by a person, has switching Moves of the kind the file is named for: ``two-routes*`` one
Crew Tray with Moves and a card it can reach by two routes, ``two-trays*`` two Crew Trays with
Moves. The other seats are recorded as held by the freight bot, which plays them on resume.
Re-record when a rule changes the games (``RULES_EDITION`` bumped): if a seed below no longer
reaches its kind of position, ``--search`` finds one that does. ``tests/test_play.py`` types at
``two-routes`` and ``two-trays`` and expects their prompts word for word: update its strings
and decision indices to what ``station-master play --resume FILE --fast`` shows.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from pathlib import Path

from agents import make_bot, seat_seed
from sm_env.core import GameConfig, GameState, Intent, MoveTray, Replay, load_catalogue, new_game

TABLE = Path(__file__).resolve().parents[2] / "tests" / "data" / "table"
DAYS = 3
BOT = "freight"


def _moves(state: GameState) -> list[MoveTray]:
    return [i for i in state.legal_intents() if isinstance(i, MoveTray)]


def two_routes(state: GameState) -> bool:
    """One tray with Moves (so ``move`` picks it) and a card it reaches by two routes."""
    moves = _moves(state)
    if len({m.tray for m in moves}) != 1:
        return False
    routes: dict[tuple[int, int], set[tuple[tuple[int, int], ...]]] = {}
    for move in moves:
        routes.setdefault(move.path[-1], set()).add(move.path)
    return any(len(paths) > 1 for paths in routes.values())


def two_trays(state: GameState) -> bool:
    """Two trays with Moves (so ``move`` is ambiguous)."""
    return len({m.tray for m in _moves(state)}) > 1


# name: (offices, seed, the kind of position)
FIXTURES: dict[str, tuple[int, int, Callable[[GameState], bool]]] = {
    "two-routes": (1, 17, two_routes),
    "two-routes-b": (1, 1, two_routes),
    "two-trays": (1, 10, two_trays),
    "two-trays-2-offices": (2, 35, two_trays),
}


def positions(offices: int, seed: int) -> Iterator[tuple[GameState, list[Intent]]]:
    """Each position of a game of freight bots where seat 0 decides, with the decisions before it
    (the live state and list: read them, don't keep them)."""
    state = new_game(GameConfig(offices=offices, days=DAYS), seed)
    bots = [make_bot(BOT, seat_seed(seed, s)) for s in range(offices)]
    decisions: list[Intent] = []
    while not state.is_terminal():
        seat = state.current_player()
        if seat == 0:
            yield state, decisions
        decisions.append(bots[seat].choose(state.view(seat)))
        state.apply(decisions[-1])


def record(offices: int, seed: int, kind: Callable[[GameState], bool]) -> Replay | None:
    """The replay up to the game's first position of ``kind``; None if it has none."""
    for state, decisions in positions(offices, seed):
        if kind(state):
            seats = ("human",) + (BOT,) * (offices - 1)
            return Replay(seed, state.config, tuple(decisions), state.state_hash(), seats)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.devtools.record_table_fixtures",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=Path, default=TABLE)
    parser.add_argument("--search", action="store_true", help="list seeds 1-200 that reach each kind")
    args = parser.parse_args()
    if args.search:
        searched = set()
        for name, (offices, _, kind) in FIXTURES.items():
            if (offices, kind) in searched:  # the same search as a file before
                continue
            searched.add((offices, kind))
            found = []
            for seed in range(1, 201):
                replay = record(offices, seed, kind)
                if replay is not None:
                    found.append(f"{seed} ({len(replay.decisions)})")
                if len(found) == 8:
                    break
            print(f"{name}: seed (decisions) {', '.join(found)}")
        return
    cat = load_catalogue()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, (offices, seed, kind) in FIXTURES.items():
        replay = record(offices, seed, kind)
        if replay is None:
            raise SystemExit(f"{name}: seed {seed} never reaches such a position; try --search")
        replay.save(args.out / f"{name}.json", cat)
        print(f"{name}: seed {seed}, {offices} office(s), {len(replay.decisions)} decisions")


if __name__ == "__main__":
    main()
