"""A real browser for the game pages' tests (issue 22): Debian's Chromium, headless, driven by Selenium through
the installed chromedriver — nothing is downloaded (Selenium Manager is kept offline) — and a `GamePages` server
on 127.0.0.1 in the test's own event loop.

Selenium is synchronous; the server is not. Every browser call therefore runs in a worker thread
(`asyncio.to_thread`), so the loop keeps serving the page, its charts and its event stream while the browser
waits for them. Typical use::

    async with serving(referee) as site, browsing(chromium) as tab:
        await tab.open(site.url(token))
        await tab.wait("return document.querySelectorAll('tr.roll').length > 2", what="three ledger rows")

The browser runs in the time zone `READER_TZ` (the chromedriver process's TZ, inherited by Chromium), so a page
that shows times in the reader's zone shows them in Tokyo's. Not a test module itself.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import shutil
import socket
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager: never fetch a browser or a driver

READER_TZ = "Asia/Tokyo"  # UTC+9 all year: a time shown in it is never UTC's by accident
DESKTOP = (1280, 900)
PHONE = (375, 812)

_WATCH = """
window.__seen = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__seen.push('CSP ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' +
                     e.sourceFile + ':' + e.lineNumber);
});
window.addEventListener('error', function (e) {
  window.__seen.push('error ' + (e.message || (e.target && (e.target.src || e.target.href)) || e.type));
}, true);
window.addEventListener('unhandledrejection', function (e) { window.__seen.push('rejection ' + e.reason); });
"""
"""Installed before any page's own script (DevTools' scripts are not the page's: its CSP does not apply to them):
every CSP violation, error and unhandled rejection the page meets, in `window.__seen`."""


def _binary(env: str, *names: str) -> str | None:
    if os.environ.get(env):
        return shutil.which(os.environ[env])
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium_paths() -> tuple[str, str] | str:
    """(the browser, its driver), or why there are none: Debian's `chromium` and `chromium-driver` packages
    (REFEREE_CHROMIUM and REFEREE_CHROMEDRIVER name others)."""
    browser = _binary("REFEREE_CHROMIUM", "chromium", "chromium-browser")
    driver = _binary("REFEREE_CHROMEDRIVER", "chromedriver")
    missing = [what for what, path in (("chromium", browser), ("chromedriver", driver)) if path is None]
    if missing:
        return (f"no {' and no '.join(missing)} on this machine: `apt-get install chromium chromium-driver` "
                "(.ci/run does it as root)")
    return browser, driver  # type: ignore[return-value]


def start_chromium(width: int = DESKTOP[0], height: int = DESKTOP[1], tz: str = READER_TZ) -> Any:
    """A headless Chromium driven by the installed chromedriver; skips the test when either is missing."""
    paths = chromium_paths()
    if isinstance(paths, str):
        pytest.skip(paths)
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (requirements-dev.txt)")
    from selenium.webdriver.chrome.service import Service

    browser, driver = paths
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
                     "--disable-extensions", "--disable-sync", "--no-first-run", "--no-default-browser-check",
                     "--disable-features=Translate,MediaRouter,OptimizationHints", "--hide-scrollbars",
                     "--mute-audio", f"--window-size={width},{height}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    env = {**os.environ, "TZ": tz}
    service = Service(executable_path=driver, env=env)
    chrome = webdriver.Chrome(service=service, options=options)
    chrome.set_page_load_timeout(20)
    chrome.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _WATCH})
    return chrome


@contextlib.contextmanager
def chromium_session(**kwargs: Any) -> Iterator[Any]:
    """`start_chromium` as a context manager: the browser quits after."""
    chrome = start_chromium(**kwargs)
    try:
        yield chrome
    finally:
        chrome.quit()


class Tab:
    """The browser, awaitable: each call runs in a thread so the test's loop (and the server in it) keeps running."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver

    async def call(self, function: Any, *args: Any) -> Any:
        return await asyncio.to_thread(function, *args)

    async def open(self, url: str) -> None:
        await self.call(self.driver.get, url)

    async def js(self, script: str, *args: Any) -> Any:
        """Run `script` (a function body: `return …`) in the page."""
        return await self.call(self.driver.execute_script, script, *args)

    async def wait(self, script: str, *args: Any, timeout: float = 10.0, what: str = "") -> Any:
        """Poll `script` until it returns something truthy (returned); AssertionError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            value = await self.js(script, *args)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what or script}")
            await asyncio.sleep(0.1)

    async def type_into(self, selector: str, text: str) -> None:
        """Type `text` into a form field, as a reader would (the field emptied first)."""
        from selenium.webdriver.common.by import By

        field = await self.call(self.driver.find_element, By.CSS_SELECTOR, selector)
        await self.call(field.clear)
        await self.call(field.send_keys, text)

    async def click(self, selector: str) -> None:
        from selenium.webdriver.common.by import By

        element = await self.call(self.driver.find_element, By.CSS_SELECTOR, selector)
        await self.call(element.click)

    async def text(self, selector: str) -> str | None:
        """The shown text (innerText) of the first element matching `selector`, or None."""
        return await self.js("const e = document.querySelector(arguments[0]); return e ? e.innerText : null;",
                             selector)

    async def texts(self, selector: str) -> list[str]:
        return await self.js("return Array.from(document.querySelectorAll(arguments[0]), e => e.innerText);",
                             selector)

    async def status(self, url: str) -> int:
        """The HTTP status of a GET of `url` from inside the page (same origin: no CORS in the way)."""
        return await self.call(self.driver.execute_async_script,
                               "const done = arguments[arguments.length - 1];"
                               "fetch(arguments[0], {cache: 'no-store'}).then(r => done(r.status), e => done(-1));",
                               url)

    async def logs(self) -> list[dict[str, Any]]:
        """The browser console's entries since the last call (Chromium's log is drained by reading it)."""
        return await self.call(self.driver.get_log, "browser")

    async def seen(self) -> list[str]:
        """What `_WATCH` caught in the current document: CSP violations, errors, unhandled rejections."""
        return await self.js("return window.__seen || [];")

    async def viewport(self, width: int, height: int, mobile: bool) -> None:
        """Emulate a screen `width` × `height` CSS px (a phone: `mobile`, so the page's viewport meta applies)."""
        await self.call(self.driver.execute_cdp_cmd, "Emulation.setDeviceMetricsOverride",
                        {"width": width, "height": height, "deviceScaleFactor": 2 if mobile else 1,
                         "mobile": mobile})

    async def dark(self, dark: bool) -> None:
        """The reader's system in a dark theme (prefers-color-scheme: dark) or a light one."""
        await self.call(self.driver.execute_cdp_cmd, "Emulation.setEmulatedMedia",
                        {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})

    async def desktop(self) -> None:
        await self.call(self.driver.execute_cdp_cmd, "Emulation.clearDeviceMetricsOverride", {})
        await self.viewport(*DESKTOP, mobile=False)

    async def screenshot(self, path: Path, width: int, height: int, mobile: bool) -> Path:
        """A picture of the whole page (not only the screen) at this width, as a PNG at `path`."""
        await self.viewport(width, height, mobile)
        full = await self.js("return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight);")
        await self.viewport(width, max(height, int(full)), mobile)
        await asyncio.sleep(0.2)  # a layout pass for the taller screen
        shot = await self.call(self.driver.execute_cdp_cmd, "Page.captureScreenshot",
                               {"format": "png", "captureBeyondViewport": True})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        await self.viewport(width, height, mobile)
        return path


@contextlib.asynccontextmanager
async def browsing(driver: Any) -> AsyncIterator[Tab]:
    """A clean tab of a shared browser: a blank page, the desktop screen, the console log drained."""
    tab = Tab(driver)
    await tab.open("about:blank")
    await tab.desktop()
    await tab.dark(False)
    await tab.logs()
    yield tab


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.asynccontextmanager
async def serving(referee: Any, names: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
    """A `GamePages` server on 127.0.0.1 (a free port) in this event loop, its public address that one."""
    from web.server import GamePages

    port = free_port()
    pages = GamePages(referee, f"http://127.0.0.1:{port}", names, **kwargs)
    await pages.start("127.0.0.1", port)
    try:
        yield pages
    finally:
        await pages.close()


def screenshot_dir(default: Path | None = None) -> Path:
    """Where screenshots go: $REFEREE_SCREENSHOTS, else `default`, else a fresh folder under the system's temporary
    one (never the repository: they are looked at, not kept)."""
    chosen = os.environ.get("REFEREE_SCREENSHOTS")
    folder = Path(chosen) if chosen else default or Path(tempfile.mkdtemp(prefix="referee-screenshots-"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder
