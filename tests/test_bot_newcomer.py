"""Play by chat as a newcomer meets it (issue 14): each place a new player got stuck
or misled, typed at the console (the same service as Discord) as they typed it.

Positions come from the shared real game 1861-29683 (``start_shared`` plays its first
commands), or from a fresh hot-seat game.
"""

from __future__ import annotations

import re
import subprocess
import sys
from itertools import islice
from pathlib import Path

import pytest

from bot.cli import main
from bot.console import CHANNEL, Console, run_console
from bot.posts import CHOICES_LIMIT, choices_text, next_line, results_text
from bot.service import Account, Post, TroikaService
from bot.transcript import log_commands
from engine.actions import BuyTrain, Pass
from engine.game import Game
from engine.importer import import_log, read_log
from engine.legal import legal_actions
from engine.notation import command
from engine.replay import replay
from engine.rules import Rules
from engine.selfplay import play_random_game
from engine.trains import find_train, phase_changes
from render.table import render_table
from storage import GameStatus, SqliteEventStore
from tests.conftest import GAMES, ROOT, shared_game
from tests.test_bot_service import BEFORE_MK_BUYS, Table, start_shared

GRR_TRAINLESS = 366
"""Commands of 1861-bank-breaks after which GRR's president chooses: nationalize or keep."""
SV_SECOND_LAY = 224
"""Commands of 1861-29683 after which SV, without a train, may make a second lay."""
MK_BUYS_WITH_10 = 58
"""Commands of 1861-29683 after which M-K, with a train and 10 in cash, may buy more."""
KR_LAYS_TRACK = 67
"""Commands after which KR lays track, Kiev's Y city G15 within reach."""
N_RUNS = 82
"""Commands after which N runs its 2-train from Moscow (H8)."""
NW_DIVIDEND = 349
"""Commands after which NW, a major, decides its dividend."""
MERGER_ROUND = 177
"""Commands after which the first merger round is under way."""


@pytest.fixture
async def hot_seat(store: SqliteEventStore) -> Table:
    """A fresh three-player game at the console, in its private auction."""
    table = Table(TroikaService(store, pictures=False))
    assert "begins" in await table.say("new Anna Boris Clara")
    return table


async def _stored(store: SqliteEventStore) -> int:
    """How many events the store holds, over all games."""
    count = 0
    for record in await store.list_games():
        count += len(await store.events(record.id))
    return count


# 1 ------------------------------------------------------------------------------------


async def test_1_end_asks_for_confirmation_and_the_ended_game_can_still_be_read(
    store: SqliteEventStore, hot_seat: Table
) -> None:
    before = await _stored(store)
    asked = await hot_seat.say("as Anna end")
    assert "only an `undo` right after takes it back" in asked and "`end confirm`" in asked
    assert await _stored(store) == before  # nothing happened
    assert "Only the commissioner (Anna) may do that." in await hot_seat.say("as Boris end confirm")
    ended = await hot_seat.say("as Anna end confirm enough for today")
    assert "Game over (manually ended)" in ended and "(`enough for today`)" in ended
    assert "✗ Game 1 here is over (`status` and `log` still show it); `new` sets up another." in \
        await hot_seat.say("as Boris pass")
    assert "Game over" in await hot_seat.say("status")
    assert "`end`" in await hot_seat.say("log 1")
    assert "Only the commissioner (Anna)" in await hot_seat.say("as Boris undo")
    assert "↶ Anna takes back" in await hot_seat.say("as Anna undo")  # the way back
    assert "To act:" in await hot_seat.say("status")
    [record] = await store.list_games()
    assert record.status is GameStatus.RUNNING


# 2 ------------------------------------------------------------------------------------


async def test_2_keep_is_only_an_answer_to_nationalize_or_keep(store: SqliteEventStore, hot_seat: Table) -> None:
    before = await _stored(store)
    refused = await hot_seat.say("keep")
    assert refused.startswith("✗ `keep` answers whether to nationalize a trainless major")
    assert "You may: `bid TSR" in refused
    assert await _stored(store) == before


