"""Tests for firmware/rules/sgf.py, the SGF reader; plain asserts, run by pytest and on MicroPython.

Coordinates are (x, y) with y from the bottom: on 19x19, SGF 'aa' (top-left) is (0, 18) and
'pd' is GTP Q16 = (15, 15).
"""

from firmware.rules import sgf


def _error(fn, *args):
    """Message of the SgfError that ``fn(*args)`` raises (fails if it raises none)."""
    try:
        fn(*args)
    except sgf.SgfError as e:
        assert isinstance(e, ValueError)
        return str(e)
    raise AssertionError("no SgfError from %r" % (args,))


def _moves(data):
    """Moves of the main line of ``data``."""
    nodes = sgf.parse(data)
    return sgf.moves(nodes, sgf.game_info(nodes[0])["size"])


def test_minimal_record():
    nodes = sgf.parse(b"(;GM[1]FF[4]SZ[19];B[pd];W[dd])")
    assert nodes == [{"GM": ["1"], "FF": ["4"], "SZ": ["19"]}, {"B": ["pd"]}, {"W": ["dd"]}]
    assert sgf.moves(nodes, 19) == [("B", (15, 15)), ("W", (3, 15))]


def test_str_bytes_and_bytearray_give_the_same_nodes():
    text = "(;SZ[9]C[héllo];B[cc])"
    assert sgf.parse(text) == sgf.parse(text.encode()) == sgf.parse(bytearray(text.encode()))


def test_escapes_resolved():
    nodes = sgf.parse(b"(;C[a \\] b \\\\ c \\: d \\x];B[aa])")
    assert nodes[0]["C"] == ["a ] b \\ c : d x"]
    assert nodes[1] == {"B": ["aa"]}


def test_escaped_bracket_at_value_end_and_backslash_pairs():
    nodes = sgf.parse(b"(;C[end\\]]GC[\\\\]N[\\\\\\]])")
    assert nodes[0] == {"C": ["end]"], "GC": ["\\"], "N": ["\\]"]}


def test_soft_line_break_removed_hard_newline_kept():
    for brk in (b"\\\n", b"\\\r\n", b"\\\r", b"\\\n\r"):
        assert sgf.parse(b"(;C[ab" + brk + b"cd])")[0]["C"] == ["abcd"]
    assert sgf.parse(b"(;C[ab\ncd\r\nef])")[0]["C"] == ["ab\ncd\r\nef"]


def test_value_with_structure_characters():
    nodes = sgf.parse(b"(;C[(;B[aa\\]) ; ( \\] )];W[bb])")
    assert nodes[0]["C"] == ["(;B[aa]) ; ( ] )"]
    assert sgf.moves(nodes, 19) == [("W", (1, 17))]


def test_multi_value_and_repeated_properties():
    nodes = sgf.parse(b"(;AB[aa][bb]  [cc]\n[dd]AW[ee]AB[ff])")
    assert nodes[0]["AB"] == ["aa", "bb", "cc", "dd", "ff"]  # repeated AB adds values (sgfmill)
    assert nodes[0]["AW"] == ["ee"]


def test_whitespace_between_nodes_and_properties():
    nodes = sgf.parse(b"  \n(\n ;\tSZ [9]\n KM[6.5] ;\r\n B [ee] ; W[]  \n)\n")
    assert nodes == [{"SZ": ["9"], "KM": ["6.5"]}, {"B": ["ee"]}, {"W": [""]}]


def test_lowercase_letters_in_identifiers_ignored():
    nodes = sgf.parse(b"(;AddBlack[aa]CoPyright[me]SiZe[9];Black[bb])")
    assert nodes[0] == {"AB": ["aa"], "CP": ["me"], "SZ": ["9"]}
    assert nodes[1] == {"B": ["bb"]}


def test_compressed_point_list_expanded():
    info = sgf.game_info(sgf.parse(b"(;SZ[9]AB[aa:cc][ee]AW[ih:gi])")[0])
    assert info["ab"] == [
        (0, 8),
        (1, 8),
        (2, 8),
        (0, 7),
        (1, 7),
        (2, 7),
        (0, 6),
        (1, 6),
        (2, 6),
        (4, 4),
    ]
    # corners given the wrong way round still mean the rectangle gi..ih
    assert sorted(info["aw"]) == [(6, 0), (6, 1), (7, 0), (7, 1), (8, 0), (8, 1)]


def test_point_list_repeats_dropped_single_point_rectangle():
    info = sgf.game_info(sgf.parse(b"(;SZ[5]AB[aa:bb][aa][cc:cc])")[0])
    assert info["ab"] == [(0, 4), (1, 4), (0, 3), (1, 3), (2, 2)]


def test_variations_main_line_is_first_branch():
    data = b"(;SZ[9];B[aa](;W[bb];B[cc](;W[dd])(;W[ee]C[not \\] this)]))(;W[ff](;B[gg])(;B[hh])))"
    nodes = sgf.parse(data)
    assert [sorted(n) for n in nodes] == [["SZ"], ["B"], ["W"], ["B"], ["W"]]
    assert sgf.moves(nodes, 9) == [("B", (0, 8)), ("W", (1, 7)), ("B", (2, 6)), ("W", (3, 5))]


