"""A paho client whose publisher may write the packets it just queued, on its own thread.

With ``loop_start()`` paho writes every packet from its network thread:
``publish()`` queues the packet, wakes that thread through a socket pair, and
returns. On the way from a settled sensor to the event that costs a thread
switch: the network thread must wake from ``select()`` and take the
interpreter lock before the event leaves, about a quarter of a millisecond
here (``docs/performance.md``, "Sensor edge to MQTT event"). Inside
:meth:`CallerWriteClient.writing_here` the packets ``publish()`` queues do
not wake that thread, and at the end the publishing thread writes them itself
on the same non-blocking socket. (Writing them while still waking the network
thread, tried first, gained little: the woken thread, finding nothing to write,
took a CPU from the broker just when it had the event to deliver.)

Paho's ``_packet_write`` is not made for two writers: each pops a packet from
one deque, and a partial write puts the rest back at the front, so two
threads at once could reorder packets or interleave their bytes. Here both
writers take one lock:

- the network thread's own writes (``_packet_write``) wait for it;
- :meth:`write_now` only tries it. If the network thread is writing, the
  publisher wakes it instead, so that it writes ours too;
- :meth:`reconnect` holds it while it swaps the socket and clears the queue,
  so a packet that failed on the old socket is never put back in front of the
  new connection's CONNECT.

Whatever the publisher cannot write at once (another writer, a full socket
buffer, no connection) is left to the network thread, which it then wakes:
no packet waits for a wake-up that never comes. A failed write puts the packet
back where paho expects it, and the network thread finds a broken connection
on its own: the caller never handles a connection loss, which stays reported
once, by paho's thread. Over TLS or websockets the publisher never writes (an
SSL object must not be read and written from two threads at once).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import paho.mqtt.client as mqtt

_WAKE = b"0"  # what paho itself writes to its socket pair (paho.mqtt.client.sockpair_data)


class CallerWriteClient(mqtt.Client):
    """``paho.mqtt.client.Client`` plus :meth:`writing_here`; everything else is paho's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Re-entrant: reconnect() holds it and may write through paho's own calls on the same thread.
        self._write_lock = threading.RLock()
        self._holding = threading.local()  # .on: this thread's packets are queued without a wake-up
        self.caller_writes = 0  # writing_here() blocks whose packets this thread wrote itself
        self.caller_wakes = 0  # ... and those it left to paho's thread

    # ----- paho's internals, serialised ------------------------------------------------------
    def _packet_write(self) -> mqtt.MQTTErrorCode:
        with self._write_lock:
            return super()._packet_write()

    def reconnect(self) -> mqtt.MQTTErrorCode:
        with self._write_lock:
            return super().reconnect()

    def _packet_queue(self, command: int, packet: bytes | bytearray, mid: int, qos: int,
                      info: mqtt.MQTTMessageInfo | None = None) -> mqtt.MQTTErrorCode:
        if not getattr(self._holding, "on", False):
            return super()._packet_queue(command, packet, mid, qos, info)
        # paho's own queue entry (its _OutPacket), without the wake-up: writing_here() writes it.
        self._out_packet.append({"command": command, "mid": mid, "qos": qos, "pos": 0,
                                 "to_process": len(packet), "packet": packet, "info": info})
        return mqtt.MQTTErrorCode.MQTT_ERR_SUCCESS

    # ----- the publisher's side --------------------------------------------------------------
    def can_write_here(self) -> bool:
        return not self._ssl and self._transport in ("tcp", "unix")

    @contextmanager
    def writing_here(self) -> Iterator[None]:
        """Publish inside the block; at its end this thread writes what was queued, or wakes paho's.

        Only this thread's packets are held back (paho's thread queues and wakes as ever).
        """
        if not self.can_write_here():
            yield
            return
        self._holding.on = True
        try:
            yield
        finally:
            self._holding.on = False
            if self.write_now():
                self.caller_writes += 1
            else:
                self.caller_wakes += 1
                self._wake_network_thread()

    def write_now(self) -> bool:
        """Write the queued packets from this thread if that can be done at once; True if it did.

        False when another thread is writing, the client is not connected, the transport is
        TLS or websockets, or the socket did not take it all. Never blocks, never raises.
        """
        if not self.can_write_here() or not self.is_connected():
            return False
        if not self._write_lock.acquire(blocking=False):
            return False
        try:
            if self._sock is None:
                return False
            # The rc is paho's thread's business: a broken connection is noticed and reported there.
            return super()._packet_write() == mqtt.MQTTErrorCode.MQTT_ERR_SUCCESS and not self._out_packet
        except Exception:  # noqa: BLE001 - a caller on the decision's path must not fail for the network
            return False
        finally:
            self._write_lock.release()

    def _wake_network_thread(self) -> None:
        sock = self._sockpairW
        if sock is not None:
            try:
                sock.send(_WAKE)
            except OSError:  # BlockingIOError: its buffer is full of wake-ups already
                pass