@pytest.mark.slow
async def test_2_a_trainless_major_is_asked_nationalize_or_keep(store: SqliteEventStore) -> None:
    table = await start_shared(TroikaService(store, pictures=False), GRR_TRAINLESS, "1861-bank-breaks")
    assert "GRR has no train: nationalize or keep?" in (status := await table.say("status"))
    assert "May: `nationalize`, `keep`" in status
    kept = await table.say("keep")
    assert "for GRR: `keep`" in kept and (await table.game()).state.trainless_majors == []


# 3 ------------------------------------------------------------------------------------


async def test_3_a_deal_is_checked_when_proposed_and_may_be_withdrawn(store: SqliteEventStore) -> None:
    table = await start_shared(TroikaService(store, pictures=False), BEFORE_MK_BUYS)
    too_dear = await table.say("as Player 2 train 2-0 from N 5000")
    assert too_dear.startswith("✗ ") and "asks" not in too_dear  # refused at once, nobody asked
    assert "Nobody is waiting" in await table.say("as Player 3 agree")
    assert "asks Player 3 to agree" in await table.say("as Player 2 train 2-0 from N 60")
    waiting = await table.say("pass")  # typed by whoever must decide: Player 3, asked to agree
    assert "✗ Waiting for Player 3 to `agree` or `refuse` `train 2-0 from N 60`; Player 2 may `withdraw` it." \
        in waiting
    assert "Only Player 2, who asked, may withdraw" in await table.say("as Player 3 withdraw")
    assert "Player 2 withdraws `train 2-0 from N 60`." in await table.say("withdraw")
    assert "Waiting for" not in await table.say("status")
    assert "Nobody is waiting" in await table.say("as Player 3 agree")


@pytest.mark.slow
async def test_3_a_merge_with_an_unconnected_minor_is_refused_before_its_owner_is_asked(
    store: SqliteEventStore,
) -> None:
    table = await start_shared(TroikaService(store, pictures=False), MERGER_ROUND)
    game = await table.game()
    me = game.acting_player()
    offered = {c.split()[1] for c in game.choices() if c.startswith("merge ")}
    others = [s for s, c in game.state.companies.items() if c.is_minor and c.floated and not c.closed
              and s not in offered and game.controller(s) not in (me, None)]
    assert others, "a minor of another player that is not connected"
    refused = await table.say(f"merge {others[0]}")
    assert refused.startswith("✗ ") and "not connected" in refused and "asks" not in refused


# 4 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "said"), [
    ("bid TSR 35 please", "✗ `bid` takes no `please`: write it as `bid [PRIVATE|MINOR] PRICE`."),
    ("Pass it", "✗ `pass` takes no `it`: write it as `pass`."),
    ("buy NW 2", "✗ `buy` buys one share at a time: `buy NW` from the treasury or `buy NW pool`."),
    ("convert NW", "✗ `convert` takes no `NW`: write it as `convert`."),
    ("merge KK BSS", "✗ `merge` takes no `BSS`: write it as `merge MINOR`."),
    ("half -1", "✗ `half` takes no `-1`: write it as `half`."),
    ("status now", "✗ `status` takes no `now`: write it as `status`."),
])
async def test_4_extra_words_are_refused_not_ignored(
    store: SqliteEventStore, hot_seat: Table, typed: str, said: str
) -> None:
    before = await _stored(store)
    assert (await hot_seat.say(typed)).startswith(said)
    assert await _stored(store) == before


async def test_4_a_huge_command_is_refused_without_being_echoed(hot_seat: Table) -> None:
    reply = await hot_seat.say("bid " + "9" * 20_000)
    assert reply.startswith("✗ That command is 20004 characters long") and len(reply) < 200
    assert len(await hot_seat.say("x" * 250)) < 200  # an unknown word is quoted short


# 5 ------------------------------------------------------------------------------------


