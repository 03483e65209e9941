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
"""The producer side of the conformance suite (ProducerConformanceContract in delayqueue-core).

Sends messages of every kind with the delayqueue client and prints, as one JSON document on
stdout, what a Java consumer must see: each message to deliver (payload bytes, headers, key,
due time), each that must never arrive, and the scheduled ones to inspect.

    python3 conformance.py --host 127.0.0.1 --port 7000 [--cluster] [--timeout-ms N] \
        --phase schedule|deliver|version|retired|surrogates|types|timeout QUEUE
"""

import argparse
import json
import os
import random
import sys
import time
from datetime import datetime, timedelta, timezone

import redis
from redis.cluster import RedisCluster

from delayqueue import Message, OperationTimeoutError, Producer, ProtocolVersionError, Status, _wire

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def ms(at: datetime) -> int:
    return (at - EPOCH) // timedelta(milliseconds=1)


def refusals(calls) -> dict:
    """Runs each call that must fail before anything is written: its error message, or None when it did not fail."""
    errors = {}
    for name, call in calls:
        try:
            call()
            errors[name] = None
        except ValueError as ex:
            errors[name] = str(ex)
    return errors


def redis_now(client) -> datetime:
    seconds, micros = client.time()
    return EPOCH + timedelta(seconds=seconds, microseconds=micros)


def described(result, payload: bytes, headers=None, key=None, priority=0, expire_ms=0, attempts=0):
    return {"id": result.id, "status": result.status.name, "due": ms(result.due), "payload": payload.hex(),
            "headers": headers or {}, "key": key, "priority": priority, "expire_ms": expire_ms,
            "max_attempts": attempts,
            "envelope": _wire.envelope(payload, headers or {}, attempts, expire_ms, key, priority).hex()}


