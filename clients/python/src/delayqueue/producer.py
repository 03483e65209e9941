# Copyright 2026 the delayqueue authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      https://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""A producer of delayqueue's protocol v1 on redis-py (single server or Cluster)."""

import base64
import enum
import os
import queue as _queue
import re
import threading
import time
from collections.abc import Iterable as _Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from importlib import resources
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

from redis.exceptions import ResponseError

from . import _wire

Payload = Union[bytes, bytearray, memoryview, str]

_MAX_PAYLOAD = 1024 * 1024
_MAX_HEADERS = 16 * 1024
_CHUNK = 500
# an int on the Java side
_MAX_ATTEMPTS = 2**31 - 1
# how long a queue's partition count is used before it is read again
_LAYOUT_SECONDS = 5.0
# idle worker threads kept for Redis calls, and how long one waits for work before it ends
_IDLE_WORKERS = 8
_IDLE_SECONDS = 60.0


class DelayQueueError(Exception):
    """A failure of a delayqueue operation."""


class ProtocolVersionError(DelayQueueError):
    """The queue speaks a producer protocol version this client does not."""


class OperationTimeoutError(DelayQueueError, TimeoutError):
    """Redis did not answer within the producer's operation timeout.

    The operation may have been applied (the command may still run once Redis answers again):
    retry a send with the same message ids (``ids``, generated ones included), which then
    answers DUPLICATE if it was. In a send_all of several script calls, ``results`` holds the
    answers of those before (None: not answered).
    """

    def __init__(self, message: str, timeout: timedelta, ids: Sequence[str] = (),
                 results: Optional[Sequence[Optional["SendResult"]]] = None):
        super().__init__(message)
        self.timeout = timeout
        self.ids = list(ids)
        self.results = None if results is None else list(results)


class QueueFullError(DelayQueueError):
    """The queue's size limit refused the message: nothing was written."""

    def __init__(self, queue: str, message_id: str, limit: int):
        super().__init__(f"Queue '{queue}' is full: it holds its limit of {limit} waiting messages "
                         f"(message '{message_id}' was not sent)")
        self.queue = queue
        self.message_id = message_id
        self.limit = limit


class Status(enum.Enum):
    """What a send did, as the Java template's SendResult.Status."""
    SCHEDULED = 1
    READY = 2
    DUPLICATE = 3
    REPLACED = 4
    REFUSED = 5


@dataclass(frozen=True)
class SendResult:
    queue: str
    id: str
    status: Status
    due: Optional[datetime]
    """The due time (UTC, Redis clock); None when refused."""
    limit: Optional[int] = None
    """When refused: the queue's size limit."""


@dataclass
class Message:
    """A message to send; exactly one of delay and at may be given (neither: due at once)."""
    queue: str
    payload: Payload
    delay: Optional[timedelta] = None
    at: Optional[datetime] = None
    id: Optional[str] = None
    key: Optional[str] = None
    headers: Optional[Mapping] = None
    priority: int = 0
    expire_after: Optional[timedelta] = None
    max_attempts: Optional[int] = None
    replace: bool = False


def _script(name: str) -> str:
    return resources.files(__package__).joinpath(f"scripts/v{_wire.PROTOCOL_VERSION}/{name}.lua").read_text("utf-8")


class _TimedOut(Exception):
    """A Redis call that did not answer by its deadline."""


class _Job:
    __slots__ = ("work", "done", "value", "error")

    def __init__(self, work):
        self.work = work
        self.done = threading.Event()
        self.value = None
        self.error = None

    def run(self):
        try:
            self.value = self.work()
        except BaseException as ex:  # handed to the caller
            self.error = ex
        finally:
            self.done.set()


