package dev.sluice.core.jmx;

import java.util.Map;

/**
 * {@code dev.sluice:type=Governor}: the governor's totals and mode, and the operations an operator
 * needs in an incident. Every change applies to the next admission; an invalid value is refused
 * with a message and changes nothing.
 */
public interface GovernorMXBean {

    @Description("enforce (decisions applied), observe (decided and counted, nothing delayed or rejected) or off"
            + " (pass-through). Writable")
    String getMode();

    void setMode(String mode);

    @Description("What a call gets when Sluice itself faults: open (goes through ungoverned) or closed (rejected"
            + " locally). Writable")
    String getFailMode();

    void setFailMode(String failMode);

    @Description("Calls admitted since start")
    long getAdmitted();

    @Description("Faults inside Sluice since start, in hooks and while governing calls: each let its call through"
            + " (fail mode open) or answered it locally (closed), and was logged once a minute per place and cause")
    long getFaults();

    @Description("Calls whose model has no price (built-in table or config prices): charged nothing against"
            + " spend limits; each such model is logged once")
    long getUnpricedCalls();

    @Description("Calls whose model has no price, by '<provider>/<model>': price these under prices: in the config"
            + " (or keep pricesFile current), or their calls count nothing against spend limits")
    Map<String, Long> getUnpricedModels();

    @Description("Where prices come from: the built-in table's date, the pricesFile (its format, date, models and"
            + " entries left out) and the config's own entries; empty until the first call is priced")
    String getPriceTables();

    @Description("Permits settled with their actual usage since start")
    long getSettled();

    @Description("Calls rejected since start, every reason")
    long getRejected();

    @Description("Calls rejected since start, by gateway decision (rejected_locally, queue_deadline_exceeded,"
            + " queue_full, paused, not_admissible...)")
    Map<String, Long> getRejectionsByReason();

    @Description("In observe mode: calls that enforce mode would have delayed or rejected, by decision")
    Map<String, Long> getObservedWouldDelay();

    @Description("Calls waiting for admission now, over every traffic class")
    int getWaiting();

    @Description("Calls admitted and not finished (still holding a reservation or a concurrency slot)")
    int getInFlight();

    @Description("Permits whose lease expired (a stream or response nobody closed); their slots were freed")
    long getLeaseExpired();

    @Description("Times a provider asked a scope to wait (429 with Retry-After), pausing it for every caller")
    long getProviderPauses();

    @Description("Provider scopes that started cold: seen for the first time with no provider limit mirrored, their"
            + " first call went alone and the others waited for its headers (at most coldStartWait)")
    long getColdStarts();

    @Description("The retry layers Sluice stood in for (SDK loops, interceptors, OkHttp's connection retries): per"
            + " layer, '<layer>.passed' calls that went through it with its retries off and '<layer>.declined'"
            + " retries it would have made")
    Map<String, Long> getRetryLayers();

    @Description("Calls that moved to a fallback route, by 'from -> to (reason)': reason no_room (the route could not"
            + " admit the call at once), paused (the provider paused the route longer than the class's afterPause)"
            + " or overloaded (503, 529, a failed connection); empty when no fallbacks are configured")
    Map<String, Long> getFallbacks();

    @Description("Answers to calls of classes with fallback routes, by the route that served them (the sluice-route"
            + " header of each answer)")
    Map<String, Long> getRouteAnswers();

    @Description("Connections to a provider's host opened by an HTTP client Sluice does not govern (its calls bypass"
            + " the governor), by '<host> via <client>': e.g. 'api.openai.com via HttpURLConnection'. Logged"
            + " once per host and client; empty when every provider call is governed")
    Map<String, Long> getUngovernedConnections();

    @Description("Tenants paused by an operator: their calls are rejected with 'paused'")
    String[] getPausedTenants();

    @Description("API key ids paused by an operator")
    String[] getPausedApiKeys();

    @Description("Where the running configuration came from (file, overrides, defaults)")
    String getConfigOrigin();

    @Description(
            value = "Emergency stop: the tenant's calls are rejected with 'paused' until resumed",
            params = "tenant")
    String pauseTenant(String tenant);

    @Description(value = "Lets a paused tenant's calls through again", params = "tenant")
    String resumeTenant(String tenant);

    @Description(
            value = "Emergency stop for one API key (its id as shown in rejections, e.g. k_3f9a1c)",
            params = "apiKeyId")
    String pauseApiKey(String apiKeyId);

    @Description(value = "Lets a paused API key's calls through again", params = "apiKeyId")
    String resumeApiKey(String apiKeyId);

    @Description("Re-reads the config from the sources it was loaded from and applies what can change live"
            + " (capacities, enforced flags, tenant weights and shares, class waits and depths, mode, fail mode);"
            + " refuses, changing nothing, a file that is invalid or changes what needs a restart")
    String reloadConfig();

    @Description(
            "The limits table, rendered from the live objects the governor reads; rows not enforced are" + " marked")
    String describeLimits();

    @Description(
            value = "The last n decisions worth explaining (waits, rejections, provider refusals), newest" + " first",
            params = "n")
    String[] recentDecisions(int n);
}
