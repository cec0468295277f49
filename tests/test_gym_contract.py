"""Conventions RL users rely on beyond the rules: ``import sm_env.core`` stays free of the RL
frameworks, and ``gymnasium.make("StationMaster-v0")`` works whatever the import order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import sm_env

ROOT = Path(__file__).resolve().parent.parent


# --------------------------------------------------------------------------- imports


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, timeout=120
    )


FRAMEWORKS = "('gymnasium', 'pettingzoo')"


@pytest.mark.parametrize("module", ["sm_env.core", "sm_env.core.engine", "sm_env.core.registry", "sm_env"])
def test_importing_the_package_loads_no_rl_framework(module: str) -> None:
    """``import sm_env.core`` (and its modules, and ``sm_env`` itself) loads neither Gymnasium
    nor PettingZoo: the environment is registered when Gymnasium comes in."""
    run_python(
        f"import sys, {module}\n"
        f"loaded = [m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS}]\n"
        "assert not loaded, loaded\n"
    )


@pytest.mark.parametrize(
    ("imports", "env_id"),
    [
        ("import gymnasium, sm_env", sm_env.GYM_ID),
        ("import sm_env, gymnasium", sm_env.GYM_ID),
        ("import sm_env.core.state, gymnasium", sm_env.GYM_ID),
        ("import sm_env; from gymnasium import spaces; import gymnasium", sm_env.GYM_ID),
        ("import sm_env; import pettingzoo; import gymnasium", sm_env.GYM_ID),
        ("import gymnasium", f"sm_env:{sm_env.GYM_ID}"),  # make imports the package itself
    ],
)
def test_gymnasium_make_works_whatever_the_import_order(imports: str, env_id: str) -> None:
    """``gymnasium.make("StationMaster-v0")`` works once both are imported, in any order, and
    ``gymnasium.make("sm_env:StationMaster-v0")`` with Gymnasium alone (a subprocess, say)."""
    result = run_python(
        f"{imports}\n"
        f"env = gymnasium.make({env_id!r}, num_offices=2)\n"
        "obs, info = env.reset(seed=1)\n"
        "print(type(env.unwrapped).__name__, obs.shape[0] > 0)\n"
    )
    assert result.stdout.split() == ["StationMasterEnv", "True"]
