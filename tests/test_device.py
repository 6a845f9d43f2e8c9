"""The board's wiring (firmware/boot/device.py): the parts that need no hardware, both runtimes."""

from firmware.game.app import Paddles
from firmware.hal.rp2040 import key_reader, paddle_handler
from tests.support import locked


class Pin:
    def __init__(self, v=1):
        self.v = v

    def value(self):
        return self.v


def test_a_paddle_interrupt_stamps_the_ring_without_allocating():
    p = Paddles()
    handler = paddle_handler(p.hit, 1, lambda: 12345)
    handler(None)
    assert p.take() == 1 and p.taken_at == 12345
    assert locked(lambda: handler(None)) is None


def test_keys_are_active_low():
    a, b = Pin(1), Pin(0)
    levels = key_reader([(a, 1), (b, 4)])
    assert levels() == 4
    a.v = 0
    assert levels() == 5
    assert locked(levels) is None
