package dev.sluice.simulator;

import dev.sluice.simulator.fault.Faults;
import dev.sluice.simulator.ledger.Ledger;
import dev.sluice.simulator.limit.LimitStatus;
import dev.sluice.simulator.limit.Neighbour;
import dev.sluice.simulator.limit.ScopeKeys;
import dev.sluice.simulator.protocol.Pacing;
import dev.sluice.simulator.protocol.ProtocolSettings;
import dev.sluice.simulator.protocol.ProviderProtocol;
import dev.sluice.simulator.server.Identification;
import dev.sluice.simulator.server.SimulatorServer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A rate-limited LLM provider on loopback.
 *
 * <pre>{@code
 * try (Simulator sim = Simulator.builder()
 *     .profile(Profile.OPENAI)
 *     .limit(Dimension.REQUESTS, 10, Duration.ofSeconds(1))
 *     .tokensPerMinute(20_000)
 *     .start()) {
 *   OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(sim.apiBaseUrl()).apiKey("sk-a").build();
 *   ...
 *   assertThat(sim.ledger().maxAdmittedInAnyWindow(Duration.ofSeconds(1))).isLessThanOrEqualTo(10);
 * }
 * }</pre>
 *
 * <p>Limits are per API key by default ({@link Scope#API_KEY}: a provider keys limits to the
 * organization or project the key identifies). To behave as providers do in the field, opt in:
 *
 * <pre>{@code
 * Simulator.builder().profile(Profile.OPENAI)
 *     .organization("org-a", "sk-1", "sk-2")   // limits per organization, org named on answers
 *     .eachUnmappedKeyItsOwnOrganization()
 *     .countRefusedRequests(true)               // OpenAI's default already
 *     .neighbour("org-a", 0.40)                 // an unseen service takes 40 % of every limit
 *     .start();
 * }</pre>
 *
 * <p> Configuring any limit replaces the profile's
 * default limits. Token buckets start full with a burst equal to their capacity unless a burst is
 * set ({@link Limit#burst(long)}).
 */
public final class Simulator implements AutoCloseable {
    private final Profile profile;
    private final ProviderProtocol protocol;
    private final SimulatorServer server;

    private Simulator(Profile profile, ProviderProtocol protocol, SimulatorServer server) {
        this.profile = profile;
        this.protocol = protocol;
        this.server = server;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Profile profile() {
        return profile;
    }

    /** {@code http://127.0.0.1:<port>}, the server root. */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.port();
    }

    /** The base URL an SDK wants: {@code .../v1} for OpenAI and the gateway, the root otherwise. */
    public String apiBaseUrl() {
        return baseUrl() + protocol.sdkBasePath();
    }

    public int port() {
        return server.port();
    }

    /** What the simulator saw. */
    public Ledger ledger() {
        return server.ledger();
    }

    /** Runtime fault switches. */
    public Faults faults() {
        return server.faults();
    }

    /** The limits enforced, as resolved for the profile (defaults filled, provider adaptations). */
    public List<Limit> limits() {
        return server.quota().limits();
    }

    /** The state of every limit for these keys now, without charging anything. */
    public List<LimitStatus> limitStatus(String apiKey, String organization, String model) {
        return server.quota().statuses(new ScopeKeys(apiKey, organization, model));
    }

    /**
     * Brings every neighbour's consumption up to now, so {@link Ledger#neighbourUses()} covers the
     * time since the last request too (neighbours consume lazily, when their buckets are looked at).
     */
    public void catchUpNeighbours() {
        server.quota().catchUpNeighbours();
    }

    /** Empties the ledger, refills every bucket, disarms every fault. */
    public void reset() {
        server.reset();
    }

    @Override
    public void close() {
        server.close();
    }

    /** Configuration of a simulator; every setting has a default. */
    public static final class Builder {
        private Profile profile = Profile.OPENAI;
        private final List<Limit> limits = new ArrayList<>();
        private Scope keyScope = Scope.API_KEY;
        private boolean keyScopeSet;
        private boolean organizationsMapped;
        private Boolean announceOrganization;
        private boolean keyIsItsOwnOrganization;
        private Boolean countRefusedRequests;
        private dev.sluice.simulator.limit.AccelerationLimit acceleration;
        private Boolean roundTokensRemaining;
        private final List<Neighbour> neighbours = new ArrayList<>();
        private int outputTokens = 64;
        private Duration firstByte = Duration.ofMillis(200);
        private Duration perToken = Duration.ofMillis(20);
        private int modelMaxOutputTokens = 4096;
        private List<String> tenantHeaders = List.of("X-Sluice-Tenant", "x-sim-tenant");
        private String callIdHeader = "x-sim-call-id";
        private String organizationHeader = "x-sim-organization";
        private final Map<String, String> organizations = new LinkedHashMap<>();
        private String defaultOrganization = "org-sim";
        private String forceHeader = "x-sim-force";
        private int port;
        private int containerThreads = 300;
        private int acceptQueue;
        private Clock clock = Clock.systemUTC();

        private Builder() {}

        public Builder profile(Profile value) {
            this.profile = Objects.requireNonNull(value);
            return this;
        }

        /** Adds a limit (replacing the profile's defaults). */
        public Builder limit(Limit value) {
            limits.add(Objects.requireNonNull(value));
            return this;
        }

        /** Adds {@code capacity} of {@code dimension} per {@code window}, e.g. 10 requests per second. */
        public Builder limit(Dimension dimension, long capacity, Duration window) {
            return limit(Limit.of(dimension, capacity, window));
        }

        public Builder requestsPerMinute(long capacity) {
            return limit(Limit.perMinute(Dimension.REQUESTS, capacity));
        }

        /** Tokens per minute as the profile counts them (Anthropic and Gemini: input tokens). */
        public Builder tokensPerMinute(long capacity) {
            return limit(Limit.perMinute(Dimension.TOKENS, capacity));
        }

        public Builder inputTokensPerMinute(long capacity) {
            return limit(Limit.perMinute(Dimension.INPUT_TOKENS, capacity));
        }

        public Builder outputTokensPerMinute(long capacity) {
            return limit(Limit.perMinute(Dimension.OUTPUT_TOKENS, capacity));
        }

        /** At most {@code inFlight} requests at once per key, refused at once beyond. */
        public Builder concurrency(long inFlight) {
            return limit(Limit.concurrency(inFlight));
        }

        /** Who shares a bucket when a limit does not say (default: each API key). */
        public Builder keyScope(Scope value) {
            this.keyScope = Objects.requireNonNull(value);
            this.keyScopeSet = true;
            return this;
        }

        /** Tokens generated per answer when max tokens is absent or larger (default 64). */
        public Builder outputTokens(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("output tokens must not be negative");
            }
            this.outputTokens = value;
            return this;
        }

        /** Time to first byte (default 200 ms). */
        public Builder firstByteLatency(Duration value) {
            this.firstByte = Objects.requireNonNull(value);
            return this;
        }

        /** Latency per output token (default 20 ms). */
        public Builder latencyPerToken(Duration value) {
            this.perToken = Objects.requireNonNull(value);
            return this;
        }

        /** No generation latency at all: answers as fast as the server can. */
        public Builder instant() {
            return firstByteLatency(Duration.ZERO).latencyPerToken(Duration.ZERO);
        }

        /** What Azure reserves when max_tokens is absent (default 4096). */
        public Builder modelMaxOutputTokens(int value) {
            this.modelMaxOutputTokens = value;
            return this;
        }

        /** Headers naming the tenant, first present wins (default X-Sluice-Tenant, x-sim-tenant). */
        public Builder tenantHeaders(String... names) {
            this.tenantHeaders = List.of(names);
            return this;
        }

        /** The header carrying a logical call id (default x-sim-call-id). */
        public Builder callIdHeader(String name) {
            this.callIdHeader = Objects.requireNonNull(name);
            return this;
        }

        /** The header naming the organization (default x-sim-organization). */
        public Builder organizationHeader(String name) {
            this.organizationHeader = name;
            return this;
        }

        /**
         * Puts API keys in an organization, as a real provider does: from then on limits are counted
         * per organization (unless {@link #keyScope} says otherwise) and every answer names the
         * organization ({@link #announceOrganization}). A key may belong to one organization only.
         */
        public Builder organization(String organization, String... apiKeys) {
            Objects.requireNonNull(organization);
            for (String key : apiKeys) {
                String before = organizations.put(Objects.requireNonNull(key), organization);
                if (before != null && !before.equals(organization)) {
                    throw new IllegalArgumentException(key + " is already in " + before);
                }
            }
            organizationsMapped = true;
            return this;
        }

        /**
         * Whether every answer, success or error, names the organization it was counted against in
         * the profile's header ({@code openai-organization}, {@code anthropic-organization-id}; Azure,
         * Gemini and the gateway send none). Default: on once {@link #organization} was called; off
         * otherwise (Anthropic then sends a fixed organization id, as before).
         */
        public Builder announceOrganization(boolean value) {
            this.announceOrganization = value;
            return this;
        }

        /**
         * Keys nobody mapped are each an organization of their own (an id derived from the key, {@code
         * org-<hex>} or a UUID for Anthropic), as with a real provider, rather than members of {@link
         * #defaultOrganization}.
         */
        public Builder eachUnmappedKeyItsOwnOrganization() {
            this.keyIsItsOwnOrganization = true;
            return this;
        }

        /**
         * Whether a refused request (429, overload, forced error) still takes one from the request
         * limits, as OpenAI counts failed requests against its per-minute limit. Default: the
         * profile's habit (OpenAI yes, the others no).
         */
        public Builder countRefusedRequests(boolean value) {
            this.countRefusedRequests = value;
            return this;
        }

        /**
         * Refuses a request (429; OpenAI's {@code slow_down}) when the requests accepted over the last
         * {@code window} would exceed {@code factor} times those of the window before, above
         * {@code floor} a window: an acceleration limit.
         */
        public Builder accelerationLimit(double factor, Duration window, int floor) {
            this.acceleration = new dev.sluice.simulator.limit.AccelerationLimit(factor, window, floor);
            return this;
        }

        /**
         * Whether token {@code remaining} headers are rounded to the nearest thousand, as Anthropic
         * does. Default on; only the Anthropic profile reports token counts this way.
         */
        public Builder roundTokensRemaining(boolean value) {
            this.roundTokensRemaining = value;
            return this;
        }

        /**
         * A consumer the client under test cannot see (another service of the organization with no
         * agent) that takes {@code share} of every organization-scoped limit of {@code organization},
         * steadily, straight from the buckets; what it takes is in {@link Ledger#neighbourUses()}.
         * Implies organization-scoped limits unless {@link #keyScope} was set.
         */
        public Builder neighbour(String organization, double share) {
            neighbours.add(new Neighbour(organization, share));
            return this;
        }

        /** The organization of keys not mapped and requests without the header (default org-sim). */
        public Builder defaultOrganization(String value) {
            this.defaultOrganization = Objects.requireNonNull(value);
            return this;
        }

        /** The header by which a request forces faults (default x-sim-force). */
        public Builder forceHeader(String name) {
            this.forceHeader = Objects.requireNonNull(name);
            return this;
        }

        /** The port on 127.0.0.1 (default 0: a free one). */
        public Builder port(int value) {
            this.port = value;
            return this;
        }

        /** Jetty threads; each paced stream holds one while it lasts (default 300). */
        public Builder containerThreads(int value) {
            if (value < 16) {
                throw new IllegalArgumentException("need at least 16 container threads");
            }
            this.containerThreads = value;
            return this;
        }

        /**
         * Connections the server's socket holds before it accepts them (default: the JDK's 50).
         * Thousands of clients connecting at the same moment need more, or the kernel refuses some.
         */
        public Builder acceptQueue(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("accept queue must not be negative");
            }
            this.acceptQueue = value;
            return this;
        }

        /** The clock of limits, ledger and faults (pacing always runs in real time). */
        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value);
            return this;
        }

        /** The limits this configuration would enforce, without starting anything. */
        public List<Limit> resolvedLimits() {
            return resolve(protocol());
        }

        public Simulator start() {
            ProviderProtocol protocol = protocol();
            Identification identification = new Identification(
                    tenantHeaders,
                    callIdHeader,
                    organizationHeader,
                    organizations,
                    defaultOrganization,
                    forceHeader,
                    keyIsItsOwnOrganization,
                    announceOrganization == null ? organizationsMapped : announceOrganization);
            SimulatorServer server = new SimulatorServer(
                    profile.id(),
                    protocol,
                    resolve(protocol),
                    clock,
                    identification,
                    new Pacing(firstByte, perToken),
                    port,
                    containerThreads,
                    acceptQueue,
                    countRefusedRequests == null ? protocol.countsRefusedRequests() : countRefusedRequests,
                    neighbours);
            if (acceleration != null) {
                server.accelerationLimit(acceleration);
            }
            return new Simulator(profile, protocol, server);
        }

        private ProviderProtocol protocol() {
            return profile.protocol(new ProtocolSettings(
                    clock, outputTokens, modelMaxOutputTokens, roundTokensRemaining == null || roundTokensRemaining));
        }

        private List<Limit> resolve(ProviderProtocol protocol) {
            List<Limit> chosen = limits.isEmpty() ? protocol.defaultLimits() : limits;
            Scope scope =
                    keyScopeSet || !(organizationsMapped || !neighbours.isEmpty()) ? keyScope : Scope.ORGANIZATION;
            List<Limit> resolved = new ArrayList<>();
            for (Limit limit : chosen) {
                resolved.add(limit.withDefaults(protocol.defaultAlgorithm(), scope));
            }
            List<Limit> named = new ArrayList<>();
            for (Limit limit : protocol.adapt(resolved)) {
                named.add(limit.withDefaultName());
            }
            return List.copyOf(named);
        }
    }
}