def test_first_game_of_collection_and_leading_text():
    data = b"Saved by a client\n(;SZ[9];B[aa])\n(;SZ[13];B[bb])garbage"
    nodes = sgf.parse(data)
    assert nodes == [{"SZ": ["9"]}, {"B": ["aa"]}]


def test_errors_after_the_main_line_still_detected():
    msg = _error(sgf.parse, b"(;B[aa](;W[bb])(;W[cc)")
    assert "unterminated value" in msg, msg


def test_pass_forms():
    nodes = sgf.parse(b"(;SZ[19];B[];W[tt];B[pd])")
    assert sgf.moves(nodes, 19) == [("B", None), ("W", None), ("B", (15, 15))]
    assert sgf.point("", 9) is None
    assert sgf.point("tt", 19) is None
    assert sgf.point("tt", 13) is None
    assert sgf.point("tt", 21) == (19, 1)  # a real point on boards over 19x19


def test_point_orientation_and_bounds():
    assert sgf.point("aa", 19) == (0, 18)
    assert sgf.point("sa", 19) == (18, 18)
    assert sgf.point("as", 19) == (0, 0)
    assert sgf.point("ss", 19) == (18, 0)
    assert sgf.point("cg", 9) == (2, 2)  # C3 on 9x9
    assert sgf.point("Aa", 30) == (26, 29)  # FF[4] uppercase coordinates for sizes 27..52
    for bad, size in (("ta", 19), ("at", 19), ("Aa", 19), ("a", 19), ("abc", 19), ("j1", 9)):
        msg = _error(sgf.point, bad, size)
        assert "not on the %dx%d board" % (size, size) in msg, msg


def test_gomoku_15x15_coordinates():
    data = b"(;GM[4]FF[4]SZ[15]RU[Renju]PB[a]PW[b];B[hh];W[ig];B[gi];W[aa];B[oo])"
    nodes = sgf.parse(data)
    info = sgf.game_info(nodes[0])
    assert info["gm"] == 4 and info["size"] == 15 and info["rules"] == "Renju"
    assert info["komi"] is None
    assert sgf.moves(nodes, 15) == [
        ("B", (7, 7)),  # centre, H8
        ("W", (8, 8)),  # J9: one right of and one above the centre
        ("B", (6, 6)),
        ("W", (0, 14)),  # A15, top-left
        ("B", (14, 0)),  # O1, bottom-right
    ]
    assert "not on the 15x15 board" in _error(sgf.moves, sgf.parse(b"(;SZ[15];B[pp])"), 15)


def test_game_info_defaults():
    info = sgf.game_info(sgf.parse(b"(;)")[0])
    assert info == {
        "size": 19,
        "komi": None,
        "handicap": 0,
        "gm": 1,
        "ab": [],
        "aw": [],
        "pl": None,
        "result": None,
        "rules": None,
    }


def test_game_info_values():
    data = b"(;GM[1]SZ[9]KM[0.5]HA[2]AB[cc][gg]AW[ee]PL[w]RE[W+0.5]RU[Chinese];W[cg])"
    info = sgf.game_info(sgf.parse(data)[0])
    assert info["size"] == 9 and info["gm"] == 1 and info["handicap"] == 2
    assert info["komi"] == "0.5" and info["result"] == "W+0.5" and info["rules"] == "Chinese"
    assert info["ab"] == [(2, 6), (6, 2)] and info["aw"] == [(4, 4)]
    assert info["pl"] == "W"


def test_komi_kept_as_written():
    assert sgf.game_info(sgf.parse(b"(;KM[750])")[0])["komi"] == "750"  # Fox: komi x 100
    assert sgf.game_info(sgf.parse(b"(;KM[7.50])")[0])["komi"] == "7.50"


def test_game_info_errors():
    def info(data):
        return sgf.game_info(sgf.parse(data)[0])

    assert "rectangular" in _error(info, b"(;SZ[19:13])")
    assert "SZ[x] is not a number" in _error(info, b"(;SZ[x])")
    assert "outside 1..52" in _error(info, b"(;SZ[53])")
    assert "outside 1..52" in _error(info, b"(;SZ[0])")
    assert "HA[two] is not a number" in _error(info, b"(;HA[two])")
    assert "PL[x] is not B or W" in _error(info, b"(;PL[x])")
    assert "not on the 9x9 board" in _error(info, b"(;SZ[9]AB[jj])")
    assert "not on the 19x19 board" in _error(info, b"(;AB[])")


def test_setup_after_root_rejected():
    nodes = sgf.parse(b"(;SZ[9]AB[aa];B[bb];AW[cc];W[dd])")
    msg = _error(sgf.moves, nodes, 9)
    assert "setup stones after the root are not supported" in msg and "node 2" in msg, msg
    assert "not supported" in _error(sgf.moves, sgf.parse(b"(;;AE[aa])"), 9)


def test_move_node_errors():
    assert "both B and W" in _error(sgf.moves, sgf.parse(b"(;;B[aa]W[bb])"), 9)
    assert "2 values" in _error(sgf.moves, sgf.parse(b"(;;B[aa][bb])"), 9)