def schedule(producer: Producer, client, queue: str, out: dict) -> None:
    """Messages due in an hour, of every kind: the Java side reads them back from Redis."""
    rng = random.Random(7)
    hour = timedelta(hours=1)
    kinds = [
        dict(id="plain", payload=b"plain"),
        dict(id="binary", payload=bytes(range(256))),
        dict(id="empty", payload=b""),
        dict(id="headers", payload=b"{}", headers={"tenant": "acme", "trace": "\u00e9\u6f22\U0001F600", "": "empty"}),
        dict(id="keyed", payload=b"k", key="customer-42"),
        dict(id="priority", payload=b"p", priority=9),
        dict(id="expiring", payload=b"e", expire_after=timedelta(minutes=5)),
        dict(id="attempts", payload=b"a", max_attempts=3),
        dict(id="everything", payload=bytes(rng.randrange(256) for _ in range(300)), key="k\u00e9y",
             headers={"a": "1", "b": "2"}, priority=4, expire_after=timedelta(seconds=90), max_attempts=2),
        dict(id="\u00fcnicode-id", payload=b"u"),
    ]
    scheduled = []
    for kind in kinds:
        result = producer.send(queue, kind["payload"], delay=hour, id=kind["id"], key=kind.get("key"),
                               headers=kind.get("headers"), priority=kind.get("priority", 0),
                               expire_after=kind.get("expire_after"), max_attempts=kind.get("max_attempts"))
        expire = kind.get("expire_after")
        scheduled.append(described(result, kind["payload"], kind.get("headers"), kind.get("key"),
                                   kind.get("priority", 0), expire // timedelta(milliseconds=1) if expire else 0,
                                   kind.get("max_attempts") or 0))
    # at an absolute time, then a duplicate (kept) and a replacement (new payload and time)
    at = redis_now(client) + 2 * hour
    first = producer.send(queue, b"first", at=at, id="at-time")
    duplicate = producer.send(queue, b"second", at=at + hour, id="at-time")
    replaced = producer.send(queue, b"third", at=at + 2 * hour, id="replaced-at", key=None)
    replacement = producer.send(queue, b"fourth", at=at + 3 * hour, id="replaced-at", replace=True)
    scheduled.append(described(first, b"first"))
    scheduled.append(described(replacement, b"fourth"))
    out["statuses"] = {"first": first.status.name, "duplicate": duplicate.status.name,
                       "duplicate_due": ms(duplicate.due), "first_due": ms(first.due),
                       "replaced": replaced.status.name, "replacement": replacement.status.name}
    # bulk: 1,200 messages over the partitions, in chunks of 500 per partition
    bulk = producer.send_all([Message(queue, b"bulk-%d" % i, delay=hour, id="bulk-%d" % i, key="bk-%d" % (i % 7))
                              for i in range(1200)])
    out["bulk"] = {"count": len(bulk), "scheduled": sum(1 for r in bulk if r.status is Status.SCHEDULED)}
    out["scheduled"] = scheduled
    # the clear errors of bad input (nothing is written for them)
    out["errors"] = refusals([
        ("queue", lambda: producer.send("bad queue!", b"x")),
        ("id", lambda: producer.send(queue, b"x", id="")),
        ("reserved_id", lambda: producer.send(queue, b"x", id="schedule/x/1")),
        ("c1_id", lambda: producer.send(queue, b"x", id="a\u0085b")),
        ("priority", lambda: producer.send(queue, b"x", priority=10)),
        ("expire", lambda: producer.send(queue, b"x", expire_after=timedelta(0))),
        ("attempts", lambda: producer.send(queue, b"x", max_attempts=0)),
        ("both_times", lambda: producer.send(queue, b"x", delay=hour, at=at)),
        ("naive_time", lambda: producer.send(queue, b"x", at=datetime(2030, 1, 1))),
        ("far_time", lambda: producer.send(queue, b"x", at=datetime(9999, 12, 31, 23, 59, 59, 999999,
                                                                      tzinfo=timezone.utc))),
        ("payload", lambda: producer.send(queue, b"x" * (1024 * 1024 + 1))),
        ("header", lambda: producer.send(queue, b"x", headers={"n": 1})),
        ("replace_without_id", lambda: producer.send(queue, b"x", replace=True)),
        ("payload_type", lambda: producer.send(queue, 5)),
        ("delay_type", lambda: producer.send(queue, b"x", delay=30)),
        ("attempts_range", lambda: producer.send(queue, b"x", max_attempts=2**31)),
        ("priority_type", lambda: producer.send(queue, b"x", priority=True)),
        ("headers_type", lambda: producer.send(queue, b"x", headers=[("a", "b")])),
        ("bulk_one_bad", lambda: producer.send_all([Message(queue, b"ok", id="never-written"),
                                                    Message(queue, b"x", priority=-1)])),
    ])


def surrogates(producer: Producer, client, queue: str, out: dict) -> None:
    """Every str input with a lone surrogate, which UTF-8 cannot encode: refused before anything is written."""
    hour = timedelta(hours=1)
    out["errors"] = refusals([
        ("id", lambda: producer.send(queue, b"x", id="a\ud800b")),
        ("id_high", lambda: producer.send(queue, b"x", id="c\ud800x", delay=hour)),
        ("id_low", lambda: producer.send(queue, b"x", id="c\udc00x", delay=hour)),
        ("key", lambda: producer.send(queue, b"x", key="k\udfff")),
        ("header_value", lambda: producer.send(queue, b"x", headers={"tenant": "\udc00"})),
        ("header_name", lambda: producer.send(queue, b"x", headers={"a\ud800": "v"})),
        ("payload", lambda: producer.send(queue, "caf\u00e9 \ud83d")),
        ("bulk", lambda: producer.send_all([Message(queue, b"x", id="never-written"), Message(queue, b"x", id="\udc00")])),
        ("cancel_id", lambda: producer.cancel(queue, "c\ud800x")),
        ("cancel_key", lambda: producer.cancel(queue, "control", key="\ud800")),
        ("reschedule_id", lambda: producer.reschedule(queue, "c\udc00x", delay=timedelta(seconds=1))),
        ("reschedule_key", lambda: producer.reschedule(queue, "control", delay=timedelta(seconds=1), key="k\udc00")),
        ("queue", lambda: producer.send("q\ud800", b"x")),
        ("fair_share", lambda: Producer(client, fair_share=["q\udc00"])),
    ])
    out["control"] = producer.send(queue, b"control", id="control", delay=hour).status.name


