package dev.sluice.core.exchange;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.core.Permit;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.UsageParser;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * Watches a successful body on its way to the application and settles the permit exactly once:
 * when the body was read to its end, broke, or was closed early. Usage is what the provider
 * reported, or what was counted when it never did. Bytes that arrive before the response headers
 * were handed to it are kept (bounded) and replayed. Never throws.
 *
 * <p>The usage parser is built on the answer's headers by whoever claims them first
 * ({@link #claimAnswer()}): the caller's thread when the response is handed to it, or the body's
 * end when the transport told the headers before the body ({@link #onHeaders}) and the body ended
 * first. The JDK client's bodies end before the caller wakes, so their usage is parsed and counted
 * on the client's own thread after the caller was given the response, not on the caller's thread
 * between its wake and its return. What the governor is told stays with the caller, in the same
 * order as when the caller reads the answer: the headers' figures, then the permit released
 * ({@link #callerDone()}). Told earlier (at the body's end, before the caller has its answer), a
 * storm of calls was admitted past a provider's limit (VirtualThreadLoadIT, Anthropic).
 */
final class SettlingObserver implements BodyObserver {

    /** Bytes kept while the parser cannot be built yet; beyond this, usage comes from counting. */
    private static final int EARLY_BYTES_CAP = 1 << 20;

    private static final AtomicIntegerFieldUpdater<SettlingObserver> ANSWER_CLAIMED =
            AtomicIntegerFieldUpdater.newUpdater(SettlingObserver.class, "answerClaimed");

    private static final AtomicReferenceFieldUpdater<SettlingObserver, Object> RELEASE =
            AtomicReferenceFieldUpdater.newUpdater(SettlingObserver.class, Object.class, "release");

    /** In {@link #release}: the caller is done; the body's end releases the permit. */
    private static final Object CALLER_DONE = new Object();

    private final ExchangeGovernance engine;
    private final PreparedCall call;
    private final Permit permit;
    private UsageParser parser;
    private EarlyBytes early;
    private boolean headersKnown;
    private boolean ended;
    private boolean settled;
    /** The transport tapped a success's body: the provider answered 2xx. */
    private boolean sawBody;
    /** The headers as the transport told them before the body; null when it did not. */
    private volatile Map<String, List<String>> transportHeaders;
    /** 1 once the answer's headers were claimed to be read (see {@link #claimAnswer()}). */
    private volatile int answerClaimed;
    /** The headers as the body's end read them, when it claimed the answer. */
    private volatile Headers bodyHeaders;
    /** The body's end read the answer: the permit is released once the caller has the response. */
    private boolean releaseWithCaller;
    /**
     * Between the body's end and the caller: null, then the usage the body's end settles with
     * (the caller releases the permit with it) or {@link #CALLER_DONE} (the body's end does).
     */
    private volatile Object release;

    SettlingObserver(ExchangeGovernance engine, PreparedCall call, Permit permit) {
        this.engine = engine;
        this.call = call;
        this.permit = permit;
    }

    /** The response headers are known: build the parser and feed it what already arrived. */
    synchronized void headersKnown(Headers headers) {
        try {
            headersKnown = true;
            parser = call.provider.adapter().usageParser(call.facts, headers, engine.estimator());
            if (early != null) {
                EarlyBytes kept = early;
                early = null;
                kept.feed(parser);
            }
            if (ended) {
                settle();
            }
        } catch (Throwable t) {
            fault(t);
        }
    }

    /**
     * Whether the body of a success reached the tap (bytes, its end, a failure or a close): a
     * failure of the attempt after that is a broken answer, not a failure to get one.
     */
    synchronized boolean sawBody() {
        return sawBody;
    }

    /**
     * The body broke before the response could be handed back (a client that reads it whole):
     * usage never arrived, so what was reserved is kept as used, as the provider billed it. A body
     * whose end was read and whose permit waits for the caller is released with its usage.
     */
    synchronized void brokeBeforeHandBack() {
        callerDone();
        if (settled) {
            return;
        }
        settled = true;
        parser = null;
        early = null;
        try {
            permit.settleAsReserved();
        } catch (Throwable t) {
            fault(t);
        }
    }

    @Override
    public synchronized void onBytes(byte[] chunk, int offset, int length) {
        sawBody = true;
        if (settled) {
            return;
        }
        try {
            if (parser != null) {
                parser.accept(chunk, offset, length);
            } else if (!headersKnown) {
                if (early == null) {
                    early = new EarlyBytes(Math.min(Math.max(length, 256), EARLY_BYTES_CAP));
                }
                if (early.size() + length <= EARLY_BYTES_CAP) {
                    early.write(chunk, offset, length);
                }
            }
        } catch (Throwable t) {
            fault(t);
        }
    }

    @Override
    public void onHeaders(Map<String, List<String>> headers) {
        transportHeaders = headers;
    }

    /**
     * Claims the reading of the answer's headers: true for the first caller only. The caller's
     * thread claims it before it builds the parser; false tells it the body's end did, and reads
     * the usage: the caller then learns from {@link #bodyHeaders()} and calls
     * {@link #callerDone()}.
     */
    boolean claimAnswer() {
        return answerClaimed == 0 && ANSWER_CLAIMED.compareAndSet(this, 0, 1);
    }

    @Override
    public synchronized void onEnd() {
        Map<String, List<String>> told = transportHeaders;
        if (told != null && !headersKnown && answerClaimed == 0) {
            Headers headers = Headers.of(told);
            bodyHeaders = headers; // before the claim: a caller that loses it reads them
            if (claimAnswer()) {
                // the body ended before the caller was handed the response: its usage is read here
                releaseWithCaller = true;
                headersKnown(headers);
            }
        }
        end();
    }

    /** The headers the body's end read the answer with, once {@link #claimAnswer()} said it did. */
    Headers bodyHeaders() {
        return bodyHeaders;
    }

    /**
     * The caller has the response the body's end read (or its failure): the permit is released
     * now if the body's end is done with it, else by the body's end when it is. The permit stays
     * in flight until the caller has its answer, as when the caller's thread reads the answer: the
     * governor reads a provider's figures knowing which calls are still in flight, and a call a
     * caller has not been handed yet counts as one.
     */
    void callerDone() {
        Object usage = RELEASE.getAndSet(this, CALLER_DONE);
        if (usage instanceof Usage) {
            release((Usage) usage);
        }
    }

    private void release(Usage usage) {
        try {
            permit.settleAndRelease(usage);
        } catch (Throwable t) {
            keepReservedAndRelease(t);
        }
    }

    @Override
    public synchronized void onFailure(Throwable failure) {
        end();
    }

    @Override
    public synchronized void onClose() {
        end();
    }

    private void end() {
        sawBody = true;
        ended = true;
        if (headersKnown && !settled) {
            settle();
        }
    }

    private void settle() {
        settled = true;
        try {
            Usage usage;
            ProviderError streamError = null;
            String responseModel = null;
            if (parser != null) {
                parser.finish();
                usage = call.priced(parser.usage());
                streamError = parser.streamError();
                responseModel = parser.responseModel();
            } else {
                usage = Usage.NONE;
            }
            if (!releaseWithCaller || !RELEASE.compareAndSet(this, null, usage)) {
                permit.settleAndRelease(usage);
            }
            engine.settled(call, usage, streamError, responseModel);
        } catch (Throwable t) {
            fault(t);
        }
    }

    private void fault(Throwable t) {
        settled = true;
        parser = null;
        early = null;
        keepReservedAndRelease(t);
    }

    /**
     * Whatever went wrong, the reservation must not leak; the provider did the work and its usage
     * is lost, so what was reserved is kept as used (a budget is not refunded a call it paid for),
     * as when the answer breaks before its usage. Touches no field: the caller's thread uses it too.
     */
    private void keepReservedAndRelease(Throwable t) {
        try {
            permit.settleAsReserved();
        } catch (Throwable ignored) {
            // nothing more can be done here
        }
        try {
            permit.releaseConcurrency();
        } catch (Throwable ignored) {
            // nothing more can be done here
        }
        engine.fault(call, "settling a response body", t);
    }

    /**
     * Bytes that came before the headers, handed to the parser for good (a body parser keeps the
     * array, not a copy: 2.6 KB less a JDK client's call, whose body arrives before its headers
     * reach Sluice).
     */
    private static final class EarlyBytes extends ByteArrayOutputStream {
        EarlyBytes(int size) {
            super(size);
        }

        void feed(UsageParser parser) {
            parser.adopt(buf, count);
        }
    }
}
