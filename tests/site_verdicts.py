"""The site's verdicts on Troika's moves: recorded with 18xx.games' own engine (the
oracle), checked without it.

At sampled positions of the shared games (a position p: after the first p actions in
effect of the log, as Troika's importer keeps them), Troika's generator lists the moves
a game by the site's rules offers (``Rules.site(live=True)``, what ``new … site`` plays
by); the oracle's ``site_check.rb`` processes each one on the site's engine as its
server checks a move, and tries every move its own steps list. The fixture keeps, per
position, the moves the site accepts and those it refuses (with its message), each as
a key that names what the move does (:func:`move_key`), so ``tests/test_site_verdicts.py``
can compare Troika's offers with them in CI, where there is no Ruby.

Regenerate (README, "The site's verdicts")::

    ORACLE_ROOT=/tmp/site ENGINE_LOG_LEVEL=4 .venv/bin/python -m tests.site_verdicts record
    ORACLE_ROOT=/tmp/site ENGINE_LOG_LEVEL=4 .venv/bin/python -m tests.site_verdicts measure --every 10

``at POS --games LOG`` prints the verdict at one position (a test's data); ``measure``
prints the figures (offered but refused, accepted but not offered, by
cause) for every shared game instead of writing the fixture.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.actions import (
    Action,
    Bid,
    BuyPrivate,
    BuyShare,
    BuyTrain,
    Convert,
    LayTile,
    Merge,
    Par,
    Pass,
    RunRoutes,
    SellShares,
    action_from_dict,
)
from engine.errors import EngineError, IllegalAction
from engine.exporter import site_ids, to_site
from engine.game import Game
from engine.importer import actions_of, convert, read_log
from engine.legal import legal_actions
from engine.operating import OperatingRound
from engine.rules import Rules
from engine.state import GameState
from engine.trains import train_limit
from tests.conftest import DATA, SHARED, read_json

FIXTURE = DATA / "site_verdicts.json.gz"

FIXTURE_GAMES = {
    "1861-29683": 50,
    "1861-bank-breaks": 50,
    "1867-19792": 50,
    "1867-21268": 50,
    "generated/1861-gen-P4-column-S4018.json.gz": 100,
    "generated/1861-gen-P2-grid-S4021.json.gz": 100,
    "generated/1867-gen-P4-grid-S5008.json.gz": 100,
    "generated/1867-gen-P3-grid-S5017.json.gz": 100,
}
"""The games the fixture samples, each with its step between sampled positions."""

RARE = {"merge", "convert", "remove_token", "choose", "discard_train", "buy_company", "sell_shares", "par"}
"""Kinds of logged move rare enough that the position before each is sampled too."""


# --- what a move does, on both sides -------------------------------------------------------


def move_key(state: GameState, action: Action) -> str:
    """What ``action`` does at ``state``, in words both sides share: the kind, who acts,
    and what it names, without the copy of a tile, the certificate and prices the site
    and Troika may pick differently (a depot train and a par keep theirs)."""
    parts: list[object]
    match action:
        case RunRoutes():
            return f"run {action.entity}"
        case Bid(target=target):
            parts = [target]
        case BuyPrivate(private=private):
            parts = [private]
        case BuyShare(company=company, source=source):
            parts = [company, source]
        case SellShares(company=company, count=count):
            parts = [company, count]
        case LayTile(hex=hex_id, tile=tile, rotation=rotation):
            parts = [hex_id, tile, rotation]
        case Par(company=company, price=price):
            parts = [company, price]
        case BuyTrain(train=train, price=price, exchange=exchange):
            owner = next((c.sym for c in state.companies.values() if any(t.id == train for t in c.trains)), None)
            parts = [train.rpartition("-")[0], owner or f"bank {price}", exchange.rpartition("-")[0]]
        case _:
            fields = action.to_dict()
            parts = [fields[k] for k in sorted(fields) if k not in ("type", "entity")]
    return " ".join(str(p) for p in [action.kind, action.entity, *parts])


def game_path(name: str) -> Path:
    """A shared game's log by its name in :data:`FIXTURE_GAMES` (or a path)."""
    return Path(name) if Path(name).exists() else SHARED / "games" / (name if "/" in name else f"{name}.json")