def types(producer: Producer, client, queue: str, out: dict) -> None:
    """Inputs of the wrong type: refused with the type expected and the one given."""
    out["errors"] = refusals([
        ("id", lambda: producer.send(queue, b"x", id=123)),
        ("key", lambda: producer.send(queue, b"x", key=b"k")),
        ("queue", lambda: producer.send(5, b"x")),
        ("cancel_id", lambda: producer.cancel(queue, 123)),
        ("cancel_key", lambda: producer.cancel(queue, "control", key=5)),
        ("reschedule_key", lambda: producer.reschedule(queue, "control", delay=timedelta(seconds=1), key=5)),
        ("replace", lambda: producer.send(queue, b"x", id="replace-typed", replace="false")),
        ("priority", lambda: producer.send(queue, b"x", priority="5")),
        ("max_attempts", lambda: producer.send(queue, b"x", max_attempts="3")),
        ("fair_share", lambda: Producer(client, fair_share="orders")),
        ("header_value", lambda: producer.send(queue, b"x", headers={"n": b"1"})),
        # Python only: a header name that is not a str
        ("header_name", lambda: producer.send(queue, b"x", headers={1: "v"})),
    ])
    out["control"] = producer.send(queue, b"control", id="control", delay=timedelta(hours=1)).status.name


