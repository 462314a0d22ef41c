"""Every console session printed in the README and the guides in docs/ prints exactly what it printed when it was
recorded (`golden/`): in plain text, markdown and BBCode, on a fixed clock and seeded dice.

A change to what the console prints shows here line by line. A deliberate one rewrites the records:
`REFEREE_REGEN_GOLDEN=1 pytest` on this file, then read the difference before committing it.
"""

from __future__ import annotations

import io
import os
import random
from pathlib import Path

import pytest
from storehelpers import REPO, FakeClock, sessions

from data.store import Store

GOLDEN = Path(__file__).parent / "golden"
FORMATS = ("text", "markdown", "bbcode")


DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
CASES = [(doc, number, block, fmt) for doc in DOCUMENTS for number, block in enumerate(sessions(doc), 1)
         for fmt in FORMATS]


def record_name(doc: Path, number: int, fmt: str) -> str:
    return f"{doc.stem.lower()}-{number}.{fmt}.txt"


async def played(block: list[str], fmt: str, folder: Path) -> str:
    from console.app import Console
    from engine.dice import RandomRoller
    from service.referee import Referee

    store = await Store.open(folder / "session.db")
    out = io.StringIO()
    console = Console(Referee(store, None, RandomRoller(random.Random(31)), FakeClock()), out, fmt=fmt)
    try:
        for line in block:
            await console.handle(line)
    finally:
        await store.close()
    text = out.getvalue().replace(str(folder), "<folder>")
    return text.replace(str(folder).replace("_", "\\_"), "<folder>")  # as Markdown escapes it


def test_the_documents_have_sessions():
    assert len({(doc, number) for doc, number, _, _ in CASES}) >= 6


@pytest.mark.parametrize(("doc", "number", "block", "fmt"), CASES,
                         ids=[record_name(doc, number, fmt) for doc, number, _, fmt in CASES])
async def test_each_session_prints_what_it_printed(doc, number, block, fmt, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where /gm export file: and chart files are written
    text = await played(block, fmt, tmp_path)
    record = GOLDEN / record_name(doc, number, fmt)
    if os.environ.get("REFEREE_REGEN_GOLDEN"):
        record.write_text(text, encoding="utf-8")
    assert text.splitlines() == record.read_text(encoding="utf-8").splitlines()