class _Calls:
    """Runs each Redis call on a worker thread, so that its caller waits until a deadline at most.

    A call that did not answer in time is not taken back: its worker waits on (as long as the
    redis client's own socket timeout lets it) and Redis may still run the command. The next
    call takes another worker, so a hung connection holds up no other call.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._idle: List["_queue.SimpleQueue"] = []

    def call(self, deadline: float, work):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _TimedOut()
        job = _Job(work)
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = _queue.SimpleQueue()
            threading.Thread(target=self._work, args=(inbox,), name="delayqueue-redis-call", daemon=True).start()
        inbox.put(job)
        if not job.done.wait(remaining):
            raise _TimedOut()
        if job.error is not None:
            raise job.error
        return job.value

    def _work(self, inbox) -> None:
        while True:
            try:
                job = inbox.get(timeout=_IDLE_SECONDS)
            except _queue.Empty:
                with self._lock:
                    if inbox in self._idle:
                        self._idle.remove(inbox)
                        return
                # a caller took this worker just now: its job comes
                continue
            job.run()
            job = None
            with self._lock:
                if len(self._idle) >= _IDLE_WORKERS:
                    return
                self._idle.append(inbox)


def _millis(delta: timedelta) -> int:
    # rounded up to the next whole millisecond, as the Java side does
    micros = delta // timedelta(microseconds=1)
    return -(-micros // 1000)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_time(delay: Any, at: Any) -> None:
    if delay is not None and not isinstance(delay, timedelta):
        raise ValueError(f"A delay must be a timedelta, but was {_wire.describe(delay)}")
    if at is not None and not isinstance(at, datetime):
        raise ValueError(f"A time (at) must be a datetime, but was {_wire.describe(at)}")


def _check_key(key: Any) -> Optional[str]:
    return None if key is None else _wire.check_id("Message key", key)


def _epoch_millis(at: datetime) -> int:
    if at.tzinfo is None:
        raise ValueError(f"Delivery time {at} has no time zone: give an aware datetime (e.g. timezone.utc)")
    return _millis(at - datetime(1970, 1, 1, tzinfo=timezone.utc))


class Producer:
    """Sends, cancels and reschedules messages of delayqueue queues.

    :param redis: a redis.Redis or redis.cluster.RedisCluster client; replies must be bytes
        (the default, decode_responses=False)
    :param prefix: the key prefix of the Java engines (delayqueue.key-prefix, default "dq")
    :param fair_share: the queues declared fair-share on the Java side
    :param compact_after: the engines' compactAfter (far tier), None to write no far tier
    :param operation_timeout: the longest a send, cancel or reschedule waits for Redis (send_all:
        each script call); past it the call raises OperationTimeoutError (it may have been applied)
    """

    def __init__(self, redis: Any, prefix: str = "dq", fair_share: Iterable[str] = (),
                 compact_after: Optional[timedelta] = timedelta(minutes=2), compact_minimum: int = 64,
                 operation_timeout: timedelta = timedelta(seconds=2)):
        if not isinstance(prefix, str):
            raise ValueError(f"Key prefix must be a str, but was {_wire.describe(prefix)}")
        if not re.fullmatch(r"[A-Za-z0-9._:-]{1,64}", prefix):
            raise ValueError(f"Key prefix '{_wire.shown(prefix)}' must be 1 to 64 of letters, digits, '.', '_', ':' "
                             f"and '-'")
        encoder = getattr(redis, "get_encoder", None)
        if encoder is not None and getattr(encoder(), "decode_responses", False):
            raise ValueError("The redis client must return bytes (decode_responses=False)")
        if not _is_int(compact_minimum) or compact_minimum < 1:
            raise ValueError(f"compact_minimum must be an int of at least 1, but was {_wire.describe(compact_minimum)}")
        if isinstance(fair_share, (str, bytes)) or not isinstance(fair_share, _Iterable):
            raise ValueError(f"fair_share must be a collection of queue names, but was {_wire.describe(fair_share)}")
        if not isinstance(operation_timeout, timedelta) or operation_timeout <= timedelta(0):
            raise ValueError(f"operation_timeout must be a positive timedelta, but was "
                             f"{_wire.describe(operation_timeout)}")
        self._redis = redis
        self._prefix = prefix
        self._fair = {_wire.check_name("Queue", q) for q in fair_share}
        if compact_after is None:
            self._compact = "0"
        else:
            if not isinstance(compact_after, timedelta) or compact_after <= timedelta(0):
                raise ValueError(f"compact_after must be a positive timedelta or None, but was "
                                 f"{_wire.describe(compact_after)}")
            self._compact = f"{_millis(compact_after)}:{compact_minimum}"
        self._timeout = operation_timeout
        self._timeout_seconds = operation_timeout.total_seconds()
        self._timeout_ms = _millis(operation_timeout)
        self._calls = _Calls()
        self._scripts = {name: redis.register_script(_script(name)) for name in ("send", "cancel", "reschedule")}
        self._partitions: Dict[str, Tuple[int, float]] = {}
        self._registered: Set[str] = set()
        self._lock = threading.Lock()

    # -- layout ---------------------------------------------------------------------------

    @property
    def operation_timeout(self) -> timedelta:
        """The longest a send, cancel or reschedule waits for Redis (send_all: each script call)."""
        return self._timeout

    def _deadline(self) -> float:
        return time.monotonic() + self._timeout_seconds

    def partitions(self, queue: str, refresh: bool = False) -> int:
        """The queue's partition count, read from P:{queue}:meta (absent: 1), again after 5 seconds."""
        _wire.check_name("Queue", queue)
        try:
            return self._layout(queue, refresh, self._deadline())
        except _TimedOut:
            raise OperationTimeoutError(f"Cannot read the partition count of queue '{queue}': Redis did not answer "
                                        f"within {self._timeout_ms} ms", self._timeout) from None

    def _layout(self, queue: str, refresh: bool, deadline: float) -> int:
        with self._lock:
            known = self._partitions.get(queue)
        if known is not None and not refresh and time.monotonic() - known[1] < _LAYOUT_SECONDS:
            return known[0]
        meta = _wire.Keys(self._prefix, queue, queue).key("meta")
        count, protocol = self._calls.call(deadline, lambda: self._redis.hmget(meta, "partitions", "protocol"))
        if protocol is not None and protocol.decode() != str(_wire.PROTOCOL_VERSION):
            raise ProtocolVersionError(
                f"Queue '{queue}' speaks producer protocol {protocol.decode()}; this client speaks "
                f"{_wire.PROTOCOL_VERSION}: upgrade the client (docs/protocol.md)")
        partitions = int(count) if count is not None else 1
        if not 1 <= partitions <= _wire.MAX_PARTITIONS:
            raise DelayQueueError(f"Queue '{queue}' declares {partitions} partitions, outside 1 to "
                                  f"{_wire.MAX_PARTITIONS}")
        with self._lock:
            self._partitions[queue] = (partitions, time.monotonic())
        if queue not in self._registered:
            self._calls.call(deadline, lambda: self._redis.sadd(f"{self._prefix}:queues", queue))
            with self._lock:
                self._registered.add(queue)
        return partitions

    def _keys(self, queue: str, partition: int, partitions: int) -> "_wire.Keys":
        return _wire.Keys(self._prefix, queue, _wire.partition_tag(queue, partition, partitions))

    def _run(self, deadline: float, name: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        # EVALSHA; redis-py loads the script and runs it again on NOSCRIPT
        script = self._scripts[name]
        return self._calls.call(deadline, lambda: script(keys=list(keys), args=list(args)))

    # -- send -----------------------------------------------------------------------------

    def send(self, queue: str, payload: Payload, *, delay: Optional[timedelta] = None,
             at: Optional[datetime] = None, id: Optional[str] = None, key: Optional[str] = None,
             headers: Optional[Dict[str, str]] = None, priority: int = 0,
             expire_after: Optional[timedelta] = None, max_attempts: Optional[int] = None,
             replace: bool = False) -> SendResult:
        """Sends one message. A queue over its size limit raises QueueFullError; a Redis that does not
        answer within the operation timeout, OperationTimeoutError."""
        message = Message(queue, payload, delay=delay, at=at, id=id, key=key, headers=headers,
                          priority=priority, expire_after=expire_after, max_attempts=max_attempts,
                          replace=replace)
        result = self._send([message], self._deadline(), False)[0]
        if result.status is Status.REFUSED:
            raise QueueFullError(queue, result.id, result.limit)
        return result

    def send_all(self, messages: Iterable[Message]) -> List[SendResult]:
        """Sends messages, one script call per partition and 500 messages; refused ones have status REFUSED.

        Every message is checked before anything is written: one bad message fails the call and sends none.
        Each script call (and each read of a queue's layout) waits for Redis the operation timeout at most.
        """
        if isinstance(messages, (str, bytes, Message)) or not isinstance(messages, _Iterable):
            raise ValueError(f"send_all takes a list of Message, but was {_wire.describe(messages)}")
        return self._send(list(messages), None, True)

    def _send(self, messages: List[Any], deadline: Optional[float], indexed: bool) -> List[SendResult]:
        """Sends messages by one deadline, or (None) each Redis call by a deadline of its own."""
        prepared = [self._prepare(m, i if indexed else None) for i, m in enumerate(messages)]

        def due() -> float:
            return deadline if deadline is not None else self._deadline()

        results: List[Optional[SendResult]] = [None] * len(prepared)
        groups: Dict[Tuple[str, int, int], List[int]] = {}
        layouts: Dict[str, int] = {}
        waiting: Tuple[str, List[str]] = ("", [])
        try:
            for index, (queue, partition_key, *_rest) in enumerate(prepared):
                if queue not in layouts:
                    waiting = (queue, [])
                    layouts[queue] = self._layout(queue, False, due())
                partitions = layouts[queue]
                groups.setdefault((queue, partitions, _wire.partition_of(partition_key, partitions)),
                                  []).append(index)
            for (queue, partitions, partition), indexes in groups.items():
                for start in range(0, len(indexes), _CHUNK):
                    chunk = indexes[start:start + _CHUNK]
                    waiting = (queue, [prepared[i][2] for i in chunk])
                    self._send_chunk(queue, partitions, partition, chunk, prepared, results, due)
        except _TimedOut:
            raise self._send_timed_out(waiting[0], waiting[1], results) from None
        return [r for r in results if r is not None]

    def _send_timed_out(self, queue: str, ids: List[str], results: List[Optional[SendResult]]):
        if not ids:
            return OperationTimeoutError(
                f"Cannot send to queue '{queue}': Redis did not answer within {self._timeout_ms} ms while the queue's "
                f"partition count was read; no message of this call was sent", self._timeout, ids, results)
        plural = len(ids) > 1
        shown = ", ".join(f"'{_wire.shown(i)}'" for i in ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        others = ("; of the other messages of this call, those before were answered (error.results) and those "
                  "after were not sent") if len(ids) < len(results) else ""
        return OperationTimeoutError(
            f"Cannot send to queue '{queue}': Redis did not answer within {self._timeout_ms} ms; the send may have "
            f"been applied (message{'s' if plural else ''} {shown}, in error.ids): retry with the same message "
            f"id{'s' if plural else ''}, which then answer{'' if plural else 's'} DUPLICATE if it was{others}",
            self._timeout, ids, results)

    def _send_chunk(self, queue, partitions, partition, chunk, prepared, results, due, retried=False):
        keys = self._keys(queue, partition, partitions)
        args: List[Any] = [keys.wake_channel(), len(chunk), partitions, "1" if queue in self._fair else "0",
                           self._compact]
        for index in chunk:
            _q, _pk, message_id, env, kind, value, mode = prepared[index]
            args += [message_id, env, kind, value, mode]
        try:
            reply = self._run(due(), "send", keys.send_keys(), args)
        except ResponseError as ex:
            if str(ex).startswith("DQRETIRED") and not retried:
                # the partition count changed since it was read: read it again, send again
                current = self._layout(queue, True, due())
                regrouped: Dict[int, List[int]] = {}
                for index in chunk:
                    regrouped.setdefault(_wire.partition_of(prepared[index][1], current), []).append(index)
                for other, indexes in regrouped.items():
                    self._send_chunk(queue, current, other, indexes, prepared, results, due, retried=True)
                return
            raise DelayQueueError(f"Cannot send to queue '{queue}': {ex}") from ex
        for i, index in enumerate(chunk):
            status = Status(int(reply[2 * i]))
            value = int(reply[2 * i + 1])
            message_id = prepared[index][2]
            if status is Status.REFUSED:
                results[index] = SendResult(queue, message_id, status, None, value)
            else:
                due = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=value)
                results[index] = SendResult(queue, message_id, status, due)

    def _prepare(self, m: Message, index: Optional[int]):
        if not isinstance(m, Message):
            which = "A message" if index is None else f"Message {index} of send_all"
            raise ValueError(f"{which} must be a Message, but was {_wire.describe(m)}")
        queue = _wire.check_name("Queue", m.queue)
        if m.payload is None:
            raise ValueError("Payload must not be None")
        if not isinstance(m.payload, (bytes, bytearray, memoryview, str)):
            raise ValueError(f"Payload must be bytes or str (the bytes the consumer's codec reads), but was "
                             f"{_wire.describe(m.payload)}")
        payload = _wire.utf8("Payload (a str)", m.payload, show=False) if isinstance(m.payload, str) \
            else bytes(m.payload)
        if len(payload) > _MAX_PAYLOAD:
            raise ValueError(f"Payload for queue '{queue}' is {len(payload)} bytes, over the limit of "
                             f"{_MAX_PAYLOAD} bytes")
        if m.headers is not None and not isinstance(m.headers, Mapping):
            raise ValueError(f"Headers must be a dict of str to str, but were {_wire.describe(m.headers)}")
        headers = dict(m.headers or {})
        for name, value in headers.items():
            if not isinstance(name, str):
                raise ValueError(f"Header name must be a str, but was {_wire.describe(name)}")
            _wire.utf8("Header name", name)
            if not isinstance(value, str):
                raise ValueError(f"Header '{_wire.shown(name)}' must have a str value, but was {_wire.describe(value)}")
            _wire.utf8(f"Header '{_wire.shown(name)}' value", value)
        if _wire.headers_size(headers) > _MAX_HEADERS:
            raise ValueError(f"Headers for queue '{queue}' are {_wire.headers_size(headers)} bytes, over the "
                             f"limit of {_MAX_HEADERS} bytes")
        if m.delay is not None and m.at is not None:
            raise ValueError("Give a delay or a time (at), not both")
        _check_time(m.delay, m.at)
        if m.at is not None:
            kind, value = "a", _epoch_millis(m.at)
            if value > _wire.MAX_DUE_MS:
                raise ValueError(f"Delivery time must be at most 9999-12-31T23:59:59.999Z, but was {m.at}")
            if value < -62167219200000:
                raise ValueError(f"Delivery time must be at least 0000-01-01T00:00:00Z, but was {m.at}")
        else:
            kind, value = "d", max(0, _millis(m.delay)) if m.delay is not None else 0
        if not _is_int(m.priority):
            raise ValueError(f"Priority must be an int from 0 to {_wire.MAX_PRIORITY}, but was "
                             f"{_wire.describe(m.priority)}")
        if not 0 <= m.priority <= _wire.MAX_PRIORITY:
            raise ValueError(f"Priority must be from 0 to {_wire.MAX_PRIORITY}, but was {m.priority}")
        expire = 0
        if m.expire_after is not None:
            if not isinstance(m.expire_after, timedelta):
                raise ValueError(f"Expire-after must be a timedelta, but was {_wire.describe(m.expire_after)}")
            expire = _millis(m.expire_after)
            if not 1 <= expire <= _wire.MAX_EXPIRE_AFTER_MS:
                raise ValueError(f"Expire-after must be from 1 ms to 3650 days (it counts from the due time), "
                                 f"but was {m.expire_after}")
        attempts = 0
        if m.max_attempts is not None:
            if not _is_int(m.max_attempts):
                raise ValueError(f"Max attempts must be an int from 1 to {_MAX_ATTEMPTS}, but was "
                                 f"{_wire.describe(m.max_attempts)}")
            if not 1 <= m.max_attempts <= _MAX_ATTEMPTS:
                raise ValueError(f"Max attempts must be from 1 to {_MAX_ATTEMPTS}, but was {m.max_attempts}")
            attempts = m.max_attempts
        if not isinstance(m.replace, bool):
            raise ValueError(f"replace must be True or False, but was {_wire.describe(m.replace)}")
        _check_key(m.key)
        if m.id is None:
            if m.replace:
                raise ValueError("replace needs an id: a message with a generated id replaces nothing")
            message_id, mode = base64.urlsafe_b64encode(os.urandom(12)).decode("ascii").rstrip("="), "2"
        else:
            message_id, mode = _wire.check_message_id(m.id), ("1" if m.replace else "0")
        env = _wire.envelope(payload, headers, attempts, expire, m.key, m.priority)
        partition_key = m.key if m.key is not None else message_id
        return queue, partition_key, message_id, env, kind, value, mode

    # -- cancel and reschedule -------------------------------------------------------------

    def _in_each_partition(self, queue: str, message_id: str, key: Optional[str], deadline: float,
                           operation) -> bool:
        partitions = self._layout(queue, False, deadline)
        first = _wire.partition_of(key if key is not None else message_id, partitions)
        if operation(self._keys(queue, first, partitions)):
            return True
        return any(operation(self._keys(queue, p, partitions)) for p in range(partitions) if p != first)

    def cancel(self, queue: str, id: str, key: Optional[str] = None) -> bool:
        """Cancels a scheduled message; True when it was scheduled (not yet due)."""
        _wire.check_name("Queue", queue)
        _wire.check_id("Message id", id)
        _check_key(key)
        deadline = self._deadline()
        try:
            return self._in_each_partition(
                queue, id, key, deadline,
                lambda keys: int(self._run(deadline, "cancel", keys.cancel_keys(), [id])) == 1)
        except _TimedOut:
            raise self._timed_out("cancel", queue, id, "a retry then answers False if it was") from None

    def _timed_out(self, what: str, queue: str, message_id: str, retry: str) -> OperationTimeoutError:
        return OperationTimeoutError(
            f"Cannot {what} message '{_wire.shown(message_id)}' in queue '{queue}': Redis did not answer within "
            f"{self._timeout_ms} ms; the {what} may have been applied: {retry}", self._timeout, [message_id])

    def reschedule(self, queue: str, id: str, *, delay: Optional[timedelta] = None,
                   at: Optional[datetime] = None, key: Optional[str] = None) -> bool:
        """Moves a scheduled message to a new time; True when it was scheduled (not yet due)."""
        _wire.check_name("Queue", queue)
        _wire.check_id("Message id", id)
        _check_key(key)
        if (delay is None) == (at is None):
            raise ValueError("Give a delay or a time (at), exactly one")
        _check_time(delay, at)
        if at is not None:
            kind, value = "a", _epoch_millis(at)
            if value > _wire.MAX_DUE_MS:
                raise ValueError(f"Delivery time must be at most 9999-12-31T23:59:59.999Z, but was {at}")
        else:
            kind, value = "d", max(0, _millis(delay))

        deadline = self._deadline()

        def operation(keys):
            reply = self._run(deadline, "reschedule", keys.reschedule_keys(),
                              [id, kind, value, keys.wake_channel(), self._compact])
            return int(reply[0]) == 1

        try:
            return self._in_each_partition(queue, id, key, deadline, operation)
        except _TimedOut:
            raise self._timed_out("reschedule", queue, id, "a retry moves it again while it is scheduled") from None
