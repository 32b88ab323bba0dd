"""Frames and the sockets they travel on, for the judge (judge.py) and the worker (worker.py).

A *frame* is a 4-byte big-endian length and a JSON object (UTF-8 from our side, lone surrogates
kept with `surrogatepass`, so text costs its UTF-8 size rather than six bytes a character; UTF-8
from Node). A frame from the zygote may be followed by raw bytes (an attempt's
captured output), whose count is the frame's `payload`. Descriptors (an attempt's call socket)
ride on the first bytes of a frame (SCM_RIGHTS).
"""

import errno
import json
import os
import select
import socket
import struct
import sys
import time

from codec import ProtocolError

# Frames between our own processes (Node, the judge and the zygote) stay below this.
MAX_FRAME_BYTES = 32 * 1024 * 1024
# A frame from the candidate's process larger than this is a protocol violation, never read whole:
# JSON parsing can take some 30 bytes of memory per byte of input (`[{},{},...]`), which the judge's
# memory bound must hold. Honest values fit: a 700 000-element list of ints is 8.4 MB, a string of
# two million characters at most 8 MB (UTF-8).
MAX_REPLY_BYTES = 16 * 1024 * 1024


class ChannelClosed(Exception):
    """The candidate's process is gone or broke the protocol; the message says which."""


def frame_bytes(message):
    """A message as one frame (UTF-8 JSON; a lone surrogate survives as its three bytes)."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return struct.pack(">I", len(body)) + body


def write_all(fd, data):
    """Writes every byte of `data` (bytes or a memoryview) to a blocking fd."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_frame(fd, message):
    write_all(fd, frame_bytes(message))


