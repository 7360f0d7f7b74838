"""Troika offers exactly the moves 18xx.games accepts, by the site's own verdicts.

``tests/data/site_verdicts.json.gz`` holds what the site's engine said (recorded with
the oracle by ``python -m tests.site_verdicts record``, README "The site's verdicts")
at sampled positions of shared games: the moves it accepts, and Troika's offers it
refused. At each position a game by the site's rules (``new … site``) must offer every
accepted move and nothing else, but for the known causes :func:`known_cause` names.
"""

from __future__ import annotations

import os

import pytest

from engine.actions import RunRoutes
from engine.importer import convert
from tests.site_verdicts import FIXTURE, compare, load_log, move_key, offered_in_site_terms, positions, read_fixture

VERDICTS = read_fixture() if FIXTURE.exists() else {"games": {}}


def _missing_shared(name: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"the shared game {name} is missing")
    pytest.skip(f"the shared game {name} is missing")


@pytest.mark.parametrize("name", sorted(VERDICTS["games"]))
def test_troika_offers_what_the_site_accepts(name: str) -> None:
    try:
        log = load_log(name)
    except FileNotFoundError:
        _missing_shared(name)
        return
    recorded = VERDICTS["games"][name]
    unexplained: list[str] = []
    seen = 0
    for p, game in positions(log, {int(p) for p in recorded}):
        seen += 1
        for what, key, cause in compare(game, recorded[str(p)]):
            if cause is None:
                unexplained.append(f"pos {p}: {what} {key} {recorded[str(p)]['refused'].get(key, '')}".strip())
    assert seen == len(recorded)
    assert not unexplained, "\n".join(unexplained[:30])


def test_the_fixture_covers_both_titles_and_every_kind_of_move() -> None:
    assert FIXTURE.exists(), "record it: python -m tests.site_verdicts record (README)"
    titles = {name.rpartition("/")[2][:4] for name in VERDICTS["games"]}
    assert titles == {"1861", "1867"}
    kinds = {key.split()[0] for game in VERDICTS["games"].values() for v in game.values() for key in v["accepted"]}
    assert {"bid", "par", "buy_share", "sell_shares", "lay_tile", "place_token", "run", "dividend",
            "buy_train", "merge", "pass"} <= kinds


@pytest.mark.slow
@pytest.mark.parametrize("name", ["1861-29683", "1867-21268"])
def test_a_move_written_in_the_sites_terms_reads_back_to_the_same_key(name: str) -> None:
    """The fixture matches Troika's offers to the site's moves by :func:`move_key`: an
    offer written as the site's action and read back by the importer names the same move."""
    try:
        log = load_log(name)
    except FileNotFoundError:
        _missing_shared(name)
        return
    kinds = set()
    for _, game in positions(log, set(range(0, 700, 35))):
        for action, site, _why in offered_in_site_terms(game):
            if site is None or isinstance(action, RunRoutes):
                continue
            back = convert(game.state, site)
            assert back is not None and move_key(game.state, back) == move_key(game.state, action), site
            kinds.add(action.kind)
    assert {"lay_tile", "buy_train", "pass"} <= kinds
