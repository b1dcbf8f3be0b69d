package dev.sluice.core.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs a property over seeded random inputs: {@code forAll(500, trial -> ...)} checks the
 * property 500 times, each try drawing its inputs through {@link Trial#draw}. One seed per test
 * JVM, new each run or given with {@code -Dsluice.seed=N}, fixes every input of every try, so
 * a failure is replayed by running the same test with the seed it reports. The report names the
 * failing try's inputs; there is no shrinking, so generators should favour small values.
 */
public final class PropertyRun {

    /** This run's seed: {@code -Dsluice.seed=N}, or a new one. */
    public static final long SEED = seed(System.getProperty("sluice.seed"));

    private static final int SHOWN_CHARS = 400;

    private PropertyRun() {}

    /** A property of the inputs a trial draws; it holds when it returns. */
    @FunctionalInterface
    public interface Property {
        void check(Trial trial) throws Exception;
    }

    /**
     * Checks the property {@code tries} times with inputs drawn from {@link #SEED}; throws an
     * {@link AssertionError} naming the seed, the try and its inputs at the first that fails.
     */
    public static void forAll(int tries, Property property) {
        forAll(SEED, tries, property);
    }

    /** As {@link #forAll(int, Property)}, from the given seed. */
    public static void forAll(long seed, int tries, Property property) {
        SplittableRandom run = new SplittableRandom(seed);
        for (int i = 1; i <= tries; i++) {
            Trial trial = new Trial(run.split());
            try {
                property.check(trial);
            } catch (OutOfMemoryError e) {
                throw e;
            } catch (Throwable e) {
                throw new AssertionError(report(seed, i, tries, trial, e), e);
            }
        }
    }

    /** One try's draws, recorded for the report. */
    public static final class Trial {
        private final SplittableRandom random;
        private final List<Supplier<String>> drawn = new ArrayList<>();

        Trial(SplittableRandom random) {
            this.random = random;
        }

        /** A value of {@code gen}, shown under {@code name} if the try fails. */
        public <T> T draw(String name, Gen<T> gen) {
            return draw(name, gen, value -> value);
        }

        /** A value of {@code gen}, shown as {@code shownAs} makes it if the try fails. */
        public <T> T draw(String name, Gen<T> gen, Function<? super T, ?> shownAs) {
            T value = gen.next(random);
            drawn.add(() -> name + " = " + shown(shownAs.apply(value))); // formatted only for a failure
            return value;
        }
    }

    private static String report(long seed, int i, int tries, Trial trial, Throwable e) {
        StringBuilder b = new StringBuilder("Property failed on try ")
                .append(i)
                .append(" of ")
                .append(tries)
                .append(" (seed ")
                .append(seed)
                .append("); replay with -Dsluice.seed=")
                .append(seed);
        StackTraceElement test = caller();
        if (test != null) {
            String simpleName =
                    test.getClassName().substring(test.getClassName().lastIndexOf('.') + 1);
            b.append(" -Dtest=").append(simpleName).append('#').append(test.getMethodName());
        }
        for (Supplier<String> d : trial.drawn) {
            b.append("\n  ").append(d.get());
        }
        return b.append("\n").append(e).toString();
    }

    /** The test method running forAll: the frame the test engine called reflectively. */
    private static StackTraceElement caller() {
        StackTraceElement[] frames = new Throwable().getStackTrace();
        for (int i = 1; i < frames.length; i++) {
            String c = frames[i].getClassName();
            if (c.startsWith("jdk.internal.reflect.") || c.equals("java.lang.reflect.Method")) {
                return frames[i - 1];
            }
        }
        return null;
    }

    static String shown(Object value) {
        if (value instanceof String) {
            return quoted((String) value);
        }
        if (value instanceof byte[]) {
            byte[] bytes = (byte[]) value;
            return bytes.length + " bytes "
                    + quoted(new String(bytes, 0, Math.min(bytes.length, 4 * SHOWN_CHARS), StandardCharsets.UTF_8));
        }
        if (value instanceof Map) {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                b.append("\n      ").append(e.getKey()).append(" = ").append(shown(e.getValue()));
            }
            return b.append(((Map<?, ?>) value).isEmpty() ? "}" : "\n    }").toString();
        }
        if (value instanceof Collection) {
            StringBuilder b = new StringBuilder("[");
            for (Object o : (Collection<?>) value) {
                b.append(b.length() > 1 ? ", " : "").append(shown(o));
            }
            return b.append(']').toString();
        }
        if (value instanceof int[]) {
            return Arrays.toString((int[]) value);
        }
        if (value instanceof long[]) {
            return Arrays.toString((long[]) value);
        }
        if (value instanceof Object[]) {
            return abbreviated(Arrays.deepToString((Object[]) value));
        }
        return abbreviated(String.valueOf(value));
    }

    private static String quoted(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < Math.min(s.length(), SHOWN_CHARS); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
        return s.length() > SHOWN_CHARS
                ? b.append("... (").append(s.length()).append(" chars)").toString()
                : b.toString();
    }

    private static String abbreviated(String s) {
        return s.length() > SHOWN_CHARS ? s.substring(0, SHOWN_CHARS) + "... (" + s.length() + " chars)" : s;
    }

    private static long seed(String property) {
        if (property == null || property.isBlank()) {
            return new SplittableRandom().nextLong();
        }
        try {
            return Long.parseLong(property.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-Dsluice.seed must be a long, not \"" + property + "\"", e);
        }
    }
}
