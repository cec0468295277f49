"""Bots that play Station Master. The registry maps a bot's name to its versioned spec."""

from agents.ahead import ChancePoint, WinEstimator
from agents.base import Agent, play_game
from agents.levels import LEVELS, Level
from agents.random_agent import RandomAgent
from agents.registry import (
    REGISTRY,
    BotSpec,
    BotSpecError,
    bot_label,
    bot_name,
    make_bot,
    parse_bot,
    register,
    split_bot_list,
)


def seat_seed(game_seed: int, seat: int) -> int:
    """A bot's own 32-bit seed, derived from the game seed so a demo is reproducible."""
    return (game_seed * 0x9E3779B1 + (seat + 1) * 0x85EBCA77) & 0xFFFFFFFF


__all__ = [
    "LEVELS",
    "REGISTRY",
    "Agent",
    "BotSpec",
    "BotSpecError",
    "ChancePoint",
    "Level",
    "RandomAgent",
    "WinEstimator",
    "bot_label",
    "bot_name",
    "make_bot",
    "parse_bot",
    "play_game",
    "register",
    "seat_seed",
    "split_bot_list",
]
