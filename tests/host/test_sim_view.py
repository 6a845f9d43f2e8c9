"""make sim's terminal view (host_tools/sim.py) driven headlessly, the firmware on MicroPython."""

import asyncio

from host_tools.sim import Board, SimView


def test_keys_play_moves_on_the_simulated_board():
    async def play():
        app = SimView()
        async with app.run_test() as pilot:
            await pilot.press("s", "b", "1")  # start, a black stone on Q16, Black's paddle
            await pilot.press("left", "left", "left", "left", "left", "left", "left")
            await pilot.press("w", "2")  # a white stone on J16, White's paddle
            await pilot.press("b", "x")  # Black's stone put down and lifted again
            return app.rows, app.status

    rows, status = asyncio.run(play())
    row16 = [r for r in rows if r.startswith("16 ")][0]
    assert row16[3:].split(" ")[15] == "X" and row16[3:].split(" ")[8] == "O"
    assert "move 2" in status


def test_the_board_process_answers_commands():
    board = Board()
    try:
        assert board.banner.startswith("tengen simulator")
        board.ask("start")
        board.ask("put Q16 b")
        board.ask("put D4 b")
        rows, status, messages = board.ask("press b")
        assert any("two moves in a row" in m for m in messages), messages
        assert len(rows) == 19 and status.startswith("black ")
    finally:
        board.close()


def test_the_boards_keys_and_a_slide():
    async def play():
        app = SimView()
        async with app.run_test() as pilot:
            await pilot.press("M")  # the menu
            menu = list(app.messages)
            await pilot.press("M")  # done: Go 19 kept
            await pilot.press("b", "r")  # a stone on Q16 slid to R16
            return menu, app.rows

    menu, rows = asyncio.run(play())
    assert any("[menu]" in m for m in menu), menu
    row16 = [r for r in rows if r.startswith("16 ")][0]
    assert row16[3:].split(" ")[16] == "."  # the rules' board: nothing played yet
