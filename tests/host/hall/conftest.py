"""The hall tests' shared set-up: ``started``, what a test started, stopped at its end."""

import contextlib

import pytest


class Started(contextlib.ExitStack):
    """What a test started (boards, consumers, relays, halls, browsers), stopped at its end in
    the reverse order whatever happened: ``started(x)`` registers ``x.close()`` and returns
    ``x``; ``started(x, "kill")`` another method of ``x``; ``started(x, stop_hall)`` a function
    of it. Each stop must be harmless when the test already stopped ``x`` itself."""

    def __call__(self, thing, stop="close"):
        if callable(stop):
            self.callback(stop, thing)
        else:
            self.callback(getattr(thing, stop))
        return thing


@pytest.fixture
def started():
    """A ``Started`` for this test, closed when it ends (name it after the fixtures it stops
    before, e.g. ``broker``: fixtures end in the reverse order of their start)."""
    with Started() as stack:
        yield stack
