"""Redo is a stack, as on 18xx.games: `undo`, `undo`, `redo`, `redo` gives back both
moves, and a new move clears what is left to redo."""

from __future__ import annotations

from bot.service import TroikaService
from storage import SqliteEventStore
from tests.test_reliability import ANNA, BORIS, refusal, three_player_game


async def test_two_undos_are_redone_in_turn() -> None:
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        game_id = await three_player_game(service, "c")
        start = (await service.repo.load(game_id)).state_hash
        await service.handle("c", ANNA, "pass")
        after_one = (await service.repo.load(game_id)).state_hash
        await service.handle("c", BORIS, "pass")
        after_two = (await service.repo.load(game_id)).state_hash
        await service.handle("c", BORIS, "undo")
        await service.handle("c", ANNA, "undo")
        assert (await service.repo.load(game_id)).state_hash == start
        assert "Anna's" in await refusal(service.handle("c", BORIS, "redo"))  # Anna's undo is the next to redo
        await service.handle("c", ANNA, "redo")
        assert (await service.repo.load(game_id)).state_hash == after_one
        await service.handle("c", BORIS, "redo")
        assert (await service.repo.load(game_id)).state_hash == after_two
        assert "nothing to redo" in (await refusal(service.handle("c", BORIS, "redo"))).lower()
        await service.handle("c", BORIS, "undo")
        await service.handle("c", BORIS, "pass")  # a new move: nothing left to redo
        assert "nothing to redo" in (await refusal(service.handle("c", BORIS, "redo"))).lower()


async def test_a_refused_undo_after_end_leaves_the_game_ended() -> None:
    """N10: on a paused game, `end confirm` then `undo` (refused: paused) keeps it finished."""
    from storage import GameStatus

    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        game_id = await three_player_game(service, "c")
        await service.handle("c", ANNA, "pass")
        await service.handle("c", ANNA, "pause away")
        await service.handle("c", ANNA, "end confirm")
        assert (await store.get_game(game_id)).status is GameStatus.FINISHED
        before = await store.last_seq(game_id)
        assert "paused" in await refusal(service.handle("c", ANNA, "undo"))
        assert (await store.get_game(game_id)).status is GameStatus.FINISHED
        assert await store.last_seq(game_id) == before and await store.active_game_in_channel("c") is None


async def test_text_the_store_cannot_hold_is_refused_and_changes_nothing() -> None:
    """N11: a lone surrogate, a NUL or another control character in a reason or a name is
    a refusal that says so, not "Something went wrong", and nothing is stored."""
    from bot.service import Account

    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        game_id = await three_player_game(service, "c")
        before = await store.last_seq(game_id)
        for who, text in ((ANNA, "pause \ud800"), (ANNA, "pause a\x00b"), (ANNA, "undo \x1b[31mred"),
                          (Account(ANNA.id, "An\x00na"), "pass"), (Account("999", "\udfffX"), "join"),
                          (ANNA, "end confirm \ud83d")):
            said = await refusal(service.handle("c", who, text))
            assert "cannot store" in said
        await service.handle("c", ANNA, "pause tea\tbreak\nback soon")  # tabs and new lines are fine
        assert await store.last_seq(game_id) == before + 1
