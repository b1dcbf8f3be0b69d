package dev.sluice.bootstrap;

/**
 * What a synchronous governed call ends with: the library response to return to the caller, or
 * the throwable the caller must see (for example the IOException of the last attempt). Advice
 * uses it to replace the original method's result without running the method again.
 */
public final class CallOutcome {

    private final Object response;
    private final Throwable failure;

    private CallOutcome(Object response, Throwable failure) {
        this.response = response;
        this.failure = failure;
    }

    /** The call ends with this library response object. */
    public static CallOutcome response(Object response) {
        if (response == null) {
            throw new IllegalArgumentException("response must not be null");
        }
        return new CallOutcome(response, null);
    }

    /** The call ends by throwing this to the caller. */
    public static CallOutcome failure(Throwable failure) {
        if (failure == null) {
            throw new IllegalArgumentException("failure must not be null");
        }
        return new CallOutcome(null, failure);
    }

    /**
     * The governance's outcome if it is one a caller of the library can get; throws (a fault
     * inside Sluice, for the hook to count and to send the call ungoverned or fail) when it is
     * missing, a response not of {@code responseType}, or a failure no client raises for a call it
     * never sent (anything but an IOException).
     *
     * @param attemptsSent how many attempts the transport sent for this call
     */
    public static CallOutcome checked(CallOutcome outcome, Class<?> responseType, int attemptsSent) {
        if (outcome == null) {
            throw new IllegalStateException("the governance returned no outcome");
        }
        Throwable failure = outcome.failure();
        if (failure != null) {
            if (attemptsSent == 0 && !(failure instanceof java.io.IOException)) {
                throw new IllegalStateException("the governance failed a call it never sent", failure);
            }
            return outcome;
        }
        if (!responseType.isInstance(outcome.response())) {
            throw new IllegalStateException("the governance returned a "
                    + outcome.response().getClass().getName() + ", not a " + responseType.getSimpleName());
        }
        return outcome;
    }

    /** The library response, or null when the call failed. */
    public Object response() {
        return response;
    }

    /** What the caller must see thrown, or null when the call has a response. */
    public Throwable failure() {
        return failure;
    }
}
