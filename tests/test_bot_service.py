"""The service layer: consent, undo, the commissioner, pauses, reminders, restarts.

Games are driven through the console layer (``as NAME command``), which calls the same
service as Discord; positions come from the shared real game 1861-29683.
"""

from __future__ import annotations

from datetime import timedelta
from itertools import islice
from pathlib import Path

import pytest

from bot.console import CHANNEL, Console
from bot.service import Account, Post, TroikaService
from bot.transcript import log_commands
from engine.importer import read_log
from storage import GameStatus, SqliteEventStore
from storage.repository import effective_events
from storage.store import utc_now
from tests.conftest import shared_game

BEFORE_MK_BUYS = 57
"""Commands of 1861-29683 after which M-K (Player 2) buys its first train, while N
(Player 3) already has one."""


class Table:
    """A service, a console on it, and everything the console printed."""

    def __init__(self, service: TroikaService) -> None:
        self.service = service
        self.out: list[str] = []
        self.console = Console(service, Path("unused"), self.out.append)

    async def say(self, line: str) -> str:
        """Type a line; returns what was printed because of it."""
        start = len(self.out)
        await self.console.line(line)
        return "\n".join(self.out[start:])

    async def game(self):  # type: ignore[no-untyped-def]
        return (await self.service.game_in(CHANNEL))[1]


async def start_shared(service: TroikaService, commands: int, name: str = "1861-29683") -> Table:
    """A shared game (1861-29683 unless named) with its first ``commands`` commands played."""
    log, _ = shared_game(name)
    table = Table(service)
    rules = read_log(log)[0].ctx.rules
    players = [(str(p["id"]), p["name"]) for p in log["players"]]
    await service.start_local_game(CHANNEL, players, rules=rules, first_player=0, seed=log["settings"]["seed"],
                                   title=log["title"])
    for name, command in islice(log_commands(log), commands):
        assert "✗" not in await table.say(f"as {name} {command}")
    return table


@pytest.fixture
async def table(store: SqliteEventStore) -> Table:
    return await start_shared(TroikaService(store, pictures=False), BEFORE_MK_BUYS)


async def test_buying_another_players_train_waits_for_their_agreement(
    store: SqliteEventStore, table: Table
) -> None:
    asked = await table.say("as Player 2 train 2-0 from N 60")
    assert "Player 2 for M-K asks Player 3 to agree: `train 2-0 from N 60`" in asked
    assert "▶ Player 3: `agree` or `refuse`?" in asked
    assert (await table.game()).state.companies["M-K"].trains == []  # nothing happens yet
    assert "not addressed to you" in await table.say("as Player 1 agree")
    # The request lives in the store: a restarted service still knows it.
    restarted = Table(TroikaService(store, pictures=False))
    agreed = await restarted.say("as Player 3 agree")
    assert "Player 2 for M-K: `train 2-0 from N 60` (agreed by Player 3)" in agreed
    game = await restarted.game()
    assert [t.id for t in game.state.companies["M-K"].trains] == ["2-0"]
    assert game.state.companies["N"].trains == []
    assert "Nobody is waiting" in await restarted.say("as Player 3 agree")


async def test_a_refused_or_overtaken_request_changes_nothing(table: Table) -> None:
    await table.say("as Player 2 train 2-0 from N 60")
    assert "Player 3 refuses `train 2-0 from N 60`" in await table.say("as Player 3 refuse")
    assert (await table.game()).state.companies["N"].trains != []
    await table.say("as Player 2 train 2-0 from N 60")
    await table.say("as Player 2 train 2")  # the buyer goes to the yard instead
    assert "Nobody is waiting" in await table.say("as Player 3 agree")
    assert [t.id for t in (await table.game()).state.companies["M-K"].trains] == ["2-1"]


