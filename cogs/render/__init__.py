"""Rendering the referee's answers for Discord: the shared part (`common`: escaping, colours, reports;
`layout`: a `View` as embeds, each game's status and results; `ledger`: /log, /roll, /game digest), re-exported
here.

Each rule set's own embeds live in its adapter's package (`cogs.nations.render`, …), found through
`cogs.frontends` by a game's rule set; nothing here names a rule set.
"""

from cogs.render.common import (
    COLOUR,
    ERROR_COLOUR,
    FIELD_LIMIT,
    LOUD_COLOUR,
    NO_PINGS,
    OUTCOME_COLOURS,
    REFUSED,
    USER_ID,
    bold,
    dress,
    error_embed,
    event_lines,
    finish,
    footer_of,
    heading_of,
    marked_when,
    message_batches,
    outcome_of,
    pings,
    raw_event_lines,
    report_embeds,
    reported_at,
    safe,
    stamp,
    strong,
    text_embeds,
    timestamped,
    use_clock,
    when,
    who,
)
from cogs.render.layout import (
    line_text,
    results_embed,
    status_embed,
    view_embed,
    view_embeds,
    with_page_link,
)
from cogs.render.ledger import (
    digest_embeds,
    free_roll_embed,
    free_roll_text,
    ledger_line,
    rolls_embed,
    secret_roll_embed,
)

__all__ = ["COLOUR", "ERROR_COLOUR", "FIELD_LIMIT", "LOUD_COLOUR", "NO_PINGS", "OUTCOME_COLOURS", "REFUSED", "USER_ID",
           "bold", "digest_embeds", "dress", "error_embed", "event_lines", "finish", "footer_of", "free_roll_embed",
           "free_roll_text", "heading_of", "ledger_line", "line_text", "marked_when", "message_batches", "outcome_of",
           "pings", "raw_event_lines", "report_embeds", "reported_at", "results_embed", "rolls_embed", "safe",
           "secret_roll_embed", "stamp", "status_embed", "strong", "text_embeds", "timestamped", "use_clock",
           "view_embed", "view_embeds", "when", "who", "with_page_link"]
