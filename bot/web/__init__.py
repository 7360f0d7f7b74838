"""The web companion: a read-only page of every game, live and at any move of its
history, at an unguessable link (:mod:`bot.web.links`); served by :mod:`bot.web.server`
in a process of its own (:mod:`bot.web.__main__`) that ``troika run`` starts."""
