package dev.sluice.agent.weaving;

/** A library class to weave in {@code AdviceWeaverTest}: locals, loops, wide types, handlers. */
public class WeaveTarget {

    private final String label = "target";

    public String greet(String name, long times, double factor) {
        WeaveRecorder.bodyRuns++;
        StringBuilder out = new StringBuilder();
        for (long i = 0; i < times; i++) {
            out.append(name);
        }
        try {
            if (factor < 0) {
                throw new IllegalArgumentException("negative");
            }
            out.append(factor > 1 ? "+" : "");
        } catch (IllegalArgumentException e) {
            out.append('!');
        }
        return out.toString();
    }

    public int count(int n) {
        WeaveRecorder.bodyRuns++;
        long total = 0;
        for (int i = 0; i < n; i++) {
            total += i;
        }
        return (int) total;
    }

    public void fail(String message) {
        WeaveRecorder.bodyRuns++;
        throw new IllegalStateException(message);
    }

    public String failWith(String message) {
        WeaveRecorder.bodyRuns++;
        throw new IllegalStateException(message);
    }

    public boolean decide(boolean wanted) {
        return wanted;
    }

    /** Reassigns its parameter before it returns. */
    public String reassign(String value) {
        value = value.toUpperCase(java.util.Locale.ROOT);
        return value;
    }

    @Override
    public String toString() {
        return label;
    }
}
