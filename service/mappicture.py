"""A board's picture (`engine.mapspec.MapPicture`) drawn with matplotlib, in the charts' style (`service.charts`
draws and renders it, PNG or SVG, in its worker process).

The cells are flat-topped hexes (`hexes`) or circles joined by their links, filled faintly; a nebula is purple and
hatched, a star system ringed in its owner's colour with its name in bold and its note beneath. Each side's stack
of counters in a cell is a small rounded label in the side's colour, one under another; counters on the planets
below the cell (`ground`) are a dark label with a coloured border marked ▼. This turn's moves are solid arrows in
the mover's colour, announced attacks dashed red arrows outlined in the attacker's colour. The sides' legend is
under the map, the title and caption above it.

The picture's size follows the map's extent, at most `MAX_PIXELS` on its long side: a map of a dozen hexes across
is about 1200 px wide, and its labels stay legible when Discord shows it 375 px wide on a phone (the text is sized
to the hexes, not to the page). `layout` is plain arithmetic (no matplotlib): the web page reads the size from it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from engine.mapspec import MapPicture, Stack
from service.chartstyle import BACKGROUND, DPI, FAINT, GRID, INK

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["MAX_PIXELS", "Layout", "draw_map", "layout", "picture_sides", "relabel_picture"]

SQRT3 = math.sqrt(3)
HALF_HEIGHT = SQRT3 / 2  # a flat-topped hex of circumradius 1: its centre to its top edge
PX_PER_UNIT = 84  # a hex 168 px across at full size
MIN_PX_PER_UNIT = 24  # a very large map: smaller than this and its names would be unreadable anyway
MAX_PIXELS = 1600  # the picture's long side at the most
MIN_WIDTH = 760  # px: room for the title and the legend beside a small map
CIRCLE_RADIUS = 0.82  # a named cell's circle, where the nearest two cells are SPACING apart
SPACING = 2.1
MARGIN = 0.25  # map units around the cells
FILL, EDGE = "#393B41", GRID
NEBULA_FILL, NEBULA_HATCH = "#4A3970", "#9C7BD6"
NEUTRAL_RING = "#C9CDD3"
ATTACK = "#FF4B3E"
DARK_TEXT = "#15161A"
GROUND_FILL = "#1E1F22"
ARROW_START, ARROW_END, ARROW_LENGTH = 0.55, 0.62, 0.7  # an arrow's ends and least length, in cells' radii
TITLE_PX, CAPTION_PX, LEGEND_ROW_PX = 40, 30, 34  # the chrome's heights at 1 × scale
LEGEND_FONT = 12  # points, at 1 × scale


@dataclass(frozen=True)
class Layout:
    """Where the picture puts everything: each cell's centre in map units (y down), the cells' radius, the map's
    extent, and the picture's size in pixels."""

    centres: dict[str, tuple[float, float]]
    radius: float  # a hex's circumradius, or a circle's
    left: float
    top: float
    right: float
    bottom: float
    unit: float  # pixels per map unit
    chrome: float  # the title's, caption's and legend's scale (1: a 936 px wide chart's)
    width: int  # pixels
    height: int
    head: int  # pixels above the map: title and caption
    foot: int  # pixels below it: the legend
    legend_columns: int
    levels: tuple[int, ...]


def _legend_labels(picture: MapPicture) -> list[str]:
    """The legend's words: the sides, then what the picture's marks mean (those it shows)."""
    labels = [side for side, _ in picture.legend]
    marks = [(any(s.nebula for s in picture.spots), "nebula"), (any(s.system for s in picture.spots), "star system"),
             (any(a.kind == "move" for a in picture.arrows), "moved this turn"),
             (any(a.kind != "move" for a in picture.arrows), "attack announced"),
             (any(s.ground for s in picture.stacks), "▼ on the planets")]
    return labels + [words for shown, words in marks if shown]


