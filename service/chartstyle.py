"""The look every picture shares (a chart, a board's map): the dark theme that reads on Discord and the page, and
the resolution."""

from __future__ import annotations

DPI = 130
BACKGROUND, PANEL_BACKGROUND, INK, FAINT, GRID = "#2B2D31", "#313338", "#F2F3F5", "#B5BAC1", "#4E5058"
