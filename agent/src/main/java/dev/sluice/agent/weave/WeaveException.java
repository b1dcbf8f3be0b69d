package dev.sluice.agent.weave;

/** A class or an advice the weaver cannot handle; the class is then left untouched. */
public final class WeaveException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    WeaveException(String message) {
        super(message);
    }
}
