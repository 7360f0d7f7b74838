"""Actions keep a stable JSON form: what the store keeps forever reads back the same."""

from __future__ import annotations

import dataclasses
import json

import pytest

from engine.actions import (
    ACTION_TYPES,
    Bid,
    BuyShare,
    LayTile,
    Route,
    RunBest,
    RunRoutes,
    SellShares,
    action_from_dict,
)
from engine.errors import InvalidAction
from storage import TroikaEngine

EXAMPLES = [
    Bid("a", "TSR", 25),
    BuyShare("a", "NW", "pool", "NW_3"),
    SellShares("a", "NW", 2, ("NW_1", "NW_2")),
    LayTile("KR", "G15", "201", 3, "201-0"),
    RunRoutes("N", (Route("2-0", (("H8", "G7", "G5"), ("G5", "F4", "F2", "E1"))),), 80),
    RunRoutes("N", (Route("2-0", (("H8", "G7", "G5"),)),)),
]


@pytest.mark.parametrize("action", EXAMPLES, ids=lambda a: a.kind)
def test_json_round_trip(action) -> None:
    stored = json.loads(json.dumps(action.to_dict()))
    assert action_from_dict(stored) == action


@pytest.mark.parametrize("kind", sorted(ACTION_TYPES))
def test_every_action_type_round_trips_with_defaults(kind: str) -> None:
    action = ACTION_TYPES[kind]("x")
    assert action_from_dict(json.loads(json.dumps(action.to_dict()))) == action


def test_the_stored_form_names_its_type_and_fields() -> None:
    assert Bid("a", "TSR", 25).to_dict() == {"type": "bid", "entity": "a", "target": "TSR", "price": 25}


@pytest.mark.parametrize(
    "data,message",
    [
        ({"type": "fly", "entity": "a"}, "unknown action type"),
        ({"type": "bid", "entity": "a", "price": "lots"}, "whole number"),
        ({"type": "bid", "entity": "a", "colour": "red"}, "unknown fields"),
        ({"type": "bid"}, "malformed"),
        (["bid"], "JSON object"),
        ({"type": "run_routes", "entity": "N", "routes": [{"train": "2-0"}]}, "malformed"),
        ({"type": "run_best", "entity": "N", "routes": []}, "unknown fields"),  # the best: no routes given
    ],
)
def test_bad_stored_actions_are_refused_clearly(data, message) -> None:
    with pytest.raises(InvalidAction, match=message):
        action_from_dict(data)


def test_the_store_gets_an_action_in_its_stored_form_and_the_engine_the_action() -> None:
    adapter = TroikaEngine()
    run = RunRoutes("N", (Route("2-0", (("H8", "G7", "G5"),)),), 40)
    assert adapter.encode(run) == run.to_dict()
    assert adapter.encode(run.to_dict()) == run.to_dict()  # a stored form passes through
    assert RunBest("N").to_dict() == {"type": "run_best", "entity": "N"} and RunBest("N") != RunRoutes("N")


@pytest.mark.parametrize("kind", sorted(ACTION_TYPES))
def test_actions_compare_hash_and_print_by_class_and_fields(kind: str) -> None:
    """An action equals an action of the same class with the same fields, hashes alike,
    and prints as a dataclass repr does."""
    cls = ACTION_TYPES[kind]
    action = action_from_dict({"type": kind, "entity": "a"} | _sample_fields(cls))
    twin = action_from_dict(action.to_dict())
    assert action == twin and hash(action) == hash(twin) and action is not twin
    names = [f.name for f in dataclasses.fields(cls)]
    assert repr(action) == f"{cls.__qualname__}({', '.join(f'{n}={getattr(action, n)!r}' for n in names)})"
    other = dataclasses.replace(action, entity="b")
    assert action != other
    for other_cls in ACTION_TYPES.values():  # never equal to another kind's action
        if other_cls is not cls and [f.name for f in dataclasses.fields(other_cls)] == names:
            assert action != other_cls(*[getattr(action, n) for n in names])


def _sample_fields(cls: type) -> dict[str, object]:
    """Values for the fields an action needs, read off its stored-form defaults."""
    samples: dict[str, object] = {}
    for f in dataclasses.fields(cls):
        if f.name == "entity" or f.default is not dataclasses.MISSING:
            continue
        samples[f.name] = {"int": 1, "str": "x"}.get(str(f.type), "x")
    return samples


def test_a_route_compares_by_its_train_and_legs() -> None:
    a = Route("2-0", (("H8", "G7"),))
    assert a == Route("2-0", (("H8", "G7"),)) and hash(a) == hash(Route("2-0", (("H8", "G7"),)))
    assert a != Route("2-1", (("H8", "G7"),))
    assert repr(a) == "Route(train='2-0', legs=(('H8', 'G7'),))"
