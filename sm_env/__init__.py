"""Station Master as a reinforcement-learning environment.

- ``sm_env.env(**config)`` / ``sm_env.raw_env(**config)``: the PettingZoo AEC environment
  (``sm_env.aec``, loaded on first use);
- ``gymnasium.make("StationMaster-v0", opponents=..., **config)``: the single-agent view
  (``sm_env.single_agent``), registered when this package is imported and Gymnasium is
  installed;
- ``sm_env.core``: the rules engine, pure Python, usable without any RL framework.
"""

from __future__ import annotations

from typing import Any

GYM_ID = "StationMaster-v0"

try:
    import gymnasium as _gymnasium
except ImportError:  # the rules core works without the RL stack
    pass
else:
    if GYM_ID not in _gymnasium.registry:
        _gymnasium.register(id=GYM_ID, entry_point="sm_env.single_agent:StationMasterEnv")


def __getattr__(name: str) -> Any:
    if name in ("env", "raw_env"):
        from sm_env import aec

        return getattr(aec, name)
    raise AttributeError(f"module 'sm_env' has no attribute {name!r}")


__all__ = ["GYM_ID", "env", "raw_env"]
