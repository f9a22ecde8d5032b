"""Tests for the sans-I/O line buffer."""

from __future__ import annotations

import itertools
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.referee.framing import PREFIX_BYTES, LineBuffer, LineTooLongError


def drain(buffer: LineBuffer) -> list[bytes]:
    """Returns every complete line currently in the buffer."""
    lines = []
    while (line := buffer.next_line()) is not None:
        lines.append(line)
    return lines


def test_empty_buffer_has_no_line() -> None:
    """A fresh buffer returns None and has nothing pending."""
    buffer = LineBuffer(10)
    assert buffer.next_line() is None
    assert buffer.pending_bytes == 0
    assert buffer.max_line_bytes == 10


def test_line_split_across_feeds() -> None:
    """A line fed in three pieces comes out once, whole, when its newline arrives."""
    buffer = LineBuffer(100)
    buffer.feed(b'{"type":')
    assert buffer.next_line() is None
    buffer.feed(b'"hello"')
    assert buffer.next_line() is None
    assert buffer.pending_bytes == 15
    buffer.feed(b"}\nnext")
    assert buffer.next_line() == b'{"type":"hello"}'
    assert buffer.next_line() is None
    assert buffer.pending_bytes == 4
    assert buffer.pending() == b"next"


def test_crlf_strips_one_carriage_return() -> None:
    """A CRLF terminator is removed, but only one carriage return before the newline."""
    buffer = LineBuffer(100)
    buffer.feed(b"a\r\nb\r\r\nc\rd\n\r\n")
    assert drain(buffer) == [b"a", b"b\r", b"c\rd", b""]


def test_empty_lines_are_lines() -> None:
    """Consecutive newlines give empty lines."""
    buffer = LineBuffer(5)
    buffer.feed(b"\n\nx\n")
    assert drain(buffer) == [b"", b"", b"x"]


def test_many_lines_in_one_feed() -> None:
    """Ten thousand lines fed at once come out in order and leave nothing pending."""
    buffer = LineBuffer(20)
    buffer.feed(b"".join(b"line %d\n" % i for i in range(10_000)))
    assert drain(buffer) == [b"line %d" % i for i in range(10_000)]
    assert buffer.pending_bytes == 0


def test_line_of_exactly_the_limit_is_accepted() -> None:
    """A line of max_line_bytes bytes, with either terminator, is returned."""
    buffer = LineBuffer(8)
    buffer.feed(b"12345678\n12345678\r\n")
    assert drain(buffer) == [b"12345678", b"12345678"]


def test_complete_line_over_the_limit_raises() -> None:
    """A complete line of max_line_bytes + 1 bytes raises LineTooLongError with its prefix."""
    buffer = LineBuffer(8)
    buffer.feed(b"123456789\n")
    with pytest.raises(LineTooLongError) as info:
        buffer.next_line()
    assert info.value.prefix == b"123456789"
    assert info.value.limit == 8


def test_partial_line_over_the_limit_raises_before_newline() -> None:
    """A partial line one byte over the limit raises without waiting for its newline."""
    buffer = LineBuffer(8)
    buffer.feed(b"12345678")
    assert buffer.next_line() is None
    buffer.feed(b"9")
    with pytest.raises(LineTooLongError):
        buffer.next_line()


def test_partial_line_at_limit_with_carriage_return_waits() -> None:
    """A partial line of limit bytes plus a carriage return may still end in CRLF, so it waits."""
    buffer = LineBuffer(8)
    buffer.feed(b"12345678\r")
    assert buffer.next_line() is None
    buffer.feed(b"\n")
    assert buffer.next_line() == b"12345678"


def test_carriage_return_does_not_extend_the_limit_mid_line() -> None:
    """A carriage return that is not right before the newline counts toward the limit."""
    buffer = LineBuffer(8)
    buffer.feed(b"12345678\rx")
    with pytest.raises(LineTooLongError):
        buffer.next_line()


def test_lines_before_a_long_line_are_returned_first() -> None:
    """Complete lines ahead of an over-long partial line are returned before the error."""
    buffer = LineBuffer(4)
    buffer.feed(b"ok\nfine\n" + b"x" * 100)
    assert buffer.next_line() == b"ok"
    assert buffer.next_line() == b"fine"
    with pytest.raises(LineTooLongError):
        buffer.next_line()


def test_error_keeps_a_bounded_prefix_and_is_sticky() -> None:
    """The error keeps the first PREFIX_BYTES bytes, drops the data and repeats on every call."""
    buffer = LineBuffer(1000)
    line = bytes(range(11, 256)) * 8
    buffer.feed(line)
    with pytest.raises(LineTooLongError) as first:
        buffer.next_line()
    assert first.value.prefix == line[:PREFIX_BYTES]
    assert buffer.broken
    assert buffer.pending_bytes == 0
    buffer.feed(b"\nvalid\n")
    assert buffer.pending_bytes == 0
    with pytest.raises(LineTooLongError) as second:
        buffer.next_line()
    assert second.value is first.value


