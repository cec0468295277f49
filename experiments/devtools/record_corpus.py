"""Record the replay corpus that pins the rules: ``tests/data/replays.jsonl.gz``.

    python -m experiments.devtools.record_corpus            # writes tests/data/replays.jsonl.gz

One replay file (the ``station-master-replay`` format) per line: 1-6 offices, 1-3 days,
every combination of the house rules and ``overnight_yard``, each combination of the edition-3
variants (``_SPREAD``) in a quarter of the games, competitive and co-op games. Half the games are
played by random bots, half by a revenue-seeking bot that prefers cargo work, track and
facility cards and Freight Agent stocking, so the corpus reaches cargo and switching rules
random play rarely does. ``tests/test_corpus.py`` replays every game and checks its final
state hash. Re-record only when a rule changes on purpose: bump ``RULES_EDITION`` and say so
in docs/rules.md (section 1.5).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
from pathlib import Path

from agents import RandomAgent, play_game, seat_seed
from sm_env.core import (
    Board,
    Detrain,
    GameConfig,
    HouseRules,
    Intent,
    IntentKind,
    Labor,
    Mode,
    PlaceCard,
    PlaceModifier,
    Replay,
    Rng,
    SeatView,
    StockOutbound,
    load_catalogue,
    new_game,
)

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "replays.jsonl.gz"
_EAGER = (Board, Detrain, Labor, StockOutbound, PlaceCard, PlaceModifier)
# The variants of edition 3 take each of their combinations in a quarter of the games rather
# than multiplying the corpus by four.
_SPREAD = ("yard_on_demand", "home_signals")


class EagerAgent:
    """Takes revenue and building work when it can (three times in four), else plays at
    random; it sees only its seat's view."""

    name = "eager"

    def __init__(self, seed: int) -> None:
        self.rng = Rng(seed & 0xFFFFFFFF)

    def choose(self, view: SeatView) -> Intent:
        legal = view.legal_intents()
        eager = [i for i in legal if isinstance(i, _EAGER)]
        if eager and self.rng.below(4):
            return eager[self.rng.below(len(eager))]
        if self.rng.below(3):  # switch more often than chance, to move cars about
            switching = [i for i in legal if i.kind in (IntentKind.CHOOSE_SWITCH, IntentKind.MOVE_TRAY)]
            if switching:
                return switching[self.rng.below(len(switching))]
        return legal[self.rng.below(len(legal))]


def corpus_configs() -> list[tuple[int, GameConfig, str]]:
    """(seed, config, bot name) of every corpus game."""
    names = tuple(name for name in HouseRules.names() if name not in _SPREAD)
    flags = itertools.product((False, True), repeat=len(names))
    combos = [dict(zip(names, on, strict=True)) for on in flags]
    out: list[tuple[int, GameConfig, str]] = []
    game = 0
    for offices, combo in itertools.product(range(1, 7), combos):
        for mode in (Mode.COMPETITIVE, Mode.COOP):
            spread = (game * 5 + offices) % (1 << len(_SPREAD))
            rules = {**combo, **{name: bool(spread >> k & 1) for k, name in enumerate(_SPREAD)}}
            target = None
            if mode is Mode.COOP:
                target = 6 + game % 7
            elif game % 4 == 0:
                target = 3 + game % 4
            config = GameConfig(
                offices=offices,
                days=1 + game % 3,
                target_revenue=target,
                mode=mode,
                house_rules=HouseRules(**rules),
            )
            out.append((1000 + game, config, "eager" if game % 2 else "random"))
            game += 1
    return out


def record(seed: int, config: GameConfig, bot: str) -> Replay:
    state = new_game(config, seed)
    factory = EagerAgent if bot == "eager" else RandomAgent
    decisions = play_game(state, [factory(seat_seed(seed, s)) for s in range(config.offices)])
    return Replay(seed, config, tuple(decisions), state.state_hash())


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.devtools.record_corpus",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=Path, default=CORPUS)
    args = parser.parse_args()
    cat = load_catalogue()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    total = 0
    lines = []
    for seed, config, bot in corpus_configs():
        replay = record(seed, config, bot)
        total += len(replay.decisions)
        lines.append(json.dumps(replay.to_json(cat), separators=(",", ":")) + "\n")
    with args.out.open("wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as out:
        out.write("".join(lines).encode())  # no name, mtime 0: the same games give the same bytes
    print(f"{len(corpus_configs())} games, {total} decisions -> {args.out}")


if __name__ == "__main__":
    main()
