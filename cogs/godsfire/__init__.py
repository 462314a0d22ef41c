"""Godsfire on Discord: /godsfire (charts as embeds, the system sheet, the table, the phases and the Social
Interphase), the controls of what the game waits for (a go's Move, Done and Pass; a transit's Attack, Block…
and Allow; a loss choice; a retreat) on each answer and the clock's announcements, and its report's signature
(the turn and its phase). `ADAPTER` is what the shared cogs use of it (`cogs.frontends`); the registry names
this package (`RuleSet.discord`)."""

from cogs.frontends import DiscordAdapter
from cogs.godsfire import buttons, reminders, render
from cogs.godsfire.cog import player_autocomplete

ADAPTER = DiscordAdapter(
    extensions=("cogs.godsfire.cog",),
    dynamic_items=buttons.DYNAMIC_ITEMS,
    status_embed=render.status_embed,
    footer=render.footer,
    answer=buttons.answer,
    announce=buttons.announce,
    after_change=buttons.after_change,
    nudges=reminders.nudges,
    whose_autocomplete=player_autocomplete,
)
