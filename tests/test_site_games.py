"""18xx.games both ways: a site game imported into a channel plays on there, and any
Troika game exports as the site's log with the same actions."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main as troika
from bot.console import Console
from bot.errors import NotAllowed, Refusal
from bot.service import Account, TroikaService
from bot.site_games import read_site_file, site_export
from bot.transcript import log_commands
from engine.actions import ACTION_TYPES, Action, LayTile, StandingOrder
from engine.errors import EngineError
from engine.exporter import PROGRAM_TYPES, SITE_TYPES, Entry, entries_from_events, export_game, site_ids, to_site
from engine.game import Game
from engine.history import effective_entries
from engine.importer import IGNORED_TYPES, import_log
from engine.legal import legal_actions
from engine.orders import ROUND_OF, STEP_OF
from engine.rules import Rules
from storage import GameStatus, SqliteEventStore
from storage.repository import rules_options
from storage.store import EventKind
from tests.conftest import DATA, PLAYERS3, read_json, replayed, shared_game
from tests.site_verdicts import move_key
from tests.test_orders import _move as plain_move

REAL = ["1861-29683", "1861-bank-breaks", "1867-21268", "1867-19792"]
ENVELOPE = {"id", "user", "created_at", "original_id", "skip", "auto_actions"}
OPTIONAL = {"variant", "extra_revenue", "subsidy"}
"""Fields newer site versions write and older logs lack: compared where the log has them."""


def site_actions(log: dict[str, Any]) -> list[dict[str, Any]]:
    """The log's actions in effect (undone ones, chat and standing orders left out, the
    site's automatic actions in their place), without the envelope."""
    entries = [(a.get("id", 0), a, a) for a in log["actions"]]
    return [
        {k: v for k, v in b.items() if k not in ENVELOPE}
        for a in effective_entries(entries)
        for b in [a, *a.get("auto_actions", [])]
        if b["type"] not in IGNORED_TYPES and b["type"] != "message"
    ]


def same_fields(written: dict[str, Any], logged: dict[str, Any]) -> dict[str, Any]:
    """``written`` with the fields the logged action has no counterpart of dropped; a
    token's slot is the player's click on the site (any free one), Troika fills the first."""
    kept = {k: v for k, v in written.items() if k not in OPTIONAL or k in logged}
    if kept["type"] == "run_routes":
        kept["routes"] = [_route({k: v for k, v in mine.items() if k in theirs})
                          for mine, theirs in zip(kept["routes"], logged["routes"], strict=True)]
    if kept["type"] == "place_token":
        kept.pop("slot")
    return kept


def _route(route: dict[str, Any]) -> dict[str, Any]:
    """A route without its display text; a route of one leg runs either way and the site
    writes its two stops in the order they were clicked; its ``nodes`` sometimes start
    with the first two stops swapped (3 runs of 98 in 1861-bank-breaks)."""
    route = {k: v for k, v in route.items() if k != "revenue_str"}
    if "hexes" in route and len(route["connections"]) == 1:
        route["hexes"] = sorted(route["hexes"])
    if "nodes" in route:
        route["nodes"] = sorted(route["nodes"])
    return route


def comparable(logged: dict[str, Any]) -> dict[str, Any]:
    logged = dict(logged)
    if logged["type"] == "run_routes":
        logged["routes"] = [_route(r) for r in logged["routes"]]
    if logged["type"] == "place_token":
        logged.pop("slot")
        logged.pop("tokener", None)  # always the entity itself
    return logged


@pytest.mark.slow
@pytest.mark.parametrize("name", REAL)
async def test_a_shared_game_imported_and_exported_again_gives_the_same_actions(name: str) -> None:
    log, _ = shared_game(name)
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        await service.import_site_game("c1", Account("u1", "Anna"), json.dumps(log).encode())
        [record] = await store.list_games()
        export = site_export(record, await store.events(record.id))
    logged = site_actions(log)
    written = [{k: v for k, v in a.items() if k not in ENVELOPE} for a in export.log["actions"]]
    assert len(written) == len(logged)
    for n, (mine, theirs) in enumerate(zip(written, logged, strict=True)):
        assert same_fields(mine, theirs) == comparable(theirs), f"{name}: action {n + 1}"
    assert export.log["result"] == log["result"] and export.log["status"] == "finished"
    importer = [{"id": log["players"][0]["id"], "name": "Anna"}]  # who imported it holds the first seat
    assert export.log["players"] == importer + [{"id": p["id"], "name": p["name"]} for p in log["players"][1:]]
    assert export.log["settings"]["optional_rules"] == log["settings"].get("optional_rules", [])
    assert export.warning is None  # the site's rules


