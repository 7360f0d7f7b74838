"""The service's face: what the front ends (Discord, the console, the web page's
links) ask of the service, answered in this process by :class:`bot.service.TroikaService`
or in worker processes by :class:`bot.workers.ServicePool`.

:class:`ServiceFace` declares each call once. The calls a worker carries out, and the
type its answer must have, are read from it (:data:`WORKER_CALLS`); the pool forwards
the plain ones with :func:`bot.workers.in_channel_worker` and
:func:`bot.workers.in_game_worker`, typed by the same declarations.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from storage import EventStore, OutboxMessage, ReplayProblem, Shard

from .core import Account, Post, Reply, Status
from .posts import Picture


class ServiceFace(Protocol):
    """The service as the front ends call it."""

    @property
    def store(self) -> EventStore:
        """The games' store (read by the front ends; written through the calls below)."""

    @property
    def shard(self) -> Shard | None:
        """The Discord shard this process serves, if the bot is sharded."""

    # --- carried out in the worker of the channel (or of the game) ------------------

    def handle(
        self, channel_id: str, /, account: Account, text: str, *, key: str | None = None,
        guild_id: str | None = None, at: tuple[int, int] | None = None,
    ) -> Awaitable[Reply]:
        """A command typed in a channel, carried out: its reply and stored posts."""

    def replace_seat(
        self, channel_id: str, /, account: Account, player: str, new: Account, *, key: str | None = None
    ) -> Awaitable[Reply]:
        """The commissioner gives ``player``'s seat to another account."""

    def import_site_game(
        self, channel_id: str, /, account: Account, data: bytes, *, name: str = "the file",
        guild_id: str | None = None, hot_seat: bool = False,
    ) -> Awaitable[Reply]:
        """An 18xx.games game brought into the channel, to play on."""

    def start_local_game(self, channel_id: str, /, players: list[tuple[str, str]], **kwargs: Any) -> Awaitable[Reply]:
        """A game started at once with ``players`` (the console's and tests' `new`)."""

    def channel_deleted(self, channel_id: str, /) -> Awaitable[int | None]:
        """The deleted channel's game abandoned; its id, if it had one."""

    def deciding_account(self, channel_id: str, /) -> Awaitable[Account | None]:
        """The account that must decide now in the channel's game."""

    def typing_account(self, channel_id: str, /, verb: str) -> Awaitable[Account | None]:
        """Whose seat a bare ``verb`` is typed from at a shared keyboard."""

    def called_company(self, channel_id: str, /) -> Awaitable[str | None]:
        """The company whose step the channel's game is in, if one is."""

    def computer_moves(self, channel_id: str, /, most: int) -> Awaitable[int]:
        """At most ``most`` moves by the computer for its seats while one is to act; how many it made."""

    def suggestions(self, channel_id: str, /, verb: str, current: str) -> Awaitable[list[str]]:
        """Completions of ``verb``'s argument as typed so far."""

    def status(self, game_id: int, /) -> Awaitable[Status]:
        """The game's pinned status message."""

    def set_status_message(self, game_id: int, /, message_id: str) -> Awaitable[None]:
        """Remember the message that pins the game's status."""

    def post_pictures(self, message: OutboxMessage) -> Awaitable[list[Picture]]:
        """The pictures a post carries, drawn."""

    def send_reminders(self) -> Awaitable[None]:
        """Remind the players who keep a game waiting."""

    def verify_running_games(self, *, other_versions_only: bool = False) -> Awaitable[list[ReplayProblem]]:
        """Replay every running game; the ones that do not replay as stored."""

    # --- answered in the bot's own process -------------------------------------------

    def requesting_account(self, channel_id: str, /) -> Awaitable[Account | None]:
        """The account whose deal waits for an answer."""

    def seat_account(self, channel_id: str, /, words: list[str]) -> Awaitable[tuple[Account, int]]:
        """The seat ``words`` name, and how many words named it."""

    def seat_names(self, channel_id: str, /) -> Awaitable[list[str]]:
        """The names of the channel's game's seats."""

    def flush(
        self, deliver: Callable[[Post], Awaitable[Any]], *, channel_id: str | None = None,
        then: Callable[[int], Awaitable[None]] | None = None,
        attach: Callable[[Any, Post, list[Picture]], Awaitable[None]] | None = None,
    ) -> Awaitable[set[int]]:
        """Deliver the posts not yet sent."""

    def drawn(self) -> Awaitable[None]:
        """Wait until the pictures sent for attaching are attached."""


IN_FRONT = frozenset({"requesting_account", "seat_account", "seat_names", "flush", "drawn"})
"""The calls the bot's own process answers: they read the store, or deliver."""


def _answer_type(method: Callable[..., Any]) -> type | tuple[type, ...]:
    """What :func:`isinstance` checks a worker's answer to ``method`` against."""
    (answer,) = typing.get_args(typing.get_type_hints(method)["return"])  # Awaitable[answer]
    parts = typing.get_args(answer) if typing.get_origin(answer) in (typing.Union, types.UnionType) else (answer,)
    kinds = tuple(type(None) if part is None else typing.get_origin(part) or part for part in parts)
    return kinds[0] if len(kinds) == 1 else kinds


WORKER_CALLS: dict[str, type | tuple[type, ...]] = {
    name: _answer_type(method) for name, method in vars(ServiceFace).items()
    if callable(method) and not name.startswith("_") and name not in IN_FRONT
}
"""The calls a worker carries out, each with the type its answer must have."""
