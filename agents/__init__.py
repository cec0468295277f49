"""Bots that play Station Master. One registry maps a bot's name to its factory."""

from collections.abc import Callable

from agents.base import Agent, play_game
from agents.random_agent import RandomAgent

# name -> factory taking the bot's own 32-bit seed
REGISTRY: dict[str, Callable[[int], Agent]] = {"random": RandomAgent}


def seat_seed(game_seed: int, seat: int) -> int:
    """A bot's own 32-bit seed, derived from the game seed so a demo is reproducible."""
    return (game_seed * 0x9E3779B1 + (seat + 1) * 0x85EBCA77) & 0xFFFFFFFF


__all__ = ["Agent", "REGISTRY", "RandomAgent", "play_game", "seat_seed"]
