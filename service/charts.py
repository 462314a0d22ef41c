"""Charts drawn as PNG pictures (matplotlib, Agg backend) for every front-end: `/game chart`, `/nation chart`, and
as SVG for the game's web page (`render(chart, fmt="svg")`); a board's picture (`engine.mapspec.MapPicture`, a rule
set's map) likewise, drawn by `service.mappicture`.

What a chart shows is plain data (`engine.chartspec.Chart`); `draw` lays it out — one panel a stat, one line a
side in its colour, marks where something happened — in a `Look` (`service.chartstyle`): dark (Discord, the
console's files, a dark page) or light (a light page), wide (936 px) or narrow (546 px: a phone's page, where its
words stay readable at 375 px). `render` draws it in a worker process, so the bot keeps
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
from service.chartstyle import DPI, THEMES, Look
from service.mappicture import draw_map, picture_sides, relabel_picture

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["FORMATS", "RENDER_TIMEOUT", "Look", "close_pool", "draw", "relabel", "render", "render_png", "render_svg",
           "sides"]

log = logging.getLogger("referee.charts")

RENDER_TIMEOUT = 30.0  # seconds a chart may take (the worker's first chart also imports matplotlib)
WIDTH_INCHES, PANEL_INCHES, TOP_INCHES = 7.2, 3.0, 0.6  # 936 px wide; a panel 390 px high
NARROW_INCHES, NARROW_PANEL_INCHES = 4.2, 2.6  # a phone's page: 546 px wide, its words twice as large once scaled
SMALL_PANEL_INCHES = 1.9  # a panel of a chart of three or more
LEGEND_ROW_INCHES = 0.3
MARKERS = {"battle won": "^", "battle lost": "v", "conquest": "*", "eliminated": "X", "system taken": "D"}  # else "o"
MARK_LAYER = {"conquest": 2, "eliminated": 3, "system taken": 2}  # drawn over the battles' triangles (layer 0)
MARK_SIZE = {"conquest": 15, "eliminated": 12}  # a star is thin: larger, so it shows around a triangle under it
DEFAULT_LOOK = Look()
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


def draw(chart: Chart | MapPicture, look: Look = DEFAULT_LOOK) -> Figure:
    """The chart (or a board's picture) as a matplotlib figure (no pyplot: nothing global, safe in any thread or
    process), in `look`'s theme and width. The layout is matplotlib's constrained one with the legend outside the
    panels, below the turn axis: room is made for every legend row, so it never covers the axis label or a line."""
    if isinstance(chart, MapPicture):
        return draw_map(chart)
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    theme = THEMES[look.theme]
    panels = chart.panels
    columns = 2 if look.narrow else 3
    legend_rows = (len(chart.sides()) + len(_mark_kinds(chart)) + columns - 1) // columns
    width = NARROW_INCHES if look.narrow else WIDTH_INCHES
    panel_inches = (NARROW_PANEL_INCHES if look.narrow else PANEL_INCHES) if len(panels) <= 2 else SMALL_PANEL_INCHES
    height = TOP_INCHES + panel_inches * len(panels) + LEGEND_ROW_INCHES * legend_rows + 0.5
    figure = Figure(figsize=(width, height), dpi=DPI, facecolor=theme.background,
                    layout=ConstrainedLayoutEngine(h_pad=0.06, w_pad=0.06, hspace=0.06))
    figure.suptitle(chart.title, color=theme.ink, fontsize=FONT + 2, fontweight="bold", x=0.02, ha="left")
    axes_list = figure.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    kinds: dict[str, None] = {}
    for axes, shown in zip(axes_list, panels, strict=True):
        axes.set_facecolor(theme.panel)
        axes.set_title(shown.title, color=theme.ink, fontsize=FONT, loc="left")
        widths = _widths(len(shown.series))
        for series, line_width in zip(shown.series, widths, strict=True):
            turns = [t for t, _ in series.points]
            values = [v for _, v in series.points]
            # each turn's value at its end, joined; dots while the turns are few enough to tell apart
            axes.plot(turns, values, color=theme.colour(series.colour), linewidth=line_width, label=series.side,
                      marker="o" if len(turns) <= DOTTED_TURNS else None, markersize=line_width + 2.5,
                      gid=series.side, zorder=2)
        # marks over the lines, the rarer and graver ones on top (a conquest's star over a battle's triangle)
        for mark in sorted(shown.marks, key=lambda m: MARK_LAYER.get(m.kind, 0)):
            kinds[mark.kind] = None
            layer = MARK_LAYER.get(mark.kind, 0)
            axes.plot([mark.turn], [mark.value], linestyle="none", marker=MARKERS.get(mark.kind, "o"),
                      markersize=MARK_SIZE.get(mark.kind, 11), color=theme.colour(mark.colour),
                      markeredgecolor=theme.ink, markeredgewidth=1.0, zorder=5 + layer,
                      gid=f"mark:{mark.kind}:{mark.side}")
        axes.tick_params(colors=theme.faint, labelsize=FONT - 1)
        axes.grid(True, color=theme.grid, linewidth=0.7)
        for spine in axes.spines.values():
            spine.set_color(theme.grid)
        axes.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=5 if look.narrow else 8))
        axes.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=4 if len(panels) > 2 or look.narrow else 6))
        values = [v for series in shown.series for _, v in series.points]
        if values and max(values) - min(values) < 4:  # a flat line: whole numbers around it, not 9.8 10.0 10.2
            axes.set_ylim(min(values) - 2, max(values) + 2)
    turns = [t for shown in panels for series in shown.series for t, _ in series.points]
    if turns and max(turns) == min(turns):  # one turn so far: whole turns around it, not 0.95 1.00 1.05
        axes_list[-1].set_xlim(min(turns) - 1, max(turns) + 1)
    axes_list[-1].set_xlabel("turn", color=theme.faint, fontsize=FONT)
    side_colours = _side_colours(chart)
    handles = [Line2D([], [], color=theme.colour(colour), linewidth=3) for colour in side_colours.values()]
    labels = list(side_colours)
    handles += [Line2D([], [], linestyle="none", marker=MARKERS.get(k, "o"), markersize=9, color=theme.faint,
                       markeredgecolor=theme.ink) for k in kinds]
    labels += list(kinds)
    legend = figure.legend(handles, labels, loc="outside lower left", ncol=columns, frameon=False,
                           fontsize=FONT - 1, handlelength=1.6, columnspacing=1.2)
    for text in legend.get_texts():
        text.set_color(theme.ink)
    return figure


def _mark_kinds(chart: Chart) -> list[str]:
    return list(dict.fromkeys(m.kind for p in chart.panels for m in p.marks))


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


def render_png(chart: Chart | MapPicture, look: Look = DEFAULT_LOOK) -> bytes:
    """The chart as PNG bytes (runs in the worker process, or inline)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = draw(chart, look)
    FigureCanvasAgg(figure)
    out = io.BytesIO()
    figure.savefig(out, format="png", facecolor=figure.get_facecolor())
    return out.getvalue()