async def test_5_only_trains_the_company_can_pay_for_are_offered(store: SqliteEventStore) -> None:
    table = await start_shared(TroikaService(store, pictures=False), MK_BUYS_WITH_10)
    game = await table.game()
    assert game.actor() == "M-K" and game.state.companies["M-K"].cash == 10
    status = await table.say("status")
    may = status.split("May: ")[1].split("\n")[0]
    assert "`train 2-0 from N PRICE`" in may and "`pass`" in may and " 100`" not in may  # no yard train at 100
    assert "✗" in await table.say("train 2")


# 6 ------------------------------------------------------------------------------------


async def test_6_automatic_effects_are_posted_and_in_the_log(store: SqliteEventStore) -> None:
    table = await start_shared(TroikaService(store, pictures=False), N_RUNS)
    await table.say("run")
    log = "\n".join([await table.say(f"log page {page}") for page in (3, 2, 1)])
    assert "    Privates pay: " in log  # private income at the start of the operating round
    assert "    Player 2 passes: nothing to sell, buy or auction" in log  # a player skipped, and why
    assert "share price" in log and "→" in log  # a price move, from and to
    assert "    N earns 80: 40 to its owner, 40 kept\n    N share price 50 → 55" in log


@pytest.mark.slow
@pytest.mark.parametrize("choice", ["withhold", "payout"])
async def test_6_a_dividend_says_where_the_money_went_and_the_new_price(store: SqliteEventStore, choice: str) -> None:
    table = await start_shared(TroikaService(store, pictures=False), NW_DIVIDEND)
    posted = await table.say(choice)
    if choice == "withhold":
        assert "NW withholds " in posted and ": all to its treasury (now " in posted
    else:
        assert "NW pays " in posted and " a share: Player " in posted
    assert "NW share price " in posted  # moved, or why not


# 7 ------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_7_a_lay_that_needs_a_loan_asks_first(store: SqliteEventStore) -> None:
    table = await start_shared(TroikaService(store, pictures=False), 340, "1861-bank-breaks")
    game = await table.game()
    loans = game.state.companies["M-K"].loans
    warned = await table.say("as Player 1 lay J8 23 4")
    assert warned.startswith("✗ This lay costs 20 and M-K has 5: it would take 1 loan of")
    assert "`lay J8 23 4 loan`" in warned
    assert (await table.game()).state.companies["M-K"].loans == loans
    assert "M-K takes a loan" in await table.say("as Player 1 lay J8 23 4 loan")


# 8 ------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_8_tiles_lists_hexes_tiles_distinct_rotations_and_costs(store: SqliteEventStore) -> None:
    table = await start_shared(TroikaService(store, pictures=False), KR_LAYS_TRACK)
    prompt = await table.say("status")
    assert "`lay HEX TILE ROTATION` on " in prompt and "G15" in prompt and "`tiles`" in prompt
    tiles = await table.say("tiles")
    assert tiles.startswith("**KR**") or tiles.startswith("KR (")
    assert "G15: 201 (0, 1, 2, 3, 4, 5) · 202 (0, 1, 2, 3, 4, 5) · 621 (0, 1, 2)" in tiles  # 621 is symmetric
    assert await table.say("lay") == tiles
    one_hex = (await table.say("tiles G15")).split("\n")
    assert one_hex[1] == "`lay G15 201 0` → G17, F16"  # edges 0 (south) and 1 (south-west)
    assert "`lay G15 621 1` → F16, H14" in one_hex  # 621, a straight: edges 1 and 4
    assert len(one_hex) == 2 + 6 + 6 + 3
    drawing = TroikaService(store)  # with pictures: `tiles HEX` draws every lay on the hex
    sheet = await drawing.handle(CHANNEL, Account("0", "Zoe"), "tiles G15")  # anyone may look
    assert [p.name for p in sheet.pictures] == ["tiles"]
    nothing = await drawing.handle(CHANNEL, Account("0", "Zoe"), "tiles H8")  # Moscow: no lay now
    assert "may lay nothing on H8" in nothing.text and [p.name for p in nothing.pictures] == ["map"]
    named = await table.say("lay G15 57")
    assert "G15 needs a tile labelled Y (yellow: 201, 202, 621); tile 57 is labelled nothing" in named
    assert "say which" in await table.say("lay G15 621")  # three distinct rotations: which?
    before = await table.game()
    assert "A rotation is 0 to 5" in await table.say("lay G15 621 7")  # finding 5: was taken as 1
    assert (await table.game()).state.map.tiles == before.state.map.tiles
    assert "KR lays tile 621 on G15" in await table.say("lay G15 621 1")


