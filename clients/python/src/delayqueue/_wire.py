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
"""The wire format of protocol v1 (docs/protocol.md): names, envelope, keys, partitions."""

import re
import zlib
from typing import Any, Dict, Optional

PROTOCOL_VERSION = 1

MAX_NAME_LENGTH = 100
MAX_ID_BYTES = 256
MAX_PRIORITY = 9
MAX_EXPIRE_AFTER_MS = 3650 * 24 * 3600 * 1000
# 9999-12-31T23:59:59.999Z
MAX_DUE_MS = 253402300799999
MAX_PARTITIONS = 1024
SLOTS = 16384
TICK_PREFIX = "schedule/"

_NAME = re.compile(r"[A-Za-z0-9._:-]+\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def shown(value: str) -> str:
    """A value for an error message: its first 40 characters, control characters and surrogates as \\uXXXX."""
    text = value[:40] + "..." if len(value) > 40 else value
    return _UNPRINTABLE.sub(lambda m: "\\u%04x" % ord(m.group()), text)


def describe(value: Any) -> str:
    """What a value of the wrong type was, for an error message: "int (123)", "bytes (b'k')"."""
    text = repr(value)
    return f"{type(value).__name__} ({text[:40] + '...' if len(text) > 40 else text})"


def utf8(what: str, value: str, show: bool = True) -> bytes:
    """The UTF-8 bytes of a str; one with a surrogate (which UTF-8 cannot encode) is refused, naming the input."""
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as ex:
        named = f"{what} '{shown(value)}'" if show else what
        raise ValueError(f"{named} must be valid text: it has a lone surrogate (U+{ord(value[ex.start]):04X}) at "
                         f"index {ex.start}, which UTF-8 cannot encode") from None


def check_name(what: str, name: str) -> str:
    if name is None or (isinstance(name, str) and not name):
        raise ValueError(f"{what} name must not be None or empty")
    if not isinstance(name, str):
        raise ValueError(f"{what} name must be a str, but was {describe(name)}")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"{what} name must be at most {MAX_NAME_LENGTH} characters, but is {len(name)}")
    if not _NAME.match(name):
        raise ValueError(f"{what} name '{shown(name)}' must contain only letters, digits, '.', '_', ':' and '-'")
    return name


def check_id(what: str, value: str) -> str:
    if value is None or (isinstance(value, str) and not value):
        raise ValueError(f"{what} must not be None or empty")
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a str, but was {describe(value)}")
    if len(utf8(what, value)) > MAX_ID_BYTES:
        raise ValueError(f"{what} must be at most {MAX_ID_BYTES} bytes in UTF-8 ('{shown(value)}')")
    if _CONTROL.search(value):
        raise ValueError(f"{what} '{shown(value)}' must not contain control characters")
    return value


def check_message_id(value: str) -> str:
    check_id("Message id", value)
    if value.startswith(TICK_PREFIX):
        raise ValueError(
            f"Message id '{shown(value)}' starts with '{TICK_PREFIX}', which is reserved for the messages of recurring schedules")
    return value


def _varint(out: bytearray, value: int) -> None:
    while value & ~0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def _string(out: bytearray, value: str) -> None:
    data = value.encode("utf-8")
    _varint(out, len(data))
    out += data


def headers_size(headers: Dict[str, str]) -> int:
    return sum(len(k.encode("utf-8")) + len(v.encode("utf-8")) + 2 for k, v in headers.items())


def envelope(payload: bytes, headers: Dict[str, str], max_attempts: int, expire_after_ms: int,
             key: Optional[str], priority: int) -> bytes:
    """The envelope: a version byte with flags, then expiry, priority, key, attempts, headers, payload."""
    out = bytearray()
    out.append(1 + (1 if expire_after_ms > 0 else 0) + (2 if key is not None else 0) + (4 if priority > 0 else 0))
    if expire_after_ms > 0:
        out += str(expire_after_ms).rjust(13, "0").encode("ascii")
    if priority > 0:
        out.append(ord("0") + priority)
    if key is not None:
        _string(out, key)
    _varint(out, max_attempts)
    _varint(out, len(headers))
    for name, value in headers.items():
        _string(out, name)
        _string(out, value)
    out += payload
    return bytes(out)


def slot(text: str) -> int:
    """Redis Cluster's slot of a hash tag: CRC16 (XMODEM) of its UTF-8 bytes, modulo 16384."""
    crc = 0
    for b in text.encode("utf-8"):
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc % SLOTS


def _range(s: int, partitions: int) -> int:
    return s * partitions // SLOTS


def partition_tag(queue: str, partition: int, partitions: int) -> str:
    """The hash tag of a partition: partition 0 keeps the queue's name, the others spread over the slots."""
    if partition == 0:
        return queue
    taken = _range(slot(queue), partitions)
    wanted = partition - 1 if partition - 1 < taken else partition
    base = f"{queue}#{partition}"
    if _range(slot(base), partitions) == wanted:
        return base
    attempt = 1
    while True:
        candidate = f"{base}.{attempt}"
        if _range(slot(candidate), partitions) == wanted:
            return candidate
        attempt += 1


def partition_of(key: str, partitions: int) -> int:
    """The default partitioner: CRC-32 of the key's UTF-8 bytes, modulo the partition count."""
    if partitions <= 1:
        return 0
    return (zlib.crc32(key.encode("utf-8")) & 0xFFFFFFFF) % partitions


class Keys:
    """The keys of one partition of a queue: P:{tag}:suffix."""

    def __init__(self, prefix: str, queue: str, tag: str):
        self.prefix = prefix
        self.queue = queue
        self.tag = tag

    def key(self, suffix: str) -> str:
        return f"{self.prefix}:{{{self.tag}}}:{suffix}"

    def send_keys(self):
        return [self.key("delayed"), self.key("msgs"), self.key("stream"), self.key("retired"),
                self.key("max-waiting"), self.key("urgent"), self.key("fair"), self.key("fair-state"),
                self.key("far"), self.key("far-state")]

    def cancel_keys(self):
        return [self.key("delayed"), self.key("msgs"), self.key("schedules"), self.key("far"), self.key("far-state")]

    def reschedule_keys(self):
        return [self.key("delayed"), self.key("msgs"), self.key("stream"), self.key("urgent"), self.key("far"),
                self.key("far-state")]

    def wake_channel(self) -> str:
        return self.key("wake")
