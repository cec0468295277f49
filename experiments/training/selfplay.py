"""``station-master selfplay``: expert iteration, the search's network learned from its own games.

Generation 0 imitates the heuristic bots: ``gen0_games`` games of ``gen0_bots`` (rotated over
the seats) are played, a ``gen0_share`` of their decisions recorded, and a network is fitted to
their choices and outcomes. Each later
generation

1. **plays**: ``games`` games in which the search (``mcts`` with the best network so far,
   ``iterations`` a decision, Dirichlet ``noise`` at the root and ``temperature`` sampling) sits
   at every seat, except that each seat is taken, with chance ``opponent_share``, by one of the
   ``opponents`` bots or the search with an earlier kept generation's network; the search's
   seats are recorded (policy target: its root visits);
2. **fits** a candidate, from the best network's weights, to the last ``window`` generations'
   samples;
3. **gates** it: the candidate's search against the best's on ``gate_deals`` fixed deals, each
   played in both seatings (one seat one way, the others the other way); the candidate is
   kept, and becomes the best, only when its paired revenue difference is above 0;
4. **evaluates** the best against each of ``eval_bots`` on ``eval_deals`` fixed deals the same
   way, and writes the generation's row.

A run lives in one directory (``--out``): ``meta.json`` (the settings, the command, versions,
rules edition), ``data/gen_NNN.npz`` (samples), ``nets/gen_NNN.npz`` (each generation's
candidate), ``gates/gen_NNN.json`` (its fit, gate and evaluation), ``best.npz``,
``progress.csv``, ``curve.png`` and ``tb/`` (TensorBoard). Every stage writes its file whole
(atomically) once done, and its games and batches follow from the run's seed, the generation
and the stage alone, not from ``jobs``: a run stopped anywhere and resumed (``--resume``) makes
the same files, bit for bit, as one that never stopped (apart from the timing column).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_bot, play_game, seat_seed
from agents.net import Net
from experiments.arena.parallel import Workers, run_all
from experiments.arena.stats import paired_difference
from experiments.training.fit import fit
from experiments.training.samples import Samples, record_game
from experiments.training.train import write_json
from sm_env.core import RULES_EDITION, GameConfig, new_game, write_atomically

FIRST_GATE_SEED = 2_000_000  # fixed deals of the gates, and from EVAL_SEED those of evaluations
EVAL_SEED = 3_000_000


class SelfPlayError(ValueError):
    """Settings that cannot make a run, or a run directory that does not match them."""


@dataclass(frozen=True)
class SelfPlaySettings:
    """Everything that decides a run (meta.json records it; ``--resume`` reads it back)."""

    offices: int = 3
    days: int = 2
    seed: int = 0
    generations: int = 6
    gen0_games: int = 2400
    gen0_bots: tuple[str, ...] = ("passenger", "freight", "dispatcher")
    gen0_share: float = 0.25
    games: int = 80
    iterations: int = 32
    noise: float = 0.25
    temperature: float = 0.5
    opponents: tuple[str, ...] = ("passenger", "freight", "dispatcher")
    opponent_share: float = 0.3
    window: int = 3
    trunk: tuple[int, ...] = (256, 256)
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-3
    gate_deals: int = 30
    eval_bots: tuple[str, ...] = ("passenger",)
    eval_deals: int = 20
    jobs: int | Workers = field(default=1, compare=False)  # how, not what: results do not depend on it

    def __post_init__(self) -> None:
        config = self.config()  # a bad offices or days value fails here, naming the field
        del config
        for name in ("generations", "gen0_games", "games", "iterations", "window", "epochs", "batch_size"):
            if getattr(self, name) < 1:
                raise SelfPlayError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.gate_deals < 2 or self.eval_deals < 2:
            raise SelfPlayError("gate_deals and eval_deals must be >= 2 (an interval needs two deals)")
        if not 0.0 <= self.opponent_share < 1.0 or not 0.0 <= self.noise <= 1.0:
            raise SelfPlayError("opponent_share must be within 0..1 (below 1), noise within 0..1")
        if not 0.0 < self.gen0_share <= 1.0:
            raise SelfPlayError(f"gen0_share must be within 0..1 (above 0), got {self.gen0_share}")
        if self.temperature < 0 or self.learning_rate <= 0 or not self.trunk or min(self.trunk) < 1:
            raise SelfPlayError("temperature >= 0, learning_rate > 0 and trunk layers >= 1, please")
        if not 0 <= self.seed < 2**32:
            raise SelfPlayError(f"seed must be 0..{2**32 - 1}, got {self.seed}")
        for spec in (*self.gen0_bots, *self.opponents, *self.eval_bots):
            make_bot(spec, 0)  # a bad spec fails here, before any game

    def config(self) -> GameConfig:
        return GameConfig(offices=self.offices, days=self.days)

    def search(self, net: Path, explore: bool) -> str:
        """The spec of the search with ``net``: exploring (self-play) or playing its best."""
        spec = f"mcts:net={net},iterations={self.iterations}"
        return spec + (f",noise={self.noise},temperature={self.temperature}" if explore else "")

    def record(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "jobs"}

    @classmethod
    def from_record(cls, data: dict[str, Any], jobs: int | Workers) -> SelfPlaySettings:
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return cls(**values, jobs=jobs)


class RunDir:
    """The files of one run."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.meta = root / "meta.json"
        self.progress = root / "progress.csv"
        self.curve = root / "curve.png"
        self.tb = root / "tb"
        self.best = root / "best.npz"

    def data(self, gen: int) -> Path:
        return self.root / "data" / f"gen_{gen:03d}.npz"

    def net(self, gen: int) -> Path:
        return self.root / "nets" / f"gen_{gen:03d}.npz"

    def fit_report(self, gen: int) -> Path:
        return self.root / "nets" / f"gen_{gen:03d}.fit.json"

    def gate(self, gen: int) -> Path:
        return self.root / "gates" / f"gen_{gen:03d}.json"

    def make(self) -> None:
        for sub in ("data", "nets", "gates"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)


