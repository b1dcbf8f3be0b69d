package dev.sluice.core.telemetry;

import java.util.ArrayList;
import java.util.List;

/**
 * The last decisions, newest first, in a fixed ring: enough to explain "why was this call
 * slow or refused" without keeping history. Only decisions worth explaining are recorded
 * (waits, rejections, provider refusals, retries), not every fast admission. Thread-safe.
 */
public final class DecisionLog {

    private final Decision[] ring;
    private long next;

    public DecisionLog(int capacity) {
        this.ring = new Decision[capacity];
    }

    public synchronized void record(Decision d) {
        ring[(int) (next % ring.length)] = d;
        next++;
    }

    /** Up to {@code n} most recent decisions, newest first. */
    public synchronized List<Decision> recent(int n) {
        int count = (int) Math.min(Math.min(n, ring.length), next);
        List<Decision> out = new ArrayList<>(Math.max(0, count));
        for (int i = 1; i <= count; i++) {
            out.add(ring[(int) ((next - i) % ring.length)]);
        }
        return out;
    }
}
