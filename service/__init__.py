"""The application layer, between the front-ends and the engine: the referee service that runs one command of one
game as one transaction (`referee`), and what the front-ends show from the store — the story of a turn (`story`),
the roll ledger (`ledger`), the GM's log (`gmlog`), the charts drawn as pictures (`charts`) — and how the bot's log
lines look (`logformat`). No module here knows Discord or a rule set by name."""