def _versions() -> dict[str, str]:
    from importlib.metadata import version

    return {p: version(p) for p in ("numpy", "torch")}


def command_of(settings: SelfPlaySettings, out: Path) -> str:
    """The command line that reruns the run (options that differ from the defaults)."""
    defaults = SelfPlaySettings()
    parts = ["station-master", "selfplay", "--out", str(out)]
    for f in dataclasses.fields(SelfPlaySettings):
        value = getattr(settings, f.name)
        if f.name == "jobs" or value == getattr(defaults, f.name):
            continue
        text = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
        parts += ["--" + f.name.replace("_", "-"), text]
    return " ".join(parts)


# ---------------------------------------------------------------------------- games


def play_match(task: tuple[int, GameConfig, int, tuple[str, ...]]) -> tuple[int, tuple[int, ...]]:
    """One game of the given bots (a pool worker): (its index, final revenue per seat)."""
    index, config, seed, players = task
    state = new_game(config, seed)
    play_game(state, [make_bot(spec, seat_seed(seed, s)) for s, spec in enumerate(players)])
    return index, tuple(state.revenue_by_seat)


def paired_match(
    settings: SelfPlaySettings, a: str, b: str, first_seed: int, deals: int, progress: bool
) -> dict[str, float]:
    """``a`` against ``b`` on ``deals`` deals, each played with ``a`` at the even seats and
    ``b`` at the odd ones and then the other way round: ``a``'s paired revenue difference with
    its 95% interval, and its share of the wins (a shared top shares; at three seats ``a``
    holds half the seats over the two seatings, so chance is 0.5)."""
    n = settings.offices
    seatings = [tuple(a if (s + r) % 2 == 0 else b for s in range(n)) for r in range(2)]
    tasks = [
        (i, settings.config(), first_seed + d, seating)
        for i, (d, seating) in enumerate((d, seating) for d in range(deals) for seating in seatings)
    ]
    results = dict(run_all(play_match, tasks, settings.jobs, progress))
    games: list[tuple[int, list[tuple[str, float]]]] = []
    wins = 0.0
    for index, _, seed, seating in tasks:
        revenue = results[index]
        games.append((seed, [(label, float(r)) for label, r in zip(seating, revenue, strict=True)]))
        winners = [s for s, r in enumerate(revenue) if r == max(revenue)]
        wins += sum(1.0 / len(winners) for s in winners if seating[s] == a)
    mean, low, high, _ = paired_difference(games, a, b)
    return {"diff": mean, "low": low, "high": high, "win_share": wins / len(games), "games": len(games)}


