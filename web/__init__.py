"""The game's page (issue 22): a read-only web view of each game, served by the referee itself (aiohttp, Jinja2),
reached only through its capability URL (`PUBLIC_URL/g/<token>`)."""
