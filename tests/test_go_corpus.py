"""Every real game of ``../shared/corpus/go`` replays with every move legal, on both runtimes.

That the stones after every move are right is checked against sgfmill, an independent
implementation, in ``tests/host/test_go_corpus_reference.py`` (which runs this replay on the
MicroPython unix port).
"""

from firmware.rules.go import Game
from tests.go_corpus import corpus_games, replay
from tests.support import require_shared


def test_every_corpus_game_replays_with_every_move_legal():
    root = require_shared("corpus", "go")
    game = Game(19)
    games = 0
    total = 0
    for name, moves in corpus_games(root):
        n, _ = replay(root + "/" + name, game)
        assert n == moves, name
        games += 1
        total += n
    assert games == 1862
    assert total == 302623
