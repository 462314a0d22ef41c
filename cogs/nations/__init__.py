"""Nations on Discord: its cogs (/nation, /economy, /stability, /propaganda, /army, /attack and its /gm
powers), its embeds, its battle choices and what the clock does for it. `ADAPTER` is what the shared cogs use
of it (`cogs.frontends`); the registry names this package (`RuleSet.discord`)."""

from cogs.frontends import DiscordAdapter
from cogs.nations import clock, reminders, render, views
from cogs.nations.autocomplete import nation_autocomplete

ADAPTER = DiscordAdapter(
    extensions=("cogs.nations.nation", "cogs.nations.economy", "cogs.nations.propaganda", "cogs.nations.army",
                "cogs.nations.attack", "cogs.nations.gm"),
    dynamic_items=views.DYNAMIC_ITEMS,
    status_embed=render.status_embed,
    results_embed=render.results_embed,
    side_of=render.side_of,
    report_fields=render.report_fields,
    headings=render.HEADINGS,
    minor_kinds=render.MINOR_KINDS,
    gm_kinds=render.GM_KINDS,
    clock_kinds=render.CLOCK_KINDS,
    gm_act=render.gm_act,
    outcome=render.outcome,
    answer=render.answer,
    announce=clock.announce,
    after_change=clock.after_change,
    remind_at=clock.remind_at,
    nudges=reminders.nudges,
    whose_autocomplete=nation_autocomplete,
)
