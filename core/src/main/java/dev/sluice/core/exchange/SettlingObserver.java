package dev.sluice.core.exchange;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.core.Permit;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.UsageParser;
import java.io.ByteArrayOutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Map;

/**
 * Watches a successful body on its way to the application and settles the permit exactly once:
 * when the body was read to its end, broke, or was closed early. Usage is what the provider
 * reported, or what was counted when it never did. Bytes that arrive before the response headers
 * were handed to it are kept (bounded) and replayed. Never throws.
 *
 * <p>The headers come from the engine once the transport returned the response, or earlier from
 * a tap that sees them before the body ({@link #onHeaders}). In the second case a body that ends
 * before the engine learned from the headers is learned from and settled at once, on the thread
 * that read it, which the transport lets go on only after the application has the body: the
 * caller does neither. A body that breaks or is
 * closed is settled only once the engine has the answer, as before; if the attempt fails first,
 * the engine keeps the reservation as used ({@link #brokeBeforeHandBack()}).
 */
final class SettlingObserver implements BodyObserver {

    /** Bytes kept while the parser cannot be built yet; beyond this, usage comes from counting. */
    private static final int EARLY_BYTES_CAP = 1 << 20;

    private final ExchangeGovernance engine;
    private final PreparedCall call;
    private final Permit permit;
    private UsageParser parser;
    private EarlyBytes early;
    /** The parser was built (or failed to be): from the tap's headers or from the engine's. */
    private boolean headersKnown;
    /** The body was read to its end. */
    private boolean ended;

    private boolean settled;
    /** The transport tapped a success's body: the provider answered 2xx. */
    private boolean sawBody;
    /** The headers as the tap gave them before the body, or null: the engine reads them rather than build its own. */
    private volatile Headers tapHeaders;
    /** The engine has the answer: a body that breaks or is closed from now on is settled from what came. */
    private volatile boolean answerTaken;
    /** The body broke or was closed. */
    private volatile boolean stopped;
    /** The answer's headers were learned from: by the tap's thread or by the engine, whichever came first. */
    private volatile boolean learned;

    private static final VarHandle LEARNED;

    static {
        try {
            LEARNED = MethodHandles.lookup().findVarHandle(SettlingObserver.class, "learned", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    SettlingObserver(ExchangeGovernance engine, PreparedCall call, Permit permit) {
        this.engine = engine;
        this.call = call;
        this.permit = permit;
    }

    /** Whether the caller is the one to learn from the answer's headers: true once per attempt. */
    boolean claimLearning() {
        return !learned && LEARNED.compareAndSet(this, false, true);
    }

    /** The headers a tap gave before the body ({@link #onHeaders}), or null. */
    Headers tapHeaders() {
        return tapHeaders;
    }

    /**
     * The engine has the answer and its headers. When the tap gave them already, a body that ended
     * is the tap's thread's to settle, and this returns without waiting for it.
     */
    void headersKnown(Headers headers) {
        answerTaken = true;
        if (tapHeaders != null && !stopped) {
            return; // a stop after this sees answerTaken and settles on its own thread
        }
        synchronized (this) {
            try {
                if (!headersKnown) {
                    buildParser(headers);
                }
                settleIfDone();
            } catch (Throwable t) {
                fault(t);
            }
        }
    }

    @Override
    public void onHeaders(Map<String, List<String>> raw) {
        synchronized (this) {
            if (headersKnown || settled) {
                return;
            }
            try {
                Headers headers = Headers.of(raw);
                buildParser(headers);
                tapHeaders = headers;
                settleIfDone();
            } catch (Throwable t) {
                fault(t);
            }
        }
    }

    /** Builds the parser and feeds it what already arrived. */
    private void buildParser(Headers headers) {
        headersKnown = true;
        parser = call.provider.adapter().usageParser(call.facts, headers, engine.estimator());
        if (early != null) {
            EarlyBytes kept = early;
            early = null;
            kept.feed(parser);
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
     * usage never arrived, so what was reserved is kept as used, as the provider billed it.
     */
    synchronized void brokeBeforeHandBack() {
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

    /**
     * The body was read to its end. When the tap gave the headers and the engine has not learned
     * from them yet (a body read whole: the caller is only now let go), this thread learns from
     * them, as the engine would, and then settles, so the caller does neither.
     */
    @Override
    public void onEnd() {
        Headers headers = tapHeaders;
        if (headers != null && claimLearning()) {
            engine.learnOnTap(call, permit, headers);
        }
        synchronized (this) {
            sawBody = true;
            ended = true;
            settleIfDone();
        }
    }

    @Override
    public void onFailure(Throwable failure) {
        stop();
    }

    @Override
    public void onClose() {
        stop();
    }

    private void stop() {
        stopped = true;
        synchronized (this) {
            sawBody = true;
            settleIfDone();
        }
    }

    /**
     * Settles once the parser is there and the body is over: read to its end, or broken or closed
     * after the engine took the answer (before, the engine decides: see {@link #brokeBeforeHandBack()}).
     * Engine headers count as taken: only a tap's come earlier.
     */
    private void settleIfDone() {
        if (headersKnown && !settled && (ended || (stopped && answerTaken))) {
            settle();
        }
    }

    private void settle() {
        settled = true;
        try {
            Usage usage;
            ProviderError streamError = null;
            if (parser != null) {
                parser.finish();
                usage = call.priced(parser.usage());
                streamError = parser.streamError();
            } else {
                usage = Usage.NONE;
            }
            permit.settleAndRelease(usage);
            engine.settled(call, usage, streamError);
        } catch (Throwable t) {
            fault(t);
        }
    }

    private void fault(Throwable t) {
        settled = true;
        parser = null;
        early = null;
        // whatever went wrong, the reservation must not leak; the provider did the work and its
        // usage is lost, so what was reserved is kept as used (a budget is not refunded a call
        // it paid for), as when the answer breaks before its usage
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