async def test_players_take_back_only_their_own_last_move(store: SqliteEventStore, table: Table) -> None:
    moves = len(effective_events(await store.events(1)))  # the train is the move after these
    await table.say("as Player 2 train 2")
    assert "only take back your own last move" in await table.say("as Player 3 undo")
    taken = await table.say("as Player 2 undo")
    assert "↶ Player 2 takes back" in taken and "`train 2-1 100`" in taken
    assert (await table.game()).state.companies["M-K"].trains == []
    assert "↷ Player 2 redoes" in await table.say("as Player 2 redo")
    # The commissioner (the first seat) may take back anyone's move, saying why.
    assert "Say why" in await table.say("as Player 1 undo")
    assert "(`misclick`)" in await table.say("as Player 1 undo misclick")
    log = (await table.say("log 4")).split("\n")
    assert log[0].startswith(f"#{moves + 1} ") and log[0].endswith("Player 2 for M-K: `train 2-1 100` — undone")
    # One numbering: a move's number is the web page's (after move N), an undo names it so, not the event's.
    assert log[1].endswith(f"↶ Player 2 takes back #{moves + 1} `train 2-1 100`")
    assert log[3].endswith(f"↶ Player 1 takes back #{moves + 1} `train 2-1 100` (misclick)")


async def test_the_commissioner_acts_for_an_absent_player_and_it_is_logged(table: Table) -> None:
    refused = await table.say("as Player 3 as Player 2 train 2")
    assert "Only the commissioner (Player 1) may do that. On the console, `as NAME COMMAND` types" in refused
    post = await table.say("as Player 1 as Player 2 train 2")
    assert "(entered by Player 1 (commissioner))" in post
    assert "entered by Player 1 (commissioner)" in await table.say("log 1")


async def test_out_of_turn_and_illegal_moves_are_refused_with_what_is_legal(table: Table) -> None:
    assert "✗ Not your turn: Player 2 for M-K buys trains" in await table.say("as Player 3 pass")
    refused = await table.say("as Player 2 train 3")
    assert refused == "✗ No 3-train is for sale now. You may: `train 2`, `train 2-0 from N PRICE`"
    assert "✗ I don't know `trian`. Did you mean `train`?" in await table.say("as Player 2 trian 2")


async def test_a_paused_game_refuses_moves_until_resumed(table: Table) -> None:
    assert "⏸ Player 1 pauses the game: `holiday`" in await table.say("as Player 1 pause holiday")
    assert "paused (holiday)" in await table.say("as Player 2 train 2")
    assert "⏸ Paused by the commissioner: holiday" in await table.say("status")
    resumed = await table.say("as Player 1 resume")
    assert "▶ Player 2 for M-K buys trains" in resumed
    assert "✗" not in await table.say("as Player 2 train 2")


async def test_the_commissioner_ends_the_game(store: SqliteEventStore, table: Table) -> None:
    assert "Only the commissioner" in await table.say("as Player 2 end")
    asked = await table.say("as Player 1 end we stop here")
    assert "only an `undo` right after takes it back" in asked and "`end confirm`" in asked
    assert (await table.game()).state.finished is False
    ended = await table.say("as Player 1 end confirm we stop here")
    assert "Game over (manually ended): " in ended and "(`we stop here`)" in ended
    assert (await store.list_games())[0].status is GameStatus.FINISHED
    assert "Game over (manually ended)" in await table.say("status")  # anyone may still look
    assert "✗ Game 1 here is over" in await table.say("as Player 1 pass")


async def test_reminders_go_to_the_player_once_then_to_the_channel(store: SqliteEventStore) -> None:
    now = [utc_now()]
    service = TroikaService(store, clock=lambda: now[0], pictures=False)
    table = Table(service)
    await table.say("new Anna Boris Clara")
    await table.say("as Anna remind 24")
    sent: list[Post] = []

    async def remind_after(hours: float) -> list[str]:
        now[0] = utc_now() + timedelta(hours=hours)
        await service.send_reminders()
        start = len(sent)
        await service.flush(_collect(sent))
        return [p.content(lambda seat: f"@{seat.display_name}") for p in sent[start:]]

    first = (await table.game()).state.players[(await table.game()).state.priority].name
    assert await remind_after(1) == []
    [reminder] = await remind_after(25)
    assert reminder.startswith("⏰ Your turn has waited 1d 1h.") and f"@{first} {first} bids on TSR" in reminder
    assert await remind_after(26) == []
    [channel] = await remind_after(49)
    assert channel.startswith(f"⏰ **{first}** has not acted for 2d 1h") and "@" not in channel
    assert await remind_after(50) == []
    now[0] = utc_now()  # the console's line sends the reminders due then too: the pass comes now
    await table.say(f"as {first} pass")
    [next_reminder] = await remind_after(0.5 + 24 + 1)  # a new decision, a new reminder
    assert "Your turn has waited" in next_reminder and f"@{first}" not in next_reminder


