"""Entry point: the Discord bot when a token is configured, the console otherwise.

    python bot.py              # Discord if DISCORD_TOKEN is set (environment or .env), else the console
    python bot.py --console    # the console, always
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="The referee bot for play-by-post war games.")
    parser.add_argument("--console", action="store_true", help="run the console front-end even with a token")
    parser.add_argument("--db", help="SQLite database path (default: $REFEREE_DB or referee.db)")
    parser.add_argument("--seed", type=int, help="seed the dice (console only; for reproducible games)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        from dotenv import load_dotenv

        load_dotenv()
    except ImportError:  # pragma: no cover - python-dotenv is in requirements.txt
        pass
    db_path = args.db or os.environ.get("REFEREE_DB") or "referee.db"
    if args.console or not os.environ.get("DISCORD_TOKEN"):
        from console import run_console

        try:
            return asyncio.run(run_console(db_path, seed=args.seed))
        except KeyboardInterrupt:
            return 130
    print("error: the Discord bot is not built yet; run with --console", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
