"""What the page's tests share: a console-played table on a fresh store, and the chart worker stopped after each
module (the page draws its charts and maps in it)."""

from __future__ import annotations

import pytest
from pagehelpers import Table

from service import charts


@pytest.fixture
async def table(tmp_path):
    opened = await Table.open(tmp_path / "referee.db")
    yield opened
    await opened.store.close()


@pytest.fixture(scope="module", autouse=True)
def _chart_worker():
    yield
    charts.close_pool()
