"""Godsfire on Discord: /godsfire (charts as embeds, the system sheet, the phases and the Social Interphase) and
its report's signature (the turn and its phase). `ADAPTER` is what the shared cogs use of it (`cogs.frontends`);
the registry names this package (`RuleSet.discord`)."""

from cogs.frontends import DiscordAdapter
from cogs.godsfire import render
from cogs.godsfire.cog import player_autocomplete

ADAPTER = DiscordAdapter(
    extensions=("cogs.godsfire.cog",),
    status_embed=render.status_embed,
    footer=render.footer,
    whose_autocomplete=player_autocomplete,
)
