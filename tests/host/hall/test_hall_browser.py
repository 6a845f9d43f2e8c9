"""``tengen hall``'s pages in a real browser: Debian's Chromium driven by Selenium, a real
``tengen hall`` process, Mosquitto, and records published as a relay publishes them (a paho
client, tests/host/hall/test_hall.py's ``RelayClient``). Signed in, a move shows on the live view
of the page (``/?live``) with both clocks within 1 s of its publication, the table page lists
it, the broadcast SGF (``--delay 3``) has it only once the delay has passed, and the arbiter's
page lists an incident. (The public page, the delay behind: tests/host/hall/test_hall_public.py.)

The helpers here (``browser_or_skip``, ``card``, ``wait_page``, ``open_page``,
``table_moves``, ``incident_rows``, ``feed_sgf``) take a driver and a page's address only, so
a test with a virtual board and a real relay uses them as they are.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from firmware.store import records as R
from host_tools.live import watch as W
from host_tools.records import export as X
from tests.host.hall.test_hall import (
    ARBITER,
    BOARD,
    RelayClient,
    broker_or_skip,
    get,
    go_records,
    start_hall,
    state_body,
    stop_hall,
)

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROME_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
WITHIN_S = 1.0  # the figure: a move on the page within 1 s of its publication
POLL_S = 0.02


def browser_or_skip(tmp_path):
    """A headless Chromium (Selenium) with a profile of its own in ``tmp_path``, or the test
    skipped saying what to install."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[dev]')")
    browser = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    driver_bin = CHROMEDRIVER if os.path.exists(CHROMEDRIVER) else shutil.which("chromedriver")
    if not browser or not driver_bin:
        pytest.skip(
            "chromium and chromedriver are needed (apt-get install chromium chromium-driver)"
        )
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for flag in CHROME_FLAGS:
        opts.add_argument(flag)
    opts.add_argument("--user-data-dir=%s" % (tmp_path / "chromium-profile"))
    opts.add_argument("--window-size=1280,1000")
    return webdriver.Chrome(service=Service(driver_bin), options=opts)


# One round trip to the browser per look: what a card, the table page or the arbiter's page
# shows, read by a script in the page.
_CARD_JS = """
const card = document.querySelector('.table-card[data-board="' + arguments[0] + '"]');
if (!card) return null;
const t = (s) => { const e = card.querySelector(s); return e ? e.textContent.trim() : null; };
return {board: card.dataset.board, ply: Number(card.dataset.ply), table: card.dataset.table,
  last: t('.last-move'), black: t('.clock-black'), white: t('.clock-white'),
  black_name: t('.name-black'), white_name: t('.name-white'), result: t('.result'),
  offline: !card.querySelector('.offline-badge').hidden,
  stones: card.querySelectorAll('circle.stone').length,
  running: [...card.querySelectorAll('.clock.running')].map((e) => e.classList[1])};
"""
_MOVES_JS = """
return [...document.querySelectorAll('#moves li')].map((li) => ({
  ply: Number(li.dataset.ply), point: Number(li.dataset.point), text: li.textContent.trim()}));
"""
_INCIDENTS_JS = """
return [...document.querySelectorAll('#incidents tbody tr.incident')].map((tr) => ({
  board: tr.dataset.board, game: Number(tr.dataset.game), seq: Number(tr.dataset.seq),
  move: tr.querySelector('.move').textContent, words: tr.querySelector('.words').textContent}));
"""


def open_page(driver, url, timeout=20.0):
    """Load ``url`` and wait until its WebSocket's first snapshot is shown ("live")."""
    driver.get(url)
    wait_page(
        lambda: driver.execute_script(
            "const e = document.getElementById('link'); return e && e.textContent === 'live';"
        ),
        timeout,
        "the page's live link",
    )


def sign_in(driver, url, user=ARBITER):
    """Sign in with the hall's login form (its session cookie stays in the driver)."""
    from selenium.webdriver.common.by import By

    driver.get(url + "login?next=/")
    driver.find_element(By.ID, "name").send_keys(user[0])
    driver.find_element(By.ID, "password").send_keys(user[1])
    driver.find_element(By.ID, "sign-in").click()
    wait_page(
        lambda: any(c["name"] == "tengen_session" for c in driver.get_cookies()),
        say="the session cookie",
    )


def wait_page(look, timeout=20.0, say="the page"):
    """Poll ``look()`` every ``POLL_S`` until it is true: ``(value, seconds waited)``."""
    start = time.monotonic()
    while True:
        got = look()
        if got:
            return got, time.monotonic() - start
        if time.monotonic() - start > timeout:
            raise AssertionError("waited %g s for %s" % (timeout, say))
        time.sleep(POLL_S)


def card(driver, board):
    """What the live page's card of ``board`` shows (None if it has none): last move, both
    clocks, names, result, offline badge, the number of stones, the running clock."""
    return driver.execute_script(_CARD_JS, board)


def table_moves(driver):
    """The table page's move list: ``[{ply, point, text}]``."""
    return driver.execute_script(_MOVES_JS)


