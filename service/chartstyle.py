"""The look every picture shares (a chart, a board's map): the resolution, and the two themes a chart is drawn in —
dark (Discord, the console's files, the page in a dark browser) and light (the page in a light browser) — with the
width it is drawn for (wide: a desktop's page and Discord; narrow: a phone's page)."""

from __future__ import annotations

from dataclasses import dataclass

DPI = 130
BACKGROUND, PANEL_BACKGROUND, INK, FAINT, GRID = "#2B2D31", "#313338", "#F2F3F5", "#B5BAC1", "#4E5058"

# Each bright side colour of the dark theme (engine.chartspec.PALETTE) as a darker one that reads on white.
ON_LIGHT = {"#5DA5F5": "#1F6FD1", "#F5A623": "#B86E00", "#57D9A3": "#14845A", "#F25F5C": "#C8302C",
            "#B18CF2": "#7447C9", "#F2E35C": "#8A7A00", "#4FD1E5": "#0B8699", "#F28CCB": "#BD3A8A",
            "#A3E635": "#568A0C", "#E0E0E0": "#5A5A5A", "#FF8A65": "#C94F26", "#9FA8DA": "#4753A3"}


@dataclass(frozen=True)
class Theme:
    name: str
    background: str
    panel: str
    ink: str
    faint: str
    grid: str

    def colour(self, colour: str) -> str:
        """A side's colour as this theme shows it (the light theme darkens the dark theme's bright ones)."""
        if self.name == "dark":
            return colour
        known = ON_LIGHT.get(colour.upper())
        if known is not None:
            return known
        if len(colour) == 7 and colour.startswith("#"):  # another colour: two thirds of its brightness
            try:
                red, green, blue = (int(colour[i:i + 2], 16) * 2 // 3 for i in (1, 3, 5))
            except ValueError:
                return colour
            return f"#{red:02X}{green:02X}{blue:02X}"
        return colour


DARK = Theme("dark", BACKGROUND, PANEL_BACKGROUND, INK, FAINT, GRID)
LIGHT = Theme("light", "#FFFFFF", "#F7F8FA", "#1D1F23", "#4D535C", "#D5D9E0")
THEMES = {theme.name: theme for theme in (DARK, LIGHT)}


@dataclass(frozen=True)
class Look:
    """How a chart is drawn: its theme's name and whether for a phone's width (fewer, larger things)."""

    theme: str = "dark"
    narrow: bool = False

    def __post_init__(self) -> None:
        if self.theme not in THEMES:
            raise ValueError(f"a chart's theme is one of {', '.join(THEMES)}, not {self.theme!r}")
