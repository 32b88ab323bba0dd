"""Frames over real socket pairs (channel.py): every message arrives whole and in order however the
bytes are split; a descriptor rides on a frame; the judge's call channel keeps its deadline, its
size limit and the zygote's word that the attempt is over.

    /usr/bin/python3 -m unittest discover -s src/verifiers/python-tests -p 'test_*.py'
"""

import os
import random
import socket
import struct
import threading
import time
import unittest

from channel import (
    MAX_REPLY_BYTES,
    CallChannel,
    ChannelClosed,
    frame_bytes,
    parse_body,
    read_frame,
    read_frame_blocking,
    recv_fd,
    recv_frame_with_fd,
    send_with_fd,
    write_frame,
)
from codec import ProtocolError

SEED = 20261201


def _pair():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    return a, b


class Frames(unittest.TestCase):
    def test_messages_arrive_whole_however_the_bytes_are_split(self):
        rng = random.Random(SEED)
        messages = [
            {
                "t": "call",
                "id": i,
                "text": "".join(chr(rng.randrange(32, 0x3000)) for _ in range(rng.randrange(200))) + "\ud800",
            }
            for i in range(200)
        ]
        data = b"".join(frame_bytes(m) for m in messages)
        a, b = _pair()
        try:

            def send():
                offset = 0
                while offset < len(data):
                    step = rng.randrange(1, 700)
                    a.sendall(data[offset : offset + step])
                    offset += step
                a.shutdown(socket.SHUT_WR)

            writer = threading.Thread(target=send)
            writer.start()
            received = []
            while True:
                message = read_frame(b.fileno())
                if message is None:
                    break
                received.append(message)
            writer.join()
            self.assertEqual(received, messages)
        finally:
            a.close()
            b.close()

    def test_frames_are_ascii_json_objects(self):
        # UTF-8, a lone surrogate kept: text costs its UTF-8 size, not six bytes a character.
        self.assertEqual(parse_body(frame_bytes({"s": "é\ud800"})[4:]), {"s": "é\ud800"})
        self.assertEqual(len(frame_bytes({"s": "é" * 100})), 4 + len('{"s":""}') + 200)
        for body in (b"[1]", b"not json", b"\xff"):
            with self.assertRaises(ProtocolError):
                parse_body(body)

    def test_an_oversized_frame_is_refused_unread(self):
        a, b = _pair()
        try:
            a.sendall(struct.pack(">I", 1000))
            with self.assertRaisesRegex(ProtocolError, "1000 bytes"):
                read_frame(b.fileno(), limit=999)
        finally:
            a.close()
            b.close()

    def test_a_frame_with_a_raw_payload(self):
        a, b = _pair()
        try:
            a.sendall(frame_bytes({"t": "result", "payload": 5}) + b"\xffabc\x00")
            message = read_frame_blocking(b.fileno(), 5)
            self.assertEqual(message, {"t": "result", "payload": b"\xffabc\x00"})
            a.sendall(frame_bytes({"t": "result", "payload": 5}) + b"ab")
            a.close()
            self.assertIsNone(read_frame_blocking(b.fileno(), 5))
        finally:
            b.close()

    def test_read_frame_blocking_gives_up_at_its_timeout(self):
        a, b = _pair()
        try:
            started = time.monotonic()
            self.assertIsNone(read_frame_blocking(b.fileno(), 0.05))
            self.assertGreaterEqual(time.monotonic() - started, 0.05)
        finally:
            a.close()
            b.close()

    def test_a_descriptor_rides_on_a_frame(self):
        a, b = _pair()
        r, w = os.pipe()
        try:
            send_with_fd(a, frame_bytes({"t": "attempt"}), w)
            message, fd = recv_frame_with_fd(b)
            self.assertEqual(message, {"t": "attempt"})
            os.write(fd, b"x")
            os.close(fd)
            self.assertEqual(os.read(r, 1), b"x")
            a.sendmsg([b"F"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", w))])
            fd = recv_fd(b)
            self.assertIsInstance(fd, int)
            os.close(fd)
            a.sendall(b"F")
            with self.assertRaisesRegex(ProtocolError, "call socket"):
                recv_fd(b)
        finally:
            for fd in (r, w):
                os.close(fd)
            a.close()
            b.close()


class Calls(unittest.TestCase):
    def setUp(self):
        self.judge, self.child = _pair()
        self.control, self.zygote = _pair()

    def tearDown(self):
        for sock in (self.judge, self.child, self.control, self.zygote):
            sock.close()

    def channel(self, seconds):
        return CallChannel(self.judge, self.control.fileno(), time.monotonic() + seconds)

    def test_a_reply_within_the_deadline(self):
        channel = self.channel(5)
        channel.send(frame_bytes({"t": "call", "id": 1}))
        self.assertEqual(read_frame(self.child.fileno()), {"t": "call", "id": 1})
        write_frame(self.child.fileno(), {"t": "return", "id": 1})
        self.assertEqual(channel.receive(), {"t": "return", "id": 1})

    def test_no_reply_is_a_timeout(self):
        with self.assertRaises(TimeoutError):
            self.channel(0.05).receive()

    def test_a_frame_over_the_reply_limit_closes_the_channel(self):
        self.child.sendall(struct.pack(">I", MAX_REPLY_BYTES + 1))
        with self.assertRaisesRegex(ChannelClosed, "over the limit"):
            self.channel(5).receive()

    def test_the_zygotes_result_ends_the_attempt_after_what_was_written(self):
        channel = self.channel(5)
        write_frame(self.child.fileno(), {"t": "return", "id": 1})
        write_frame(self.zygote.fileno(), {"t": "result", "healthy": True})
        self.assertEqual(channel.receive(), {"t": "return", "id": 1})
        with self.assertRaisesRegex(ChannelClosed, "ended"):
            channel.receive()
        self.assertEqual(channel.worker_result, {"t": "result", "healthy": True})

    def test_a_closed_peer_ends_the_attempt(self):
        self.child.close()
        with self.assertRaisesRegex(ChannelClosed, "ended"):
            self.channel(5).receive()


if __name__ == "__main__":
    unittest.main()
