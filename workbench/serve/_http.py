"""A small HTTP/1.1 server on asyncio and h11, made for garbage clients as much as for
agents: one task per connection, so a slow or broken client never holds up the others.

- Bad HTTP gets a 400 and the connection is closed; a head (request line and headers)
  over ``max_head`` bytes a 431, however it was cut into reads.
- A body larger than ``max_body`` gets a 413 before it is read (``Content-Length``) or
  as soon as it goes past the limit (chunked); the connection is closed.
- Each request, head and body, must arrive within ``request_timeout`` of the moment the
  server starts waiting for it (a slow-loris dribbling bytes is cut off with a 408).
- A handler may hold a request (``HOLD``): nothing is answered until the client hangs up
  or the server stops. A handler may also be a coroutine function (work it hands to a
  thread then leaves the other connections served meanwhile); ``PEER`` holds the
  address of the client whose request it answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import socket
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import h11

from ..model import UsageError, dumps_bytes

__all__ = ["HOLD", "PEER", "HttpServer", "Limits", "Reply", "error_reply"]

HOLD = object()  # a handler's answer meaning "record it, never answer"
#: the client's address (host, port) while its connection's requests are handled
PEER: ContextVar[tuple[str, int]] = ContextVar("PEER", default=("", 0))


#: the largest ``max_body`` (a body is held in memory) and ``request_timeout`` accepted
MAX_BODY = 1 << 30
MAX_REQUEST_TIMEOUT = 3600.0


@dataclass(frozen=True, slots=True)
class Limits:
    """The server's bounds; out-of-range values (NaN, infinities, negatives, more than
    ``MAX_BODY`` bytes or ``MAX_REQUEST_TIMEOUT`` seconds) are ``USAGE``."""

    max_body: int = 10 << 20
    max_head: int = 64 << 10
    request_timeout: float = 30.0

    def __post_init__(self) -> None:
        if not 0 <= self.max_body <= MAX_BODY:
            raise UsageError(f"--max-body {self.max_body} is not 0 to {MAX_BODY} bytes",
                             hint="a body is held in memory while it arrives; 1 GiB at "
                                  "most")
        if not 0 < self.request_timeout <= MAX_REQUEST_TIMEOUT:  # NaN fails both
            raise UsageError(f"--request-timeout {self.request_timeout} is not above 0 and "
                             f"at most {MAX_REQUEST_TIMEOUT:g} seconds",
                             hint="a finite number of seconds: a client that never "
                                  "finishes its request must be cut off")
        if not 0 < self.max_head <= MAX_BODY:
            raise UsageError(f"a request head limit of {self.max_head} bytes is out of range")


@dataclass(slots=True)
class Reply:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


Handler = Callable[[str, str, list[tuple[str, str]], bytes], Any]


class _Cut(Exception):
    """The client is cut off, with this reply if one can still be sent."""

    def __init__(self, reply: Reply | None) -> None:
        self.reply = reply


def error_reply(status: int, code: str, message: str) -> Reply:
    body = dumps_bytes({"error": {"code": code, "message": message}})
    return Reply(status, [("content-type", "application/json")], body)


class HttpServer:
    """Serves ``handler`` on an already bound, listening socket until ``stop``."""

    def __init__(self, sock: socket.socket, handler: Handler, limits: Limits) -> None:
        self.sock, self.handler, self.limits = sock, handler, limits
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = asyncio.Event()
        self.served = 0

    async def run(self) -> None:
        server = await asyncio.start_server(self._connection, sock=self.sock,
                                            limit=self.limits.max_head)
        async with server:
            await self._stopping.wait()
            server.close()
            for t in list(self._tasks):
                t.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def stop(self) -> None:
        self._stopping.set()

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        peer = writer.get_extra_info("peername")
        PEER.set(tuple(peer[:2]) if isinstance(peer, tuple) else ("", 0))
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=self.limits.max_head)
        try:
            while await self._one(conn, reader, writer):
                conn.start_next_cycle()
        except _Cut as cut:
            if cut.reply is not None and conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                with contextlib.suppress(Exception):
                    self._send(conn, writer, cut.reply, close=True)
                    await asyncio.wait_for(writer.drain(), 1.0)
        except (ConnectionError, asyncio.CancelledError, h11.LocalProtocolError, OSError):
            pass
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1.0)

    async def _one(self, conn: h11.Connection, reader: asyncio.StreamReader,
                   writer: asyncio.StreamWriter) -> bool:
        """Serve one request; False when the connection is done."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.request_timeout
        ev = await self._event(conn, reader, deadline)
        if isinstance(ev, h11.ConnectionClosed):
            return False
        if not isinstance(ev, h11.Request):
            raise _Cut(error_reply(400, "bad_request", "expected a request"))
        if _head_size(ev) > self.limits.max_head:
            raise _Cut(error_reply(431, "head_too_large",
                                   f"the request head is over {self.limits.max_head} bytes"))
        headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in ev.headers]
        length = next((v for k, v in headers if k == "content-length"), None)
        if length is not None and length.isdigit() and int(length) > self.limits.max_body:
            raise _Cut(_too_large(self.limits.max_body))
        body = bytearray()
        while True:
            part = await self._event(conn, reader, deadline)
            if isinstance(part, h11.Data):
                body += part.data
                if len(body) > self.limits.max_body:
                    raise _Cut(_too_large(self.limits.max_body))
            elif isinstance(part, h11.EndOfMessage):
                break
            else:
                return False
        reply = self.handler(ev.method.decode("latin-1"), ev.target.decode("latin-1"),
                             headers, bytes(body))
        if inspect.isawaitable(reply):
            reply = await reply
        self.served += 1
        if not isinstance(reply, Reply):
            await self._hold(reader)
            return False
        self._send(conn, writer, reply, close=False)
        await writer.drain()
        return conn.our_state is h11.DONE and conn.their_state is h11.DONE

    async def _event(self, conn: h11.Connection, reader: asyncio.StreamReader,
                     deadline: float) -> Any:
        loop = asyncio.get_running_loop()
        while True:
            try:
                ev = conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise _Cut(error_reply(exc.error_status_hint, "bad_request",
                                       f"not HTTP/1.1 as expected: {exc}")) from None
            if ev is not h11.NEED_DATA:
                return ev
            left = deadline - loop.time()
            if left <= 0:
                raise _Cut(_timeout() if conn.their_state is not h11.IDLE
                           or conn.trailing_data[0] else None)
            try:
                data = await asyncio.wait_for(reader.read(65536), left)
            except TimeoutError:
                raise _Cut(_timeout() if conn.their_state is not h11.IDLE
                           or conn.trailing_data[0] else None) from None
            conn.receive_data(data)

    async def _hold(self, reader: asyncio.StreamReader) -> None:
        """Wait, answering nothing, until the client hangs up or the server stops."""
        stop = asyncio.ensure_future(self._stopping.wait())
        gone = asyncio.ensure_future(_until_eof(reader))
        try:
            await asyncio.wait({stop, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            gone.cancel()

    @staticmethod
    def _send(conn: h11.Connection, writer: asyncio.StreamWriter, reply: Reply, *,
              close: bool) -> None:
        headers = [*reply.headers, ("content-length", str(len(reply.body)))]
        if close:
            headers.append(("connection", "close"))
        out = conn.send(h11.Response(status_code=reply.status, headers=headers))
        data = conn.send(h11.Data(data=reply.body)) if reply.body else b""
        end = conn.send(h11.EndOfMessage())
        writer.write((out or b"") + (data or b"") + (end or b""))


async def _until_eof(reader: asyncio.StreamReader) -> None:
    while await reader.read(65536):
        pass


def _head_size(ev: h11.Request) -> int:
    """The bytes of a request's head as sent, give or take its white space (h11 checks
    only what it holds unparsed at once, so a head split across reads can pass it)."""
    line = len(ev.method) + len(ev.target) + 11  # "M T HTTP/1.1\r\n"
    return line + sum(len(k) + len(v) + 4 for k, v in ev.headers.raw_items()) + 2


def _too_large(limit: int) -> Reply:
    return error_reply(413, "body_too_large", f"the request body is over {limit} bytes")


def _timeout() -> Reply:
    return error_reply(408, "request_timeout", "the request did not arrive in time")
