"""Computer players at the table (bot/computer_seats.py): seated at `new`, given a seat by
the commissioner and back, a player's own hand-over and return, `hint`; through the
console, the service in one process and the service's worker pool (the Discord path)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot import computer_seats
from bot.console import Console
from bot.errors import NotAllowed, Refusal
from bot.service import Account, Post, TroikaService
from bot.workers import ServicePool
from engine import BuyTrain, counted
from storage import GameStatus, SqliteEventStore
from tests.test_bot_discord import ANNA, BORIS, CHANNEL_ID, USERS, Table, posts, table  # noqa: F401 (the fixture)

ANNA_ACCOUNT, BORIS_ACCOUNT = Account("111", "Anna"), Account("222", "Boris")
MARK = "played by the computer"


def _collect(sent: list[Post]):  # type: ignore[no-untyped-def]
    async def deliver(post: Post) -> None:
        sent.append(post)
    return deliver


def _collect_text(sent: list[str]):  # type: ignore[no-untyped-def]
    """A user's ``send`` (a direct message to them) that keeps the text."""
    async def send(content: str | None = None, **kwargs: object) -> None:
        sent.append(content or "")
    return send


async def test_console_seats_computers_that_move_until_a_person_is_to_act() -> None:
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        console = Console(service, Path("unused"), out.append)
        await console.line("new 1867 Anna computer computer")
        assert out[0].startswith("Game 1 of 1867 begins") and "Anna → Computer 1 → Computer 2" in out[0]
        _, game = await service.game_in("console")
        assert game.acting_player() == "Anna"
        events = len(await store.events(1))
        out.clear()
        await console.line("hint")
        assert out[0].startswith("💡 The computer would `") and len(await store.events(1)) == events
        out.clear()
        await console.line("pass")
        moved = [line for line in out if MARK in line]
        assert moved and all(line.startswith("Computer ") for line in moved)
        assert all("(`" in line for line in moved)  # each with its reason
        _, game = await service.game_in("console")
        assert game.acting_player() == "Anna"


@pytest.mark.parametrize("title", ["1861", "1867"])
async def test_hint_and_the_computers_posts_give_reasons_in_18xx_terms(title: str) -> None:
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        console = Console(service, Path("unused"), out.append)
        await console.line(f"new {title} Anna computer computer")
        out.clear()
        await console.line("hint")
        [hint] = out
        assert "better off than passing" not in hint
        verb = hint.split("`")[1].split()[0]
        assert verb == "pass" or hint.split("`")[1].split()[1] in hint.split("`", 2)[2], hint  # the lot it bids on
        out.clear()
        await console.line("pass")
        moved = [line for line in out if MARK in line]
        assert moved and not any("better off than passing" in line for line in moved)


async def test_a_player_hands_over_their_seat_and_takes_it_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(computer_seats, "MOST_MOVES", 6)
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        await service.start_local_game("c", [("a", "Anna"), ("b", "Boris"), ("c", "Clara")], first_player=0)
        with pytest.raises(NotAllowed):
            await service.handle("c", Account("b", "Boris"), "hint")  # not Boris's turn
        await service.handle("c", Account("a", "Anna"), "computer takes over")
        events = await store.events(1)
        assert any(e.action.get("type") == "computer" for e in events)
        moves = [e for e in events if e.actor == "a" and e.kind.name == "ACTION"]
        assert moves  # the computer moved for Anna at once
        with pytest.raises(Refusal, match="already plays your seat"):
            await service.handle("c", Account("a", "Anna"), "computer takes over")
        await service.handle("c", Account("a", "Anna"), "I'm back")
        before = len(await store.events(1))
        await service.handle("c", Account("b", "Boris"), "status")
        assert len(await store.events(1)) == before  # no one is the computer's now: nothing moves


async def test_the_commissioner_gives_a_seat_to_the_computer_and_back() -> None:
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        await service.start_local_game("c", [("a", "Anna"), ("b", "Boris"), ("c", "Clara")], first_player=0)
        await service.handle("c", Account("a", "Anna"), "bid TSR 20")
        reply = await service.handle("c", Account("a", "Anna"), "replace Boris computer")
        assert "computer takes Boris" in reply.text
        events = await store.events(1)
        assert any(e.actor == "b" and e.kind.name == "ACTION" for e in events)  # it moved for Boris
        with pytest.raises(Refusal):
            await service.handle("c", Account("b", "Boris"), "replace Clara computer")  # not the commissioner
        await service.replace_seat("c", Account("a", "Anna"), "computer", Account("b2", "Boris"))
        [record] = await store.list_games()
        assert [s.discord_user_id for s in record.seats] == ["a", "b2", "c"]


