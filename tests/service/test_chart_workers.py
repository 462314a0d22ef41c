"""Issue 33: a chart worker ends with the process that started it, even one killed with -9 (18 workers of ~130 MB
each were found still running after their bots had gone).

A small parent process draws one chart through `service.charts.render`, says which processes its pool started
(the worker, and multiprocessing's resource tracker), and waits; the test kills it with SIGKILL and waits, polling
with a generous bound, until every one of them is gone. Once with prctl's parent-death signal (Linux), once with
it out of reach (a `sitecustomize` that hides prctl from the worker), where the worker's own watch does it.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOUND = 60.0  # seconds: far above what either way takes (a signal at once; a watch every PARENT_POLL)

PARENT = """
import asyncio, json, time
from multiprocessing import resource_tracker
from engine.chartspec import Chart, Panel, Series
from service import charts

async def main():
    chart = Chart("t", (Panel("p", (Series("a", "#5DA5F5", ((1, 1.0), (2, 3.0))),)),))
    assert (await charts.render(chart)).startswith(b"\\x89PNG")
    pool = charts._executor()
    prctl = pool.submit(charts._signal_when_parent_ends).result(timeout=60)  # (asked in the worker)
    print(json.dumps({"workers": list(pool._processes), "tracker": resource_tracker._resource_tracker._pid,
                      "prctl": prctl}), flush=True)
    time.sleep(300)

asyncio.run(main())
"""

NO_PRCTL = """
import ctypes

class _NoPrctl:
    def __getattr__(self, name):
        raise AttributeError(name)

_real = ctypes.CDLL

def _cdll(name, *args, **kwargs):
    return _NoPrctl() if name is None else _real(name, *args, **kwargs)

ctypes.CDLL = _cdll
"""


def gone(pid: int) -> bool:
    """No such process any more (a zombie waiting for its reaper counts as gone: it holds no memory)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def first_line(process: subprocess.Popen[str], bound: float) -> dict[str, Any]:
    assert process.stdout is not None
    with selectors.DefaultSelector() as waiting:
        waiting.register(process.stdout, selectors.EVENT_READ)
        if not waiting.select(timeout=bound):
            raise AssertionError(f"the parent said nothing in {bound:g} s")
    found: dict[str, Any] = json.loads(process.stdout.readline())
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("prctl", [True, False], ids=["prctl", "no prctl"])
def test_a_chart_worker_ends_when_its_parent_is_killed(tmp_path, prctl):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not prctl:
        (tmp_path / "sitecustomize.py").write_text(NO_PRCTL)
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT)])
    parent = subprocess.Popen([sys.executable, "-c", PARENT], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    started: list[int] = []
    try:
        said = first_line(parent, BOUND)
        started = [*said["workers"], *([said["tracker"]] if said["tracker"] else [])]
        assert said["workers"] and said["prctl"] is prctl
        assert not any(gone(pid) for pid in started)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=BOUND)
        deadline = time.monotonic() + BOUND
        while not all(gone(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [pid for pid in started if not gone(pid)] == []
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for pid in started:  # (only when the test failed: what the parent started and outlived it)
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
