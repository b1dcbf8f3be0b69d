package dev.sluice.core.exchange;

import dev.sluice.core.Admission;
import dev.sluice.core.Permit;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One logical call made without blocking any thread: admission is a future, each attempt is the
 * library's own asynchronous send, and waits between attempts are timer tasks. The application's
 * future completes on the client's own executor, never on Sluice's timer thread. Cancelling it
 * takes the call out of its queue or cancels the attempt in flight.
 */
final class AsyncExchange {

    private final ExchangeGovernance engine;
    private final PreparedCall call;
    private final CompletableFuture<Object> result = new CompletableFuture<>();
    private final Executor callbacks;
    private volatile CompletableFuture<?> current;

    AsyncExchange(ExchangeGovernance engine, PreparedCall call) {
        this.engine = engine;
        this.call = call;
        Executor e;
        try {
            e = call.transport.callbackExecutor();
        } catch (Throwable t) {
            engine.fault(call, "reading the client's callback executor", t); // completions then run on a fresh thread
            e = null;
        }
        this.callbacks =
                e != null ? e : CompletableFuture.delayedExecutor(0, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    CompletableFuture<Object> start() {
        result.whenComplete((r, error) -> {
            if (result.isCancelled()) {
                CompletableFuture<?> inFlight = current;
                if (inFlight != null) {
                    inFlight.cancel(true);
                }
            }
        });
        attempt();
        return result;
    }

    private void attempt() {
        if (result.isDone()) {
            return;
        }
        if (call.transport.isCancelled()) {
            finish(engine.failed(call, new InterruptedIOException("call cancelled")));
            return;
        }
        CompletableFuture<Admission> admission;
        try {
            int next = call.nextUsableRoute();
            if (next >= 0) {
                // a call never queues on a route that has a next one
                Admission now = engine.governor().tryAdmit(call.context, call.demand);
                if (now.isAdmitted()) {
                    onAdmission(now);
                    return;
                }
                if (engine.moveBeforeSend(call, next, now)) {
                    attempt();
                    return;
                }
            }
            admission = engine.governor().admitAsync(call.context, call.demand, call.admissionDeadline());
        } catch (Throwable t) {
            finishFromFault(t);
            return;
        }
        current = admission;
        admission.whenComplete((a, error) -> {
            if (error != null || a == null) {
                if (!admission.isCancelled()) {
                    finishFromFault(error);
                }
                return;
            }
            onAdmission(a);
        });
    }

    private void onAdmission(Admission a) {
        if (!a.isAdmitted()) {
            finish(engine.localRejection(call, a.rejection()));
            return;
        }
        Permit permit = a.permit();
        if (result.isDone()) {
            permit.cancel(); // the caller gave up while we waited
            return;
        }
        SettlingObserver observer = null;
        CompletableFuture<Object> send;
        try {
            observer = engine.beforeSend(call, permit);
            send = call.transport.sendAsync(observer);
        } catch (Throwable t) {
            handle(engine.afterSendFailure(call, permit, observer, t));
            return;
        }
        current = send;
        SettlingObserver attemptObserver = observer;
        send.whenComplete((response, error) -> {
            if (error != null) {
                handle(engine.afterSendFailure(call, permit, attemptObserver, unwrap(error)));
            } else {
                handle(engine.afterResponse(call, permit, attemptObserver, response));
            }
        });
    }

    private void handle(Step step) {
        if (step.kind == Step.Kind.RETRY) {
            if (step.waitNanos > 0) {
                engine.governor().timer().schedule(this::attempt, step.waitNanos);
            } else {
                attempt();
            }
        } else {
            finish(step);
        }
    }

    private void finishFromFault(Throwable t) {
        finish(engine.failSafe().faultBeforeSendAsync(call, t, this::finish));
    }

    private void finish(Step step) {
        if (step == null) {
            return; // completion comes later (an ungoverned send in flight)
        }
        try {
            callbacks.execute(() -> complete(step));
        } catch (Throwable rejected) {
            complete(step);
        }
    }

    private void complete(Step step) {
        if (step.kind == Step.Kind.FAIL) {
            result.completeExceptionally(engine.decidedFailure(step.failure));
        } else if (!result.complete(step.response)) {
            call.transport.discard(step.response); // the caller cancelled: nobody will read it
        }
    }

    private static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while ((t instanceof java.util.concurrent.CompletionException
                        || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