@pytest.mark.slow
async def test_8_tiles_warns_of_a_lay_that_leaves_a_trainless_company_no_train_money(
    store: SqliteEventStore,
) -> None:
    table = await start_shared(TroikaService(store, pictures=False), SV_SECOND_LAY)
    game = await table.game()
    assert game.actor() == "SV" and not game.state.companies["SV"].trains  # it must buy a train later
    tiles = await table.say("tiles")
    assert "M11: 7 (1, 2, 3, 4) ₽100 (then no train money)" in tiles  # 8.11.3: else it is nationalized
    assert "N8: 7 (0, 1, 2, 3, 4, 5) ₽20 · " in tiles  # a cheap lay leaves enough


async def test_8_tiles_says_when_nobody_lays_track(hot_seat: Table) -> None:
    assert "✗ Nobody is laying track now:" in await hot_seat.say("tiles")


# 9 ------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_9_routes_read_the_train_and_show_what_counts(store: SqliteEventStore) -> None:
    table = await start_shared(TroikaService(store, pictures=False), N_RUNS)
    best = await table.say("status")
    assert "`run`" in best
    ran = await table.say("run 2-0 H8 G5 E1")  # the train named without a colon
    assert "2-0 H8-(G5)-E1 (H8 40 + E1 40 = 80) — stops in brackets are passed but not counted" in ran


@pytest.mark.slow
@pytest.mark.parametrize("name", ["1861-29683", "1861-bank-breaks"])
def test_9_what_each_stop_earns_adds_up_to_the_route(name: str) -> None:
    from engine.route_search import best_routes
    from engine.routes import stop_values

    log, _ = shared_game(name)
    game = replay(log, None).game
    checked = 0
    for company in game.state.companies.values():
        for train in company.trains:
            train.operated = False  # each company runs once more on the final map
        for result in best_routes(game.ctx, game.state, company) if company.trains and not company.closed else []:
            values = stop_values(game.ctx, game.state, company, result)
            assert sum(v for _, v in values) == result.revenue and len(values) == len(result.counted)
            checked += 1
    assert checked >= 4


# 10 -----------------------------------------------------------------------------------


async def test_10_as_explains_itself(hot_seat: Table) -> None:
    assert "✗ Write it as `as NAME COMMAND`" in await hot_seat.say("as")
    assert "✗ Write the command for Boris: `as Boris pass`." in await hot_seat.say("as Boris")
    nested = await hot_seat.say("as Boris as Clara pass")
    assert "Only the commissioner (Anna) may do that. On the console, `as NAME COMMAND` types" in nested
    service = hot_seat.service
    refused = await _refusal(service.handle(CHANNEL, Account("Anna", "Anna"), "as"))
    assert refused.startswith("Write it as `as PLAYER COMMAND`")


async def _refusal(call) -> str:  # type: ignore[no-untyped-def]
    from bot.errors import Refusal

    with pytest.raises(Refusal) as caught:
        await call
    return str(caught.value)


# 11 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "said"), [
    ("new Anna 2 Boris", "✗ `2` is not a player's name"),
    ("new Anna", "✗ Name 2 to 6 players"),
    ("new A B C D E F G", "✗ Name 2 to 6 players"),
    ("new 3 Anna Boris", "✗ You said 3 players but named 2."),
    ("new Anna anna", "✗ Give each player a different name."),
])
async def test_11_new_reads_names_strictly_and_a_failed_attempt_leaves_nothing(
    store: SqliteEventStore, typed: str, said: str
) -> None:
    table = Table(TroikaService(store, pictures=False))
    assert (await table.say(typed)).startswith(said)
    assert await store.list_games() == []
    assert "(grid market)" in await table.say("new Anna Boris grid")


