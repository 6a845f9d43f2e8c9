"""The hall tests' shared set-up: ``started``, what a test started, stopped at its end; ``env``,
the test's own folders; ``broker``, the relay tests' Mosquitto."""

import contextlib
import os

import pytest

from host_tools.common.link import RUNTIME_ENV
from host_tools.records import sync as S


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
    """A ``Started`` for this test, closed when it ends. Ask for it after the fixtures that
    must outlast what it stops (``broker``: the relays go first): fixtures end in the reverse
    order of their start."""
    with Started() as stack:
        yield stack


@pytest.fixture
def env(tmp_path, monkeypatch):
    """This test's runtime, config and data folders, here and in the commands it runs."""
    for key, sub in ((RUNTIME_ENV, "run"), ("TENGEN_CONFIG_DIR", "config"), (S.DATA_ENV, "data")):
        monkeypatch.setenv(key, str(tmp_path / sub))
    return dict(os.environ)


@pytest.fixture
def broker(tmp_path):
    """Mosquitto on a free port for ``test_relay.HALL``, users relay-r1, relay-r2,
    relay-inproc; a test's own (its retained messages are no other test's)."""
    from host_tools.hall.broker import Broker
    from tests.host.hall.test_relay import HALL

    b = Broker(tmp_path / "broker", HALL, relays=("r1", "r2", "inproc")).start()
    yield b
    b.stop()