def seat_players(
    settings: SelfPlaySettings, gen: int, game: int, learner: str, past: list[str]
) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    """The bots of one self-play game and which seats are recorded (the learner's: at least one)."""
    rng = np.random.default_rng([settings.seed, gen, game])
    pool = [*settings.opponents, *past]
    players = [learner] * settings.offices
    for seat in range(settings.offices):
        if rng.random() < settings.opponent_share:
            players[seat] = pool[int(rng.integers(len(pool)))]
    if learner not in players:
        players[int(rng.integers(settings.offices))] = learner
    return tuple(players), tuple(p == learner for p in players)


def deal_seed(settings: SelfPlaySettings, gen: int, game: int) -> int:
    """The deal of one recorded game: drawn from the run's seed, the generation and the game."""
    return int(np.random.default_rng([settings.seed, gen, game, 1]).integers(2**32))


def record_games(
    settings: SelfPlaySettings,
    gen: int,
    seatings: list[tuple[tuple[str, ...], tuple[bool, ...]]],
    share: float,
    progress: bool,
) -> Samples:
    """Record the games of one generation; the samples in game order whatever ``jobs`` is."""
    tasks = [
        (settings.config(), g, deal_seed(settings, gen, g), players, recorded, share)
        for g, (players, recorded) in enumerate(seatings)
    ]
    results = sorted(run_all(record_game, tasks, settings.jobs, progress), key=lambda r: r[0])
    return Samples.concat([samples for _, samples, _ in results])


def gen0_seatings(settings: SelfPlaySettings) -> list[tuple[tuple[str, ...], tuple[bool, ...]]]:
    bots, n = settings.gen0_bots, settings.offices
    return [
        (tuple(bots[(s + g) % len(bots)] for s in range(n)), (True,) * n) for g in range(settings.gen0_games)
    ]