def test_move_in_root_counts():
    assert _moves(b"(;SZ[9]B[ee];W[cc])") == [("B", (4, 4)), ("W", (2, 6))]


def test_parse_errors_have_messages_and_offsets():
    cases = (
        (b"", "empty SGF data"),
        (" \r\n\t", "empty SGF data"),
        (b"hello world", "no '(' found"),
        (b"(B[aa])", "missing ';' after '(' at byte 0"),
        (b"(;B[aa](W[bb]))", "missing ';' after '(' at byte 7"),
        (b"(;B[aa];W[b", "unterminated value of W at byte 9"),
        (b"(;C[abc\\])", "unterminated value (its last ']' is escaped) at byte 3"),
        (b"(;B[aa];W[bb]", "missing ')' at byte 13"),
        (b"(;B[aa]1)", "unexpected '1' at byte 7"),
        (b"(;B[aa]\xff)", "unexpected 0xff at byte 7"),
        (b"(;B;W[aa])", "property B has no value at byte 3"),
        (b"(;B[aa]foo[x])", "property identifier 'foo' has no uppercase letter at byte 7"),
        (b"(;B[aa](;W[bb]);B[cc])", "node ';' after a variation's ')' at byte 15"),
        (b"(;B[aa](;W[bb])C[x])", "property outside a node (after ')') at byte 15"),
    )
    for data, expected in cases:
        msg = _error(sgf.parse, data)
        assert expected in msg, (data, msg)


def test_size_cap():
    data = b"(;SZ[19]" + b";B[aa];W[bb]" * 10 + b")"
    assert "too large: %d bytes (limit 100)" % len(data) in _error(sgf.parse, data, 100)
    assert len(sgf.parse(data, len(data))) == 21
    assert len(sgf.parse(data, None)) == 21


def test_utf8_names():
    data = "(;CA[UTF-8]PB[柯洁]PW[AlphaGo]C[黑中盘胜];B[pd])"
    for d in (data, data.encode()):
        nodes = sgf.parse(d)
        assert nodes[0]["PB"] == ["柯洁"] and nodes[0]["C"] == ["黑中盘胜"]


def test_invalid_utf8_does_not_crash():
    nodes = sgf.parse(b"(;PB[ab\xe6\x9f]PW[\xff];B[aa])")  # truncated multibyte char, stray byte
    assert nodes[0]["PB"] == ["ab" + chr(0xE6) + chr(0x9F)]  # latin-1: one char per byte
    assert nodes[0]["PW"] == [chr(0xFF)]
    assert _moves(b"(;PB[\xe6\x9f];B[aa])") == [("B", (0, 18))]


def test_crlf_line_endings():
    data = (
        b"(;CA[UTF-8]GM[1]FF[4]\r\nSZ[19]\r\nPB[AlphaGo]\r\nC[two\r\nlines]\r\n"
        b";B[qd];W[dp]\r\n;B[pq]\r\n)\r\n"
    )
    nodes = sgf.parse(data)
    assert nodes[0]["C"] == ["two\r\nlines"]
    assert sgf.moves(nodes, 19) == [("B", (16, 15)), ("W", (3, 3)), ("B", (15, 2))]


def test_fox_style_header():
    data = (
        "(;CA[UTF-8]AP[YuanYu][foxwq]GM[1]FF[4]\nSZ[19]\nGN[]\nDT[2017-02-23]\n"
        "PB[我想静静了]BR[9段]\nPW[DeepZenGo]WR[9段]\nKM[0]HA[0]RU[Japanese]RE[W+R]TM[300]\n"
        ";B[qd];W[pp];B[cd]\n;W[dp])\n"
    )
    nodes = sgf.parse(data)
    info = sgf.game_info(nodes[0])
    assert nodes[0]["AP"] == ["YuanYu", "foxwq"] and nodes[0]["GN"] == [""]
    assert info["handicap"] == 0 and info["komi"] == "0" and info["result"] == "W+R"
    assert sgf.moves(nodes, 19) == [("B", (16, 15)), ("W", (15, 3)), ("B", (2, 15)), ("W", (3, 3))]


def test_corpus_parses_with_index_move_counts():
    """Every real Go record parses on this runtime; moves and RE agree with corpus/go/index.tsv."""
    from tests import support

    base = support.require_shared("corpus", "go")
    files = total = 0
    with open(support.join(base, "index.tsv")) as index:
        header = index.readline().rstrip("\n").split("\t")
        col_re, col_moves = header.index("RE"), header.index("moves")
        for line in index:  # one line at a time: the unix port's default heap is 2 MB
            row = line.rstrip("\n").split("\t")
            with open(support.join(base, row[0]), "rb") as f:
                nodes = sgf.parse(f.read())
            info = sgf.game_info(nodes[0])
            count = len(sgf.moves(nodes, info["size"]))
            assert count == int(row[col_moves]), (row[0], count, row[col_moves])
            assert (info["result"] or "") == row[col_re], (row[0], info["result"], row[col_re])
            files += 1
            total += count
    assert files > 1000 and total > 100000, (files, total)