def load_log(name: str) -> dict[str, Any]:
    """A shared game's log (:func:`game_path`), gzipped or not."""
    return dict(read_json(game_path(name)))


def live_rules(game: Game) -> Rules:
    """The rules of ``new … site`` on the game's market: the site's page checks each move."""
    return Rules.site(market=game.ctx.rules.market, options=game.ctx.rules.options, live=True)


def positions(log: dict[str, Any], wanted: set[int]) -> Iterator[tuple[int, Game]]:
    """The game at each wanted position of ``log``, played by the site's live rules
    there (the log's own moves are applied as an import plays them)."""
    game, kept = read_log(log)
    imported, live = game.ctx.rules, live_rules(game)
    for p, entry in enumerate(kept):
        if p in wanted and not game.state.finished:
            game.ctx.rules = live
            yield p, game
            game.ctx.rules = imported
        for action in actions_of(lambda: game.state, entry):
            game.apply(action, check=False)


def sampled(log: dict[str, Any], every: int, rare_cap: int = 8) -> set[int]:
    """Every ``every``-th position, plus (up to ``rare_cap``) those before a rarer move."""
    _, kept = read_log(log)
    rare = [p for p, e in enumerate(kept) if e.raw.get("type") in RARE and p % every][:rare_cap]
    return {p for p in range(len(kept)) if p % every == 0} | set(rare)


def offered_in_site_terms(game: Game) -> list[tuple[Action, dict[str, Any] | None, str]]:
    """Each move Troika offers, written as the site's action (None if Troika's own engine
    refuses it, with the reason)."""
    ids = site_ids([p.id for p in game.state.players])
    result: list[tuple[Action, dict[str, Any] | None, str]] = []
    for action in legal_actions(game):
        trial = Game(game.ctx, game.state.copy())
        try:
            trial.apply(action)
        except EngineError as exc:
            result.append((action, None, str(exc)))
            continue
        result.append((action, to_site(game, action, trial.state, ids), ""))
    return result


# --- asking the oracle ---------------------------------------------------------------------