def _positions(picture: MapPicture) -> tuple[dict[str, tuple[float, float]], float]:
    """Each cell's centre, and the cells' radius: a hex grid's as given (circumradius 1); named cells' scaled so
    that the nearest two are SPACING apart (their circles never overlap)."""
    centres = {s.name: (s.x, s.y) for s in picture.spots}
    if picture.hexes or len(centres) < 2:
        return centres, 1.0
    points = list(centres.values())
    nearest = min((math.dist(a, b) for i, a in enumerate(points) for b in points[i + 1:]), default=SPACING)
    scale = min(10.0, max(0.1, SPACING / nearest)) if nearest > 1e-9 else 1.0
    return {name: (x * scale, y * scale) for name, (x, y) in centres.items()}, CIRCLE_RADIUS


def layout(picture: MapPicture) -> Layout:
    """The picture's geometry and size in pixels (no matplotlib needed)."""
    centres, radius = _positions(picture)
    xs = [x for x, _ in centres.values()] or [0.0]
    ys = [y for _, y in centres.values()] or [0.0]
    half = HALF_HEIGHT * radius if picture.hexes else radius
    levels = tuple(sorted({s.level for s in picture.spots})) or (1,)
    left, right = min(xs) - radius - MARGIN, max(xs) + radius + MARGIN
    top, bottom = min(ys) - half - MARGIN - (0.55 if len(levels) > 1 else 0), max(ys) + half + MARGIN + 0.35
    span_x, span_y = right - left, bottom - top
    unit = float(PX_PER_UNIT)
    for _ in range(3):  # the chrome grows with the width; shrink the map until the whole fits
        map_width = span_x * unit
        chrome = max(1.0, min(1.4, max(map_width, MIN_WIDTH) / 936))
        width = max(map_width, MIN_WIDTH * chrome)
        labels = _legend_labels(picture)
        # a column: the handle and its gap (about 4 letters) and the longest label (a letter: about 0.62 em)
        column = (4 + 0.62 * max((len(w) for w in labels), default=0)) * LEGEND_FONT * chrome * DPI / 72
        columns = max(1, min(len(labels), int((width - 24) / column)))
        rows = math.ceil(len(labels) / columns)
        head = round((TITLE_PX + (CAPTION_PX if picture.caption else 0)) * chrome + 12)
        foot = round(rows * LEGEND_ROW_PX * chrome + 14)
        height = span_y * unit + head + foot
        over = max(width, height) / MAX_PIXELS
        if over <= 1 or unit <= MIN_PX_PER_UNIT:
            break
        unit = max(MIN_PX_PER_UNIT, unit / over * 0.98)
    return Layout(centres, radius, left, top, right, bottom, unit, chrome, math.ceil(width), math.ceil(height), head,
                  foot, columns, levels)


def picture_sides(picture: MapPicture) -> list[str]:
    """The sides a picture names (its legend's, then its stacks'), each once."""
    return list(dict.fromkeys([side for side, _ in picture.legend] + [s.side for s in picture.stacks]))


def relabel_picture(picture: MapPicture, label: Callable[[str], str]) -> MapPicture:
    """The picture with every side shown as `label(text)` (a front-end's names for its players): the legend, the
    stacks, the cells' notes (a system's owner), the title and the caption."""
    return replace(
        picture, title=label(picture.title), caption=label(picture.caption),
        spots=tuple(replace(s, note=label(s.note)) if s.note else s for s in picture.spots),
        stacks=tuple(replace(s, side=label(s.side)) for s in picture.stacks),
        legend=tuple((label(side), colour) for side, colour in picture.legend))


# --- drawing ------------------------------------------------------------------------------------------------------


def _points(shape: Layout, size: float) -> float:
    """A font size in points for text `size` map units tall, never below 5 pt."""
    return max(5.0, size * shape.unit * 72 / DPI)