def test_error_message_and_pickling() -> None:
    """The error names the limit and survives pickling with its attributes."""
    error = LineTooLongError(b"abc", 64)
    assert str(error) == "line longer than 64 bytes (starts with b'abc')"
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.prefix, copy.limit) == (b"abc", 64)


def test_memory_stays_bounded_for_an_endless_line() -> None:
    """Feeding an endless line in chunks never holds more than the limit plus one chunk."""
    limit, chunk = 1000, 300
    buffer = LineBuffer(limit)
    for _ in range(limit // chunk):
        buffer.feed(b"x" * chunk)
        assert buffer.pending_bytes <= limit + 1 + chunk
        assert buffer.next_line() is None
    buffer.feed(b"x" * chunk)
    assert buffer.pending_bytes <= limit + 1 + chunk
    with pytest.raises(LineTooLongError):
        buffer.next_line()
    assert buffer.pending_bytes == 0


def test_consumed_lines_are_compacted_on_feed() -> None:
    """Bytes of lines already returned are released when more data is fed."""
    buffer = LineBuffer(10)
    for i in range(1000):
        buffer.feed(b"abc\nde")
        assert buffer.next_line() == (b"abc" if i == 0 else b"deabc")
        assert buffer.pending_bytes == 2
        assert len(buffer._buf) <= 10


def test_invalid_limit_is_rejected() -> None:
    """A limit below one byte is a ValueError."""
    with pytest.raises(ValueError, match="at least 1"):
        LineBuffer(0)


@given(
    lines=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    cuts=st.lists(st.integers(min_value=0, max_value=1000), max_size=20),
)
def test_any_chunking_gives_the_same_lines(lines: list[bytes], cuts: list[int]) -> None:
    """However a stream of short lines is cut into chunks, the same lines come out."""
    stream = b"".join(line + b"\n" for line in lines)
    points = sorted({min(cut, len(stream)) for cut in cuts} | {0, len(stream)})
    buffer = LineBuffer(40)
    got: list[bytes] = []
    for start, stop in itertools.pairwise(points):
        buffer.feed(stream[start:stop])
        got.extend(drain(buffer))
    expected = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    assert got == expected
    assert buffer.pending_bytes == 0


def test_take_line_cuts_one_whole_line_as_next_line_would() -> None:
    """A chunk that is one whole line: its carriage return is stripped, a line of the limit is
    taken and one over it refused, and a chunk of several lines gives the first one."""
    buffer = LineBuffer(5)
    assert buffer.take_line(b"abc\r\n") == b"abc"
    assert buffer.take_line(b"\r\n") == b""
    assert buffer.take_line(b"12345\r\n") == b"12345"
    assert buffer.take_line(b"a\nb\n") == b"a"
    assert buffer.take_line(b"c") == b"b"
    assert buffer.take_line(b"\n") == b"c"
    assert buffer.pending_bytes == 0
    with pytest.raises(LineTooLongError):
        buffer.take_line(b"123456\n")
    with pytest.raises(LineTooLongError):
        buffer.take_line(b"1\n")  # broken for good, as with next_line


@given(
    lines=st.lists(
        st.tuples(st.binary(max_size=42), st.booleans()).map(
            lambda pair: pair[0].replace(b"\n", b"") + b"\r" * pair[1]
        ),
        max_size=30,
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=1500), max_size=20),
    whole=st.booleans(),
)
def test_take_line_is_feed_then_next_line(lines: list[bytes], cuts: list[int], whole: bool) -> None:
    """``take_line(chunk)`` returns what ``feed(chunk)`` then ``next_line()`` would, raises
    the same error for a line over the limit, and leaves the buffer in the same state."""
    stream = b"".join(line + b"\n" for line in lines)
    if whole:  # each line a chunk of its own, as a bot's replies usually come
        points = sorted(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
    else:
        points = sorted({min(cut, len(stream)) for cut in cuts} | {0, len(stream)})
    taking, feeding = LineBuffer(40), LineBuffer(40)
    for start, stop in itertools.pairwise(points):
        chunk = stream[start:stop]
        expected: bytes | LineTooLongError | None
        got: bytes | LineTooLongError | None
        try:
            feeding.feed(chunk)
            expected = feeding.next_line()
        except LineTooLongError as error:
            expected = error
        try:
            got = taking.take_line(chunk)
        except LineTooLongError as error:
            got = error
        if isinstance(expected, LineTooLongError):
            assert isinstance(got, LineTooLongError)
            assert (got.prefix, got.limit) == (expected.prefix, expected.limit)
            return
        assert got == expected
        assert drain(taking) == drain(feeding)
        assert taking.pending() == feeding.pending()