async def test_11_the_options_of_new_are_never_taken_for_names(store: SqliteEventStore) -> None:
    table = Table(TroikaService(store, pictures=False))
    started = await table.say("new column Anna Boris")
    assert "(column market). Seats: " in started and "column" not in started.split("Seats: ")[1].split(".")[0]
    [record] = await store.list_games()
    assert [s.display_name for s in record.seats] == ["Anna", "Boris"] and record.seats[0].commissioner


# 12 -----------------------------------------------------------------------------------


async def test_12_the_console_speaks_console(store: SqliteEventStore, tmp_path: Path) -> None:
    table = Table(TroikaService(store, pictures=False))
    assert await table.say("status") == "✗ There is no game yet: `new Anna Boris Clara` starts a game."
    started = await table.say("new Anna Boris Clara")
    last = started.split("\n")[-1]
    assert last.startswith("▶ ") and "@" not in started  # no Discord mention, no name twice
    assert last.split()[1] == last.split()[2].rstrip(":") or " bids on TSR" in last
    assert "✗ On the console everyone shares the keyboard" in await table.say("replace Boris @someone")
    with pytest.raises(SystemExit, match="no folder /no/such/dir/ for the database"):
        await run_console(Path("/no/such/dir/x.db"), tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("")
    out: list[str] = []
    async with SqliteEventStore(":memory:") as other:
        console = Console(TroikaService(other), blocker / "pictures", out.append)
        await console.line("new Anna Boris")
    assert any(line.startswith("✗ Cannot write the pictures to") for line in out)


@pytest.mark.slow
def test_12_ctrl_c_and_end_of_input_leave_the_console_quietly(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run", "--db", str(tmp_path / "t.db")], input="", capture_output=True,
        text=True, cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=60,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr


# 13 -----------------------------------------------------------------------------------


def test_13_the_command_line_helps(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    assert "COMMAND" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "DISCORD_TOKEN_FILE" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["routes", "--help"])
    assert "best routes" in capsys.readouterr().out
    log, _ = shared_game("1861-29683")
    path = GAMES / "1861-29683.json"
    assert main(["routes", str(path), "--id", str(log["actions"][300]["id"])]) == 0
    routes = capsys.readouterr().out
    assert routes and all(": " in line for line in routes.splitlines())
    main(["replay", str(path)])
    assert "result Player 1 " in capsys.readouterr().out


# 14 -----------------------------------------------------------------------------------


def test_14_the_table_shows_worth_last_runs_the_auction_and_what_became_of_minors() -> None:
    log, _ = shared_game("1861-29683")
    first = replay(log, None, until=log["actions"][0]["id"]).game
    svg = render_table(first.ctx, first.state)
    assert "Worth" in svg and "up for auction: " in svg and "Value" in svg
    assert "RSR" not in _running_rows(svg)  # the national does not exist yet
    later = replay(log, None, until=log["actions"][400]["id"]).game
    svg = render_table(later.ctx, later.state)
    assert "Last run" in svg
    assert any(c.merged_into for c in later.state.companies.values())
    assert "Merged:" in svg


def _running_rows(svg: str) -> str:
    start = svg.find('class="companies"')
    return svg[start: svg.find("</g>", start)] if start >= 0 else ""


# beyond the list ------------------------------------------------------------------------


async def test_a_post_that_calls_a_player_says_what_happened_since_their_last_move(hot_seat: Table) -> None:
    game = await hot_seat.game()
    order = [game.state.players[(game.state.priority + i) % 3].name for i in range(3)]
    first, second, third = order
    posts: list[Post] = []
    deliver = hot_seat.console._deliver

    async def keep(post: Post) -> None:
        posts.append(post)
        await deliver(post)

    hot_seat.console._deliver = keep  # type: ignore[method-assign]
    await hot_seat.say("bid TSR 20")
    for _ in range(3):  # TSR goes to the first bidder; the next private opens with the second player
        await hot_seat.say("pass")
    back = await hot_seat.say("pass")
    assert f"▶ {first} bids on BSS" in back
    assert posts[-1].recap == f"_Since your last move:_ {second} `pass` · {third} `pass` · {second} `pass` " \
        "(`log` shows what each did)"  # on Discord
    assert "Since your last move" not in back  # hot seat: everyone at the console saw those moves


async def test_games_lists_my_games_across_channels_and_anyone_may_look(store: SqliteEventStore) -> None:
    service = TroikaService(store, pictures=False)
    anna, boris, zoe = Account("1", "Anna"), Account("2", "Boris"), Account("9", "Zoe")
    await service.handle("100", anna, "new")
    await service.handle("100", boris, "join")
    await service.handle("100", anna, "start")
    await service.handle("200", anna, "new column")
    listed = (await service.handle("300", anna, "games")).text
    assert "Game 1 in <#100>: Private auction" in listed and "Game 2 in <#200>: being set up" in listed
    assert "no seat" in (await service.handle("300", zoe, "games")).text
    assert "To act:" in (await service.handle("100", zoe, "status")).text  # anyone may look
    assert "no seat" in await _refusal(service.handle("100", zoe, "pass"))
    [record] = [g for g in await store.list_games() if g.id == 1]
    assert record.status is GameStatus.RUNNING


# a whole newcomer session ------------------------------------------------------------------


class Newcomer:
    """Plays by reading only what the bot says: the choices in the last prompt (the
    backticked commands), ``tiles`` when laying track, ``help`` for how to write a move."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.prompt = ""
        self.bid_on: set[tuple[str, str]] = set()

    async def say(self, line: str) -> str:
        reply = await self.table.say(line)
        assert "✗" not in reply, f"`{line}` was refused: {reply}"
        prompts = [p for p in reply.split("\n") if re.search(r": .*`", p) and not p.startswith(("  ", "_"))]
        if prompts:
            self.prompt = prompts[-1]
        return reply

    async def move(self) -> str:
        """Choose a move from the prompt and make it."""
        who = self.prompt.removeprefix("▶ ").split(" ")[0]
        choices = re.findall(r"`([^`]+)`", self.prompt.split(": ", 1)[1])
        for choice in choices:
            words = choice.split()
            if words[0] == "bid" and ".." in choice and (who, words[1]) not in self.bid_on:
                self.bid_on.add((who, words[1]))  # a private: bid the lowest, once
                return await self.say(f"bid {words[1]} {words[2].split('..')[0]}")
            if words[0] == "auction":
                return await self.say(f"auction {words[1].split('|')[0]} {words[2].rstrip('+')}")
            if words[:2] == ["lay", "HEX"]:
                return await self.lay()
            if words[0] in ("token", "run", "payout") or (words[0] == "train" and "PRICE" not in words):
                return await self.say(choice)
        return await self.say("pass")

    async def lay(self) -> str:
        """Ask ``tiles`` and lay the first tile it lists that needs no loan."""
        for line in (await self.say("tiles")).split("\n")[1:-1]:
            hex_id, options = line.split(": ", 1)
            for option in options.split(" · "):
                if "(loan)" not in option and "(then no train money)" not in option:
                    tile, rotations = option.split(" (", 1)
                    return await self.say(f"lay {hex_id} {tile} {rotations.split(')')[0].split(',')[0]}")
        return await self.say("pass")


@pytest.mark.slow
async def test_a_newcomer_plays_into_the_second_operating_round_from_the_replies_alone(
    store: SqliteEventStore,
) -> None:
    newcomer = Newcomer(Table(TroikaService(store, pictures=False)))
    assert "`lay`" in await newcomer.say("help") and "`tiles`" in await newcomer.say("help")
    assert "ROTATION" in await newcomer.say("help lay")
    said = await newcomer.say("new Anna Boris Clara")
    seen = [said]
    for _ in range(800):
        said = await newcomer.move()
        seen.append(said)
        if "Operating round 2.1" in said:
            break
    else:
        pytest.fail("the newcomer did not reach operating round 2.1:\n" + "\n".join(seen[-20:]))
    log = "\n".join(seen)
    for milestone in ("buys TSR", "Stock round 1", "wins ", "Operating round 1.1", " lays tile ", " runs for ",
                      " buys a 2-train", "Stock round 2"):
        assert milestone in log, milestone


def test_a_pass_that_nationalizes_says_so_in_the_prompt() -> None:
    """Finding 5 of the new-user trial: a trainless company that cannot pay for a bank
    train was offered `pass` with no word that it is nationalized (8.11.3). NW
    (1861-29683, OR 3.2) with its train gone and 10 in cash, none in the pool."""
    game = replay(shared_game("1861-29683")[0], None, until=380).game
    nw = game.state.companies["NW"]
    game.state.companies["RSR"].trains.extend(nw.trains)  # the national never sells
    nw.trains, nw.cash = [], 10
    prompt = next_line(game)
    assert "`pass` (no train bought: NW is nationalized, 8.11.3)" in prompt
    assert "`train 3-5 from GRR PRICE`" in prompt
    game.apply(Pass("NW"))
    assert any(line.startswith("NW is nationalized") for line in game.state.log[-5:])


@pytest.mark.parametrize("name", ["1867-21268", "1861-29683"])
def test_a_prompt_never_hides_pass_or_a_bank_train(name: str) -> None:
    """Finding 6 of the new-user trial: prompts cut to "… (`status` shows all)" hid
    `pass` and sometimes the yard train behind other companies' trains. At every
    position of a real game the prompt names both whenever they are legal, and keeps
    within its length."""
    log, _ = shared_game(name)
    imported = import_log(log)
    game = Game.new(imported.players, imported.seed, imported.rules, imported.title, first_player=0)
    longest, grouped = 0, 0
    for action in imported.actions:
        if not game.state.trainless_majors and not (game.round_name == "Operating"
                                                    and game.state.round.step == "track"):
            prompt = choices_text(game)
            legal = legal_actions(game)
            longest, grouped = max(longest, len(prompt)), grouped + ("; or a train from " in prompt)
            if any(isinstance(a, Pass) for a in legal):
                assert "`pass`" in prompt, prompt
            bank = [a for a in legal if isinstance(a, BuyTrain) and find_train(game.ctx, game.state, a.train)[0]
                    in ("yard", "pool")]
            for train in bank[:1]:
                assert f"`{command(game, train)}`" in prompt, prompt
        game.apply(action, check=False)
    assert longest <= CHOICES_LIMIT + len(" (`status` shows all)")
    assert grouped > 0  # prompts that told other companies' trains in one clause


async def test_players_who_cannot_bid_are_told_out_of_the_auction(store: SqliteEventStore) -> None:
    """Finding 8 of the new-user trial: players who could not afford the next bid were
    passed over in silence, and the passes typed for them went to the next stock turns.
    1861-29683, stock round 1: Player 1 puts KR up at 105."""
    table = await start_shared(TroikaService(store, pictures=False), 48)
    reply = await table.say("as Player 1 auction KR 105")
    assert "Player 2 (80) and Player 3 (105) cannot bid 110: out of this auction" in reply
    assert reply.index("cannot bid 110") < reply.index("Player 1 wins KR for 105")


# finding 12 of the new-user trial: the cosmetic list -----------------------------------


def test_what_the_national_places_by_itself_is_told() -> None:
    """The RSR's first token in St Petersburg (8.13) and its reserved Moscow token were
    placed without a line, visible only on the map."""
    log = import_log(shared_game("1861-29683")[0]).game.state.log
    assert "RSR places its home token in St. Petersburg (E1, 8.13)" in log
    assert "RSR places its reserved token in Moscow (H8, 8.13)" in log


@pytest.mark.slow
def test_a_token_step_passed_over_says_why_as_a_track_step_does() -> None:
    """MK and NW went from track straight to `run`: the token step passed over in silence."""
    played = play_random_game(3, 4, "grid").played
    game = Game.new([(f"p{i}", f"Player {i + 1}") for i in range(4)], 3, Rules.rulebook(market="grid"))
    told = []
    for action in played:
        told += [line for line in game.apply(action, check=False) if " passes its token: " in line]
    reasons = {re.sub(r"\d+", "N", line.partition(": ")[2]) for line in told}
    assert reasons == {"no reachable city it can pay for", "no reachable city with room for it",
                       "its next token costs N and it has N"}  # every reason, in one game


def test_the_green_city_spots_open_only_where_the_title_has_them() -> None:
    """1861's phase 3 said "the green city spots open (7.2)": those are 1867's (7.2.1)."""
    for title, spots in (("1861", False), ("1867", True)):
        game = Game.new([("a", "Anna"), ("b", "Boris"), ("c", "Clara")], 1, title=title)
        board = game.ctx.board
        changes = phase_changes(game.ctx, board.phase("2"), board.phase("3"), ("green_minors_available",))
        assert "green minors may be auctioned (7.2)" in changes
        assert ("the green city spots open (7.2.1)" in changes) is spots


async def test_the_console_s_small_words(store: SqliteEventStore) -> None:
    """A fresh hot-seat game: the private named in a pass; lowercase echoed as the notation
    writes it; a bid too large said to be too large; `withdraw` with no deal waiting; `end`
    not promising what `undo` takes back."""
    service = TroikaService(store, pictures=False)
    await service.start_local_game(CHANNEL, [("a", "Anna"), ("b", "Boris"), ("c", "Clara")], seed=1, first_player=0)
    table = Table(service)
    assert "Anna: `bid TSR 20`" in await table.say("bid tsr 20")
    assert "Boris passes on TSR" in await table.say("pass")
    assert "✗ The bid of 60 digits is too large" in await table.say("bid TSR " + "9" * 60)
    assert await table.say("withdraw") == "✗ Nobody is waiting for an answer."
    ending = await table.say("as Anna end")
    assert "only an `undo` right after takes it back" in ending and "nothing can take" not in ending


@pytest.mark.slow
async def test_every_post_marks_who_acts_next(store: SqliteEventStore) -> None:
    """▶ was left out when the same player acted again ("Anna has a stock turn" after her
    own pass): at the console every post's last line is marked."""
    table = Table(TroikaService(store, pictures=False))
    log, _ = shared_game("1861-29683")
    await table.service.start_local_game(CHANNEL, [(str(p["id"]), p["name"]) for p in log["players"]],
                                         rules=read_log(log)[0].ctx.rules, first_player=0,
                                         seed=log["settings"]["seed"])
    same_player = 0
    previous = ""
    for name, typed in islice(log_commands(log), 120):
        printed = [line for line in (await table.say(f"as {name} {typed}")).split("\n")
                   if not line.startswith("  picture:")]
        assert printed[-1].startswith("▶"), printed
        same_player += name == previous
        previous = name
    assert same_player > 10


@pytest.mark.slow
async def test_a_second_lay_names_its_cost_in_the_prompt(store: SqliteEventStore) -> None:
    table = await start_shared(TroikaService(store, pictures=False), SV_SECOND_LAY)
    assert "for ₽20 (a second lay, 8.6)" in (await table.say("status")).split("May: ")[1]


def test_the_end_names_the_winner_and_the_national_has_no_president() -> None:
    """The game-over line and the table's header never said who won; the table gave the
    RSR a "President" (the player who runs it)."""
    game = import_log(shared_game("1861-29683")[0]).game
    scores = game.result()
    winner = game.state.player(max(scores, key=lambda p: scores[p])).name
    assert results_text(game).startswith(f"**Game over** (final phase): {winner} wins. {winner} ₽")
    table = render_table(game.ctx, game.state)
    assert f"game over: {winner} wins" in table and ">President<" in table
    running = replay(shared_game("1861-29683")[0], None, until=400).game
    operator = running.state.player(str(running.state.national_operator)).name
    assert f"run by {operator}" in render_table(running.ctx, running.state)
