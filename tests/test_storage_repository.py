"""GameRepository over SQLite with the fake engine: acting, caching, undo and redo,
seats, export and import, refusing bad data, and the start-up replay check."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from storage import repository
from storage.bench import bench_store
from storage.fake_engine import FakeEngine, FakeGame, FakeRuleError
from storage.gamelog import InvalidGameLog
from storage.repository import GameRepository, ReplayMismatch, TroikaEngine, UndoError, state_hash
from storage.sqlite import SqliteEventStore
from storage.store import (
    AppendConflict,
    ChannelBusy,
    CorruptEvent,
    EventKind,
    GameStatus,
    NewEvent,
    Seat,
)

SEATS = [Seat(0, "p1", "Anna", "111", commissioner=True), Seat(1, "p2", "Boris", "222"),
         Seat(2, "p3", "Vera", "333")]


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[SqliteEventStore]:
    async with SqliteEventStore(db_path) as opened:
        yield opened


@pytest.fixture
def engine() -> FakeEngine:
    return FakeEngine()


@pytest.fixture
def repo(store: SqliteEventStore, engine: FakeEngine) -> GameRepository:
    return GameRepository(store, engine)


async def running_game(repo: GameRepository, channel: str | None = None) -> int:
    record = await repo.create_game("points", {}, 5, SEATS, "111", channel_id=channel)
    return (await repo.start_game(record.id)).game_id


def score(points: int, entity: str = "p1") -> dict[str, Any]:
    return {"type": "score", "entity": entity, "points": points}


async def state(repo: GameRepository, game_id: int) -> dict[str, Any]:
    return repo.engine.dump((await repo.load(game_id)).game)


async def cold_state(store: SqliteEventStore, game_id: int) -> dict[str, Any]:
    """The state replayed by a repository with an empty cache and its own engine."""
    fresh = GameRepository(store, FakeEngine())
    return fresh.engine.dump((await fresh.load(game_id)).game)


async def test_act_applies_and_logs(repo: GameRepository, store: SqliteEventStore) -> None:
    game_id = await running_game(repo)
    result = await repo.act(game_id, 0, score(3), "111", note="opening")
    assert result.lines == ["p1 scores 3"] and result.live.seq == 1
    assert (await state(repo, game_id))["scores"] == {"p1": 3, "p2": 0, "p3": 0}
    [event] = await store.events(game_id)
    assert (event.kind, event.actor, event.note) == (EventKind.ACTION, "111", "opening")
    assert event.action == score(3)
    assert event.state_hash == result.live.state_hash == state_hash(await state(repo, game_id))


async def test_an_illegal_action_writes_nothing_and_keeps_the_cache(
    repo: GameRepository, engine: FakeEngine, store: SqliteEventStore
) -> None:
    game_id = await running_game(repo)
    await repo.act(game_id, 0, score(3), "111")
    replays = engine.games_created
    with pytest.raises(FakeRuleError, match="points must be a whole number from 0 to 100"):
        await repo.act(game_id, 1, score(500), "111")
    assert await store.last_seq(game_id) == 1
    assert (await state(repo, game_id))["scores"]["p1"] == 3
    assert engine.games_created == replays


async def test_loads_come_from_the_cache_until_the_log_moves_on(
    repo: GameRepository, engine: FakeEngine, store: SqliteEventStore
) -> None:
    game_id = await running_game(repo)
    for seq in range(5):
        await repo.act(game_id, seq, score(1), "111")
    replays = engine.games_created
    assert (await repo.load(game_id)).seq == 5 and engine.games_created == replays
    other_process = GameRepository(store, FakeEngine())
    await other_process.act(game_id, 5, score(10, "p2"), "222")
    live = await repo.load(game_id)
    assert live.seq == 6 and engine.games_created == replays + 1
    assert engine.dump(live.game)["scores"] == {"p1": 5, "p2": 10, "p3": 0}
    with pytest.raises(AppendConflict, match="you acted on event 5 but the latest is event 6"):
        await repo.act(game_id, 5, score(1), "111")
    assert await store.last_seq(game_id) == 6


class BrokenPromiseEngine(FakeEngine):
    """An engine with a bug: ``half`` changes the state and then fails."""

    def apply(
        self, game: FakeGame, action: dict[str, Any], *, replaying: bool = False, saved: bytes | None = None
    ) -> list[str]:
        if action["type"] == "half":
            game.scores["p1"] //= 2
            raise RuntimeError("engine bug")
        return super().apply(game, action, replaying=replaying)


async def test_a_step_that_fails_after_changing_state_forces_a_replay(store: SqliteEventStore) -> None:
    engine = BrokenPromiseEngine()
    repo = GameRepository(store, engine)
    game_id = await running_game(repo)
    await repo.act(game_id, 0, score(10), "111")
    replays = engine.games_created
    with pytest.raises(RuntimeError, match="engine bug"):
        await repo.act(game_id, 1, {"type": "half", "entity": "p1"}, "111")
    assert (await state(repo, game_id))["scores"]["p1"] == 10
    assert engine.games_created == replays + 1


async def test_posts_are_queued_with_their_action(
    repo: GameRepository, store: SqliteEventStore
) -> None:
    game_id = await running_game(repo)
    await repo.act(game_id, 0, score(4), "111", outbox=lambda game, lines: [{"text": t} for t in lines])
    assert [m.payload for m in await store.outbox_unsent()] == [{"text": "p1 scores 4"}]

    def failing(game: Any, lines: list[str]) -> list[dict[str, Any]]:
        raise ValueError("cannot render")

    with pytest.raises(ValueError, match="cannot render"):
        await repo.act(game_id, 1, score(5), "111", outbox=failing)
    assert await store.last_seq(game_id) == 1 and len(await store.outbox_unsent()) == 1
    assert (await state(repo, game_id))["scores"]["p1"] == 4


async def test_starting_a_game(repo: GameRepository, store: SqliteEventStore) -> None:
    lonely = await repo.create_game("points", {}, 1, SEATS[:1], "111", channel_id="c1")
    with pytest.raises(FakeRuleError, match="at least 2 players"):
        await repo.start_game(lonely.id)
    assert (await store.get_game(lonely.id)).status is GameStatus.SETTING_UP
    with pytest.raises(ChannelBusy):
        await repo.create_game("points", {}, 1, SEATS, "222", channel_id="c1")
    await store.set_status(lonely.id, GameStatus.ABANDONED)
    game = await repo.create_game("points", {}, 1, SEATS, "222", channel_id="c1")
    live = await repo.start_game(game.id)
    assert (live.seq, (await store.get_game(game.id)).status) == (0, GameStatus.RUNNING)
    with pytest.raises(ValueError, match="is running, not being set up"):
        await repo.start_game(game.id)


async def test_undo_redo_random_walk_matches_replaying_the_shorter_log(
    repo: GameRepository, engine: FakeEngine, store: SqliteEventStore
) -> None:
    game_id = await running_game(repo)
    rng = random.Random(1861)
    in_effect: list[tuple[int, dict[str, Any]]] = []  # the oracle: (seq, action) in effect
    undone: list[list[tuple[int, dict[str, Any]]]] = []
    seq = 0
    for step in range(1, 301):
        roll = rng.random()
        if roll < 0.5:
            action = score(rng.randint(0, 9), rng.choice(["p1", "p2", "p3"]))
            seq = (await repo.act(game_id, seq, action, "111")).live.seq
            in_effect.append((seq, action))
            undone.clear()
        elif roll < 0.85 and in_effect:
            if roll < 0.75:
                seq = (await repo.undo(game_id, seq, "111")).seq
                undone.append([in_effect.pop()])
            else:
                keep = rng.randrange(len(in_effect))  # undo back to an action; 0 = everything
                target = in_effect[keep - 1][0] if keep else 0
                seq = (await repo.undo(game_id, seq, "111", action_id=target)).seq
                undone.append(in_effect[keep:])
                del in_effect[keep:]
        elif undone:
            seq = (await repo.redo(game_id, seq, "111")).seq
            in_effect.extend(undone.pop())
        if step % 50 == 0:
            expected = engine.new_game(await store.get_game(game_id))
            for _, action in in_effect:
                engine.apply(expected, action)
            assert await state(repo, game_id) == engine.dump(expected)
            assert await cold_state(store, game_id) == engine.dump(expected)
    kinds = {e.kind for e in await store.events(game_id)}
    assert kinds == {EventKind.ACTION, EventKind.UNDO, EventKind.REDO}

    shorter = await running_game(repo)
    for n, (_, action) in enumerate(in_effect):
        await repo.act(shorter, n, action, "111")
    assert await state(repo, shorter) == await state(repo, game_id)


async def test_undo_and_redo_refuse_to_do_nothing(
    repo: GameRepository, store: SqliteEventStore
) -> None:
    game_id = await running_game(repo)
    with pytest.raises(UndoError, match="nothing to undo"):
        await repo.undo(game_id, 0, "111")
    with pytest.raises(UndoError, match="nothing to redo"):
        await repo.redo(game_id, 0, "111")
    await repo.act(game_id, 0, score(1), "111")
    await repo.undo(game_id, 1, "111")
    await repo.act(game_id, 2, score(2), "111")  # a new action clears what could be redone
    with pytest.raises(UndoError, match="nothing to redo"):
        await repo.redo(game_id, 3, "111")
    with pytest.raises(UndoError, match="nothing to undo after action 3"):
        await repo.undo(game_id, 3, "111", action_id=3)
    with pytest.raises(AppendConflict):
        await repo.undo(game_id, 2, "111")
    assert await store.last_seq(game_id) == 3
    assert (await state(repo, game_id))["scores"]["p1"] == 2


async def test_seat_and_admin_events_are_never_undone(
    repo: GameRepository, store: SqliteEventStore
) -> None:
    game_id = await running_game(repo)
    await repo.act(game_id, 0, score(7), "111")
    renamed = [SEATS[0], Seat(1, "p2", "Borya", "444"), SEATS[2]]
    await repo.set_seats(game_id, 1, renamed, "111", note="Boris hands over")
    await repo.record_admin(game_id, 2, {"type": "extend_deadline"}, "111")
    await repo.undo(game_id, 3, "111")
    after = await state(repo, game_id)
    assert after["scores"]["p1"] == 0 and ["p2", "Borya"] in after["players"]
    assert (await store.get_game(game_id)).seats[1].discord_user_id == "444"
    assert await cold_state(store, game_id) == after
    with pytest.raises(ValueError, match="seats may change hands, not players"):
        await repo.set_seats(game_id, 4, [SEATS[0], Seat(1, "p9", "New"), SEATS[2]], "111")
    assert await store.last_seq(game_id) == 4


async def test_seats_during_set_up(repo: GameRepository, store: SqliteEventStore) -> None:
    record = await repo.create_game("points", {}, 1, SEATS[:1], "111")
    await repo.set_seats(record.id, 0, SEATS[:2], "222", note="Boris joins")
    live = await repo.start_game(record.id)
    assert live.seq == 1 and len(repo.engine.dump(live.game)["players"]) == 2
    [event] = await store.events(record.id)
    assert event.kind is EventKind.SEAT and event.action["seats"][1]["player_id"] == "p2"


async def test_export_then_import_replays_to_the_same_state(
    repo: GameRepository, store: SqliteEventStore, tmp_path: Path
) -> None:
    game_id = await running_game(repo, channel="c1")
    for n in range(6):
        await repo.act(game_id, n, score(n, ["p1", "p2", "p3"][n % 3]), "111")
    await repo.undo(game_id, 6, "222", action_id=3, note="misclick")
    await repo.redo(game_id, 7, "222")
    await repo.undo(game_id, 8, "111")
    await repo.set_seats(game_id, 9, [SEATS[0], Seat(1, "p2", "Borya"), SEATS[2]], "111")
    await repo.act(game_id, 10, score(9, "p3"), "333")
    exported = json.loads(json.dumps(await repo.export_game(game_id)))
    assert exported["settings"] == {"seed": 5, "options": {}}
    assert [a["id"] for a in exported["actions"]] == list(range(1, 12))
    assert exported["actions"][6] | {"created_at": 0} == {
        "id": 7, "type": "undo", "action_id": 3, "user": "222", "created_at": 0,
        "troika": {"note": "misclick"}}
    assert exported["actions"][9]["troika"] == {"kind": "seat"}

    async with SqliteEventStore(tmp_path / "elsewhere.db") as other:
        other_repo = GameRepository(other, FakeEngine())
        imported = await other_repo.import_game(exported, "999")
        assert imported.status is GameStatus.RUNNING
        assert imported.seats == (await store.get_game(game_id)).seats
        assert await state(other_repo, imported.id) == await state(repo, game_id)
        again = await other_repo.export_game(imported.id)
        for key in ("title", "players", "settings", "actions", "status"):
            assert again[key] == exported[key]
    copy = await repo.import_game(exported, "999", status=GameStatus.FINISHED)  # channel stays free
    assert await cold_state(store, copy.id) == await state(repo, game_id)


async def test_import_refuses_logs_that_do_not_replay(
    repo: GameRepository, store: SqliteEventStore
) -> None:
    good: dict[str, Any] = {
        "title": "points",
        "players": [{"id": "p1", "name": "A"}, {"id": "p2", "name": "B"}],
        "settings": {"seed": 3},
        "actions": [{"id": 1, **score(2)}],
    }
    await repo.import_game(good, "111")
    problems: dict[str, Any] = {
        "a game log must be a JSON object": [],
        "settings.seed must be a whole number": {**good, "settings": {"seed": "x"}},
        "ids must run 1, 2, 3": {**good, "actions": [{"id": 2, **score(2)}]},
        r"does not replay \(action 2\): the engine refuses its 'score' action: 'p7' is not playing":
            {**good, "actions": [{"id": 1, **score(2)}, {"id": 2, **score(2, "p7")}]},
        r"does not replay \(set-up\)": {**good, "players": good["players"][:1]},
    }
    for message, log in problems.items():
        with pytest.raises(InvalidGameLog, match=message):
            await repo.import_game(log, "111")
    assert len(await store.list_games()) == 1


async def test_bad_data_stops_only_its_own_game(
    repo: GameRepository, store: SqliteEventStore, db_path: Path
) -> None:
    refused = await running_game(repo)
    garbled = await running_game(repo)
    healthy = await running_game(repo)
    for game_id in (refused, garbled, healthy):
        await repo.act(game_id, 0, score(5), "111")
    await store.append(refused, 1, NewEvent(score(1, "nobody")))  # behind the engine's back
    with sqlite3.connect(db_path) as raw:
        raw.execute("INSERT INTO events (game_id, seq, kind, action, created_at)"
                    " VALUES (?, 2, 'action', '{\"type\": ', '2024-01-01T00:00:00+00:00')", (garbled,))

    refusal = "the engine refuses its 'score' action: 'nobody' is not playing"
    with pytest.raises(CorruptEvent, match=rf"game {refused} cannot be loaded \(event 2\): {refusal}"):
        await repo.load(refused)
    with pytest.raises(CorruptEvent, match=rf"game {garbled} cannot be loaded \(event 2\): its "
                                           "action is not valid JSON") as caught:
        await GameRepository(store, FakeEngine()).load(garbled)
    assert (caught.value.game_id, caught.value.seq) == (garbled, 2)
    await repo.act(healthy, 1, score(1), "111")
    assert (await cold_state(store, healthy))["scores"]["p1"] == 6
    problems = await GameRepository(store, FakeEngine()).verify_running_games()
    assert [(p.game_id, "event 2" in p.message) for p in problems] == [(refused, True), (garbled, True)]


async def test_verify_catches_rules_changes(repo: GameRepository, store: SqliteEventStore) -> None:
    big, small, quiet = await running_game(repo), await running_game(repo), await running_game(repo)
    await repo.act(big, 0, score(50), "111")
    await repo.act(small, 0, score(5), "111")
    await repo.act(quiet, 0, score(0), "111")
    await repo.act(quiet, 1, {"type": "pass", "entity": "p2"}, "222")
    assert await repo.verify_running_games() == []

    stricter = GameRepository(store, FakeEngine(version=2, max_points=10))
    [problem] = await stricter.verify_running_games()
    assert problem.game_id == big
    assert "(event 1): the engine refuses its 'score' action" in problem.message
    assert [(await store.get_game(g)).engine_version for g in (big, small, quiet)] == [1, 2, 2]

    doubled = GameRepository(store, FakeEngine(version=3, multiplier=2))
    problems = await doubled.verify_running_games()
    assert [p.game_id for p in problems] == [big, small]
    assert "engine v3 replays the log to a different state" in problems[1].message
    assert "last verified under v2" in problems[1].message
    with pytest.raises(ReplayMismatch):
        await doubled.load(small)
    assert (await doubled.load(quiet)).seq == 2  # unaffected by the change

    live = await doubled.accept_replay(small, "111", "points now count double")
    assert doubled.engine.dump(live.game)["scores"]["p1"] == 10 and live.seq == 2
    [*_, accepted] = await store.events(small)
    assert accepted.kind is EventKind.ADMIN
    assert accepted.action == {"type": "accept_replay", "engine_version": 3}
    assert (await store.get_game(small)).engine_version == 3
    restarted = GameRepository(store, FakeEngine(3, multiplier=2))
    assert [p.game_id for p in await restarted.verify_running_games()] == [big]


async def test_the_cache_is_bounded(store: SqliteEventStore, engine: FakeEngine) -> None:
    repo = GameRepository(store, engine, cache_size=2)
    games = [await running_game(repo) for _ in range(3)]
    for game_id in games:
        await repo.load(game_id)
    replays = engine.games_created
    await repo.load(games[2])
    await repo.load(games[1])
    assert engine.games_created == replays
    await repo.load(games[0])
    assert engine.games_created == replays + 1


@pytest.mark.slow
async def test_bench_store(tmp_path: Path) -> None:
    figures = await bench_store(tmp_path)
    assert set(figures) == {"append_p50_ms", "append_p95_ms", "load_cold_ms", "load_cold_full_replay_ms",
                            "load_warm_ms"}
    assert all(value > 0 for value in figures.values())
    assert figures["load_warm_ms"] < figures["load_cold_ms"]
    print(figures)


async def test_the_real_engine_adapter(store: SqliteEventStore) -> None:
    errors = pytest.importorskip("engine.errors")
    pytest.importorskip("engine.game", reason="the rules engine's Game is not written yet")
    real = GameRepository(store, TroikaEngine())
    record = await real.create_game("1861", {}, 7, SEATS, "111")
    live = await real.start_game(record.id)
    for _ in range(2):
        pass_turn = {"type": "pass", "entity": live.game.actor()}
        live = (await real.act(record.id, live.seq, pass_turn, "111")).live
    bystander = next(s.player_id for s in SEATS if s.player_id != live.game.actor())
    with pytest.raises(errors.EngineError):
        await real.act(record.id, live.seq, {"type": "pass", "entity": bystander}, "111")
    undone = await real.undo(record.id, 2, "111")
    cold = await GameRepository(store, TroikaEngine()).load(record.id)
    assert (cold.seq, cold.state_hash) == (3, undone.state_hash)
    assert undone.state_hash != live.state_hash
    for first in (0, 2):
        chosen = await real.create_game("1861", {"first_player": first}, 7, SEATS, "111")
        assert (await real.start_game(chosen.id)).game.actor() == SEATS[first].player_id


class CountingEngine(FakeEngine):
    """The points game, counting the states it saves and the safety copies it is handed."""

    def __init__(self) -> None:
        super().__init__()
        self.saves: list[bytes] = []
        self.handed: list[bytes | None] = []

    def save(self, game: FakeGame) -> bytes:
        self.saves.append(super().save(game))
        return self.saves[-1]

    def apply(
        self, game: FakeGame, action: dict[str, Any], *, replaying: bool = False, saved: bytes | None = None
    ) -> list[str]:
        if not replaying:
            self.handed.append(saved)
        return super().apply(game, action, replaying=replaying)


async def test_a_step_saves_the_state_once_for_every_copy_of_it(
    store: SqliteEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(repository, "SNAPSHOT_EVERY", 3)
    engine = CountingEngine()
    repo = GameRepository(store, engine)
    game_id = await running_game(repo)
    results = [await repo.act(game_id, seq, score(seq + 1), "111") for seq in range(3)]
    assert len(engine.saves) == 3  # one per step: no second copy for the snapshot
    assert engine.handed == [None, *engine.saves[:2]]  # each step's saved state is the next one's safety copy
    assert [r.live.saved for r in results] == engine.saves  # and the caller's copy to draw from
    snapshot = await store.get_snapshot(game_id, engine.version)
    assert snapshot is not None and (snapshot.seq, snapshot.data) == (3, engine.saves[-1])
