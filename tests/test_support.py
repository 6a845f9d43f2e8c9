"""The helpers in tests/support.py, on both runtimes (pytest and tests/mp_run.py)."""

from tests import support


def test_join_matches_posix_rules():
    assert support.join("a", "b", "c.txt") == "a/b/c.txt"
    assert support.join("a/", "b") == "a/b"
    assert support.join("a", "/abs", "x") == "/abs/x"
    assert support.join("", "x") == "x"


def test_repo_is_the_absolute_root_holding_tests():
    assert support.REPO.startswith("/")
    assert "/./" not in support.REPO and "/../" not in support.REPO
    assert support.exists(support.join(support.REPO, "tests", "support.py"))
    assert not support.exists(support.join(support.REPO, "tests", "no-such-file"))


def test_shared_path_joins_under_shared():
    assert support.shared_path() == support.SHARED
    assert support.shared_path("corpus", "a.sgf") == support.SHARED + "/corpus/a.sgf"


def test_require_shared_skips_when_data_is_missing():
    try:
        support.require_shared("no-such-dir", "no-such-file.sgf")
    except support.SkipTest as e:
        assert support.IS_MICROPYTHON
        assert "no-such-file.sgf" in str(e)
    except BaseException as e:  # pytest's Skipped derives from BaseException
        assert not support.IS_MICROPYTHON
        assert type(e).__name__ == "Skipped", repr(e)
        assert "no-such-file.sgf" in str(e)
    else:
        raise AssertionError("require_shared did not skip")