def _hexagon(x: float, y: float, radius: float) -> list[tuple[float, float]]:
    return [(x + radius * math.cos(math.pi / 3 * k), y + radius * math.sin(math.pi / 3 * k)) for k in range(6)]


def _mix(colour: str, amount: float, base: str = FILL) -> tuple[float, float, float]:
    """`colour` laid over `base` at `amount` (0..1)."""
    from matplotlib.colors import to_rgb

    top, under = to_rgb(colour), to_rgb(base)
    return (under[0] + (top[0] - under[0]) * amount, under[1] + (top[1] - under[1]) * amount,
            under[2] + (top[2] - under[2]) * amount)


def draw_map(picture: MapPicture) -> Figure:
    """The picture as a matplotlib figure (no pyplot)."""
    from matplotlib.figure import Figure

    shape = layout(picture)
    width, height = shape.width / DPI, shape.height / DPI
    figure = Figure(figsize=(width, height), dpi=DPI, facecolor=BACKGROUND)
    map_height = shape.height - shape.head - shape.foot
    axes = figure.add_axes((0.0, shape.foot / shape.height, 1.0, map_height / shape.height))
    axes.set_facecolor(BACKGROUND)
    axes.set_axis_off()
    axes.set_aspect("equal", adjustable="box", anchor="C")
    axes.set_xlim(shape.left, shape.right)
    axes.set_ylim(shape.bottom, shape.top)  # y down, as the map's
    _cells(axes, picture, shape)
    _arrows(axes, picture, shape)
    _labels(axes, picture, shape)
    _chrome(figure, picture, shape)
    return figure


def _cells(axes: Axes, picture: MapPicture, shape: Layout) -> None:
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.patches import Circle

    centres, radius = shape.centres, shape.radius
    thin = max(0.6, shape.unit / 84)
    if not picture.hexes:
        lines = [(centres[a], centres[b]) for a, b in picture.links if a in centres and b in centres]
        axes.add_collection(LineCollection(lines, colors=FAINT, linewidths=2 * thin, alpha=0.6, zorder=1))
    fills = [NEBULA_FILL if s.nebula else _mix(s.colour, 0.22) if s.colour else FILL for s in picture.spots]
    if picture.hexes:
        shapes = [_hexagon(*centres[s.name], radius) for s in picture.spots]
        axes.add_collection(PolyCollection(shapes, facecolors=fills, edgecolors=EDGE, linewidths=1.4 * thin,
                                           zorder=2))
        nebulae = [_hexagon(*centres[s.name], radius * 0.97) for s in picture.spots if s.nebula]
        if nebulae:
            axes.add_collection(PolyCollection(nebulae, facecolors="none", edgecolors=NEBULA_HATCH, linewidths=0,
                                               hatch="//", zorder=2.1))
    else:
        for spot, fill in zip(picture.spots, fills, strict=True):
            axes.add_patch(Circle(centres[spot.name], radius, facecolor=fill, edgecolor=EDGE, linewidth=1.4 * thin,
                                  zorder=2))
            if spot.nebula:
                axes.add_patch(Circle(centres[spot.name], radius * 0.97, facecolor="none", edgecolor=NEBULA_HATCH,
                                      linewidth=0, hatch="//", zorder=2.1))
    for spot in picture.spots:
        if spot.system:  # a ring in its owner's colour
            axes.add_patch(Circle(centres[spot.name], radius * 0.8, facecolor="none",
                                  edgecolor=spot.colour or NEUTRAL_RING, linewidth=3.2 * thin, zorder=2.5))
    if len(shape.levels) > 1:
        for level in shape.levels:
            spots = [s for s in picture.spots if s.level == level]
            x = min(centres[s.name][0] for s in spots) - radius
            y = min(centres[s.name][1] for s in spots) - (HALF_HEIGHT * radius if picture.hexes else radius) - 0.12
            axes.text(x, y, f"Level {level}", color=INK, fontsize=_points(shape, 0.34), fontweight="bold",
                      ha="left", va="bottom", zorder=6)


