package dev.sluice.simulator;

/**
 * Who shares one bucket of a limit. Providers key limits to the organization or project that the
 * API key identifies, so {@link #API_KEY} is the default: each distinct key gets its own buckets.
 */
public enum Scope {
    /** One bucket per API key (the key stands for an OpenAI project, an Anthropic workspace...). */
    API_KEY,
    /** One bucket per API key and model (providers limit model families separately). */
    API_KEY_AND_MODEL,
    /** One bucket per organization (from the organization header or the key-to-org mapping). */
    ORGANIZATION,
    /** One bucket for everything the simulator serves. */
    GLOBAL
}
