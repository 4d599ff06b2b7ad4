"""Group commit: calls that arrive while a write is in flight are written together, in ONE transaction.

A SQLite store has one writer per file, and a governed ``add`` is ~3.5 ms of CPU, a third of it a duplicate search
over the scope and one commit of ~37 pages (decision 0108). Concurrent callers of one ``Memory`` (threads, or
asyncio tasks of :class:`~mnemir.memory.aio.AsyncMemory`) used to take the lock in turn, one transaction each.
Here a caller who finds nobody writing becomes the *leader* and writes at once (no waiting window); whoever arrives
meanwhile joins a queue, and when the leader's transaction ends the oldest waiter leads the next batch: everything
queued by then, written together (one batched duplicate search, one commit). Each caller gets its own outcome (a
result or an error) only after the transaction holding its write has committed.

This module only orders and hands over the work; what a batch does is the ``run`` callable (``Memory``'s governed
path). Threads wait on an event, asyncio tasks on the loop (``submit_async``): one queue and one leader for both.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")

#: at most this many calls are written in one transaction (a batch's search and commit grow with it)
BATCH_LIMIT = 256


class Ticket(Generic[T]):
    """One call in the queue: its item, and (once its transaction has ended) its result or its error."""

    def __init__(self, item: T, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.item = item
        self.done = False
        self.lead = False  # the previous leader handed this call the next batch
        self.orphan = False  # the caller stopped waiting (an interrupt, a cancelled task)
        self.result: Any = None
        self.error: BaseException | None = None
        self._loop = loop
        self._event = threading.Event() if loop is None else None
        self._aevent = asyncio.Event() if loop is not None else None

    def wake(self) -> None:
        if self._event is not None:
            self._event.set()
        elif self._loop is not None and self._aevent is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._aevent.set)

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.result


class GroupCommit(Generic[T]):
    """``run(items)`` writes a batch in one transaction and returns one outcome per item, in order: a result, or
    the exception that item alone raised (an item's error must never fail the others). It raises only when the
    whole batch failed in a way no item owns (an interrupt): then every item of the batch gets that error."""

    def __init__(self, run: Callable[[Sequence[T]], list[Any]], *, limit: int = BATCH_LIMIT) -> None:
        self._run = run
        self._limit = limit
        self._pid = os.getpid()
        self._mutex = threading.Lock()
        self._queue: list[Ticket[T]] = []
        self._busy = False  # a leader is writing, or has been named
        #: batches written and calls they held (for the benchmarks and tests)
        self.batches = 0
        self.calls = 0

    # -- joining ---------------------------------------------------------------------------------
    def _join(self, make: Callable[[], T], loop: asyncio.AbstractEventLoop | None) -> Ticket[T]:
        """Queue the item ``make()`` builds. It is built under the queue's lock, so the order of the queue is the
        order in which items were made (an item's time stamp, taken by ``make``, follows the arrival order); if
        ``make`` raises, nothing is queued. The first caller while nobody writes leads at once."""
        if self._pid != os.getpid():
            # a forked child: the threads that were queued or leading stayed in the parent (and the mutex may
            # have been copied held); the child starts with an empty queue
            self._pid, self._mutex, self._queue, self._busy = os.getpid(), threading.Lock(), [], False
        with self._mutex:
            ticket = Ticket(make(), loop)
            self._queue.append(ticket)
            if not self._busy:
                self._busy = True
                ticket.lead = True
            return ticket

    def submit(self, make: Callable[[], T]) -> Any:
        """Queue an item from a thread and return its outcome once its transaction has ended."""
        ticket = self._join(make, None)
        event = ticket._event
        assert event is not None
        try:
            while True:
                if ticket.lead:
                    self.lead(ticket)
                if ticket.done:
                    return ticket.outcome()
                event.wait()
                event.clear()
        except BaseException:
            self._abandon(ticket)
            raise

    async def submit_async(self, make: Callable[[], T]) -> Any:
        """Queue an item from an asyncio task (the item is made, and a batch led, in a worker thread: the event
        loop never waits for the store); returns its outcome once its transaction has ended. A task cancelled
        meanwhile leaves its call queued (it is written, as ``to_thread`` work was) and never stalls the queue."""
        joining = asyncio.ensure_future(asyncio.to_thread(self._join, make, asyncio.get_running_loop()))
        try:
            ticket = await asyncio.shield(joining)
        except asyncio.CancelledError:
            joining.add_done_callback(self._abandon_joined)
            raise
        aevent = ticket._aevent
        assert aevent is not None
        leading: asyncio.Future[None] | None = None
        try:
            while True:
                if ticket.lead:
                    # shielded: a batch once handed to a worker thread is led to its end, whatever the task
                    leading = asyncio.ensure_future(asyncio.to_thread(self.lead, ticket))
                    await asyncio.shield(leading)
                    leading = None
                if ticket.done:
                    return ticket.outcome()
                await aevent.wait()
                aevent.clear()
        except BaseException:
            if leading is None:  # else the worker thread leads, and hands over when done
                self._abandon(ticket)
            raise

    def _abandon_joined(self, joining: asyncio.Future[Ticket[T]]) -> None:
        if not joining.cancelled() and joining.exception() is None:
            self._abandon(joining.result())

    def _abandon(self, ticket: Ticket[T]) -> None:
        """A waiter stopped waiting (an interrupt, a cancelled task): its write still happens. If it has been
        named leader, a thread of our own leads in its place now; if it is named later, then (``orphan``)."""
        with self._mutex:
            ticket.orphan = True
            orphaned = ticket.lead and not ticket.done
            ticket.lead = False
        if orphaned:
            self._lead_in_thread()

    def _lead_in_thread(self) -> None:
        threading.Thread(target=self.lead, name="mnemir-group-commit", daemon=True).start()

    # -- leading ---------------------------------------------------------------------------------
    def lead(self, ticket: Ticket[T] | None = None) -> None:
        """Write one batch (everything queued now, up to the limit), hand each call its outcome, and hand the
        next batch to the oldest call still waiting (or let the next arrival lead at once). ``ticket``: the call
        named leader, whose turn this is (its flag is cleared with the batch taken, so that a caller interrupted
        before this point is replaced by :meth:`_abandon`)."""
        with self._mutex:
            if ticket is not None:
                if not ticket.lead:  # abandoned meanwhile, and a thread of ours leads instead
                    return
                ticket.lead = False
            batch, self._queue = self._queue[:self._limit], self._queue[self._limit:]
        outcomes: list[Any] = []
        failed: BaseException | None = None
        try:
            outcomes = self._run([t.item for t in batch]) if batch else []
        except BaseException as exc:  # nobody's own error: every call of the batch gets it
            failed = exc
        finally:
            with self._mutex:
                self.batches += 1 if batch else 0
                self.calls += len(batch)
                for i, ticket in enumerate(batch):
                    outcome = failed if failed is not None else outcomes[i]
                    if isinstance(outcome, BaseException):
                        ticket.error = outcome
                    else:
                        ticket.result = outcome
                    ticket.done = True
                    ticket.wake()
                if self._queue:
                    successor = self._queue[0]
                    if successor.orphan:  # its caller stopped waiting: a thread of ours leads
                        self._lead_in_thread()
                    else:
                        successor.lead = True
                        successor.wake()
                else:
                    self._busy = False
