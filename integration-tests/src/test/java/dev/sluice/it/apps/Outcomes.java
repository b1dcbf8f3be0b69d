package dev.sluice.it.apps;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a failed call means to the scenarios, read the way an application could read it: a local
 * rejection names Sluice's decision in the error body, which each SDK carries into its exception
 * (the body, or the message built from it); anything else is the provider's or the network's.
 */
public final class Outcomes {

    /** The counter prefix of a local rejection: {@code local:<gateway_decision>}. */
    public static final String LOCAL = "local:";

    /** The counter of a provider's own 429 that reached the application. */
    public static final String PROVIDER_429 = "provider:429";

    private static final Pattern DECISION = Pattern.compile("gateway_decision\\W{1,6}([a-z_]+)");

    private Outcomes() {}

    /**
     * {@code local:<decision>} when the failure carries a Sluice decision taken before anything was
     * sent, {@code provider:429} for a provider's 429 handed back, {@code error:<type>} otherwise.
     *
     * @param body the error body as the SDK kept it, or null; the exception chain's messages are
     *     searched as well
     */
    public static String classify(Throwable failure, String body) {
        String decision = decision(body);
        for (Throwable t = failure; decision == null && t != null; t = t.getCause()) {
            decision = decision(t.getMessage());
        }
        if (decision != null && !decision.equals("admitted_then_provider_rejected")) {
            return LOCAL + decision;
        }
        if (decision != null || mentions429(failure)) {
            return PROVIDER_429;
        }
        return "error:" + failure.getClass().getSimpleName();
    }

    private static String decision(String text) {
        if (text == null) {
            return null;
        }
        Matcher m = DECISION.matcher(text);
        return m.find() ? m.group(1) : null;
    }

    private static boolean mentions429(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String name = t.getClass().getSimpleName();
            String message = String.valueOf(t.getMessage());
            if (name.equals("RateLimitException")
                    || message.startsWith("429")
                    || message.contains("status code 429")
                    || message.contains("RESOURCE_EXHAUSTED")) {
                return true;
            }
        }
        return false;
    }
}