async def _boris_handed_to_the_computer_beside_two_computers(store: SqliteEventStore) -> tuple[TroikaService, Account]:
    """Anna (commissioner), Boris and two computer seats; Boris's seat handed to the computer."""
    service = TroikaService(store, pictures=False)
    anna = Account("Anna", "Anna")
    await service.start_local_game("c", [("Anna", "Anna"), ("Boris", "Boris"), ("x", "computer"),
                                         ("y", "computer")], first_player=0)
    await service.handle("c", anna, "replace Boris computer")
    return service, anna


async def test_with_several_computer_seats_the_commissioner_names_the_one_to_give_back() -> None:
    async with SqliteEventStore(":memory:") as store:
        service, anna = await _boris_handed_to_the_computer_beside_two_computers(store)
        status = (await service.handle("c", anna, "status")).text
        assert "Anna (commissioner) · Boris (computer) · Computer 1 (computer) · Computer 2 (computer)" in status
        with pytest.raises(Refusal, match='plays Boris, Computer 1, Computer 2: name the seat.*replace "Boris"'):
            await service.replace_seat("c", anna, "computer", Account("d", "Dmitri"))
        await service.replace_seat("c", anna, "computer", Account("b2", "Boris"))  # Boris's own seat back
        await service.handle("c", anna, 'replace "Computer 2" Dmitri')
        [record] = await store.list_games()
        assert [(s.discord_user_id, s.display_name) for s in record.seats] == [
            ("Anna", "Anna"), ("b2", "Boris"), ("computer-3", "Computer 1"), ("Dmitri", "Dmitri")]
        assert "· Boris · Computer 1 (computer) · Dmitri —" in (await service.handle("c", anna, "status")).text


@asynccontextmanager
async def _at_the_console(new: str) -> AsyncIterator[tuple[SqliteEventStore, Console, list[str]]]:
    """A console on a store in memory, the game ``new`` set up; what it prints is kept."""
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store:
        console = Console(TroikaService(store, pictures=False), Path("unused"), out.append)
        await console.line(new)
        yield store, console, out


async def test_im_back_on_a_seat_the_commissioner_handed_over_says_who_gives_it_back() -> None:
    """Checker of issue 37: after `replace Boris computer`, `as Boris I'm back` said "You
    are neither away nor played by the computer", which is false."""
    async with _at_the_console("new 1861 Anna Boris computer") as (store, console, out):
        await console.line("as Anna replace Boris computer")
        events = len(await store.events(1))
        out.clear()
        await console.line("as Boris I'm back")
        assert out[0] == ("✗ The commissioner handed Boris's seat to the computer: only the commissioner gives it "
                          "back (`replace computer @Boris`).")
        assert len(await store.events(1)) == events


async def test_on_discord_the_player_whose_seat_the_commissioner_handed_over_is_told_so() -> None:
    """Boris's own account, no longer seated once `replace Boris computer` gave his seat
    away, was told "You have no seat in game 1 (seated: Anna, Boris, ...)"."""
    async with SqliteEventStore(":memory:") as store:
        service, _ = await _boris_handed_to_the_computer_beside_two_computers(store)
        for typed in ("I'm back", "computer takes over"):
            with pytest.raises(NotAllowed, match=r"^The commissioner handed Boris's seat to the computer: only the "
                                                 r"commissioner gives it back \(`replace computer @Boris`\)\.$"):
                await service.handle("c", Account("b1", "Boris"), typed)
        with pytest.raises(NotAllowed, match="You have no seat in game 1"):
            await service.handle("c", Account("d", "Dmitri"), "I'm back")


