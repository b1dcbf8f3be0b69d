package dev.sluice.core.identity;

import dev.sluice.core.CallContext;
import dev.sluice.core.provider.Headers;
import java.util.List;

/**
 * Resolves tenant, team and traffic class for a call from ordered sources: the first source that
 * yields a value wins. With no config the tenant is the {@code X-Sluice-Tenant} header, else the
 * API key's id; the class is {@code X-Sluice-Class}, else {@code default}. Immutable.
 */
public final class IdentityResolver {

    /** The tenant of a call nothing identifies. */
    public static final String UNKNOWN_TENANT = "unknown";

    private final List<IdentitySource> tenant;
    private final List<IdentitySource> team;
    private final List<IdentitySource> trafficClass;

    public IdentityResolver(List<IdentitySource> tenant, List<IdentitySource> team, List<IdentitySource> trafficClass) {
        this.tenant = List.copyOf(tenant);
        this.team = List.copyOf(team);
        this.trafficClass = List.copyOf(trafficClass);
    }

    public static IdentityResolver defaults() {
        return new IdentityResolver(
                List.of(IdentitySource.header("X-Sluice-Tenant"), IdentitySource.apiKeyId()),
                List.of(),
                List.of(IdentitySource.header("X-Sluice-Class"), IdentitySource.constant(CallContext.DEFAULT_CLASS)));
    }

    /** Resolves on the calling thread (MDC, thread name and stack are the caller's). */
    public Identity resolve(Headers headers, String apiKeyId) {
        IdentitySource.Request request = new IdentitySource.Request(headers, apiKeyId);
        String t = first(tenant, request);
        String c = first(trafficClass, request);
        return new Identity(
                t == null ? UNKNOWN_TENANT : t, first(team, request), c == null ? CallContext.DEFAULT_CLASS : c);
    }

    private static String first(List<IdentitySource> sources, IdentitySource.Request request) {
        for (IdentitySource s : sources) {
            String v;
            try {
                v = s.valueFor(request);
            } catch (RuntimeException e) {
                v = null; // a broken source yields nothing rather than breaking the call
            }
            if (v != null) {
                return v;
            }
        }
        return null;
    }
}