@pytest.mark.slow
async def test_a_site_game_typed_at_the_console_exports_a_log_that_replays_to_its_result(tmp_path: Path) -> None:
    """Typed under the site's rules (`new 1867 site`: the first seat starts, lays checked as on its page) to the end;
    `export` writes the file and says where; `troika replay` replays it to the result."""
    log, _ = shared_game("1867-19792")
    names = [p["name"].replace(" ", "") for p in log["players"]]
    out: list[str] = []
    async with SqliteEventStore(tmp_path / "troika.db") as store:
        service = TroikaService(store, pictures=False)
        console = Console(service, tmp_path / "pictures", out.append)
        await console.line(f"new 1867 site {' '.join(names)}")
        [record] = await store.list_games()
        assert Rules.from_dict(record.options) == Rules.site(market="column", live=True)
        renamed = {p["name"]: n for p, n in zip(log["players"], names, strict=True)}
        for number, (player, command) in enumerate(log_commands(log), 1):
            start = len(out)
            await console.line(f"as {renamed[player]} {command}")
            assert not [line for line in out[start:] if line.startswith("✗")], f"command {number} `{command}`"
        game = (await service.repo.load(record.id)).game
        assert game.state.finished
        out.clear()
        await console.line("export")
    path = tmp_path / f"1867-troika-{record.id}.json"
    assert f"  file: {path}" in out
    exported = json.loads(path.read_text())
    seats = zip(exported["players"], game.state.players, strict=True)  # the first seat started
    assert exported["result"] == {str(site["id"]): game.result()[ours.id] for site, ours in seats}
    assert troika(["replay", str(path)]) == 0  # every action applies and the result is the one logged
    again = tmp_path / "again.json"
    cli = ["export", "--db", str(tmp_path / "troika.db"), "--game", str(record.id), "--out", str(again)]
    assert await asyncio.to_thread(troika, cli) == 0  # `troika export` runs its own event loop
    assert json.loads(again.read_text()) == exported


