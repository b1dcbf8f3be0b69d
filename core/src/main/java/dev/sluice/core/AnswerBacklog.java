package dev.sluice.core;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Providers' answers whose rate-limit figures wait for the governor's lock: a lock-free stack any
 * thread pushes to, emptied by whoever holds the lock next. Reading an answer's headers is the
 * one thing every call does once it has its answer; taking the lock for it made every caller
 * queue on the lock twice per call, and with eight callers on two cores a holder preempted
 * mid-section parked all the others (a convoy). The answer is read "as of now" when applied
 * ({@link dev.sluice.core.quota.AnswerAge}), so applying it a little later changes nothing of what
 * it says.
 */
final class AnswerBacklog {

    /** One answer's figures, as {@link AnswerLearner#learn} took them. */
    static final class Answer {
        final ProviderAnswer answer;
        /** When the provider counted the answered call (monotonic nanos), or {@link #COUNTED_AT_ADMISSION}. */
        final long countedNanos;

        Answer next;

        /** The provider did not say when it counted the call: as of its admission. */
        static final long COUNTED_AT_ADMISSION = Long.MIN_VALUE;

        Answer(ProviderAnswer answer, long countedNanos) {
            this.answer = answer;
            this.countedNanos = countedNanos;
        }
    }

    private final AtomicReference<Answer> pending = new AtomicReference<>();

    /** Queues an answer. Any thread, no lock. */
    void push(Answer answer) {
        Answer head;
        do {
            head = pending.get();
            answer.next = head;
        } while (!pending.compareAndSet(head, answer));
    }

    /** Whether answers wait to be applied: the lock-free lane then sends calls to the lock. */
    boolean isEmpty() {
        return pending.get() == null;
    }

    /** Takes every queued answer, oldest first (null when none). Lock held. */
    Answer takeAll() {
        if (pending.get() == null) {
            return null; // a plain read: no atomic swap on the admission path when nothing is pending
        }
        Answer newestFirst = pending.getAndSet(null);
        Answer oldestFirst = null;
        while (newestFirst != null) {
            Answer next = newestFirst.next;
            newestFirst.next = oldestFirst;
            oldestFirst = newestFirst;
            newestFirst = next;
        }
        return oldestFirst;
    }
}
