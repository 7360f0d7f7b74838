"""Certificates: holdings, limits and the president's certificate (rulebook 3.3, 7.3–7.5).

Every holder keeps its certificates in the order received, because 18xx.games
logs name certificates by id and the engine moves them by list position
(RULES-NOTES 4.7).
"""

from __future__ import annotations

from .state import Certificate, Context, GameState, Player

MAX_HOLDING = 60
MAX_HOLDING_TWO_PLAYERS = 70
MAX_POOL = 50


def cert_count(player: Player) -> int:
    """Certificates that count against the limit: shares (president's = 1), minors, privates."""
    return len(player.certs) + len(player.privates)


def cert_limit(ctx: Context, state: GameState) -> int:
    return ctx.board.cert_limit[len(state.players)]


def max_holding(state: GameState) -> int:
    """Most of one major a player may own (7.4.1; 70% with two players, 16.1)."""
    return MAX_HOLDING_TWO_PLAYERS if len(state.players) == 2 else MAX_HOLDING


def first_plain(certs: list[Certificate], company: str) -> Certificate | None:
    """The first 10% certificate of ``company`` in a list."""
    return next((c for c in certs if c.company == company and not c.president), None)


def president_seat(state: GameState, company: str) -> int | None:
    for i, p in enumerate(state.players):
        if any(c.company == company and c.president for c in p.certs):
            return i
    return None


def update_president(state: GameState, company: str) -> str | None:
    """After shares moved: hand the president's certificate to whoever now holds the
    most, ties going clockwise from the old president (7.3.2). Returns a log line."""
    seat = president_seat(state, company)
    if seat is None:
        return None
    old = state.players[seat]
    held = old.percent_of(company)
    n = len(state.players)
    best: Player | None = None
    for i in range(1, n):
        p = state.players[(seat + i) % n]
        pct = p.percent_of(company)
        if pct > held and pct >= 20 and (best is None or pct > best.percent_of(company)):
            best = p
    if best is None:
        return None
    swap_president(state, company, old, best)
    return f"{best.name} becomes president of {company}"


def swap_president(state: GameState, company: str, old: Player, new: Player) -> None:
    """The new president hands their first two 10% certificates to the old president
    (to the pool if the old one no longer holds 20%) and takes the president's one."""
    pres = next(c for c in old.certs if c.company == company and c.president)
    keeps_enough = old.percent_of(company) >= 20
    given = [c for c in new.certs if c.company == company and not c.president][:2]
    for cert in given:
        new.certs.remove(cert)
        (old.certs if keeps_enough else state.pool).append(cert)
    old.certs.remove(pres)
    new.certs.append(pres)
