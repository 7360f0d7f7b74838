"""The web companion's server, in this process: a real finished game's pictures at any
move are what ``troika render --at`` writes; links; the `web` command; the rate limit."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.cli import main
from bot.posts import who_acts
from bot.service import Account, TroikaService, game_choice
from bot.web import links, server
from bot.web.bench import web_latency
from bot.web.history import CHECKPOINT_EVERY, GameHistory, documents
from bot.web.server import WebApp, make_app
from engine import Game
from engine.game_setup import describe_options
from engine.importer import actions_of, read_log
from engine.replay import replay
from storage import EventStore, SqliteEventStore, TroikaEngine
from storage.repository import effective_events
from storage.store import utc_now
from tests.conftest import GAMES, shared_game

SECRET = b"s" * 64


@pytest.fixture()
def web_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(links.URL_VARIABLE, "https://troika.example/")
    (tmp_path / "secret").write_bytes(SECRET)
    monkeypatch.setenv(links.SECRET_VARIABLE, str(tmp_path / "secret"))


@pytest.fixture()
async def store(tmp_path: Path) -> AsyncIterator[EventStore]:
    async with SqliteEventStore(tmp_path / "t.db") as opened:
        yield opened


async def client_of(store: EventStore) -> TestClient:  # type: ignore[type-arg]
    async def same() -> EventStore:
        return store

    client = TestClient(TestServer(make_app(WebApp(same, SECRET))))
    await client.start_server()
    return client


def site_moves(log: dict[str, object]) -> dict[int, int]:
    """By the site's action id, the moves in effect in Troika's import of the game once
    that action is played (one site action may be several of Troika's, or none)."""
    game, logged = read_log(log)
    moves_after, n = {}, 0
    for entry in logged:
        for action in actions_of(lambda: game.state, entry):
            game.apply(action, check=False)
            n += 1
        moves_after[entry.id] = n
    return moves_after


@pytest.mark.slow
async def test_a_finished_games_pictures_at_any_move_are_what_troika_render_writes(
    store: EventStore, web_on: None, tmp_path: Path
) -> None:
    """One numbering: ``?at=N`` and ``troika render --at N`` are both after Troika's move
    ``#N`` (the `log`'s), also where one site action is several moves, or none."""
    log, _ = shared_game("1861-29683")
    service = TroikaService(store, pictures=False)
    importer = Account("u1", log["players"][0]["name"])  # seated under the site's name, as `render` shows it
    await service.import_site_game("c1", importer, json.dumps(log).encode())
    [record] = await store.list_games()
    moves_after = site_moves(log)
    split = next(n for a, b in zip(sorted(set(moves_after.values())), sorted(set(moves_after.values()))[1:])
                 if b - a > 1 for n in [a + 1])  # within a site action that is two of Troika's moves
    assert split not in moves_after.values()
    client = await client_of(store)
    try:
        key = links.game_key(record.id)
        page = await client.get(f"/g/{key}")
        total = max(moves_after.values())
        assert page.status == 200 and f'max="{total}"' in await page.text()
        history = await client.server.app[server.APP].history(record.id)
        for n in (2, split, 281, 400, 601, total):
            out = tmp_path / f"render-{n}"
            assert main(["render", str(GAMES / "1861-29683.json"), "--at", str(n), "--out", str(out), "--svg"]) == 0
            assert replay(log, None, moves=n).game.state == history.at(n).state, n  # `render`'s replay
            for name in ("map", "market", "table"):
                answer = await client.get(f"/g/{key}/{name}.svg?at={n}")
                assert answer.status == 200 and answer.content_type == "image/svg+xml"
                assert await answer.text() == (out / f"{name}.svg").read_text(encoding="utf-8"), (n, name)
        site_id = max(i for i, n in moves_after.items() if n == 400)
        assert main(["render", str(GAMES / "1861-29683.json"), "--id", str(site_id), "--out",
                     str(tmp_path / "by-id"), "--svg"]) == 0  # the site's numbering, asked for by name
        assert (tmp_path / "by-id" / "map.svg").read_text() == (tmp_path / "render-400" / "map.svg").read_text()
        with pytest.raises(SystemExit, match=f"has {total} moves"):
            main(["render", str(GAMES / "1861-29683.json"), "--at", str(total + 1), "--out", str(tmp_path / "x")])
    finally:
        await client.close()


@pytest.mark.slow
async def test_the_state_after_a_move_is_the_same_from_a_kept_state_as_from_the_start(store: EventStore) -> None:
    log, _ = shared_game("1867-21268")
    service = TroikaService(store, pictures=False)
    await service.import_site_game("c1", Account("u1", "Anna"), json.dumps(log).encode())
    [record] = await store.list_games()
    events = await store.events(record.id)
    moves = effective_events(events)
    engine = TroikaEngine()
    snapshot = engine.new_game(record)
    for event in moves[:345]:
        engine.apply(snapshot, event.action, replaying=True)
    history = GameHistory(record)
    history.update(record, events[:300])
    history.update(record, events[300:])  # extended as moves land
    seeded = GameHistory(record)
    seeded.update(record, events, (345, snapshot))  # from the bot's snapshot: the latest moment at once
    assert seeded.filled == 0 and sorted(seeded.effects) == list(range(345, len(moves)))
    while not seeded.fill(40):  # then the rest, a piece at a time
        pass
    plain = engine.new_game(record)
    for n, event in enumerate(moves, 1):
        lines = engine.apply(plain, event.action, replaying=True)
        assert history.effects[n - 1] == lines and seeded.effects[n - 1] == lines
        if n in (1, 19, 20, 21, 333, 345, 346, len(moves)):
            assert history.at(n).state == plain.state and seeded.at(n).state == plain.state
            assert documents(history.at(n)) == documents(plain) == documents(seeded.at(n))


async def test_links_open_only_what_they_were_written_for(web_on: None) -> None:
    key = links.game_key(12)
    assert links.read_game_key(key) == 12
    assert links.game_link(12, at=3) == f"https://troika.example/g/{key}?at=3"
    mac = key.split("-", 1)[1]
    assert links.read_game_key(f"13-{mac}") is None
    assert links.read_game_key(key[:-1] + ("x" if key[-1] != "x" else "y")) is None
    assert links.read_game_key(key + "x") is None and links.read_game_key(" " + key) is None
    assert links.read_game_key(key, b"another installation's secret" * 2) is None
    player = links.player_key("1234 Anna")
    assert links.read_player_key(player) == "1234 Anna"
    assert links.read_player_key("QQ" + player) is None
    assert links.read_player_key(player[:-1] + ("x" if player[-1] != "x" else "y")) is None
    assert links.read_player_key(f"{links.player_key('u1').split('-')[0]}-{player.rsplit('-', 1)[1]}") is None


async def test_the_web_command_gives_the_games_link_and_a_players_own(store: EventStore, web_on: None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    service = TroikaService(store, pictures=False)
    await service.start_local_game("c1", [("u1", "Anna"), ("u2", "Boris")])
    [post] = await store.outbox_unsent()
    link = f"https://troika.example/g/{links.game_key(1)}"
    assert f"Watch it on the web: {link}" in post.payload["text"]
    assert (await service.handle("c1", Account("u9", "Zoe"), "web")).text == f"Game 1 on the web: {link}"
    assert f"Web page: {link}" in (await service.handle("c1", Account("u9", "Zoe"), "status")).text
    mine = await service.handle("c1", Account("u2", "Boris"), "web me")
    assert mine.text == "" and f"https://troika.example/p/{links.player_key('u2')}" in mine.direct
    client = await client_of(store)
    try:
        page = await (await client.get(f"/p/{links.player_key('u2')}")).text()
        assert "1861 game 1" in page and f'href="/g/{links.game_key(1)}"' in page
    finally:
        await client.close()
    monkeypatch.delenv(links.URL_VARIABLE)
    with pytest.raises(Exception, match="web page is off"):
        await service.handle("c1", Account("u9", "Zoe"), "web")


async def test_an_archived_game_stays_on_the_web_marked_archived(store: EventStore, web_on: None) -> None:
    """Issue 38: an archived game leaves `games` but its page still opens, and the
    player's page lists it as archived, nobody's turn."""
    service = TroikaService(store, pictures=False)
    await service.start_local_game("c1", [("u1", "Anna"), ("u2", "Boris")], first_player=0)
    await store.set_archived(1, utc_now())
    client = await client_of(store)
    try:
        game_page = await client.get(f"/g/{links.game_key(1)}")
        assert game_page.status == 200 and "Anna" in await game_page.text()
        mine = await (await client.get(f"/p/{links.player_key('u1')}")).text()
        assert "1861 game 1" in mine and "archived: unarchive in its channel brings it back" in mine
        assert "your turn" not in mine.lower()
    finally:
        await client.close()


async def test_a_client_asking_too_fast_is_told_to_wait(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "BURST", 5.0)
    monkeypatch.setattr(server, "RATE", 0.1)
    client = await client_of(store)
    try:
        codes = [(await client.get("/static/web.js")).status for _ in range(8)]
    finally:
        await client.close()
    assert codes[:5] == [200] * 5 and codes[5:] == [429] * 3


@pytest.mark.slow
async def test_the_bench_times_the_web_page_as_troika_run_serves_it(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(links.URL_VARIABLE, raising=False)
    monkeypatch.delenv(links.SECRET_VARIABLE, raising=False)
    log, _ = shared_game("1861-29683")
    figures = await web_latency(log, tmp_path)
    assert figures["moves"] == max(site_moves(log).values())
    for name in ("first_paint_ms", "first_map_ms", "warm_paint_ms"):
        assert figures[name] > 0
    assert 0 < figures["first_load_http_ms"]["page"] < figures["first_load_http_ms"]["page_and_map"]
    for name in ("history_step_ms", "history_step_all_pictures_ms", "history_next_ms", "live_heard_ms",
                 "live_update_ms"):
        assert 0 < figures[name]["median"] <= figures[name]["max"]
    assert links.URL_VARIABLE not in os.environ  # the bench's own web process left no address behind
    assert links.SECRET_VARIABLE not in os.environ


async def test_the_page_names_the_options_in_force_and_whose_turn_it_is(store: EventStore, web_on: None) -> None:
    service = TroikaService(store, pictures=False)
    await service.start_local_game("c1", [("u1", "Anna"), ("u2", "Boris"), ("u3", "Clara")],
                                   rules=game_choice(["long-game", "exports"]).rules())
    game = (await service.repo.load(1)).game
    client = await client_of(store)
    try:
        page = await (await client.get(f"/g/{links.game_key(1)}")).text()
    finally:
        await client.close()
    options = re.search(r'<p id="options">(.*?)</p>', page)[1]  # type: ignore[index]
    assert options == "Options: " + " · ".join(describe_options("1861", ["long-game", "exports"]))
    acting = re.search(r'<strong id="acting">(.*?)</strong>', page)[1]  # type: ignore[index]
    assert acting == who_acts(game)


async def test_every_answer_is_locked_down_and_names_no_software_version(store: EventStore, web_on: None) -> None:
    service = TroikaService(store, pictures=False)
    await service.start_local_game("c1", [("u1", "Anna"), ("u2", "Boris")])
    client = await client_of(store)
    try:
        key = links.game_key(1)
        answers = [await client.get(path) for path in (f"/g/{key}", f"/g/{key}/map.svg", "/g/1-nothing", "/x")]
        stream = await client.get(f"/g/{key}/events")  # headers sent before the stream's end
        answers.append(stream)
        for answer in answers:
            assert answer.headers["Server"] == "Troika", answer.url
            assert answer.headers["X-Content-Type-Options"] == "nosniff"
            assert "default-src 'none'" in answer.headers["Content-Security-Policy"]
        stream.close()
    finally:
        await client.close()


async def test_a_picture_asked_for_at_once_by_many_is_drawn_once_and_sent_gzipped(
    store: EventStore, web_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = TroikaService(store, pictures=False)
    await service.start_local_game("c1", [("u1", "Anna"), ("u2", "Boris")])
    drawn: list[str] = []
    real_draw = server.draw

    def counted(game: object, name: str) -> str:
        drawn.append(name)
        return real_draw(game, name)  # type: ignore[arg-type]

    monkeypatch.setattr(server, "draw", counted)
    client = await client_of(store)
    try:
        key = links.game_key(1)
        answers = await asyncio.gather(*(client.get(f"/g/{key}/{name}.svg") for name in ["map"] * 4 + ["table"]))
        assert [a.status for a in answers] == [200] * 5
        assert {a.headers["Content-Encoding"] for a in answers} == {"gzip"}
        texts = [await a.text() for a in answers]
        assert len(set(texts[:4])) == 1 and "<svg" in texts[0] and "<svg" in texts[4]
        await asyncio.sleep(0.3)  # the page's first request began drawing all three: each is drawn once
        assert sorted(drawn) == ["map", "market", "table"]
    finally:
        await client.close()


async def test_a_step_through_the_history_replays_from_the_moment_last_looked_at(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, _ = shared_game("1861-29683")
    await TroikaService(store, pictures=False).import_site_game("c1", Account("u1", "Anna"), json.dumps(log).encode())
    [record] = await store.list_games()
    events = await store.events(record.id)
    history = GameHistory(record)
    history.update(record, events)
    engine = TroikaEngine()
    plain = engine.new_game(record)
    for event in effective_events(events)[:336]:
        engine.apply(plain, event.action, replaying=True)
    applied = []
    real_apply = history._engine.apply

    def counted(game: Game, action: dict[str, object], **options: bool) -> list[str]:
        applied.append(action)
        return real_apply(game, action, **options)

    monkeypatch.setattr(history._engine, "apply", counted)
    history.at(333)
    assert len(applied) == 333 % CHECKPOINT_EVERY  # from the kept state before it
    for n in (334, 335, 336):
        history.at(n)
    assert len(applied) == 333 % CHECKPOINT_EVERY + 3  # then one move a step
    assert history.at(336).state == plain.state and len(applied) == 333 % CHECKPOINT_EVERY + 3


async def test_a_players_page_lists_finished_games_marked_so_and_moves_keep_the_sites_times(
    store: EventStore, web_on: None
) -> None:
    log, _ = shared_game("1861-29683")
    service = TroikaService(store, pictures=False)
    await service.import_site_game("c1", Account("u1", "Anna"), json.dumps(log).encode())
    await service.start_local_game("c2", [("u1", "Anna"), ("u2", "Boris")])
    finished, running = sorted(g.id for g in await store.list_games())
    client = await client_of(store)
    try:
        mine = await (await client.get(f"/p/{links.player_key('u1')}")).text()
        first = await (await client.get(f"/g/{links.game_key(finished)}?at=1")).text()
    finally:
        await client.close()
    lines = re.findall(r"<li.*?</li>", mine)
    assert len(lines) == 2 and f"1861 game {running}" in lines[0] and "finished" not in lines[0]
    assert f"1861 game {finished}" in lines[1] and "class=finished" in lines[1]
    assert "<strong>finished</strong>: Game over" in lines[1]
    made = log["actions"][0]["created_at"]  # the site's time of its first move, kept by the import
    stamp = datetime.fromtimestamp(made, UTC)
    label = re.search(r'<p id="at-label">(.*?)</p>', first)[1]  # type: ignore[index]
    assert f'datetime="{stamp.isoformat()}"' in label and stamp.strftime("%d %b %Y %H:%M UTC") in label


async def test_a_move_imported_without_its_time_shows_none_on_the_page_or_in_the_log(
    store: EventStore, web_on: None
) -> None:
    """Not the import's time, which is not when the move was made."""
    log, _ = shared_game("1861-29683")
    for action in log["actions"]:
        action.pop("created_at")
    service = TroikaService(store, pictures=False)
    await service.import_site_game("c1", Account("u1", "Anna"), json.dumps(log).encode(), hot_seat=True)
    [record] = await store.list_games()
    shown = (await service.handle("c1", Account(record.seats[0].discord_user_id or "", "x"), "log 5")).text
    client = await client_of(store)
    try:
        page = await (await client.get(f"/g/{links.game_key(record.id)}")).text()
    finally:
        await client.close()
    imported = record.created_at.strftime("%d %b")
    assert "<time" not in page.split('<ol id="log"')[1] and "its time is not known" in page
    assert shown.count(" imported ") == 5 and imported not in shown, shown


async def test_the_page_and_the_log_number_moves_alike_after_an_undo(store: EventStore, web_on: None) -> None:
    service = TroikaService(store, pictures=False)
    await service.start_local_game("c1", [("u1", "Anna"), ("u2", "Boris"), ("u3", "Clara")], first_player=0)
    for account, command in (("u1", "pass"), ("u2", "pass"), ("u2", "undo"), ("u2", "bid TSR 20")):
        await service.handle("c1", Account(account, account), command)
    log = (await service.handle("c1", Account("u1", "u1"), "log")).text.split("\n")
    client = await client_of(store)
    try:
        page = await (await client.get(f"/g/{links.game_key(1)}")).text()
    finally:
        await client.close()
    shown = re.findall(r'<li value="(\d+)"><time[^>]*>[^<]*</time> ([^<]*?):', page)
    assert shown == [("2", "Boris"), ("1", "Anna")]  # the undone pass took no number: the bid is move 2
    assert log[-1].startswith("#2 ") and "`bid TSR 20`" in log[-1]
    assert log[-3].startswith("#2 ") and log[-3].endswith("— undone") and log[-2].endswith("takes back #2 `pass`")
    assert re.search(r'After move 2 of <span id="at-total">2</span>', page)
