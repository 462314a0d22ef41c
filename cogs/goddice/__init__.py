"""God Dice on Discord: /goddice and its /gm powers, the move controls that answer each move and the clock's
reminders with them, the table's status. `ADAPTER` is what the shared cogs use of it (`cogs.frontends`); the
registry names this package (`RuleSet.discord`)."""

from cogs.frontends import DiscordAdapter
from cogs.goddice import clock, reminders, render, views
from cogs.goddice.cog import player_autocomplete

ADAPTER = DiscordAdapter(
    extensions=("cogs.goddice.cog", "cogs.goddice.gm"),
    dynamic_items=views.DYNAMIC_ITEMS,
    status_embed=render.status_embed,
    clock_kinds=frozenset({"player_reminded"}),
    answer=views.answer_move,
    announce=clock.announce,
    after_change=clock.after_change,
    nudges=reminders.nudges,
    whose_autocomplete=player_autocomplete,
)
