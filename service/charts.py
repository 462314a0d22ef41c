"""Charts drawn as PNG pictures (matplotlib, Agg backend) for every front-end: `/game chart`, `/nation chart`, and
as SVG for the game's web page (`render(chart, fmt="svg")`); a board's picture (`engine.mapspec.MapPicture`, a rule
set's map) likewise, drawn by `service.mappicture`.

What a chart shows is plain data (`engine.chartspec.Chart`); `draw` lays it out — one panel a stat, one line a
side in its colour, marks where something happened — on a dark background that reads on Discord's dark theme
and stays legible scaled down to a phone's width. `render` draws it in a worker process, so the bot keeps
answering while it draws (matplotlib is pure Python in large part: in a thread it would hold the interpreter's
lock for most of a second), with a bounded wait. The worker ends with the process that started it, however that
one ends (a `kill -9` included): see `_worker_start`.
"""

from __future__ import annotations

import asyncio
import ctypes
import io
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from engine.chartspec import Chart
from engine.errors import RefereeError
from engine.mapspec import MapPicture
from service.chartstyle import BACKGROUND, DPI, FAINT, GRID, INK, PANEL_BACKGROUND
from service.mappicture import draw_map, picture_sides, relabel_picture

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["FORMATS", "RENDER_TIMEOUT", "close_pool", "draw", "relabel", "render", "render_png", "render_svg",
           "sides"]

log = logging.getLogger("referee.charts")

RENDER_TIMEOUT = 30.0  # seconds a chart may take (the worker's first chart also imports matplotlib)
WIDTH_INCHES, PANEL_INCHES, TOP_INCHES = 7.2, 3.0, 0.9  # 936 px wide; a panel 390 px high
SMALL_PANEL_INCHES = 1.9  # a panel of a chart of three or more
MARKERS = {"battle won": "^", "battle lost": "v", "conquest": "*", "eliminated": "X", "system taken": "D"}  # else "o"
FONT = 12
DOTTED_TURNS = 40  # a line of this many turns or fewer shows a dot at each
PARENT_POLL = 1.0  # seconds between a worker's looks at whether the process that started it still runs
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends (Linux)


def sides(drawn: Chart | MapPicture) -> list[str]:
    """The sides a chart or a board's picture names (a front-end shows them by its names for its players)."""
    if isinstance(drawn, MapPicture):
        return picture_sides(drawn)
    return drawn.sides()


def relabel(drawn: Chart | MapPicture, label: Callable[[str], str]) -> Chart | MapPicture:
    """The chart or picture with every side shown as `label(side)`."""
    if isinstance(drawn, MapPicture):
        return relabel_picture(drawn, label)
    return drawn.relabel(label)


def draw(chart: Chart | MapPicture) -> Figure:
    """The chart (or a board's picture) as a matplotlib figure (no pyplot: nothing global, safe in any thread or
    process)."""
    if isinstance(chart, MapPicture):
        return draw_map(chart)
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    panels = chart.panels
    legend_rows = (len(chart.sides()) + 2) // 3
    panel_inches = PANEL_INCHES if len(panels) <= 2 else SMALL_PANEL_INCHES
    height = TOP_INCHES + panel_inches * len(panels) + 0.3 * legend_rows + 0.4
    figure = Figure(figsize=(WIDTH_INCHES, height), dpi=DPI, facecolor=BACKGROUND)
    figure.suptitle(chart.title, color=INK, fontsize=FONT + 2, fontweight="bold", x=0.02, ha="left",
                    y=1 - 0.25 / height)
    bottom = (0.3 * legend_rows + 0.55) / height
    top = 1 - TOP_INCHES / height
    axes_list = figure.subplots(len(panels), 1, sharex=True, squeeze=False,
                                gridspec_kw={"top": top, "bottom": bottom, "left": 0.09, "right": 0.98,
                                             "hspace": 0.35})[:, 0]
    kinds: dict[str, None] = {}
    for axes, shown in zip(axes_list, panels, strict=True):
        axes.set_facecolor(PANEL_BACKGROUND)
        axes.set_title(shown.title, color=INK, fontsize=FONT, loc="left")
        widths = _widths(len(shown.series))
        for series, width in zip(shown.series, widths, strict=True):
            turns = [t for t, _ in series.points]
            values = [v for _, v in series.points]
            # each turn's value at its end, joined; dots while the turns are few enough to tell apart
            axes.plot(turns, values, color=series.colour, linewidth=width, label=series.side,
                      marker="o" if len(turns) <= DOTTED_TURNS else None, markersize=width + 2.5, gid=series.side)
        for mark in shown.marks:
            symbol = MARKERS.get(mark.kind, "o")
            kinds[mark.kind] = None
            axes.plot([mark.turn], [mark.value], linestyle="none", marker=symbol, markersize=11, color=mark.colour,
                      markeredgecolor=INK, markeredgewidth=1.0, zorder=5, gid=f"mark:{mark.kind}:{mark.side}")
        axes.tick_params(colors=FAINT, labelsize=FONT - 1)
        axes.grid(True, color=GRID, linewidth=0.7)
        for spine in axes.spines.values():
            spine.set_color(GRID)
        axes.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))
        axes.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=5 if len(panels) > 2 else 6))
        values = [v for series in shown.series for _, v in series.points]
        if values and max(values) - min(values) < 4:  # a flat line: whole numbers around it, not 9.8 10.0 10.2
            axes.set_ylim(min(values) - 2, max(values) + 2)
    turns = [t for shown in panels for series in shown.series for t, _ in series.points]
    if turns and max(turns) == min(turns):  # one turn so far: whole turns around it, not 0.95 1.00 1.05
        axes_list[-1].set_xlim(min(turns) - 1, max(turns) + 1)
    axes_list[-1].set_xlabel("turn", color=FAINT, fontsize=FONT)
    side_colours = _side_colours(chart)
    handles = [Line2D([], [], color=colour, linewidth=3) for colour in side_colours.values()]
    labels = list(side_colours)
    handles += [Line2D([], [], linestyle="none", marker=MARKERS.get(k, "o"), markersize=9, color=FAINT,
                       markeredgecolor=INK) for k in kinds]
    labels += list(kinds)
    legend = figure.legend(handles, labels, loc="lower left", bbox_to_anchor=(0.02, 0.005), ncol=3, frameon=False,
                           fontsize=FONT - 1, handlelength=1.6, columnspacing=1.2)
    for text in legend.get_texts():
        text.set_color(INK)
    return figure