async def test_reminders_may_be_asked_for_some_games_only(store: SqliteEventStore) -> None:
    now = [utc_now()]
    service = TroikaService(store, clock=lambda: now[0], pictures=False)
    players = [("a", "Anna"), ("b", "Boris")]
    for channel in ("one", "two"):  # a worker reminds the players of its own channels' games
        await service.start_local_game(channel, players, seed=1, first_player=0)
        await service.handle(channel, Account("a", "Anna"), "remind 24")
    now[0] = utc_now() + timedelta(hours=25)
    first = await store.active_game_in_channel("one")
    assert first is not None
    await service.send_reminders({first.id})
    sent: list[Post] = []
    await service.flush(_collect(sent))
    assert [p.game_id for p in sent if p.text.startswith("⏰ Your turn")] == [first.id]


def _collect(sent: list[Post]):  # type: ignore[no-untyped-def]
    async def deliver(post: Post) -> None:
        sent.append(post)
    return deliver


async def test_a_restart_loses_nothing_and_sends_each_post_once(tmp_path: Path) -> None:
    path = tmp_path / "troika.db"
    async with SqliteEventStore(path) as store:
        service = TroikaService(store, pictures=False)
        await service.start_local_game(CHANNEL, [("a", "Anna"), ("b", "Boris"), ("c", "Clara")], first_player=0)
        await service.handle(CHANNEL, Account("a", "Anna"), "bid TSR 20")  # the process dies before posting
    async with SqliteEventStore(path) as store:
        service = TroikaService(store)
        delivered: list[Post] = []
        await service.flush(_collect(delivered))
        assert [p.text.split("\n")[0] for p in delivered] == [
            "**Game 1 of 1861 begins** (grid market). Seats: Anna → Boris → Clara. Priority deal: **Anna**.",
            "**Anna**: `bid TSR 20`",
        ]
        assert [p.name for p in delivered[0].pictures] == ["map", "table"]  # drawn as of the start
        assert delivered[1].mention is not None and delivered[1].mention.display_name == "Boris"
        assert len({p.outbox_id for p in delivered}) == 2  # the nonces Discord dedupes on
        await service.flush(_collect(delivered))
        assert len(delivered) == 2
        _, game = await service.game_in(CHANNEL)
        assert game.state.round.high_bid == 20


async def test_each_verb_is_carried_out_by_the_one_method_marked_for_it(store: SqliteEventStore) -> None:
    """The verb table names no handler: each feature marks its methods ``@handles``, and
    the service binds them; a verb handled twice (or by nobody) stops the service."""
    from bot.commands import ACTION_VERBS, VERBS
    from bot.computer_seats import ComputerSeats
    from bot.core import handles
    from bot.information import Information

    service = TroikaService(store)
    assert set(service.core.handlers) == set(VERBS)
    assert service.core.handlers["status"] == service.information.status
    assert {service.core.handlers[verb] for verb in ACTION_VERBS} == {service.turns.act}

    class Closer(Information):  # a feature built on another keeps its handlers
        @handles("map")
        async def close_up(self, *args: object) -> None: ...

    with pytest.raises(RuntimeError, match="`map` is handled twice in Closer: close_up, map"):
        Closer(service.core).handlers()

    class Elsewhere(Information):
        pass

    assert set(Elsewhere(service.core).handlers()) == set(service.information.handlers()) >= {"status", "map"}

    import bot.service as module

    class Rival(ComputerSeats):  # a second feature that says it carries out `status`
        @handles("status")
        async def rival_status(self, *args: object) -> None: ...

    module.ComputerSeats = Rival  # type: ignore[misc]
    try:
        with pytest.raises(RuntimeError, match=r"handled twice \['status'\], unhandled \[\]"):
            TroikaService(store)
    finally:
        module.ComputerSeats = ComputerSeats  # type: ignore[misc]


async def test_a_bug_behind_one_command_ends_no_console_session(table: Table) -> None:
    """A handler that fails unexpectedly is answered and logged; the next line is carried out."""

    async def broken(*args: object) -> None:
        raise TypeError("a handler called with the wrong arguments")

    table.service.core.handlers["market"] = broken
    assert "Something went wrong on my side" in await table.say("as Player 1 market")
    assert "Operating round 1.1" in await table.say("status")