def render_svg(chart: Chart | MapPicture, look: Look = DEFAULT_LOOK) -> bytes:
    """The chart as SVG bytes (runs in the worker process, or inline): its text drawn as paths (no font needed),
    no date in its metadata (the same chart is the same file), no script."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    figure = draw(chart, look)
    FigureCanvasSVG(figure)
    out = io.BytesIO()
    figure.savefig(out, format="svg", facecolor=figure.get_facecolor(), metadata={"Date": None})
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


async def render(chart: Chart | MapPicture, timeout: float = RENDER_TIMEOUT, fmt: str = "png",
                 look: Look = DEFAULT_LOOK) -> bytes:
    """The chart as PNG (or `fmt="svg"`: SVG) bytes in `look` (a board's picture has one look), drawn in the worker
    process while the event loop goes on. A worker that died is replaced once; a chart that takes longer than
    `timeout` is refused (the worker is restarted)."""
    make = FORMATS[fmt]
    loop = asyncio.get_running_loop()
    for attempt in (1, 2):
        try:
            return await asyncio.wait_for(loop.run_in_executor(_executor(), make, chart, look), timeout)
        except BrokenProcessPool:
            log.warning("the chart worker died; starting another (attempt %d)", attempt)
            close_pool()
        except TimeoutError:
            close_pool()
            raise RefereeError(f"that chart took longer than {timeout:g} s to draw; nothing was sent") from None
    raise RefereeError("the chart could not be drawn right now (its worker process failed); try again")
