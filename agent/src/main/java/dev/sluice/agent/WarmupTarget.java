package dev.sluice.agent;

/**
 * Never instantiated: its class file is woven once by the {@code sluice-warmup} thread, with the
 * advice of the OkHttp and JDK HttpClient instrumentations, so that the weaver's
 * classes are loaded, those modules' advice is read and the weaver's code has run
 * before the first real library class is woven on an application thread. It has the shapes the
 * advice expects: the fields OkHttp's advice reads and the methods both instrumentations match.
 */
@SuppressWarnings("unused")
final class WarmupTarget {

    private final Object client = null;
    private final boolean forWebSocket = false;

    private WarmupTarget() {}

    public Object execute() {
        return null;
    }

    public void enqueue(Object callback) {}

    public void cancel() {}

    public Object send(Object request, Object handler) {
        return null;
    }

    public Object sendAsync(Object request, Object handler) {
        return null;
    }

    public Object sendAsync(Object request, Object handler, Object pushPromiseHandler) {
        return null;
    }
}