def timeout(producer: Producer, client, queue: str, out: dict) -> None:
    """Redis hung (the test stops it with SIGSTOP between "ready" and the next line, and continues it
    after "waited"): a send fails within the operation timeout; then the same id is sent again."""
    producer.partitions(queue)
    print("ready", flush=True)
    sys.stdin.readline()
    started = time.monotonic()
    try:
        out["first"] = producer.send(queue, b"once", id="timed-out", delay=timedelta(milliseconds=1500)).status.name
    except OperationTimeoutError as ex:
        out["error"] = {"type": type(ex).__name__, "message": str(ex), "ids": ex.ids,
                        "timeout_ms": ex.timeout // timedelta(milliseconds=1)}
    out["waited_ms"] = (time.monotonic() - started) * 1000
    out["timeout_ms"] = producer.operation_timeout // timedelta(milliseconds=1)
    print("waited", flush=True)
    sys.stdin.readline()
    out["retry"] = producer.send(queue, b"once", id="timed-out", delay=timedelta(milliseconds=1500)).status.name


def deliver(producer: Producer, client, queue: str, out: dict) -> None:
    """Messages due within two seconds, of every kind: the Java listener receives them."""
    rng = random.Random(11)
    expected, absent = [], []
    for i in range(30):
        payload = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        headers = {"n": str(i), "sent-by": "python"}
        result = producer.send(queue, payload, delay=timedelta(milliseconds=rng.randrange(0, 1500)),
                               id="delayed-%d" % i, headers=headers)
        expected.append(described(result, payload, headers))
    # keyed: each key's messages due one after another, delivered in that order
    for i in range(10):
        for key in ("alpha", "beta", "gamma"):
            payload = ("%s-%d" % (key, i)).encode()
            result = producer.send(queue, payload, delay=timedelta(milliseconds=300 + 20 * i), key=key,
                                   id="%s-%d" % (key, i))
            expected.append(described(result, payload, None, key))
    # priority, due at once
    for i in range(3):
        result = producer.send(queue, b"urgent", id="urgent-%d" % i, priority=9)
        expected.append(described(result, b"urgent", None, None, 9))
    # expiry: a message of one still to come
    result = producer.send(queue, b"lives", id="lives", delay=timedelta(milliseconds=200),
                           expire_after=timedelta(minutes=10))
    expected.append(described(result, b"lives", None, None, 0, 600000))
    # replaced: only the replacement arrives, at its time
    producer.send(queue, b"old", id="replaced", delay=timedelta(milliseconds=700))
    result = producer.send(queue, b"new", id="replaced", delay=timedelta(milliseconds=1200), replace=True)
    expected.append(described(result, b"new"))
    # a duplicate is dropped: the first payload arrives
    result = producer.send(queue, b"kept", id="duplicate", delay=timedelta(milliseconds=900))
    producer.send(queue, b"dropped", id="duplicate", delay=timedelta(milliseconds=100))
    expected.append(described(result, b"kept"))
    # cancelled: never arrives; cancelling again finds nothing
    producer.send(queue, b"cancelled", id="cancelled", delay=timedelta(milliseconds=1500), key="alpha")
    out["cancel"] = [producer.cancel(queue, "cancelled", key="alpha"), producer.cancel(queue, "cancelled")]
    absent.append("cancelled")
    # rescheduled: from an hour to an absolute time 1.5 s ahead (Redis clock)
    producer.send(queue, b"moved", id="rescheduled", delay=timedelta(hours=1))
    at = redis_now(client) + timedelta(milliseconds=1500)
    # whole milliseconds: the client rounds a sub-millisecond time up (never early)
    at = at.replace(microsecond=at.microsecond // 1000 * 1000)
    out["reschedule"] = [producer.reschedule(queue, "rescheduled", at=at),
                         producer.reschedule(queue, "no-such-message", delay=timedelta(seconds=1))]
    expected.append({"id": "rescheduled", "status": "SCHEDULED", "due": ms(at), "payload": b"moved".hex(),
                     "headers": {}, "key": None, "priority": 0, "expire_ms": 0, "max_attempts": 0})
    # generated ids
    for result in producer.send_all([Message(queue, b"generated") for _ in range(5)]):
        expected.append(described(result, b"generated"))
    out["expected"] = expected
    out["absent"] = absent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cluster", action="store_true")
    parser.add_argument("--prefix", default="dq")
    parser.add_argument("--timeout-ms", default="default")
    parser.add_argument("--phase", choices=["schedule", "deliver", "version", "retired", "surrogates", "types",
                                            "timeout"], required=True)
    parser.add_argument("queue")
    args = parser.parse_args()
    client = (RedisCluster(host=args.host, port=args.port) if args.cluster
              else redis.Redis(host=args.host, port=args.port))
    timeouts = {} if args.timeout_ms == "default" else {"operation_timeout": timedelta(milliseconds=int(args.timeout_ms))}
    producer = Producer(client, prefix=args.prefix, **timeouts)
    out = {"client": os.path.dirname(sys.modules["delayqueue"].__file__),
           "partitions": producer.partitions(args.queue) if args.phase != "version" else None}
    if args.phase == "schedule":
        schedule(producer, client, args.queue, out)
    elif args.phase == "deliver":
        deliver(producer, client, args.queue, out)
    elif args.phase == "surrogates":
        surrogates(producer, client, args.queue, out)
    elif args.phase == "types":
        types(producer, client, args.queue, out)
    elif args.phase == "timeout":
        timeout(producer, client, args.queue, out)
    elif args.phase == "retired":
        # the layout read now goes stale: the Java side changes the partition count and
        # retires the old partitions before it answers
        print("ready", flush=True)
        sys.stdin.readline()
        results = producer.send_all([Message(args.queue, b"after-%d" % i, id="after-%d" % i, key="key-%d" % i,
                                             delay=timedelta(hours=1)) for i in range(30)])
        out["sent"] = [{"id": r.id, "status": r.status.name} for r in results]
        out["partitions_after"] = producer.partitions(args.queue)
    else:
        def refused(call):
            try:
                call()
                return None
            except ProtocolVersionError as ex:
                return str(ex)

        out["refused"] = refused(lambda: producer.send(args.queue, b"x"))
        out["cancel_refused"] = refused(lambda: producer.cancel(args.queue, "x"))
        out["reschedule_refused"] = refused(lambda: producer.reschedule(args.queue, "x", delay=timedelta(seconds=1)))
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