def _widths(count: int) -> list[float]:
    """Line widths, the first side's widest: lines that lie on one another still show every colour."""
    if count <= 1:
        return [2.4] * count
    return [4.2 - 2.6 * index / (count - 1) for index in range(count)]


def _side_colours(chart: Chart) -> dict[str, str]:
    found: dict[str, str] = {}
    for shown in chart.panels:
        for series in shown.series:
            found.setdefault(series.side, series.colour)
    return found


def render_png(chart: Chart | MapPicture) -> bytes:
    """The chart as PNG bytes (runs in the worker process, or inline)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = draw(chart)
    FigureCanvasAgg(figure)
    out = io.BytesIO()
    figure.savefig(out, format="png", facecolor=BACKGROUND)
    return out.getvalue()


def render_svg(chart: Chart | MapPicture) -> bytes:
    """The chart as SVG bytes (runs in the worker process, or inline): its text drawn as paths (no font needed),
    no date in its metadata (the same chart is the same file), no script."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    figure = draw(chart)
    FigureCanvasSVG(figure)
    out = io.BytesIO()
    figure.savefig(out, format="svg", facecolor=BACKGROUND, metadata={"Date": None})
    return out.getvalue()


FORMATS = {"png": render_png, "svg": render_svg}

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ProcessPoolExecutor:
    """The one worker process, started at the first chart (spawned: a fork of a process with threads is unsafe)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_worker_start, initargs=(os.getpid(),))
        return _pool


def _worker_start(parent: int) -> None:
    """First thing in a worker: end when `parent` (the process that started it) ends. A worker waits for its next
    chart on a pipe it holds both ends of, so it would never notice on its own: a parent killed with -9 left
    its worker (~130 MB) behind for good. On Linux the kernel is asked to send SIGTERM when the parent ends
    (prctl PR_SET_PDEATHSIG, which follows the thread that started the worker: the event loop's, which lives as
    long as the process); everywhere, a thread of the worker looks every PARENT_POLL seconds whether its parent
    changed (an orphan's parent is another process). A parent that ended before either was in place is seen at
    once."""
    _signal_when_parent_ends()
    if os.getppid() != parent:
        os._exit(0)
    threading.Thread(target=_watch_parent, args=(parent,), name="chart worker's parent watch", daemon=True).start()


def _signal_when_parent_ends() -> bool:
    """Linux: SIGTERM to this process when its parent ends. False where prctl is not to be had."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) == 0)
    except (AttributeError, OSError):
        return False


def _watch_parent(parent: int) -> None:
    """End this worker once its parent is another process than `parent`."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(0)


def close_pool() -> None:
    """Stop the worker process (at shutdown); the next chart starts another."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        for process in list(getattr(pool, "_processes", {}).values()):  # a chart still drawing is stopped too
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)


async def render(chart: Chart | MapPicture, timeout: float = RENDER_TIMEOUT, fmt: str = "png") -> bytes:
    """The chart as PNG (or `fmt="svg"`: SVG) bytes, drawn in the worker process while the event loop goes on. A
    worker that died is replaced once; a chart that takes longer than `timeout` is refused (the worker is
    restarted)."""
    make = FORMATS[fmt]
    loop = asyncio.get_running_loop()
    for attempt in (1, 2):
        try:
            return await asyncio.wait_for(loop.run_in_executor(_executor(), make, chart), timeout)
        except BrokenProcessPool:
            log.warning("the chart worker died; starting another (attempt %d)", attempt)
            close_pool()
        except TimeoutError:
            close_pool()
            raise RefereeError(f"that chart took longer than {timeout:g} s to draw; nothing was sent") from None
    raise RefereeError("the chart could not be drawn right now (its worker process failed); try again")