class SelfPlayRun:
    """A run's stages in order; each skips itself when its file is there (resume)."""

    def __init__(
        self, settings: SelfPlaySettings, run: RunDir, log: Callable[[str], None], progress: bool
    ) -> None:
        self.settings = settings
        self.run = run
        self.log = log
        self.progress = progress
        self.stages_done = 0

    def kept_before(self, gen: int) -> list[int]:
        """The generations below ``gen`` their gates kept (generation 0 always is); the last is
        the best so far."""
        return [g for g in range(gen) if g == 0 or json.loads(self.run.gate(g).read_text())["kept"]]

    def generation(self, gen: int, stop_after: int | None) -> bool:
        """Make generation ``gen``'s files; False when ``stop_after`` stages were done first."""
        run = self.run
        best = self.kept_before(gen)[-1] if gen else 0
        stages: list[tuple[Path, Callable[[int, int], None]]] = [
            (run.data(gen), self.play),
            (run.net(gen), self.fit),
            (run.gate(gen), self.judge),
        ]
        for path, make in stages:
            if path.exists():
                continue
            if stop_after is not None and self.stages_done >= stop_after:
                return False
            started = time.perf_counter()
            make(gen, best)
            self.stages_done += 1
            self.log(
                f"generation {gen}: {path.relative_to(run.root)} in {time.perf_counter() - started:.0f} s"
            )
        return True

    def play(self, gen: int, best: int) -> None:
        s = self.settings
        if gen == 0:
            seatings = gen0_seatings(s)
        else:
            learner = s.search(self.run.net(best), explore=True)
            past = [s.search(self.run.net(g), explore=False) for g in self.kept_before(gen) if g != best]
            seatings = [seat_players(s, gen, g, learner, past) for g in range(s.games)]
        share = s.gen0_share if gen == 0 else 1.0
        record_games(s, gen, seatings, share, self.progress).save(self.run.data(gen))

    def fit(self, gen: int, best: int) -> None:
        s, run = self.settings, self.run
        first = max(0, gen - s.window + 1)
        data = Samples.concat([Samples.load(run.data(g)) for g in range(first, gen + 1)])
        start = Net.load(run.net(best)) if gen else None
        from sm_env.actions_v1 import token_table

        probe = new_game(s.config(), 0)
        tokens = token_table(probe.config, probe.catalogue).size
        meta = {
            "offices": s.offices,
            "days": s.days,
            "generation": gen,
            "command": json.loads(run.meta.read_text())["command"],
        }
        net, report = fit(
            data,
            start,
            s.trunk,
            tokens,
            meta,
            epochs=s.epochs,
            batch_size=s.batch_size,
            learning_rate=s.learning_rate,
            seed=(s.seed * 1_000_003 + gen) % 2**32,
        )
        # the network file marks the stage done, so it comes after the report a resumed run reads
        write_json(run.fit_report(gen), dataclasses.asdict(report))
        net.save(run.net(gen))

    def judge(self, gen: int, best: int) -> None:
        """The gate (generation 0 has none: it is kept) and the evaluation of the best after it."""
        s, run = self.settings, self.run
        started = time.perf_counter()
        row: dict[str, Any] = {"generation": gen, "samples": Samples.count(run.data(gen))}
        row["fit"] = json.loads(run.fit_report(gen).read_text())
        if gen:
            gate = paired_match(
                s,
                s.search(run.net(gen), False),
                s.search(run.net(best), False),
                FIRST_GATE_SEED,
                s.gate_deals,
                self.progress,
            )
            row["gate"], row["kept"] = gate, gate["diff"] > 0
        else:
            row["gate"], row["kept"] = None, True
        champion = gen if row["kept"] else best
        row["best"] = champion
        row["eval"] = {
            bot: paired_match(
                s, s.search(run.net(champion), False), bot, EVAL_SEED, s.eval_deals, self.progress
            )
            for bot in s.eval_bots
        }
        row["seconds"] = round(time.perf_counter() - started, 1)
        if row["kept"]:
            write_atomically(run.best, run.net(gen).read_bytes())
        write_json(run.gate(gen), row)


PROGRESS_FIELDS = (
    "generation",
    "samples",
    "policy_loss",
    "win_loss",
    "margin_loss",
    "val_policy_loss",
    "val_win_loss",
    "val_margin_loss",
    "gate_diff",
    "gate_low",
    "gate_high",
    "kept",
    "best",
)


def progress_rows(settings: SelfPlaySettings, run: RunDir) -> list[dict[str, Any]]:
    """One row per finished generation, from its gate file."""
    rows = []
    for gen in range(settings.generations):
        if not run.gate(gen).exists():
            break
        data = json.loads(run.gate(gen).read_text())
        fit_ = data["fit"]
        gate = data["gate"] or {}
        row: dict[str, Any] = {
            "generation": gen,
            "samples": data["samples"],
            "policy_loss": fit_["policy"],
            "win_loss": fit_["win"],
            "margin_loss": fit_["margin"],
            "val_policy_loss": fit_["val_policy"],
            "val_win_loss": fit_["val_win"],
            "val_margin_loss": fit_["val_margin"],
            "gate_diff": gate.get("diff", ""),
            "gate_low": gate.get("low", ""),
            "gate_high": gate.get("high", ""),
            "kept": int(data["kept"]),
            "best": data["best"],
        }
        for bot, result in data["eval"].items():
            for key in ("diff", "low", "high", "win_share"):
                row[f"eval_{bot}_{key}"] = result[key]
        row["seconds"] = data["seconds"]
        rows.append(row)
    return rows