def _cut(log: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The log cut at its 300th action (a shorter game 50 actions before its end)."""
    at = min(300, len(log["actions"]) - 50)
    return {**log, "actions": log["actions"][:at], "result": {}}, at


@pytest.mark.slow
@pytest.mark.parametrize("name", ["1867-21268", "1867-19792"])
async def test_an_imported_game_cut_short_goes_on_in_the_channel_to_its_finish(name: str) -> None:
    """`!import` through the service: the commissioner's seat is the one of their name,
    the others are handed out with `seat`, and the players type the rest of the game."""
    log, _ = shared_game(name)
    cut, _ = _cut(log)
    accounts = {p["name"]: Account(f"discord-{p['id']}", p["name"]) for p in log["players"]}
    commissioner = accounts["Player 2"]
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        reply = await service.import_site_game("c1", commissioner, json.dumps(cut).encode())
        assert "holds Player 2's seat" in reply.text and "`seat \"Player 1\" @someone`" in reply.text
        [record] = await store.list_games()
        assert Rules.from_dict(rules_options(record.options)) == Rules.site(market="column", live=True)
        with pytest.raises(NotAllowed, match="no seat"):
            await service.handle("c1", accounts["Player 1"], "pass")
        for player, account in accounts.items():
            if account is not commissioner:
                await service.replace_seat("c1", commissioner, player, account)  # `!seat "Player 1" @…`
        [record] = await store.list_games()
        assert [s.discord_user_id for s in record.seats] == [a.id for a in accounts.values()]
        already, done = len(import_log(cut).actions), 0
        for player, command in log_commands(log):
            done += command != "agree"
            if done <= already:  # in the file imported (with the consent that went with it)
                continue
            typist = commissioner if command.startswith("end ") else accounts[player]  # only they end it
            answer = await service.handle("c1", typist, command)
            assert not answer.text.startswith("✗"), f"{player}: `{command}`: {answer.text}"
        [record] = await store.list_games()
        game = (await service.repo.load(record.id)).game
    assert record.status is GameStatus.FINISHED
    assert game.result() == {str(k): v for k, v in log["result"].items()}


@pytest.mark.parametrize("data,why", [
    (b'{"players": [], "actions": [', "not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "nests deeper"),
    (b'{"players": [], "actions": [], "id": ' + b"9" * 5000 + b"}", "not valid JSON"),
    (b" " * 50_000_000, "MB"),
    (b'{"title": "1830", "players": [{"id": 1, "name": "A"}], "actions": []}', "Troika plays 1861 and 1867"),
    (b'{"title": "1861", "players": [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}], '
     b'"actions": [{"id": 1, "type": "lay_tile", "entity": "NW"}]}', "does not replay"),
    (b'{"title": "1867", "settings": [], "players": [{"id": 1, "name": "A"}], "actions": []}', "does not replay"),
    (b'{"title": "1867", "players": [{"id": 1}, {"id": 2}], "actions": [7]}', "does not replay"),
])
async def test_a_file_that_is_not_a_site_game_is_refused_in_one_line_and_nothing_is_stored(
    data: bytes, why: str
) -> None:
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        with pytest.raises(Refusal, match=why) as refusal:
            await service.import_site_game("c1", Account("u1", "Anna"), data)
        assert "\n" not in str(refusal.value) and len(str(refusal.value)) < 300
        assert await store.list_games() == []


def test_a_log_within_the_limits_reads_as_json() -> None:
    log, _ = shared_game("1861-29683")
    assert read_site_file(json.dumps(log).encode()) == log


def test_a_rulebook_game_exports_with_a_warning_naming_the_first_move_the_site_refuses() -> None:
    """By the rulebook a company without loans goes straight past the private window;
    18xx.games stops there (RN 7.2), so a rulebook game's log breaks where play first differs."""
    players = [("1", "Anna"), ("2", "Boris"), ("3", "Clara")]
    game = Game.new(players, 5, Rules.rulebook(), first_player=0)
    played: list[Action] = []
    rng = random.Random(5)
    while sum(1 for a in played if a.entity not in ("1", "2", "3")) < 40:  # into the operating rounds
        action = rng.choice(legal_actions(game))
        game.apply(action)
        played.append(action)
    export = export_game(9, 5, lambda: Game.new(players, 5, Rules.rulebook(), first_player=0),
                         [Entry(n, "action", a) for n, a in enumerate(played, 1)])
    assert export.warning is not None and "18xx.games would refuse move " in export.warning
    refused = int(export.warning.split("move ")[1].split(" ")[0])
    site = Game.new(players, 5, Rules.site(), first_player=0)
    for action in played[: refused - 1]:
        site.apply(action)  # the moves before it are the site's too
    with pytest.raises(EngineError):
        site.apply(played[refused - 1])


def test_undo_and_redo_are_written_as_the_site_writes_them() -> None:
    """An undo takes back the latest move, or all after ``action_id``; a redo restores:
    the site reads the exported log back to the same game."""
    players = [("1", "Anna"), ("2", "Boris"), ("3", "Clara")]
    game = Game.new(players, 3, Rules.site(), first_player=0)
    moves = []
    for _ in range(12):
        moves.append(legal_actions(game)[0])
        game.apply(moves[-1])
    entries = [Entry(n, "action", a) for n, a in enumerate(moves[:8], 1)]
    entries += [Entry(9, "undo"), Entry(10, "redo"), Entry(11, "undo", undo_to=6), Entry(12, "redo")]
    entries += [Entry(13 + n, "action", a) for n, a in enumerate(moves[8:])]
    export = export_game(1, 3, lambda: Game.new(players, 3, Rules.site(), first_player=0), entries)
    kinds = [(a["id"], a["type"], a.get("action_id")) for a in export.log["actions"][8:12]]
    assert kinds == [(9, "undo", None), (10, "redo", None), (11, "undo", 6), (12, "redo", None)]
    replayed = import_log(export.log)
    assert replayed.actions == moves and replayed.game.dump() == game.dump()


async def test_the_importer_plays_under_their_own_name_and_the_site_s_moves_are_not_timed() -> None:
    """E5: the commissioner who imports takes the first seat under their own name (it kept
    "Player 1" in posts, the status and the export), and the status's time to act counts
    only the moves made here (the site's were counted as 0 s each)."""
    log, _ = shared_game("1867-21268")
    cut = {**log, "actions": log["actions"][:40]}
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        reply = await service.import_site_game("c1", Account("u1", "Anna"), json.dumps(cut).encode())
        assert "holds Player 1's seat as Anna" in reply.text
        [record] = await store.list_games()
        assert [s.display_name for s in record.seats][:2] == ["Anna", "Player 2"]
        status = (await service.status(record.id)).text
        assert "Anna (commissioner)" in status and "Player 1" not in status
        assert "Time to act" not in status  # the site's moves were made elsewhere
        exported = json.loads((await service.handle("c1", Account("u1", "Anna"), "export")).files[0].data)
        assert exported["players"][0]["name"] == "Anna"


def test_every_action_kind_and_event_kind_is_written_or_left_out_on_purpose() -> None:
    """The exporter knows every action a Troika log can hold (a standing order by the
    order it gives) and every kind of stored event: none can stop an export."""
    assert set(ACTION_TYPES.values()) - set(SITE_TYPES) == {StandingOrder}
    assert set(PROGRAM_TYPES) | set(STEP_OF) == set(ROUND_OF) | {"off"}  # the operating ones as messages
    events = [(n, kind.value, {"type": "pass", "entity": "1"} if kind is EventKind.ACTION else {}, None, None)
              for n, kind in enumerate(EventKind, 1)]
    entries = entries_from_events(events)
    assert [e.kind for e in entries] == ["action", "undo", "redo"]  # seat changes and notes: no game move
    assert {kind.value for kind in EventKind} - {e.kind for e in entries} == {"seat", "admin"}


class _Played:
    """A shared site game played on in Troika: its first ``moves`` actions applied,
    each move after them recorded as an export entry with :meth:`play`."""

    def __init__(self, name: str, moves: int) -> None:
        self.imported = import_log(shared_game(name)[0])
        self.game, self.entries = self.fresh(), list[Entry]()
        for action in self.imported.actions[:moves]:
            self.play(action)

    def fresh(self) -> Game:
        imported = self.imported
        return Game.new(imported.players, imported.seed, imported.rules, imported.title, first_player=0)

    def play(self, action: Action) -> None:
        self.game.apply(action)
        self.entries.append(Entry(len(self.entries) + 1, "action", action))


def test_standing_orders_export_as_the_site_s_programs_and_their_moves_as_auto_actions() -> None:
    """Finding 2 of the new-user trial: `export` crashed on any standing order. An order
    is written as the site's programmed action, the moves it made as the ``auto_actions``
    of the move they followed; the log reads back to the same game, undo included.
    Played on from a real 1867 game at its third merger round (NYC formed)."""
    played = _Played("1867-21268", 405)
    game, entries, play, fresh, imported = played.game, played.entries, played.play, played.fresh, played.imported
    assert game.round_name == "Merger" and game.state.president("NYC") is not None
    ids = [p.id for p in game.state.players]
    nyc = game.state.player(ids[1]).percent_of("NYC")
    for order in (StandingOrder(ids[0], "pass_stock"), StandingOrder(ids[2], "pass_merger"),
                  StandingOrder(ids[3], "pass_stock", until="round")):
        play(order)
    entries += [Entry(len(entries) + 1, "undo"), Entry(len(entries) + 2, "redo")]
    play(StandingOrder(ids[3], "off"))
    play(StandingOrder(ids[1], "buy", company="NYC", percent=nyc + 20))
    while game.round_name != "Operating":
        play(plain_move(game))

    export = export_game(1, imported.seed, fresh, entries)
    written = export.log["actions"]
    assert export.warning is None
    assert {a["type"] for a in written} >= {"program_share_pass", "program_merger_pass", "program_buy_shares",
                                           "program_disable", "undo", "redo"}
    auto = [b for a in written for b in a.get("auto_actions", [])]
    assert {b["type"] for b in auto} == {"pass", "buy_shares"}  # the orders' passes and purchases
    assert game.state.player(ids[1]).percent_of("NYC") == nyc + 20
    replayed = import_log(json.loads(json.dumps(export.log)))
    ignored = ("orders", "log")
    assert {k: v for k, v in replayed.game.dump().items() if k not in ignored} == \
        {k: v for k, v in game.dump().items() if k not in ignored}


def test_operating_orders_export_as_messages_and_their_moves_as_auto_actions() -> None:
    """The site has no programme for the operating round (18xx.games #9910): `auto run`,
    `auto pay` and `auto pass track` are written as chat naming the order (which the
    importer leaves out), their runs, dividends and passes as ``auto_actions``; the log
    reads back to the same game."""
    played = _Played("1867-21268", 405)
    game, entries, play, fresh, imported = played.game, played.entries, played.play, played.fresh, played.imported
    for player in game.state.players:
        for order in (StandingOrder(player.id, "run"), StandingOrder(player.id, "pay", choice="half"),
                      StandingOrder(player.id, "pass_track")):
            play(order)
    while game.round_name != "Operating":
        play(plain_move(game))
    while game.round_name == "Operating":
        play(plain_move(game))
    export = export_game(1, imported.seed, fresh, entries)
    written = export.log["actions"]
    messages = [a["message"] for a in written if a["type"] == "message"]
    assert messages[:3] == ["standing order: auto run", "standing order: auto pay half",
                            "standing order: auto pass track"]
    auto = [b for a in written for b in a.get("auto_actions", [])]
    assert {"run_routes", "dividend", "pass"} <= {b["type"] for b in auto}
    assert all(b["kind"] == "half" for b in auto if b["type"] == "dividend")
    replayed = import_log(json.loads(json.dumps(export.log)))
    ignored = ("orders", "log")
    assert {k: v for k, v in replayed.game.dump().items() if k not in ignored} == \
        {k: v for k, v in game.dump().items() if k not in ignored}


async def test_an_export_keeps_the_site_s_game_and_times_and_overwrites_no_file(tmp_path: Path) -> None:
    """Finding 10 of the new-user trial: an imported game went back as "Troika game 1",
    every action stamped with the export's time and no user; and a second database's
    game 1, exported in the same folder, replaced the first file without a word."""
    log, _ = shared_game("1861-29683")
    cut, _ = _cut(log)
    (tmp_path / "cut.json").write_text(json.dumps(cut))
    out: list[str] = []
    async with SqliteEventStore(tmp_path / "first.db") as store:
        console = Console(TroikaService(store, pictures=False), tmp_path / "pictures", out.append)
        await console.line(f"import {tmp_path / 'cut.json'}")
        await console.line("export")
    first = tmp_path / "1861-troika-1.json"
    assert f"  file: {first}" in out
    exported = json.loads(first.read_text())
    assert (exported["id"], exported["description"]) == (log["id"], log["description"])
    imported = import_log(cut)
    assert [a.get("created_at") for a in exported["actions"]] == imported.stamps
    assert exported["actions"][0]["created_at"] == cut["actions"][0]["created_at"]
    typed_by = {p["id"] for p in log["players"]}
    assert all(a["user"] in typed_by for a in exported["actions"])
    out.clear()
    async with SqliteEventStore(tmp_path / "second.db") as store:
        console = Console(TroikaService(store, pictures=False), tmp_path / "pictures", out.append)
        await console.line("new Anna Boris Clara")
        await console.line("export")
    assert f"  file: {tmp_path / '1861-troika-1-2.json'} (1861-troika-1.json is there already: kept)" in out
    assert json.loads(first.read_text()) == exported


def test_a_lay_takes_a_copy_left_in_the_supply_and_exports_its_id() -> None:
    """The tile manifest (19): 1861 has two of tile 6. In 1861-29683 copy 6-0 went on
    I13 (id 79) and came back to the supply when I13 was upgraded; 6-1 lies on M7. So
    GRR's 6 on P2 (before id 460) takes 6-0 again, and the export names it: 18xx.games
    has no 6-2 ("h_to_args() returned nil :tile") and accepts 6-0 there."""
    game = replayed("1861-29683", 458, Rules.site(live=True))
    assert game.state.map.tiles["M7"].id == "6-1" and game.state.map.tiles["I13"].tile != "6"
    after = Game(game.ctx, game.state.copy())
    lay = LayTile("GRR", "P2", "6", 3)
    after.apply(lay)
    assert after.state.map.tiles["P2"].id == "6-0"
    written = to_site(game, lay, after.state, site_ids([p.id for p in game.state.players]))
    assert written == {"type": "lay_tile", "entity": "GRR", "entity_type": "corporation", "hex": "P2",
                       "tile": "6-0", "rotation": 3}


async def test_an_imported_game_checks_its_new_moves_as_the_site_s_page_does() -> None:
    """Checker's finding (issue 35): an imported game kept the switch for loading the
    site's logs (a lay's connection unchecked, RN 0.4) for the moves made after it, so
    THB could lay 87 on H14 in 1867-21268 cut at 400 actions, a lay neither rulebook 8.6
    nor the site allows. The log's own moves still load; the moves after it are checked,
    and the lays offered there are those the site accepts (its verdict recorded in
    ``tests/data/imported_live_lays.json`` with the oracle)."""
    verdict = read_json(DATA / "imported_live_lays.json")
    log, _ = shared_game(verdict["log"])
    cut = {**log, "actions": log["actions"][: verdict["cut"]]}
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        await service.import_site_game("c1", Account("u1", "Anna"), json.dumps(cut).encode(), hot_seat=True)
        [record] = await store.list_games()
        assert record.options["site_moves"] == len(import_log(cut).actions)

        async def seated(command: str) -> str:
            game = (await service.repo.load(record.id)).game
            player = game.acting_player()
            return (await service.handle("c1", Account(player, player), command)).text

        assert not (await seated("pass")).startswith("✗")  # BBG, log id 401
        game = (await service.repo.load(record.id)).game
        assert game.actor() == "THB" and game.state.site_moves_to_load == 0
        offered = {move_key(game.state, a) for a in legal_actions(game)}
        assert offered == set(verdict["accepted"])
        before = game.dump()
        [(key, refused)] = verdict["refused"].items()
        lay = refused["site"]
        with pytest.raises(Refusal, match=r"THB cannot reach H14: a lay must extend its route \(8\.6\)"):
            await seated(f"lay {lay['hex']} {lay['tile'].split('-')[0]} {lay['rotation']}")
        assert key not in offered and (await service.repo.load(record.id)).game.dump() == before
        export = site_export(record, await store.events(record.id))  # imported, then played on
    assert export.warning is None and import_log(export.log).game.dump() == before


def test_an_export_names_the_options_played_and_an_import_reads_them_back() -> None:
    """Issue 35: `selfplay --export` of a variant game wrote ``"optional_rules": []``.
    The site has none of the rulebook's options; Troika writes them by its own words
    beside the market's, and reads them back."""
    rules = Rules.rulebook(market="column", options=["long-game", "no-floor"])
    game, played = Game.new(PLAYERS3, 5, rules, "1861"), []
    for _ in range(30):
        played.append(legal_actions(game)[0])
        game.apply(played[-1])
    log = export_game(1, 5, lambda: Game.new(PLAYERS3, 5, rules, "1861"),
                      [Entry(n, "action", a) for n, a in enumerate(played, 1)]).log
    assert log["settings"]["optional_rules"] == ["column_market", "long-game", "no-floor"]
    imported = import_log(log)
    assert imported.rules == Rules.site(market="column", options=rules.options, live=True)
    assert len(imported.actions) == len(played) and imported.game.state.bank == game.state.bank


DEAD_ENDS = read_json(DATA / "site_accepts_dead_ends.json")


def _stuck_merger(name: str, minor: str, site: bool) -> tuple[dict[str, Any], Game]:
    """The verdict ``name`` of :data:`DEAD_ENDS` and its merger-round position, where
    ``minor`` acts and the site's merge step would be left with no major to name; by
    the site's live rules, or the rulebook's (``site`` false)."""
    from tests.site_verdicts import load_log, positions

    verdict = DEAD_ENDS[name]
    _, game = next(positions(load_log(verdict["log"]), {verdict["position"]}))
    if not site:
        game.ctx.rules = Rules.rulebook(market=game.ctx.rules.market, options=game.ctx.rules.options)
    assert game.round_name == "Merger" and game.actor() == minor
    assert verdict["site_after"]["mergeable"] == [] and verdict["site_after"]["actions"] == ["merge"]
    return verdict, game


@pytest.mark.parametrize("site", [True, False])
def test_a_lay_beyond_a_city_blocked_since_the_site_cached_its_graph_is_refused(site: bool) -> None:
    """Issue 35, cause M (generated 1861 game S4012, position 80): MV, bought in the
    stock round, has its home token in I13's one-slot city, which blocks KR's way from
    G15 through H14 and I13 to J14 (8.6). The oracle accepted six lays on J14 all the
    same: the site's engine keeps the track graph it computed before MV's token came,
    and refused the same lay once that cache was cleared (recorded). A cache is not a
    rule: Troika refuses them under both rule sets, with the reason, state unchanged."""
    from tests.site_verdicts import compare, load_log, positions

    verdict = DEAD_ENDS["stale_connectivity"]
    _, game = next(positions(load_log(verdict["log"]), {verdict["position"]}))
    if not site:
        game.ctx.rules = Rules.rulebook(market=game.ctx.rules.market, options=game.ctx.rules.options)
    assert game.actor() == "KR"
    offered = {move_key(game.state, a) for a in legal_actions(game)}
    stale = {k for k in verdict["accepted"] if k.startswith("lay_tile KR J14")}
    assert len(stale) == 6 and offered == set(verdict["accepted"]) - stale
    assert set(verdict["site_with_cache_cleared"]) <= stale
    before = game.dump()
    for key in sorted(stale):
        _, entity, hex_id, tile, rotation = key.split()
        with pytest.raises(EngineError, match=r"KR cannot reach J14: a lay must extend its route \(8\.6\)"):
            game.apply(LayTile(entity, hex_id, tile, int(rotation)))
        assert game.dump() == before
    if site:
        causes = {cause for _, _, cause in compare(game, verdict)}
        assert len(causes) == 1 and next(iter(causes)).startswith("M: ")


@pytest.mark.parametrize("site", [True, False])
def test_a_minor_may_not_join_a_merge_when_no_major_is_left_to_form(site: bool) -> None:
    """Issue 35 (generated 1861 game S4012, position 760): every major has floated, yet
    the oracle accepted SV's adding V (or Y) to a merge; after it and a pass its merge
    step lists only ``merge``, with no major to name (recorded): the game is stuck. By
    9.2 minors merge to form a major, so with none left Troika refuses the join (saying
    why, not "not connected": SV does reach V) and offers the pass, state unchanged."""
    from engine.actions import Merge
    from tests.site_verdicts import compare

    verdict, game = _stuck_merger("no_major_left", "SV", site)
    offered = {move_key(game.state, a) for a in legal_actions(game)}
    joins = {k for k in verdict["accepted"] if k.startswith("merge ")}
    assert joins == {"merge SV V", "merge SV Y"} and offered == set(verdict["accepted"]) - joins
    before = game.dump()
    for key in sorted(joins):
        with pytest.raises(EngineError, match=r"may not join: no major is left for the merge to form"):
            game.apply(Merge("SV", key.split()[2]))
        assert game.dump() == before
    if site:
        causes = {cause for _, _, cause in compare(game, verdict)}
        assert len(causes) == 1 and next(iter(causes)).startswith("L: ")


@pytest.mark.parametrize("words", [["1861", "site", "long-game"], ["1867", "no-floor", "site"]])
def test_a_game_by_the_site_s_rules_plays_no_option(words: list[str]) -> None:
    """Issue 35: 18xx.games has none of the rulebook's options and plays a log naming
    them as its standard game (the checker's `long-game` exports, seeds 61100 and 61101,
    ended or went on otherwise there). `new … site` with an option is refused, saying
    why; the options by the rulebook, and `site` alone, are set up."""
    from engine.errors import InvalidAction
    from engine.game_setup import parse_setup

    option = words[2] if words[1] == "site" else words[1]
    with pytest.raises(InvalidAction, match=f"a game by 18xx.games' rules .* cannot play {option}: the site has none"):
        parse_setup(words)
    assert parse_setup([w for w in words if w != "site"]).options == {option}
    assert parse_setup([w for w in words if w != option]).rules() == Rules.site(
        market="column" if words[0] == "1867" else "grid", live=True)


def test_selfplay_by_the_site_s_rules_refuses_an_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`selfplay --rules site --options long-game --export` wrote logs the site plays
    otherwise; now it plays nothing and says why."""
    code = troika(["selfplay", "--title", "1861", "--rules", "site", "--options", "long-game",
                   "--games", "1", "--export", str(tmp_path)])
    assert code == 2 and "cannot play long-game: the site has none" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_an_export_s_warning_names_the_options_the_site_does_not_have() -> None:
    """An imported Troika export keeps its options (the site's rules with them); its
    export's warning blamed "the rulebook". Now it names the options."""
    rules = Rules.site(options=["left-of-auctioneer"], live=True)
    game, played = Game.new(PLAYERS3, 3, rules, "1861"), []
    rng = random.Random(3)
    for _ in range(5):
        played.append(rng.choice(legal_actions(game)))
        game.apply(played[-1])
    export = export_game(1, 3, lambda: Game.new(PLAYERS3, 3, rules, "1861"),
                         [Entry(n, "action", a) for n, a in enumerate(played, 1)])
    assert export.warning is not None and export.warning.startswith("18xx.games would refuse move 5 ")
    assert export.warning.endswith("; the game plays the rulebook's option left-of-auctioneer, "
                                   "which the site does not have")


def test_an_export_the_site_would_finish_otherwise_has_a_warning() -> None:
    """No move refused, but the site's replay does not reach the game's result (an
    option changing a payout, say): the warning says so rather than nothing."""
    from engine.exporter import _first_refusal

    log, _ = shared_game("1861-29683")
    finished = replayed("1861-29683", max(a["id"] for a in log["actions"]))
    assert finished.state.finished
    unfinished = Game.new(PLAYERS3, 3, Rules.site(), "1861")
    warning = _first_refusal(unfinished, [], "why", finished)
    assert warning == "18xx.games would not reach this game's result with the same moves; why"
    assert _first_refusal(Game.new(PLAYERS3, 3, Rules.site(), "1861"), [], "why", unfinished) is None


@pytest.mark.parametrize("site", [True, False])
def test_a_minor_cannot_convert_with_no_major_left(site: bool) -> None:
    """Issue 35, cause L (measured at every 10th position of the generated 1861 game
    S4025, position 840): every major has floated; the oracle accepted TR's conversion
    and its merge step then lists only ``merge``, with no major to choose (recorded).
    9.1: a minor converts into a major, so with none left Troika offers only the pass
    and refuses the conversion saying so (it said "only from the blue zone", and TR's
    price is in it), state unchanged."""
    from engine.actions import Convert
    from tests.site_verdicts import compare

    verdict, game = _stuck_merger("no_major_to_convert_into", "TR", site)
    assert {move_key(game.state, a) for a in legal_actions(game)} == {"pass TR"}
    before = game.dump()
    with pytest.raises(EngineError, match=r"TR cannot convert: no major is left to convert into \(9\.1"):
        game.apply(Convert("TR"))
    assert game.dump() == before
    if site:
        causes = {cause for _, _, cause in compare(game, verdict)}
        assert len(causes) == 1 and next(iter(causes)).startswith("L: ")
