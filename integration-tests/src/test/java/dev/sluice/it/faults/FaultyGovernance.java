package dev.sluice.it.faults;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.HttpTransport;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's real governance with one fault injected at a time, installed behind the bridge by
 * {@link BadAdviceApp} in place of the real one: the governance itself throws or answers garbage
 * at one of its methods, or the transport it is handed (the instrumentation's helper that sends
 * Sluice's attempts) throws at the first call of one of its methods, mid-call, while the real
 * governor holds a permit. Everything else is delegated unchanged.
 */
final class FaultyGovernance implements Governance {

    /** Where the fault is. Transport faults name an {@link HttpTransport} method. */
    enum Fault {
        NONE,
        GOVERNS_THROWS,
        /** {@code governs} throws and so does {@code onHookFault}, the bridge's report of it. */
        GOVERNS_AND_REPORT_THROW,
        EXECUTE_THROWS,
        EXECUTE_RETURNS_NULL,
        /** An outcome (or future value) that is not the library's response type. */
        EXECUTE_RETURNS_GARBAGE,
        /** A failure that no library would throw, before anything was sent. */
        EXECUTE_RETURNS_FAILURE,
        OWNS_RETRIES_THROWS,
        TRANSPORT,
        /** The hook of the hooked class throws on entry (a fault on the bridge's side of the advice). */
        HOOK_THROWS
    }

    /** The injected exception: its message names the fault, so a log line can be traced to it. */
    static class InjectedFault extends IllegalStateException {
        InjectedFault(String where) {
            super("injected fault at " + where);
        }
    }

    private final Governance real;
    private volatile Fault fault = Fault.NONE;
    private volatile String transportMethod;
    /** How often the current fault was actually injected: a scenario that never reached it proves nothing. */
    final AtomicInteger fired = new AtomicInteger();

    FaultyGovernance(Governance real) {
        this.real = real;
    }

    void inject(Fault value, String method) {
        fault = value;
        transportMethod = method;
        fired.set(0);
    }

    Fault fault() {
        return fault;
    }

    private boolean is(Fault f) {
        if (fault == f) {
            fired.incrementAndGet();
            return true;
        }
        return false;
    }

    @Override
    public boolean governs(String url) {
        if (is(Fault.GOVERNS_THROWS) || is(Fault.GOVERNS_AND_REPORT_THROW)) {
            throw new InjectedFault("governance.governs");
        }
        return real.governs(url);
    }

    @Override
    public CallOutcome execute(HttpTransport transport) {
        if (is(Fault.EXECUTE_THROWS)) {
            throw new InjectedFault("governance.execute");
        }
        if (is(Fault.EXECUTE_RETURNS_NULL)) {
            return null;
        }
        if (is(Fault.EXECUTE_RETURNS_GARBAGE)) {
            return CallOutcome.response("garbage from governance.execute");
        }
        if (is(Fault.EXECUTE_RETURNS_FAILURE)) {
            return CallOutcome.failure(new InjectedFault("governance.execute (as its outcome)"));
        }
        return real.execute(wrap(transport));
    }

    @Override
    public CompletableFuture<Object> executeAsync(HttpTransport transport) {
        if (is(Fault.EXECUTE_THROWS)) {
            throw new InjectedFault("governance.executeAsync");
        }
        if (is(Fault.EXECUTE_RETURNS_NULL)) {
            return null;
        }
        if (is(Fault.EXECUTE_RETURNS_GARBAGE)) {
            return CompletableFuture.completedFuture("garbage from governance.executeAsync");
        }
        if (is(Fault.EXECUTE_RETURNS_FAILURE)) {
            CompletableFuture<Object> failed = new CompletableFuture<>();
            failed.completeExceptionally(new InjectedFault("governance.executeAsync (as its outcome)"));
            return failed;
        }
        return real.executeAsync(wrap(transport));
    }

    @Override
    public void onHookFault(String where, Throwable fault) {
        real.onHookFault(where, fault);
        if (is(Fault.GOVERNS_AND_REPORT_THROW)) {
            throw new InjectedFault("governance.onHookFault");
        }
    }

    @Override
    public boolean ownsRetries() {
        if (is(Fault.OWNS_RETRIES_THROWS)) {
            throw new InjectedFault("governance.ownsRetries");
        }
        return real.ownsRetries();
    }

    private HttpTransport wrap(HttpTransport t) {
        return fault == Fault.TRANSPORT ? new FaultyTransport(t, transportMethod) : t;
    }

    /** Delegates to the real transport, throwing once, at the first call of one method. */
    private final class FaultyTransport implements HttpTransport {
        private final HttpTransport t;
        private final String method;
        private final AtomicInteger armed = new AtomicInteger(1);

        FaultyTransport(HttpTransport t, String method) {
            this.t = t;
            this.method = method;
        }

        private void maybeFail(String name) {
            if (name.equals(method) && armed.getAndSet(0) == 1) {
                fired.incrementAndGet();
                throw transportFault(name);
            }
        }

        @Override
        public String library() {
            maybeFail("library");
            return t.library();
        }

        @Override
        public String method() {
            maybeFail("method");
            return t.method();
        }

        @Override
        public String url() {
            maybeFail("url");
            return t.url();
        }

        @Override
        public Map<String, List<String>> requestHeaders() {
            maybeFail("requestHeaders");
            return t.requestHeaders();
        }

        @Override
        public byte[] requestBody() {
            maybeFail("requestBody");
            return t.requestBody();
        }

        @Override
        public int requestBodyLength() {
            return t.requestBodyLength();
        }

        @Override
        public void requestBodyRead() {
            t.requestBodyRead();
        }

        @Override
        public long callerTimeoutNanos() {
            maybeFail("callerTimeoutNanos");
            return t.callerTimeoutNanos();
        }

        @Override
        public boolean isCancelled() {
            maybeFail("isCancelled");
            return t.isCancelled();
        }

        @Override
        public Object send(BodyObserver observer) throws Exception {
            maybeFail("send");
            return t.send(observer);
        }

        @Override
        public CompletableFuture<Object> sendAsync(BodyObserver observer) {
            maybeFail("sendAsync");
            return t.sendAsync(observer);
        }

        @Override
        public int status(Object response) {
            maybeFail("status");
            return t.status(response);
        }

        @Override
        public Map<String, List<String>> responseHeaders(Object response) {
            maybeFail("responseHeaders");
            return t.responseHeaders(response);
        }

        @Override
        public byte[] errorBody(Object response) {
            maybeFail("errorBody");
            return t.errorBody(response);
        }

        @Override
        public Object handBack(Object response, Map<String, String> setHeaders) {
            maybeFail("handBack");
            return t.handBack(response, setHeaders);
        }

        @Override
        public void discard(Object response) {
            maybeFail("discard");
            t.discard(response);
        }

        @Override
        public Object localResponse(int status, Map<String, List<String>> headers, byte[] body) {
            maybeFail("localResponse");
            return t.localResponse(status, headers, body);
        }

        @Override
        public Executor callbackExecutor() {
            maybeFail("callbackExecutor");
            return t.callbackExecutor();
        }
    }

    /**
     * The fault thrown by one transport method: an exception class of its own (an anonymous
     * subclass per method), because the governance logs a fault once a minute per place and
     * exception class, and where it only logs (does not count) the log is how the test sees it.
     */
    static InjectedFault transportFault(String method) {
        String where = "transport." + method;
        switch (method) {
            case "method":
                return new InjectedFault(where) {};
            case "url":
                return new InjectedFault(where) {};
            case "requestHeaders":
                return new InjectedFault(where) {};
            case "requestBody":
                return new InjectedFault(where) {};
            case "callerTimeoutNanos":
                return new InjectedFault(where) {};
            case "isCancelled":
                return new InjectedFault(where) {};
            case "send":
                return new InjectedFault(where) {};
            case "sendAsync":
                return new InjectedFault(where) {};
            case "status":
                return new InjectedFault(where) {};
            case "responseHeaders":
                return new InjectedFault(where) {};
            case "errorBody":
                return new InjectedFault(where) {};
            case "handBack":
                return new InjectedFault(where) {};
            case "discard":
                return new InjectedFault(where) {};
            case "localResponse":
                return new InjectedFault(where) {};
            case "callbackExecutor":
                return new InjectedFault(where) {};
            default:
                throw new IllegalArgumentException(method);
        }
    }

    /** Every method the governance calls ({@code library()} is for logs and metrics, and it calls it nowhere today). */
    static final String[] TRANSPORT_METHODS = {
        "method", "url", "requestHeaders", "requestBody", "callerTimeoutNanos", "isCancelled", "send",
        "sendAsync", "status", "responseHeaders", "errorBody", "handBack", "discard", "localResponse",
        "callbackExecutor"
    };
}
