package dev.sluice.simulator.protocol;

import java.time.Duration;

/**
 * Bytes to send at an offset from the start of the response: an SSE event, or a whole JSON body.
 *
 * @param at offset from when the response starts
 * @param bytes what to send
 */
public record Frame(Duration at, byte[] bytes) {}
