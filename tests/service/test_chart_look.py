"""How a chart is laid out (issue 34): the legend never covers the turn axis's label or a panel, a conquest's star
is drawn over the battle's triangle it shares a point with, the light theme is light with darker lines, and the
narrow look (a phone's page) is drawn narrower, so its words stay readable once scaled to 375 px."""

from __future__ import annotations

import pytest

from engine.chartspec import PALETTE, Chart, Mark, Panel, Series
from service.charts import draw
from service.chartstyle import LIGHT, Look

NAMES = ["Gracchan Republic", "Charon", "Zombiestan", "Sovatank", "Atlantis", "Borduria", "Syldavia", "Ruritania",
         "Elbonia", "Freedonia", "Genovia", "Latveria"]


def chart(panels: int, sides: int, turns: int = 6, marks: bool = True) -> Chart:
    shown = []
    for index in range(panels):
        series = tuple(Series(name, PALETTE[i % len(PALETTE)], tuple((t, 20 + (t * (i + 1)) % 7) for t in
                                                                    range(1, turns + 1)))
                       for i, name in enumerate(NAMES[:sides]))
        at = series[0].points[2][1]
        placed = (Mark(NAMES[0], PALETTE[0], 3, at, "conquest"), Mark(NAMES[0], PALETTE[0], 3, at, "battle won"),
                  Mark(NAMES[0], PALETTE[0], 4, series[0].points[3][1], "battle lost")) if marks else ()
        shown.append(Panel(f"stat {index} by turn", series, placed))
    return Chart("Nations — stats by turn", tuple(shown))


LOOKS = [Look(), Look("light"), Look(narrow=True), Look("light", narrow=True)]


@pytest.mark.parametrize("look", LOOKS, ids=lambda look: f"{look.theme}{'-narrow' if look.narrow else ''}")
@pytest.mark.parametrize(("panels", "sides"), [(1, 2), (1, 8), (2, 12), (3, 5), (3, 12)])
def test_the_legend_covers_neither_the_turn_label_nor_a_panel(look, panels, sides):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = draw(chart(panels, sides), look)
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    legend = figure.legends[0].get_window_extent(renderer)
    for axes in figure.axes:
        assert not legend.overlaps(axes.get_window_extent(renderer)), "the legend lies on a panel"
    label = figure.axes[-1].xaxis.label.get_window_extent(renderer)
    assert not legend.overlaps(label), "the legend covers the turn axis's label"
    assert legend.y1 <= label.y0, "the legend is below the turn axis's label"
    whole = figure.bbox
    assert whole.x0 <= legend.x0 and legend.x1 <= whole.x1 and whole.y0 <= legend.y0, "the legend is cut off"
    assert len(figure.legends[0].get_texts()) == sides + 3  # every side and each kind of mark


def test_a_conquest_star_is_drawn_over_the_battle_triangle_at_its_point():
    figure = draw(chart(1, 2))
    layers = {line.get_gid(): line.get_zorder() for line in figure.axes[0].get_lines() if line.get_gid()}
    star, triangle = layers[f"mark:conquest:{NAMES[0]}"], layers[f"mark:battle won:{NAMES[0]}"]
    assert star > triangle
    lines = [layers[name] for name in NAMES[:2]]
    assert triangle > max(lines)  # every mark over the lines


def test_the_light_theme_is_light_and_its_lines_darker_than_the_dark_themes():
    dark, light = draw(chart(1, 6)), draw(chart(1, 6), Look("light"))
    assert sum(light.get_facecolor()[:3]) > 2.9 and sum(dark.get_facecolor()[:3]) < 1.0
    from matplotlib.colors import to_rgb

    for dark_line, light_line in zip(dark.axes[0].get_lines()[:6], light.axes[0].get_lines()[:6], strict=True):
        assert sum(to_rgb(light_line.get_color())) < sum(to_rgb(dark_line.get_color()))
    assert LIGHT.colour("#123456") == "#0C2239"  # a colour not in the palette: two thirds of its brightness


def test_the_narrow_look_is_a_phones_width_with_the_same_words():
    wide, narrow = draw(chart(2, 4)), draw(chart(2, 4), Look(narrow=True))
    assert narrow.get_figwidth() < 0.6 * wide.get_figwidth()
    texts = [t.get_text() for t in narrow.legends[0].get_texts()]
    assert texts == [t.get_text() for t in wide.legends[0].get_texts()]


def test_an_unknown_theme_is_refused():
    with pytest.raises(ValueError, match="theme"):
        Look("sepia")