def _arrows(axes: Axes, picture: MapPicture, shape: Layout) -> None:
    """Moves: solid, in the mover's colour, edged dark. Attacks: red dashes over a band of the attacker's colour.
    Each from near its cell's edge to near the next's: over the cells' names, under the stacks' labels."""
    from matplotlib import patheffects
    from matplotlib.patches import FancyArrowPatch

    centres = shape.centres
    scale = shape.unit / 84

    def arrow_patch(start: tuple[float, float], end: tuple[float, float], width: float, colour: str,
                    dashed: bool = False, gid: str | None = None) -> FancyArrowPatch:
        style = f"-|>,head_length={0.6 * scale:.2f},head_width={0.36 * scale:.2f}"
        patch = FancyArrowPatch(start, end, arrowstyle=style, mutation_scale=20, connectionstyle="arc3,rad=0.15",
                                shrinkA=0, shrinkB=0, linewidth=width * scale, color=colour, joinstyle="miter",
                                capstyle="butt", linestyle=(0, (2.4, 1.4)) if dashed else "-",
                                zorder=4.1 if dashed else 4)
        if gid is not None:
            patch.set_gid(gid)
        axes.add_patch(patch)
        return patch

    for arrow in picture.arrows:
        if arrow.start not in centres or arrow.end not in centres or arrow.start == arrow.end:
            continue
        start, end = _between(centres[arrow.start], centres[arrow.end], shape.radius)
        attack = arrow.kind != "move"
        gid = f"{'attack' if attack else 'move'}:{arrow.start}>{arrow.end}"
        if attack:
            band = arrow_patch(start, end, 6.5, arrow.colour)
            band.set_path_effects([patheffects.Stroke(linewidth=9.5 * scale, foreground=DARK_TEXT),
                                   patheffects.Normal()])
            arrow_patch(start, end, 3.0, ATTACK, dashed=True, gid=gid)
        else:
            patch = arrow_patch(start, end, 4.2, arrow.colour, gid=gid)
            patch.set_path_effects([patheffects.Stroke(linewidth=7.2 * scale, foreground=DARK_TEXT),
                                    patheffects.Normal()])