async def test_time_at_the_table_counts_the_computers_moves() -> None:
    """Checker of issue 37: the time-at-the-table lines (`stats`, the game's end post)
    said "Computer 1: no moves yet" after hundreds of computer moves."""
    async with _at_the_console("new 1861 Anna computer computer") as (_, console, out):
        await console.line("pass")
        made = {name: sum(1 for line in out if line.startswith(f"{name}: ") and MARK in line)
                for name in ("Computer 1", "Computer 2")}
        assert all(made.values()), out
        out.clear()
        await console.line("stats")
        for name, count in made.items():
            assert f"{name}: {counted(count, 'move')} by the computer, not timed · " in out[0], out[0]
        assert "no moves yet" not in out[0]


async def test_a_typed_at_name_gives_back_that_players_own_seat() -> None:
    """Checker of issue 37: at the console (or typed without a Discord mention)
    `replace computer @Boris` was read as a player called "@Boris", so with several
    computer seats it was refused, and a seat given to "@Boris" was renamed so."""
    async with SqliteEventStore(":memory:") as store:
        service, anna = await _boris_handed_to_the_computer_beside_two_computers(store)
        await service.handle("c", anna, "replace computer @Boris")
        [record] = await store.list_games()
        assert [s.display_name for s in record.seats] == ["Anna", "Boris", "Computer 1", "Computer 2"]
        assert "· Boris · Computer 1 (computer) · Computer 2 (computer)" in (await service.handle("c", anna,
                                                                                             "status")).text


@pytest.mark.slow
async def test_the_worker_pool_seats_computers_and_hints_on_the_discord_path(tmp_path: Path) -> None:
    async with SqliteEventStore(tmp_path / "pool.db") as store, \
            ServicePool(store, workers=2, pictures=False) as pool:
        await pool.handle("chan", ANNA_ACCOUNT, "new 1861 computer computer", guild_id="g")
        await pool.handle("chan", BORIS_ACCOUNT, "join", guild_id="g")
        await pool.handle("chan", ANNA_ACCOUNT, "start", guild_id="g")
        sent: list[Post] = []
        await pool.flush(_collect(sent))
        record = await store.active_game_in_channel("chan")
        assert record is not None and [s.display_name for s in record.seats][1:3] == ["Computer 1", "Computer 2"]
        deciding = await pool.deciding_account("chan")
        assert deciding is not None and deciding.id in (ANNA_ACCOUNT.id, BORIS_ACCOUNT.id)  # the computers moved first
        reply = await pool.handle("chan", deciding, "hint")
        assert reply.text.startswith("💡 The computer would `")
        for _ in range(4):  # the seats' order is drawn: the two people may act in turn before a computer does
            if any(MARK in p.text for p in sent):
                break
            await pool.handle("chan", deciding, "pass")
            await pool.flush(_collect(sent))
            deciding = await pool.deciding_account("chan") or deciding
        assert any(MARK in p.text and "Computer" in p.text for p in sent)


@pytest.mark.slow
async def test_discord_seats_computers_posts_their_moves_and_hints(table: Table) -> None:  # noqa: F811
    await table.say(ANNA, "!new computer computer")
    await table.say(BORIS, "!join")
    sent = await table.say(ANNA, "!start")
    record = await table.service.store.active_game_in_channel(str(CHANNEL_ID))
    assert record is not None and [s.display_name for s in record.seats] == ["Anna", "Computer 1", "Computer 2",
                                                                             "Boris"]
    _, game = await table.service.game_in(str(CHANNEL_ID))
    human = USERS[game.state.player(game.acting_player() or "").name]
    events = len(await table.service.store.events(record.id))
    direct: list[str] = []
    human.send = _collect_text(direct)  # type: ignore[attr-defined]
    try:
        assert await table.say(human, "!hint") == []
    finally:
        del human.send  # type: ignore[attr-defined]
    assert direct[0].startswith("💡 The computer would `")
    assert len(await table.service.store.events(record.id)) == events  # a hint never acts
    for _ in range(4):  # the seats' order is drawn: the two people may act in turn before a computer does
        computer_posts = [m.content or "" for m in posts(sent) if MARK in (m.content or "")]
        if computer_posts:
            break
        sent += await table.say(await table.acting(), "!pass")
    assert computer_posts and all(p.startswith("**Computer ") for p in computer_posts)
    assert (await table.acting()) in (ANNA, BORIS)


