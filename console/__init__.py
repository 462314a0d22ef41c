"""The console front-end: a game played from a terminal or a forum thread, on the same engine and store as the
Discord bot (`app`: reading lines and running them; `format`: answers as text, markdown or BBCode; `terminal`:
line editing and history at a terminal). `python bot.py --console` runs it."""
