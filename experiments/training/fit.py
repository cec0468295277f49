"""Fitting the search's network (``agents.net``) to samples, in torch; the file it writes is read
by numpy at play time.

The loss per sample is the cross-entropy of the policy target over the legal intents (an
intent's logit is the sum of its tokens' logits), plus the cross-entropy of the win shares
(softmax over the seats) and the squared error of the margins. Training is deterministic for a
seed: one torch thread, batches drawn from a seeded generator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.net import HEADS, Net
from experiments.training.samples import Samples


@dataclass(frozen=True)
class FitReport:
    """Mean losses over the kept epoch's batches and over the held-out games."""

    policy: float
    win: float
    margin: float
    val_policy: float
    val_win: float
    val_margin: float
    samples: int
    epoch: int  # the epoch kept: the one with the lowest held-out loss
    history: tuple[tuple[float, float, float], ...]  # held-out losses after each epoch


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, e)`` for each pair."""
    lengths = ends - starts
    if not lengths.sum():
        return np.zeros(0, np.int64)
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    out: np.ndarray = np.arange(int(lengths.sum()), dtype=np.int64) + offsets
    return out


class _Batch:
    """The index tensors of a batch: which row and token each token entry reads, which intent
    it adds to, and which row each intent belongs to."""

    def __init__(self, data: Samples, rows: np.ndarray, torch: Any) -> None:
        first, last = data.intent_start[rows], data.intent_start[rows + 1]
        intents = _ranges(first, last)
        intent_row = np.repeat(np.arange(len(rows)), last - first)
        t_first, t_last = data.token_start[intents], data.token_start[intents + 1]
        entries = _ranges(t_first, t_last)
        entry_intent = np.repeat(np.arange(len(intents)), t_last - t_first)
        self.obs = torch.from_numpy(data.obs[rows])
        self.entry_row = torch.from_numpy(intent_row[entry_intent])
        self.entry_token = torch.from_numpy(data.tokens[entries].astype(np.int64))
        self.entry_intent = torch.from_numpy(entry_intent)
        self.intent_row = torch.from_numpy(intent_row)
        self.target = torch.from_numpy(data.target[intents])
        self.win = torch.from_numpy(data.win[rows])
        self.margin = torch.from_numpy(data.margin[rows])
        self.rows = len(rows)
        self.intents = len(intents)


def _module(torch: Any, obs: int, trunk: tuple[int, ...], tokens: int, seats: int) -> Any:
    nn = torch.nn

    class TorchNet(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            sizes = (obs, *trunk)
            self.trunk = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:], strict=False))
            self.heads = nn.ModuleDict(
                {
                    "policy": nn.Linear(trunk[-1], tokens),
                    "win": nn.Linear(trunk[-1], seats),
                    "margin": nn.Linear(trunk[-1], seats),
                }
            )

        def forward(self, x: Any) -> tuple[Any, Any, Any]:
            for layer in self.trunk:
                x = torch.relu(layer(x))
            return tuple(self.heads[h](x) for h in HEADS)

    return TorchNet()


def _losses(torch: Any, model: Any, batch: _Batch) -> tuple[Any, Any, Any]:
    tokens, win_logits, margin = model(batch.obs)
    entry = tokens[batch.entry_row, batch.entry_token]
    logits = torch.zeros(batch.intents).index_add_(0, batch.entry_intent, entry)
    top = torch.full((batch.rows,), -torch.inf).scatter_reduce(0, batch.intent_row, logits, "amax")
    top = top.detach()
    sums = torch.zeros(batch.rows).index_add_(0, batch.intent_row, torch.exp(logits - top[batch.intent_row]))
    log_prob = logits - (torch.log(sums) + top)[batch.intent_row]
    policy = -(batch.target * log_prob).sum() / batch.rows
    win = -(batch.win * torch.log_softmax(win_logits, dim=1)).sum(dim=1).mean()
    margin_loss = ((margin - batch.margin) ** 2).mean()
    return policy, win, margin_loss


def fit(
    data: Samples,
    start: Net | None,
    trunk: tuple[int, ...],
    tokens: int,
    meta: dict[str, Any],
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    val_share: float = 0.1,
    weight_decay: float = 1e-4,
    value_weight: float = 1.0,
) -> tuple[Net, FitReport]:
    """A network (``trunk`` layers, a logit for each of ``tokens`` tokens) fitted to ``data``,
    from ``start``'s weights when given, and its losses. A ``val_share`` of the games is held
    out: after each epoch the weights are kept when their held-out loss is the lowest yet, and
    those are returned (a game's positions share one outcome, so the value heads learn the
    training games by heart within a few epochs)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    games = np.unique(data.game)
    held = set(rng.choice(games, size=max(1, int(len(games) * val_share)), replace=False).tolist())
    is_val = np.array([g in held for g in data.game.tolist()])
    train_rows, val_rows = np.flatnonzero(~is_val), np.flatnonzero(is_val)
    model = _module(torch, data.obs.shape[1], trunk, tokens, data.win.shape[1])
    if start is not None:
        _load_weights(torch, model, start)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=weight_decay)
    val_batch = _Batch(data, val_rows, torch) if len(val_rows) else None
    best: tuple[float, int, list[float], list[float], dict[str, Any]] | None = None
    history: list[tuple[float, float, float]] = []
    for epoch in range(1, epochs + 1):
        order = rng.permutation(train_rows)
        sums, batches = np.zeros(3), 0
        for i in range(0, len(order), batch_size):
            batch = _Batch(data, np.sort(order[i : i + batch_size]), torch)
            parts = _losses(torch, model, batch)
            optimizer.zero_grad()
            (parts[0] + value_weight * (parts[1] + parts[2])).backward()
            optimizer.step()
            sums += [float(p.detach()) for p in parts]
            batches += 1
        train = (sums / max(batches, 1)).tolist()
        with torch.no_grad():
            val = [float(p) for p in _losses(torch, model, val_batch)] if val_batch else train
        history.append((val[0], val[1], val[2]))
        score = val[0] + value_weight * (val[1] + val[2])
        if best is None or score < best[0]:
            state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            best = (score, epoch, train, val, state)
    assert best is not None
    _, epoch, train, val, state = best
    model.load_state_dict(state)
    net = _export(model, meta)
    policy, win, margin = train
    val_policy, val_win, val_margin = val
    report = FitReport(
        policy, win, margin, val_policy, val_win, val_margin, len(train_rows), epoch, tuple(history)
    )
    return net, report


def _load_weights(torch: Any, model: Any, net: Net) -> None:
    with torch.no_grad():
        for layer, (w, b) in zip(model.trunk, net.trunk, strict=True):
            layer.weight.copy_(torch.from_numpy(w))
            layer.bias.copy_(torch.from_numpy(b))
        for h in HEADS:
            w, b = net.heads[h]
            model.heads[h].weight.copy_(torch.from_numpy(w))
            model.heads[h].bias.copy_(torch.from_numpy(b))


def _export(model: Any, meta: dict[str, Any]) -> Net:
    def arrays(layer: Any) -> tuple[np.ndarray, np.ndarray]:
        return layer.weight.detach().numpy().copy(), layer.bias.detach().numpy().copy()

    trunk = [arrays(layer) for layer in model.trunk]
    heads = {h: arrays(model.heads[h]) for h in HEADS}
    return Net(trunk, heads, meta)


__all__ = ["FitReport", "fit"]