def ask_site(log_path: Path, log: dict[str, Any], wanted: set[int], oracle: Path) -> dict[int, dict[str, Any]]:
    """The site's verdicts at the wanted positions: Troika's offers written for
    ``site_check.rb``, which tries each one and every move the site lists."""
    with tempfile.TemporaryDirectory() as tmp:
        offers, out = Path(tmp) / "offers.jsonl", Path(tmp) / "site.jsonl"
        with offers.open("w") as fh:
            for p, game in positions(log, wanted):
                rows = [
                    {"kind": a.kind, "troika": a.to_dict(), "modes": ["live"], "site": site, "fp": None}
                    if site is not None
                    else {"kind": a.kind, "troika": a.to_dict(), "modes": ["live"], "self_error": why}
                    for a, site, why in offered_in_site_terms(game)
                ]
                fh.write(json.dumps({"pos": p, "actor": game.actor(), "next": {}, "offered": rows}) + "\n")
        env = {**os.environ, "LAY_SAMPLE": "100000", "ENGINE_LOG_LEVEL": "4"}
        subprocess.run(["ruby", str(oracle / "site_check.rb"), str(log_path), str(offers), str(out)],
                       check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return {rec["pos"]: rec for rec in map(json.loads, out.read_text().splitlines()) if "pos" in rec}


def verdicts(log: dict[str, Any], site: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Per position: the keys the site accepts (Troika's offers it accepted, and the moves
    its steps list that it accepted, read with Troika's importer) and those it refuses."""
    result: dict[int, dict[str, Any]] = {}
    for p, game in positions(log, set(site)):
        rec = site[p]
        accepted: set[str] = set()
        refused: dict[str, str] = {}
        for row in rec.get("offered", []):
            if "ok" not in row:
                continue  # Troika's own engine refused it, or the site did not try it
            key = move_key(game.state, action_from_dict(row["troika"]))
            if row["ok"]:
                accepted.add(key)
            else:
                refused[key] = row.get("err", "")[:120]
        for cand in rec.get("site_cands", []):
            if not cand.get("ok"):
                continue
            if cand.get("not_tried"):
                accepted.add(f"run {cand['key'][1]}")
                continue
            action = convert(game.state, cand["hash"])
            if action is not None:
                accepted.add(move_key(game.state, action))
        result[p] = {"accepted": sorted(accepted), "refused": dict(sorted(refused.items()))}
    return result


def record(games: dict[str, int], oracle: Path) -> dict[str, Any]:
    """The fixture: the site's verdicts at the sampled positions of ``games``."""
    out: dict[str, Any] = {"games": {}}
    for name, every in games.items():
        log = load_log(name)
        wanted = sampled(log, every)
        site = ask_site(game_path(name), log, wanted, oracle)
        out["games"][name] = {str(p): v for p, v in verdicts(log, site).items()}
        print(f"{name}: {len(site)} positions", file=sys.stderr)
    return out


# --- comparing ------------------------------------------------------------------------------


def known_cause(game: Game, key: str) -> str | None:
    """Why the site's accepting a move Troika does not offer is expected, or None: G, H
    and I are the site's engine accepting what its page refuses (README, Rules); L, a
    join it accepts and then can neither name a major after nor give up; N, a
    nationalization it accepts and then cannot go on. No
    refusal of an offer is expected: issue 35's causes of those (A, C, E, J) are fixed."""
    kind = key.split()[0]
    if kind == "buy_train" and not key.split(" ")[-1]:
        company = game.state.companies[key.split()[1]]
        if len(company.trains) >= train_limit(game.ctx, game.state, company):
            return "I: a train bought at the train limit (the site's page lists none)"
    if kind == "merge" and key.split()[2] in game.state.companies and game.state.companies[key.split()[2]].is_minor:
        try:
            game.check(Merge(key.split()[1], key.split()[2]))
        except IllegalAction as refused:
            if "nobody in the merge could then become" in str(refused):
                return "L: a minor's join after which the site's engine can go no further (RN 8.3)"
            if "no major is left for the merge to form" in str(refused):
                return "L: a minor's join with no major left to form (9.2), after which the site's engine is stuck"
    if kind == "convert":
        try:
            game.check(Convert(key.split()[1]))
        except IllegalAction as refused:
            if "no major is left to convert into" in str(refused):
                return "L: a conversion with no major left (9.1), after which the site's engine is stuck"
    if kind == "pass" and game.round_name == "Merger":
        try:
            game.check(Pass(key.split()[1]))
        except IllegalAction as refused:
            if "cannot stop adding" in str(refused):
                return "L: a pass ending a merge's adding after which the site's engine can go no further (RN 8.3)"
    if kind == "lay_tile" and _reached_before_new_tokens(game, key):
        return "M: a lay the site's cached connectivity allows, from before a token placed since (README, Rules)"
    rnd = game.round
    if kind == "choose" and isinstance(rnd, OperatingRound) and rnd.nationalizing_refused(game.ctx, game.state):
        return "N: nationalizing the major whose turn it is, after which the site's engine is stuck (README, Rules)"
    if kind == "par" and not game.ctx.title.major_home_cities(game.ctx, game.state):
        return "G: a par with no home city open (the site's page refuses it)"
    if kind == "bid" and game.ctx.title.first_minor is not None:
        first = game.state.companies[game.ctx.title.first_minor]
        if not first.floated and not first.closed and key.split()[2] in game.ctx.board.minors():
            return "H: a minor before the Nikolaev (the site's page refuses it)"
    return None


def _reached_before_new_tokens(game: Game, key: str) -> bool:
    """Whether the lay ``key`` that Troika refuses as out of reach (8.6) would reach
    with the tokens of companies that have not operated yet, and the national's, taken
    off the map: the site's engine keeps its track graph cached until a lay or a
    token placement clears it, so a token placed outside those steps (a minor's home
    token when it is bought in the stock round; the national's on Moscow's 639 or at a
    nationalization, after the lay's clearing) may not block there yet."""
    _, entity, hex_id, tile, rotation = key.split()
    lay = LayTile(entity, hex_id, tile, int(rotation))
    try:
        game.check(lay)
        return False
    except EngineError as refused:
        if "cannot reach" not in str(refused):
            return False
    state = game.state.copy()
    fresh = {s for s, c in state.companies.items() if (not c.operated or c.is_national) and s != entity}
    for city, occupants in state.map.tokens.items():
        state.map.tokens[city] = [None if o in fresh else o for o in occupants]
    try:
        Game(game.ctx, state).check(lay)
    except EngineError:
        return False
    return True


def compare(game: Game, verdict: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """Troika's offers now against the site's verdict at this position: (what, key,
    known cause) for each move offered but not accepted and each accepted but not offered."""
    offered = {move_key(game.state, a) for a in legal_actions(game)}
    accepted, refused = set(verdict["accepted"]), verdict["refused"]
    result: list[tuple[str, str, str | None]] = []
    for key in sorted(offered - accepted):
        if key in refused:
            result.append(("refused", key, None))
        else:
            result.append(("unknown", key, None))  # no verdict recorded: regenerate the fixture
    for key in sorted(accepted - offered):
        result.append(("not offered", key, known_cause(game, key)))
    return result


def read_fixture(path: Path = FIXTURE) -> dict[str, Any]:
    return dict(read_json(path))


def measure(names: list[str], every: int, oracle: Path) -> dict[str, Any]:
    """offered ⊆ accepted and accepted ⊆ offered at every ``every``-th position of each
    game (no rarer positions added), counted by title, source and cause."""
    counts: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for name in names:
        log = load_log(name)
        wanted = sampled(log, every, rare_cap=0)
        site = ask_site(game_path(name), log, wanted, oracle)
        found = verdicts(log, site)
        source = "generated" if "generated/" in name else "real"
        title = str(log.get("title"))
        for p, game in positions(log, set(found)):
            counts[f"{title} {source} positions"] += 1
            counts[f"{title} {source} offered"] += len(legal_actions(game))
            counts[f"{title} {source} accepted"] += len(found[p]["accepted"])
            for what, key, cause in compare(game, found[p]):
                label = f"{title} {source} {what}: {cause or key.split()[0] + ' (unexplained)'}"
                counts[label] += 1
                examples.setdefault(label, f"{name} pos {p}: {key} {found[p]['refused'].get(key, '')}")
        print(f"{name}: {len(found)} positions", file=sys.stderr)
    return {"counts": dict(sorted(counts.items())), "examples": examples}


def verdict_at(name: str, position: int, oracle: Path) -> dict[str, Any]:
    """The site's verdict at one position of a shared game (``at NAME POS``), to keep
    as a test's data: ``{"log", "position", "accepted", "refused"}``."""
    log = load_log(name)
    found = verdicts(log, ask_site(game_path(name), log, {position}, oracle))
    return {"log": name, "position": position, **found[position]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.site_verdicts", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["record", "measure", "at"])
    parser.add_argument("position", nargs="?", type=int, help="at: the position (with one --games log)")
    parser.add_argument("--oracle", type=Path, default=SHARED / "oracle", help="the oracle's scripts")
    parser.add_argument("--every", type=int, default=10, help="measure: the step between positions")
    parser.add_argument("--games", nargs="*", help="measure: these logs (default: every shared game)")
    parser.add_argument("--out", type=Path, default=FIXTURE)
    args = parser.parse_args(argv)
    if "ORACLE_ROOT" not in os.environ:
        parser.error("set ORACLE_ROOT to the site's code (see ../shared/oracle/README.md)")
    if args.what == "at":
        if args.position is None or not args.games or len(args.games) != 1:
            parser.error("at: give one log with --games and a position")
        print(json.dumps(verdict_at(args.games[0], args.position, args.oracle), indent=1, sort_keys=True))
        return 0
    if args.what == "record":
        args.out.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(record(FIXTURE_GAMES, args.oracle), sort_keys=True)
        args.out.write_bytes(gzip.compress(text.encode(), 9, mtime=0))
        return 0
    names = args.games or [str(p) for p in sorted((SHARED / "games").glob("*.json"))] + [
        str(p) for p in sorted((SHARED / "games" / "generated").glob("*.json.gz"))
    ]
    print(json.dumps(measure(names, args.every, args.oracle), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