def read_exact(fd, count):
    """`count` bytes from a blocking fd, or None at end of file."""
    chunks = []
    while count > 0:
        chunk = os.read(fd, min(count, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def parse_body(body):
    try:
        message = json.loads(body.decode("utf-8", "surrogatepass"))
    except (ValueError, UnicodeError, RecursionError, MemoryError) as exc:
        raise ProtocolError("a frame that is not JSON: %s" % (str(exc)[:200] or type(exc).__name__))
    if type(message) is not dict:
        raise ProtocolError("a frame that is not a JSON object")
    return message


def read_frame(fd, limit=MAX_FRAME_BYTES):
    """The next message from a blocking fd; None at end of file. Raises ProtocolError."""
    header = read_exact(fd, 4)
    if header is None:
        return None
    (length,) = struct.unpack(">I", header)
    if length > limit:
        raise ProtocolError("a frame of %d bytes (the limit is %d)" % (length, limit))
    body = read_exact(fd, length)
    return None if body is None else parse_body(body)


def _recv_exact(fd, count, deadline):
    """`count` bytes from a trusted peer before `deadline`, or None (end of file, time out)."""
    chunks = bytearray()
    while len(chunks) < count:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            return None
        try:
            chunk = os.read(fd, min(count - len(chunks), 1 << 20))
        except BlockingIOError:
            continue
        except OSError:
            return None
        if not chunk:
            return None
        chunks += chunk
    return bytes(chunks)


def read_frame_blocking(fd, timeout):
    """One frame from a trusted peer (the zygote's control socket) within `timeout` seconds, with
    its raw payload as `message["payload"]` (bytes); None when none came or it was malformed."""
    deadline = time.monotonic() + timeout
    header = _recv_exact(fd, 4, deadline)
    if header is None:
        return None
    (length,) = struct.unpack(">I", header)
    if length > MAX_FRAME_BYTES:
        return None
    body = _recv_exact(fd, length, deadline)
    try:
        message = None if body is None else parse_body(body)
    except ProtocolError:
        return None
    if message is not None and "payload" in message:
        size = message.get("payload")
        if type(size) is not int or not 0 <= size <= MAX_FRAME_BYTES:
            return None
        payload = _recv_exact(fd, size, deadline) if size else b""
        if payload is None:
            return None
        message["payload"] = payload
    return message


def _fd_from(ancillary):
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS and len(data) >= 4:
            return int.from_bytes(data[:4], sys.byteorder)
    return None


def send_with_fd(sock, data, fd):
    """Sends `data` with descriptor `fd` attached to its first bytes."""
    sent = sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", fd))])
    if sent < len(data):
        sock.sendall(data[sent:])


def recv_fd(sock):
    """The one descriptor sent with a single byte, or None at end of file."""
    data, ancillary, _flags, _addr = sock.recvmsg(1, socket.CMSG_LEN(4))
    if not data:
        return None
    fd = _fd_from(ancillary)
    if fd is None:
        raise ProtocolError("an attempt without its call socket")
    return fd


def recv_frame_with_fd(sock):
    """The next frame and the descriptor sent with its first bytes (None when there was none), or
    None at end of file."""
    header = b""
    fd = None
    while len(header) < 4:
        data, ancillary, _flags, _addr = sock.recvmsg(4 - len(header), socket.CMSG_LEN(4))
        if not data:
            return None
        header += data
        fd = _fd_from(ancillary) if fd is None else fd
    (length,) = struct.unpack(">I", header)
    if length > MAX_FRAME_BYTES:
        raise ProtocolError("a frame of %d bytes from the judge" % length)
    body = read_exact(sock.fileno(), length)
    return None if body is None else (parse_body(body), fd)


class CallChannel:
    """The judge's end of one attempt's call socket, watched together with the zygote's control
    socket (whose result frame means the attempt is over): non-blocking, bounded by the attempt's
    deadline and MAX_REPLY_BYTES."""

    def __init__(self, sock, control_fd, deadline):
        self.sock = sock
        self.fd = sock.fileno()
        self.control_fd = control_fd
        self.deadline = deadline
        self.buffer = bytearray()
        self.eof = False
        self.worker_result = None
        os.set_blocking(self.fd, False)

    def _read_control(self):
        message = read_frame_blocking(self.control_fd, 5.0)
        if message is not None and message.get("t") == "result":
            self.worker_result = message
        return message

    def _wait(self, event):
        """Polls for `event` on the call socket until the deadline (TimeoutError); True when the
        zygote spoke instead."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError()
        poller = select.poll()
        poller.register(self.fd, event)
        if self.worker_result is None:
            poller.register(self.control_fd, select.POLLIN)
        ready = [fd for fd, _event in poller.poll(max(1, int(remaining * 1000)))]
        if self.control_fd in ready:
            self._read_control()
            return True
        return False

    def send(self, data):
        """Sends bytes (frames already joined): ChannelClosed when the attempt ended first."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.fd, view) :]
                continue
            except BlockingIOError:
                pass
            except OSError as exc:
                raise ChannelClosed(
                    "ended" if exc.errno in (errno.EPIPE, errno.ECONNRESET) else "broke the channel (%s)" % exc
                )
            if self._wait(select.POLLOUT):
                raise ChannelClosed("ended")

    def _next_frame(self):
        if len(self.buffer) < 4:
            return None
        (length,) = struct.unpack(">I", bytes(self.buffer[:4]))
        if length > MAX_REPLY_BYTES:
            raise ChannelClosed("sent a frame of %d bytes, over the limit of %d" % (length, MAX_REPLY_BYTES))
        if len(self.buffer) < 4 + length:
            return None
        body = bytes(self.buffer[4 : 4 + length])
        del self.buffer[: 4 + length]
        try:
            return parse_body(body)
        except ProtocolError as exc:
            raise ChannelClosed("sent %s" % exc)

    def receive(self):
        """The next frame; raises TimeoutError at the deadline, ChannelClosed when the process ended."""
        while True:
            message = self._next_frame()
            if message is not None:
                return message
            if self.eof:
                raise ChannelClosed("ended")
            if self._wait(select.POLLIN):
                # The attempt is over (everything it started is dead): what it wrote before is
                # still in the socket.
                self.eof = True
            self._read_available()

    def buffered(self):
        """The next frame already in the socket, without waiting; None when there is none (or it
        is malformed: what it would have said is then unknown)."""
        try:
            self._read_available()
            return self._next_frame()
        except ChannelClosed:
            return None

    def _read_available(self):
        while len(self.buffer) <= MAX_REPLY_BYTES + 4:
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.eof = True
                return
            self.buffer += chunk
