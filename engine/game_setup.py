"""A game's setup (title, market, options, whose rules) and the words that name it.

One parser, :func:`parse_setup`, reads ``new``'s words for the console, Discord and
self-play; :func:`check_options` refuses what a title does not offer or what cannot be
played together, saying why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import NamedTuple

from .board import Board, load_board
from .errors import InvalidAction
from .options import EXPORT_PER_SET, OptionDef
from .rules import MARKETS, Rules
from .titles import DEFAULT_TITLE, TITLES, title_named


def declared(title: str) -> dict[str, OptionDef]:
    """The options ``title`` offers, by word."""
    return {o.sym: o for o in title_named(title).options}


def check_options(title: str, chosen: Iterable[str]) -> frozenset[str]:
    """The chosen options (a set's word, ``short``, read as its options), refused (with
    why) unless ``title`` offers each and none conflicts with another."""
    offered = declared(title)
    sets = title_named(title).option_sets
    picked = frozenset(sym for word in chosen for sym in sets.get(word, (word,)))
    for sym in sorted(picked):
        if sym not in offered:
            elsewhere = [t for t in TITLES if t != title and (sym in declared(t) or sym in title_named(t).option_sets)]
            if elsewhere:
                raise InvalidAction(f"{sym} is an option of {' and '.join(elsewhere)}, not of {title}")
            raise InvalidAction(f"{title} has no option {sym!r}; its options: {', '.join(offered)}")
    for sym in sorted(picked):
        for other in sorted(picked):
            if other in offered[sym].conflicts or sym in offered[other].conflicts:
                raise InvalidAction(
                    f"{offered[sym].name} ({offered[sym].section}) cannot be played with "
                    f"{offered[other].name} ({offered[other].section}): they set the same rule two ways"
                )
    return picked


def refuse_options_by_site_rules(options: Iterable[str]) -> None:
    """A game by 18xx.games' rules (``site``) plays none of the rulebook's optional rules:
    the site has none of them (its 1861 and 1867 offer only the other market) and loads a
    log that names them as its standard game, so the log would go on differently there
    (with ``long-game`` the site ends the game at the 8-train's end, where Troika plays on)."""
    chosen = sorted(options)
    if chosen:
        raise InvalidAction(
            f"a game by 18xx.games' rules (`site`) cannot play {', '.join(chosen)}: the site has none of "
            "the rulebook's optional rules and plays such a game without them, so its log would go on "
            "differently there; play the options by the rulebook (without `site`), or `site` without options"
        )


class Setup(NamedTuple):
    """What a game is, chosen when it starts: title, market, options, whose rules."""

    title: str = DEFAULT_TITLE
    market: str = ""
    options: frozenset[str] = frozenset()
    site: bool = False
    """Plays by 18xx.games' readings (:meth:`Rules.site`), as its page checks moves."""

    def rules(self) -> Rules:
        """The game's :class:`Rules` (the options checked against the title)."""
        market = self.market or load_board(self.title).default_market
        options = check_options(self.title, self.options)
        if self.site:
            refuse_options_by_site_rules(options)
            return Rules.site(market=market, options=options, live=True)
        return Rules.rulebook(market=market, options=options)


def _word(word: str) -> str:
    return word.lower().replace("_", "-")


SITE_WORD = "site"
"""``new 1867 site``: the game plays by 18xx.games' readings, so its log loads there."""


def _option_sets() -> dict[str, tuple[str, ...]]:
    return {word: syms for t in TITLES for word, syms in title_named(t).option_sets.items()}


def is_setup_word(word: str) -> bool:
    """Whether ``word`` names a title, a market, the site's rules, an option or a set of
    options (not a player's name)."""
    options = {sym for t in TITLES for sym in declared(t)}
    return _word(word) in {*TITLES, *MARKETS, SITE_WORD, *options, *_option_sets()}


def parse_setup(words: Iterable[str]) -> Setup:
    """The setup named by ``new``'s words, in any order: a title (``1867``), a market
    (``column``), ``site`` (the rules as 18xx.games applies them) and options
    (``long-game``); each defaults as the box does. Refused (with why) for a word that is
    none of these or options the title cannot play."""
    title, market, options, site = DEFAULT_TITLE, "", [], False
    for word in map(_word, words):
        if word in TITLES:
            title = word
        elif word in MARKETS:
            market = word
        elif word == SITE_WORD:
            site = True
        elif is_setup_word(word):
            options.append(word)
        else:
            raise InvalidAction(
                f"`{word[:24]}` is neither a game ({' or '.join(TITLES)}), a market (grid or column), "
                "`site` nor an option (`options` lists them)"
            )
    setup = Setup(title, market or load_board(title).default_market, check_options(title, options), site)
    setup.rules()
    return setup


def describe_options(title: str, options: Iterable[str]) -> list[str]:
    """The options in force, by name and section, in the title's order."""
    chosen = set(options)
    return [f"{o.name} ({o.section})" for o in title_named(title).options if o.sym in chosen]


def rulebook_players(title: str, options: Iterable[str] = ()) -> range:
    """How many players the rulebook seats for ``title`` with ``options``: two only where
    it has a two-player game (16, 1861S), and only the counts each option is for (15.1's
    bundles: 3 to 5, or two); an 18xx.games import may seat two in any title."""
    low, high = load_board(title).player_range
    low = low if title_named(title).two_player_variant else max(low, 3)
    for sym in options:
        allowed = declared(title)[sym].players
        if allowed is not None:
            low, high = max(low, allowed.start), min(high, allowed.stop - 1)
    return range(low, high + 1)


_BOARDS: dict[tuple[str, frozenset[str]], Board] = {}


def board_for(title: str, options: frozenset[str]) -> Board:
    """The title's board with the data the options change (train counts, the phases in
    which the national exports instead of running)."""
    key = (title, options)
    if key not in _BOARDS:
        board = load_board(title)
        for sym in sorted(options):
            board = _patched(board, declared(title)[sym])
        _BOARDS[key] = board
    return _BOARDS[key]


def _patched(board: Board, option: OptionDef) -> Board:
    trains = [
        replace(t, count=option.train_counts[t.name]) if t.name in option.train_counts else t
        for t in board.trains
    ]
    phases = board.phases
    if option.national_exports_per_set:
        phases = [
            p._replace(status=_exporting(p.status)) if "national_operates" in p.status else p
            for p in phases
        ]
    if trains == board.trains and phases == board.phases:
        return board
    return replace(board, trains=trains, phases=phases)


def _exporting(status: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(EXPORT_PER_SET if s == "national_operates" else s for s in status)
