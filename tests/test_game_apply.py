"""Game.apply and Game.apply_first: a refused action changes nothing, even when the
rule that refuses it is broken after part of the state has changed."""

from __future__ import annotations

import pytest

from engine import auction
from engine.actions import Action, Bid, Pass
from engine.errors import IllegalAction
from engine.game import Game
from engine.state import GameState
from tests.conftest import new_game


def _half_done(rnd: object, ctx: object, state: GameState, action: Action) -> None:
    """A rule that changes the state, then refuses."""
    state.bank -= 100
    state.players[0].certs.clear()
    state.log.append("half done")
    raise IllegalAction("refused after a change")


def test_a_refusal_after_a_change_leaves_the_state_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    game = new_game()
    before = game.dump()
    log = list(game.state.log)
    monkeypatch.setattr(auction.AuctionRound, "apply", _half_done)
    with pytest.raises(IllegalAction, match="after a change"):
        game.apply(Pass(game.actor() or ""))
    assert game.dump() == before
    assert game.state.log == log
    assert game.apply_first([Pass(game.actor() or "")]) is None
    assert game.dump() == before
    assert game.state.log == log


def test_a_saved_state_serves_as_the_safety_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    game = new_game()
    before, log = game.dump(), list(game.state.log)
    saved = game.save()
    with monkeypatch.context() as patched:
        patched.setattr(auction.AuctionRound, "apply", _half_done)
        with pytest.raises(IllegalAction, match="after a change"):
            game.apply(Pass(game.actor() or ""), saved=saved)
    assert game.dump() == before and game.state.log == log
    alone = new_game()
    bid = Bid(game.actor() or "", "TSR", 20)
    assert game.apply(bid, saved=game.save()) == alone.apply(bid)
    assert game.dump() == alone.dump()


def test_apply_first_applies_the_first_action_accepted() -> None:
    game, alone = new_game(), new_game()
    actor = game.actor() or ""
    too_low = Bid(actor, game.state.round.private, 0)
    accepted = Pass(actor)
    with pytest.raises(IllegalAction):
        game.apply(too_low)
    assert game.apply_first([too_low, accepted, Bid(actor, game.state.round.private, 500)]) == accepted
    alone.apply(accepted)
    assert game.dump() == alone.dump()
    assert game.state.log == alone.state.log
    assert game.last_action == accepted


def test_apply_first_refuses_everything_once_the_game_is_over() -> None:
    game: Game = new_game()
    game.state.finished = True
    assert game.apply_first([Pass(game.actor() or "")]) is None


def test_the_dump_is_the_states_fields_as_asdict_reads_them() -> None:
    """Stored games keep a hash of every dump: a quicker dump must give the same data
    (``dataclasses.asdict`` of the state, the round's compared fields, keys as sorted text)."""
    import dataclasses
    import json

    from engine.replay import replay
    from tests.conftest import shared_game

    def plain(value: object) -> object:
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            # a laid tile, a named tuple, dumps as the dict of its fields, as it did as a
            # dataclass: the hashes already stored stay true
            return plain(value._asdict())
        if isinstance(value, dict):
            text = {",".join(map(str, k)) if isinstance(k, tuple) else str(k): plain(v) for k, v in value.items()}
            return dict(sorted(text.items()))
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return sorted(plain(v) for v in value) if isinstance(value, set) else value

    seen: list[str] = []

    def check(game: Game, action: Action) -> None:
        if game.state.round is not None and game.state.round.kind not in seen:  # once in each kind of round
            seen.append(game.state.round.kind)
            hidden = {f.name for f in dataclasses.fields(game.state.round) if not f.compare}
            rnd = {k: v for k, v in dataclasses.asdict(game.state.round).items() if k not in hidden}
            state = dataclasses.asdict(dataclasses.replace(game.state, round=None))
            expected = plain(state | {"round": {"kind": game.state.round.kind} | rnd})
            assert json.dumps(game.dump()) == json.dumps(expected)
            tiles = game.dump()["map"]["tiles"]
            assert all(set(tile) == {"tile", "rotation", "id"} for tile in tiles.values())

    replay(shared_game("1861-29683")[0], None, before=check)
    assert seen == ["Auction", "Stock", "Operating", "Merger"]