def _between(start: tuple[float, float], end: tuple[float, float],
             radius: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where an arrow between two cells is drawn: from near its cell's edge to near the next's (clear of the
    labels in their middles), never shorter than ARROW_LENGTH cells' radii where the cells are that far apart."""
    distance = math.dist(start, end)
    leave, reach = ARROW_START * radius, ARROW_END * radius
    if distance - leave - reach < ARROW_LENGTH * radius:
        cut = max(0.0, distance - ARROW_LENGTH * radius) / (leave + reach)
        leave, reach = leave * cut, reach * cut
    (x0, y0), (x1, y1) = start, end
    dx, dy = (x1 - x0) / distance, (y1 - y0) / distance
    return (x0 + dx * leave, y0 + dy * leave), (x1 - dx * reach, y1 - dy * reach)


def _stack_label(axes: Axes, stack: Stack, x: float, y: float, size: float, scale: float,
                 align: str = "center") -> None:
    if stack.ground:
        text, face, edge, ink = f"▼ {stack.text}", GROUND_FILL, stack.colour, stack.colour
    else:
        text, face, edge, ink = stack.text, stack.colour, DARK_TEXT, DARK_TEXT
    axes.text(x, y, text, color=ink, fontsize=size, fontweight="bold", ha=align, va="center", zorder=5,
              bbox={"boxstyle": "round,pad=0.28,rounding_size=0.5", "facecolor": face, "edgecolor": edge,
                    "linewidth": (1.8 if stack.ground else 0.8) * scale},
              gid=f"stack:{stack.at}:{'ground' if stack.ground else 'space'}")


def _labels(axes: Axes, picture: MapPicture, shape: Layout) -> None:
    from matplotlib import patheffects

    centres, radius = shape.centres, shape.radius
    scale = shape.unit / 84
    halo = [patheffects.withStroke(linewidth=2.6 * scale, foreground=BACKGROUND)]
    stacks: dict[str, list[Stack]] = {}
    for stack in picture.stacks:
        stacks.setdefault(stack.at, []).append(stack)
    stack_size = _points(shape, 0.3 * radius)
    step = 0.36 * radius
    for spot in picture.spots:
        x, y = centres[spot.name]
        here = sorted(stacks.pop(spot.name, []), key=lambda s: s.ground)  # space first, then the ground
        top = y - 0.6 * radius
        if spot.system:
            axes.text(x, top, spot.name, color=INK, fontsize=_points(shape, 0.34 * radius), fontweight="bold",
                      ha="center", va="center", zorder=3.5, path_effects=halo)
            below = top + 0.29 * radius
            if spot.note:
                axes.text(x, below, spot.note, color=INK, fontsize=_points(shape, 0.21 * radius), ha="center",
                          va="center", zorder=3.5, path_effects=halo)
            first = below + 0.34 * radius
        else:
            name = spot.name + (f" ({spot.note})" if spot.note else "")
            axes.text(x, top, name, color=FAINT, fontsize=_points(shape, 0.2 * radius), ha="center", va="center",
                      zorder=3.5)
            first = y - 0.12 * radius if here else y
        if len(here) > 3:  # more than fit: start higher, overflow below the cell
            first = min(first, y - 0.3 * radius)
        for index, stack in enumerate(here):
            _stack_label(axes, stack, x, first + index * step, stack_size, scale)
    elsewhere = [stack for left in stacks.values() for stack in left]  # on no cell of the picture: top left
    for index, stack in enumerate(elsewhere):
        _stack_label(axes, Stack(stack.at, stack.side, stack.colour, f"{stack.at}: {stack.text}", stack.ground),
                     shape.left + 0.2, shape.top + 0.3 + index * step, stack_size, scale, "left")


def _chrome(figure: Figure, picture: MapPicture, shape: Layout) -> None:
    """The title and caption above the map, the legend below it."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    font = LEGEND_FONT * shape.chrome
    pad = 10 / shape.width
    figure.text(pad * 1.5, 1 - 10 / shape.height, picture.title, color=INK, fontsize=font + 3, fontweight="bold",
                ha="left", va="top")
    if picture.caption:
        figure.text(pad * 1.5, 1 - (14 + TITLE_PX * shape.chrome) / shape.height, picture.caption, color=FAINT,
                    fontsize=font, ha="left", va="top")
    marks: dict[str, Patch | Line2D] = {
        "nebula": Patch(facecolor=NEBULA_FILL, edgecolor=NEBULA_HATCH, hatch="//", linewidth=0),
        "star system": Line2D([], [], linestyle="none", marker="o", markersize=font, markerfacecolor="none",
                              markeredgecolor=NEUTRAL_RING, markeredgewidth=2.5),
        "moved this turn": Line2D([], [], color=INK, linewidth=3),
        "attack announced": Line2D([], [], color=ATTACK, linewidth=3, linestyle=(0, (2.2, 1.2))),
        "▼ on the planets": Patch(facecolor=GROUND_FILL, edgecolor=FAINT, linewidth=1.5)}
    labels = _legend_labels(picture)
    handles: list[Patch | Line2D] = [Patch(facecolor=colour, edgecolor=DARK_TEXT) for _, colour in picture.legend]
    handles += [marks[words] for words in labels[len(handles):]]
    if handles:
        legend = figure.legend(handles, labels, loc="lower left", bbox_to_anchor=(pad, 4 / shape.height),
                               ncol=shape.legend_columns, frameon=False, fontsize=font, handlelength=1.6,
                               columnspacing=1.4, handleheight=1.0)
        for text in legend.get_texts():
            text.set_color(INK)


