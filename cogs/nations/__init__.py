"""Nations on Discord: the suggestions of its commands' options, its embeds, its battle choices and what the clock
does for it (its commands are built from the command table: `cogs.slash`). `ADAPTER` is what the shared cogs use
of it (`cogs.frontends`); the registry names this package (`RuleSet.discord`)."""

from cogs.frontends import DiscordAdapter
from cogs.nations import autocomplete, clock, controls, reminders, render

ADAPTER = DiscordAdapter(
    dynamic_items=controls.DYNAMIC_ITEMS,
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
    whose_autocomplete=autocomplete.nation_autocomplete,
    completers=autocomplete.COMPLETERS,
)
