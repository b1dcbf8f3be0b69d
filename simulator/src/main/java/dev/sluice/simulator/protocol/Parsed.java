package dev.sluice.simulator.protocol;

/**
 * A protocol's reading of a request: a model call, or an error answer (unknown route, invalid
 * body) when it is not one.
 *
 * @param call the call, or null
 * @param error the answer to send instead, or null
 */
public record Parsed(ModelCall call, Reply error) {
    public static Parsed of(ModelCall call) {
        return new Parsed(call, null);
    }

    public static Parsed failed(Reply error) {
        return new Parsed(null, error);
    }
}