async def test_a_typed_hint_goes_by_direct_message(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    for user, text in ((ANNA, "!new"), (BORIS, "!join"), (ANNA, "!start")):
        await table.say(user, text)
    human = await table.acting()
    direct: list[str] = []
    monkeypatch.setattr(human, "send", _collect_text(direct), raising=False)
    in_channel = await table.say(human, "!hint")
    assert in_channel == [] and direct and direct[0].startswith("💡 The computer would `")


async def test_the_computer_refuses_a_deal_asked_of_its_seat_and_proposes_none() -> None:
    """A person asking a computer-played seat for a train waits for no answer that never
    comes: the computer answers at once, here refusing, N's one train, and says why
    (checker of issue 37: the table hung on `agree`). And the computer never picks a move
    that needs another player's consent (it took other companies' trains for 1 without
    asking)."""
    from engine import BuyTrain, consent_needed
    from engine.computer.agents import moves
    from tests.test_bot_service import BEFORE_MK_BUYS, start_shared

    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        table = await start_shared(service, BEFORE_MK_BUYS)
        game = await table.game()
        deal = BuyTrain("M-K", "2-0", 60)  # N's train: Player 3 must agree
        assert consent_needed(game, deal) == "3058" and deal not in moves(game)
        assert "computer takes Player 3" in await table.say("as Player 1 replace Player 3 computer")
        said = await table.say("as Player 2 train 2-0 from N 60")
        assert "refuses `train 2-0 from N 60` (N would keep no train, and a company must own one" in said
        assert "played by the computer" in said, said
        game = await table.game()
        assert any(t.id == "2-0" for t in game.state.companies["N"].trains)  # kept
        assert (await store.get_game(1)).status.name == "RUNNING"
        assert "agree" not in (await table.say("status")).split("May:")[0]


async def test_at_the_console_a_bare_im_back_is_typed_for_the_seat_handed_to_the_computer() -> None:
    """Checker of issue 37: a bare `I'm back` was typed for whoever must act (often a
    computer seat) and refused. The keyboard types for every seat: it is the one seat
    handed to the computer by its player, and with several the console asks whose."""
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        console = Console(service, Path("unused"), out.append)
        await console.line("new 1861 Anna Boris Clara")
        await console.line("as Anna computer takes over")
        await console.line("as Boris computer takes over")
        assert (await service.deciding_account("console")) == Account("Clara", "Clara")
        out.clear()
        await console.line("I'm back")
        assert out == ["✗ Whose seat? The keyboard types for every player: `as Anna I'm back` or "
                       "`as Boris I'm back`."]
        out.clear()
        await console.line("as Boris I'm back")
        assert any("Boris is back and plays their own seat" in line for line in out), out
        out.clear()
        await console.line("I'm back")  # Anna's is the one seat handed over now
        assert any("Anna is back and plays their own seat" in line for line in out), out
        out.clear()
        await console.line("I'm back")
        assert out == ["✗ No player has handed their seat to the computer or is away: there is nothing to come "
                       "back from."]


async def test_at_the_console_computer_takes_over_is_typed_for_a_person_when_the_computer_acts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bare `computer takes over` while a computer seat is to act is typed for the one
    person at the table (it was typed for the computer's seat and refused)."""
    monkeypatch.setattr(computer_seats, "MOST_MOVES", 0)  # the computer is left to act
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        console = Console(service, Path("unused"), lambda text: (out.append(text), console.interrupt()))
        await service.start_local_game("console", [("x", "computer"), ("Anna", "Anna")], first_player=0)
        assert (await service.deciding_account("console")) == Account("computer-1", "Computer 1")
        await console.line("computer takes over")
        assert any("The computer plays Anna's seat until they type `I'm back`" in line for line in out), out
        assert out[-1].startswith("⏸ Stopped (Ctrl-C)")  # it would play on to the end
        out.clear()
        await console.line("computer takes over")
        assert out[0] == "✗ The computer plays every seat already; `I'm back` gives one back."


async def test_at_the_console_a_refused_line_leaves_the_computer_stopped_after_ctrl_c() -> None:
    """Checker of issue 37: with every seat handed to the computer and Ctrl-C pressed, a
    bare `I'm back` was refused ("Whose seat?") and the computer played on (to the end of
    the game) before `as Anna I'm back` could be typed. A refused line leaves it stopped;
    the accepted one lets it go on."""
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        console = Console(service, Path("unused"), lambda text: (out.append(text), console.interrupt()))
        await console.line("new 1867 Anna Boris computer")
        await console.line("as Boris computer takes over")
        await console.line("computer takes over")  # Anna's: every seat is the computer's
        assert out[-1].startswith("⏸ Stopped (Ctrl-C)"), out[-3:]
        moved = len(await store.events(1))
        out.clear()
        await console.line("I'm back")
        assert out == ["✗ Whose seat? The keyboard types for every player: `as Anna I'm back` or "
                       "`as Boris I'm back`."]
        assert len(await store.events(1)) == moved  # stopped still
        await console.line("bid nonsense")
        assert len(await store.events(1)) == moved
        await console.line("as Anna I'm back")
        assert any("Anna is back and plays their own seat" in line for line in out), out
        assert len(await store.events(1)) > moved + 1  # the hand-back, and the computer went on


async def test_replace_reads_a_quoted_computer_as_any_quoted_name() -> None:
    """One reading of quotes for `replace` (review): `'computer'` or `“computer”` (a
    phone's quotes) is the computer's seat, as `"computer"` was; it was read as a player
    called so and refused."""
    async with SqliteEventStore(":memory:") as store:
        service, anna = await _boris_handed_to_the_computer_beside_two_computers(store)
        await service.handle("c", anna, "replace “computer” @Boris")
        [record] = await store.list_games()
        assert [s.discord_user_id for s in record.seats][:2] == ["Anna", "@Boris"]


async def _computers_play_on_at_the_console(service: TroikaService | ServicePool, store: SqliteEventStore,
                                            lines: int = 200) -> None:
    """`new 1861 computer computer` at the console: the computer plays on, each move
    printed with its reason, until Ctrl-C (here after ``lines`` lines); Enter lets it go on."""
    out: list[str] = []
    console = Console(service, Path("unused"), lambda text: (out.append(text), len(out) % lines or console.interrupt()))
    await console.line("new 1861 computer computer")
    assert out[-1].startswith("⏸ Stopped (Ctrl-C). The next line accepted lets the computer play on"), out[-3:]
    moved = len(await store.events(1))
    assert moved > 2 * computer_seats.MOST_MOVES  # on beyond the moves made after a command (it stopped there)
    posts = [line for line in out if MARK in line]
    assert len(posts) >= moved - 1 and all(line.startswith("Computer ") and "(`" in line for line in posts)
    await console.line("")  # Enter
    assert len(await store.events(1)) > moved and out[-1].startswith("⏸ Stopped")
    assert (await store.get_game(1)).status is GameStatus.RUNNING  # stopped, not over


async def test_at_the_console_the_computer_plays_on_while_every_seat_is_its_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Checker of issue 37: with every seat the computer's, the console stopped after the
    moves made after a command and waited, silent, for a line to be typed."""
    monkeypatch.setattr(computer_seats, "MOST_MOVES", 4)
    async with SqliteEventStore(":memory:") as store:
        await _computers_play_on_at_the_console(TroikaService(store, pictures=False), store, lines=40)


@pytest.mark.slow
async def test_at_the_console_the_computer_plays_on_through_worker_processes(tmp_path: Path) -> None:
    async with SqliteEventStore(tmp_path / "pool.db") as store, \
            ServicePool(store, workers=1, pictures=False) as pool:
        await _computers_play_on_at_the_console(pool, store)


@pytest.mark.parametrize(("name", "commands", "seat", "hex_id", "listed", "written"), [
    ("1861-29683", 78, "Player 1", "C13", "`lay C13 9 1`", "`lay C13 9 4`"),
    ("1867-21268", 184, "Player 4", "G15", "`lay G15 14 1`", "`lay G15 14 4`"),
])
async def test_a_hinted_lay_is_written_at_a_rotation_that_tiles_lists(
        name: str, commands: int, seat: str, hex_id: str, listed: str, written: str) -> None:
    """A shared game's lay step where the computer's lay is a straight (or 14) at a
    rotation `tiles` does not list, as it lists one rotation of each track: the hint
    wrote that rotation (checker of issue 37); it writes the one `tiles` lists."""
    from tests.test_bot_service import start_shared

    async with SqliteEventStore(":memory:") as store:
        table = await start_shared(TroikaService(store, pictures=False), commands, name)
        hint = await table.say(f"as {seat} hint")
        tiles = await table.say(f"as {seat} tiles {hex_id}")
        hinted = re.search(r"`lay [A-Z]+\d+ \w+ \d`", hint)
        assert hinted is not None and hinted.group(0) in tiles, (hint, tiles)  # whichever lay the seat's seed picks
        assert listed in tiles and written not in tiles, tiles


async def test_trouble_in_the_computers_play_on_ends_no_console_session(monkeypatch: pytest.MonkeyPatch) -> None:
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        console = Console(service, Path("unused"), out.append)

        async def broken(channel_id: str, most: int) -> int:
            raise RuntimeError("a bug")

        monkeypatch.setattr(service, "computer_moves", broken)
        await console.line("new 1861 computer computer")
        assert out[-1] == "✗ The computer stopped on my side; it is logged. Enter lets it try again."


@asynccontextmanager
async def _mnn_may_ask_for_svs_train() -> AsyncIterator[tuple[Table, str, str]]:
    """1861-29683 where trainless MNN may ask for SV's spare 2-train (SV keeps its
    3-train): the table, SV's owner and MNN's."""
    from tests.test_bot_service import start_shared
    from tests.test_computer_deals import BEFORE_MNN_BUYS

    async with SqliteEventStore(":memory:") as store:
        table = await start_shared(TroikaService(store, pictures=False), BEFORE_MNN_BUYS)
        game = await table.game()
        owner = next(p.name for p in game.state.players if p.id == "5522")
        asker = next(p.name for p in game.state.players if p.id == game.controller("MNN"))
        yield table, owner, asker


async def test_the_computer_agrees_to_a_deal_that_leaves_its_seat_ahead() -> None:
    """For 1 the computer playing SV's owner refuses; for 100 it agrees, and the train
    changes hands as the asker's move, noted as agreed for the seat, with the reason."""
    from engine.computer.deals import answer_deal

    async with _mnn_may_ask_for_svs_train() as (seated, owner, asker):
        assert answer_deal(await seated.game(), BuyTrain("MNN", "2-6", 100), "5522").agrees
        assert "computer takes" in await seated.say(f"as Player 1 replace {owner} computer")
        said = await seated.say(f"as {asker} train 2-6 from SV 1")
        assert f"{owner} refuses `train 2-6 from SV 1`" in said, said
        assert not (await seated.game()).state.companies["MNN"].trains
        said = await seated.say(f"as {asker} train 2-6 from SV 100")
        assert f"agreed by {owner}, whose seat the computer plays: it leaves its seat about" in said, said
        game = await seated.game()
        assert [t.id for t in game.state.companies["MNN"].trains] == ["2-6"]
        assert [t.name for t in game.state.companies["SV"].trains] == ["3"]


async def test_a_hint_asked_about_a_deal_says_whether_the_computer_would_agree() -> None:
    """A player asked to agree to a deal may ask `hint`: the computer's answer in their
    place, and why; the deal still waits for them."""
    async with _mnn_may_ask_for_svs_train() as (seated, owner, asker):
        await seated.say(f"as {asker} train 2-6 from SV 100")
        said = await seated.say(f"as {owner} hint")
        assert "The computer would `agree` to `train 2-6 from SV 100`: it leaves its seat about" in said, said
        assert not (await seated.game()).state.companies["MNN"].trains  # still waiting


async def test_four_computer_seats_start_minors_in_the_first_stock_round() -> None:
    """Every computer seat drew its tie-breaks from the game's one seed, and a pass in a
    stock round writes nothing to the log that seeds the next: at a bid on a minor that
    counts no more than a pass, all four seats passed alike, five stock rounds running
    (checker of issue 37, 1861, game seed 427204075). Each seat now has its own seed."""
    from tests.test_bot_service import CHANNEL, Table

    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        await service.start_local_game(CHANNEL, [(f"c{i}", "computer") for i in range(4)], seed=427204075,
                                       title="1861")
        table = Table(service)
        game = await table.game()
        while not any(c.is_minor and c.floated for c in game.state.companies.values()):
            assert game.state.round_number == 1, "no minor started in the first stock round"
            assert await service.computer.catch_up(CHANNEL) > 0
            game = await table.game()