def incident_rows(driver):
    """The arbiter page's incident rows, newest first: ``[{board, game, seq, move, words}]``."""
    return driver.execute_script(_INCIDENTS_JS)


def feed_sgf(url, board, game):
    """The broadcast SGF now (bytes), or None while there is none (404)."""
    status, data = get("%sfeed/%s/%d.sgf" % (url, board, game), json_out=False)
    return data if status == 200 else None


def faces_text(clocks, spread_ms=3000):
    """The texts a face may show for figures ``clocks`` (Black's exact, White's within
    ``spread_ms`` of counting down): ``(black, {white...})``."""
    black = W.clock_text(clocks[0])
    white = {W.clock_text(clocks[2] - k) for k in range(0, spread_ms + 1, 50)}
    return black, white


@pytest.mark.slow(5)
def test_live_table_feed_and_arbiter_pages_in_chromium(tmp_path, started):
    recs = go_records(tmp_path, extra={"black": "Ke Jie", "white": "Shin Jinseo"})
    broker = started(broker_or_skip(tmp_path / "broker"), "stop")
    driver = started(browser_or_skip(tmp_path), "quit")
    relay = started(RelayClient(broker.port))
    hall, url = start_hall(tmp_path, broker.port, "--delay", "3")
    started(hall, stop_hall)
    relay.state(BOARD, 1, 0, state_body(recs, 0))
    relay.event(BOARD, 1, 0, recs[0])
    sign_in(driver, url)
    open_page(driver, url + "?live")
    shown, _ = wait_page(
        lambda: (card(driver, BOARD) or {}).get("black_name"),
        say="the board's card with the names",
    )
    shown = card(driver, BOARD)
    assert (shown["black_name"], shown["white_name"]) == ("Ke Jie", "Shin Jinseo")
    assert (shown["black"], shown["white"]) == ("10:00", "10:00") and not shown["offline"]

    # Each move, published as the relay publishes it, is on the page with both clocks
    # within a second.
    took = []
    game = recs[0][1]
    for seq in (1, 2):
        rec = recs[seq]
        assert rec[0] == R.MOVE
        name = X._label(rec[3], game)
        black, whites = faces_text(rec[5]) if rec[2] == 1 else (None, None)
        t0 = time.monotonic()
        relay.event(BOARD, 1, seq, rec)

        def there(rec=rec, name=name, black=black, whites=whites):
            c = card(driver, BOARD)
            if not c or c["last"] != name or c["ply"] != rec[1]:
                return None
            if not c["black"] or not c["white"]:
                return None
            if black is not None and (c["black"] != black or c["white"] not in whites):
                return None
            return c

        c, _ = wait_page(there, say="move %d on the live page" % rec[1])
        took.append(time.monotonic() - t0)
        assert c["stones"] == rec[1]
        assert c["running"] == ["clock-white" if rec[2] == 1 else "clock-black"]
    print("publish -> live page: %s s" % ", ".join("%.3f" % t for t in took))
    assert max(took) < WITHIN_S, took
    # The delay: one second on, the broadcast does not have the moves yet.
    sgf = feed_sgf(url, BOARD, 1)
    assert sgf in (None, X.export(recs[:1])["sgf"])
    sent = t0

    open_page(driver, url + "table/" + BOARD + "?live")
    moves, _ = wait_page(
        lambda: len(table_moves(driver)) == 2 and table_moves(driver),
        say="the table page's moves",
    )
    first = recs[1]
    assert moves[0]["ply"] == 1 and moves[0]["point"] == first[3]
    assert X._label(first[3], game) in moves[0]["text"]
    assert W.clock_text(first[5][0]) in moves[0]["text"]

    whole = X.export(recs[:3])["sgf"]
    sgf, _ = wait_page(lambda: feed_sgf(url, BOARD, 1) == whole, 15, "the delayed SGF")
    assert time.monotonic() - sent >= 3.0

    # An incident (captured stones left at the press of move 4) on the arbiter's page.
    open_page(driver, url + "arbiter")
    relay.event(BOARD, 1, 3, recs[3])
    assert recs[4][0] == R.INCIDENT
    relay.event(BOARD, 1, 4, recs[4])
    rows, _ = wait_page(lambda: incident_rows(driver), say="the incident row")
    assert rows[0]["board"] == BOARD and rows[0]["seq"] == 4 and rows[0]["move"] == "4"
    assert "captured stones" in rows[0]["words"] and "D3" in rows[0]["words"]
    assert driver.execute_script("return document.getElementById('bad-count').textContent") == "0"
    # Each board's verification: this one has no key registered, so its records are the
    # relay's word, and the page says so.
    row = driver.execute_script(
        "const li = document.querySelector('#verification li');"
        "return li && [li.dataset.board, li.dataset.verified, li.textContent,"
        " document.getElementById('unproven-count').textContent];"
    )
    assert row[:2] == [BOARD, "unverified"] and "unverified" in row[2] and row[3] == "1"
