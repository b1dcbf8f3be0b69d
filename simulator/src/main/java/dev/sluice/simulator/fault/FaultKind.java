package dev.sluice.simulator.fault;

import java.util.Locale;

/**
 * Faults and forced answers the simulator can inject, each with the wire name used by the {@code
 * x-sim-force} request header, the CLI {@code --fault} flag and {@code POST /__sim/faults}.
 */
public enum FaultKind {
    /** 503 {@code server_is_overloaded} (OpenAI, Azure, gateway), 529 (Anthropic), 503 (Gemini). */
    OVERLOAD("overload", Stage.BEFORE_ADMISSION),
    /** Admitted, then the connection is reset before any byte of response. */
    CONNECTION_RESET("connection_reset", Stage.AFTER_ADMISSION),
    /** Rate-limit headers carry garbage values. */
    MALFORMED_HEADERS("malformed_headers", Stage.ON_LIMITED_ANSWER),
    /** The body stops half way (no usage, no [DONE]) and the connection is closed. */
    TRUNCATED_STREAM("truncated_stream", Stage.AFTER_ADMISSION),
    /** The first byte comes late (see {@link Faults#slowFirstByteDelay}). */
    SLOW_FIRST_BYTE("slow_first_byte", Stage.AFTER_ADMISSION),
    /**
     * A stream fails half way with the provider's in-band error: Anthropic {@code event: error}
     * overloaded, OpenAI Responses {@code response.failed}, an error chunk elsewhere.
     */
    MID_STREAM_ERROR("mid_stream_error", Stage.AFTER_ADMISSION),
    /** A 429 in the provider's rate-limit shape, whatever the buckets say (retry after 1 s). */
    RATE_LIMITED("rate_limited", Stage.ANSWER),
    /**
     * Billing exhausted, never worth a retry: OpenAI/Azure 429 {@code insufficient_quota},
     * Anthropic 429 {@code enforced_spend_limit_reached}, Gemini a per-day quota, gateway 402.
     */
    INSUFFICIENT_QUOTA("insufficient_quota", Stage.ANSWER),
    /** 402 {@code budget_exceeded} (the gateway's daily spend cap). */
    BUDGET_EXCEEDED("budget_exceeded", Stage.ANSWER),
    /** 409 {@code no_endpoint_for_policy} (the gateway's residency filter). */
    NO_ENDPOINT_FOR_POLICY("no_endpoint_for_policy", Stage.ANSWER),
    /** 400 invalid request in the provider's shape. */
    BAD_REQUEST("bad_request", Stage.ANSWER),
    /** 500 in the provider's shape. */
    SERVER_ERROR("server_error", Stage.ANSWER);

    /** When in the handling of a request a fault is considered (and its counter consumed). */
    public enum Stage {
        /** Answered instead of evaluating limits. */
        ANSWER,
        /** Answered before the limits, as a front door would. */
        BEFORE_ADMISSION,
        /** Applied to a request that passed the limits. */
        AFTER_ADMISSION,
        /** Applied to an answer of the limits, admitted or refused (both carry rate-limit headers). */
        ON_LIMITED_ANSWER
    }

    private final String wireName;
    private final Stage stage;

    FaultKind(String wireName, Stage stage) {
        this.wireName = wireName;
        this.stage = stage;
    }

    public String wireName() {
        return wireName;
    }

    public Stage stage() {
        return stage;
    }

    /** Accepts the wire name or the constant name, any case, dashes or underscores. */
    public static FaultKind parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        for (FaultKind kind : values()) {
            if (kind.wireName.equals(t) || kind.name().toLowerCase(Locale.ROOT).equals(t)) {
                return kind;
            }
        }
        if (t.equals("enforced_spend_limit_reached") || t.equals("spend_limit")) {
            return INSUFFICIENT_QUOTA;
        }
        if (t.equals("reset")) {
            return CONNECTION_RESET;
        }
        if (t.equals("truncate") || t.equals("truncated")) {
            return TRUNCATED_STREAM;
        }
        throw new IllegalArgumentException("unknown fault: " + text + " (known: " + names() + ")");
    }

    /** All wire names, comma-separated, for messages and --help. */
    public static String names() {
        StringBuilder sb = new StringBuilder();
        for (FaultKind kind : values()) {
            sb.append(sb.length() == 0 ? "" : ", ").append(kind.wireName);
        }
        return sb.toString();
    }
}
