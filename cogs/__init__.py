"""Discord adapters: each cog parses a slash command, checks permission, calls the referee and renders."""