def write_reports(settings: SelfPlaySettings, run: RunDir) -> None:
    """progress.csv, curve.png and tb/, rewritten whole from the gate files (so a resumed run's
    reports are those of a run that never stopped)."""
    rows = progress_rows(settings, run)
    fields = [
        *PROGRESS_FIELDS,
        *(f"eval_{b}_{k}" for b in settings.eval_bots for k in ("diff", "low", "high", "win_share")),
        "seconds",
    ]
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    write_atomically(run.progress, text.getvalue())
    if rows:
        plot_curve(rows, settings.eval_bots, run.curve)
        _tensorboard(rows, run.tb)


def plot_curve(rows: list[dict[str, Any]], eval_bots: tuple[str, ...], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gens = [r["generation"] for r in rows]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for bot in eval_bots:
        diff = [r[f"eval_{bot}_diff"] for r in rows]
        low = [r[f"eval_{bot}_low"] for r in rows]
        high = [r[f"eval_{bot}_high"] for r in rows]
        top.plot(gens, diff, marker="o", label=f"best - {bot}")
        top.fill_between(gens, low, high, alpha=0.2)
    top.axhline(0, color="grey", lw=0.8)
    top.set_ylabel("revenue a game, paired (95% CI)")
    top.legend()
    for key in ("policy_loss", "val_policy_loss", "val_win_loss"):
        bottom.plot(gens, [r[key] for r in rows], marker=".", label=key)
    bottom.set_xlabel("generation")
    bottom.set_ylabel("loss")
    bottom.legend()
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, dpi=100, format="png")
    plt.close(fig)
    write_atomically(out, image.getvalue())


def _tensorboard(rows: list[dict[str, Any]], tb: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    shutil.rmtree(tb, ignore_errors=True)
    writer = SummaryWriter(str(tb))
    for row in rows:
        for key, value in row.items():
            if key != "generation" and isinstance(value, int | float):
                writer.add_scalar(key, value, row["generation"])
    writer.close()


def selfplay(
    settings: SelfPlaySettings,
    out: Path,
    *,
    resume: bool = False,
    generations: int | None = None,
    stop_after: int | None = None,
    progress: bool = False,
    log: Callable[[str], None] = print,
) -> bool:
    """Run (or go on with) expert iteration in ``out``; True when every generation is done.
    A resumed run may be extended to ``generations`` (never shortened): a generation's files
    follow from the seed and its number alone, so those made stay as they are."""
    run = RunDir(out)
    if resume:
        if not run.meta.exists():
            raise SelfPlayError(f"{out} holds no run to resume (no meta.json)")
        recorded = json.loads(run.meta.read_text())
        settings = SelfPlaySettings.from_record(recorded["settings"], settings.jobs)
        if generations is not None and generations != settings.generations:
            if generations < settings.generations:
                raise SelfPlayError(
                    f"the run has {settings.generations} generations; --generations may only extend it"
                )
            settings = dataclasses.replace(settings, generations=generations)
            recorded["settings"] = settings.record()
            recorded["command"] = command_of(settings, out)
            write_json(run.meta, recorded)
    elif run.meta.exists():
        raise SelfPlayError(f"{out} already holds a run: --resume it, or choose another --out")
    else:
        run.make()
        write_json(
            run.meta,
            {
                "settings": settings.record(),
                "command": command_of(settings, out),
                "rules_edition": RULES_EDITION,
                "versions": _versions(),
            },
        )
    stages = SelfPlayRun(settings, run, log, progress)
    for gen in range(settings.generations):
        finished = stages.generation(gen, stop_after)
        write_reports(settings, run)
        if not finished:
            log(f"stopped after {stages.stages_done} stage(s); go on with --resume")
            return False
    return True
