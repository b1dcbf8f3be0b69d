package dev.sluice.agent.metrics;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * Records the GenAI instruments into the application's OpenTelemetry meters: its SDK set as the
 * global {@code OpenTelemetry}, or the OpenTelemetry Java agent's. The agent's classes live in a
 * loader of their own and must not bring an OpenTelemetry API of their own (it would not be the
 * application's), so the application's API is reached by reflection, once: the instruments and
 * each attribute set are built through it, and a call then records through two method handles.
 *
 * <p>Sluice never makes the global instance itself: {@code GlobalOpenTelemetry.get()} before the
 * application set one would fix a no-op instance for good (and make the application's own
 * {@code set} fail). It looks with {@code isSet()} (the field behind it in APIs older than 1.52)
 * and, until one is set, looks again at most every {@value #RETRY_MILLIS} ms; calls that end
 * before are not recorded there.
 */
final class OpenTelemetryBridge {

    static final long RETRY_MILLIS = 5_000;
    static final String SCOPE = "dev.sluice";

    private static final MethodType RECORD_LONG =
            MethodType.methodType(void.class, Object.class, long.class, Object.class);
    private static final MethodType RECORD_DOUBLE =
            MethodType.methodType(void.class, Object.class, double.class, Object.class);

    private OpenTelemetryBridge() {}

    /**
     * The application's meters as a sink, found through {@code loader}; null when that loader
     * sees no OpenTelemetry API or no global instance is set yet.
     */
    static GenAiSink find(ClassLoader loader, String version) throws ReflectiveOperationException {
        Class<?> global;
        try {
            global = Class.forName("io.opentelemetry.api.GlobalOpenTelemetry", false, loader);
        } catch (ClassNotFoundException absent) {
            return null;
        }
        if (!isSet(global)) {
            return null;
        }
        Object meterProvider = global.getMethod("getMeterProvider").invoke(null);
        Class<?> meterProviderType = Class.forName("io.opentelemetry.api.metrics.MeterProvider", false, loader);
        Object meterBuilder =
                meterProviderType.getMethod("meterBuilder", String.class).invoke(meterProvider, SCOPE);
        Class<?> meterBuilderType = Class.forName("io.opentelemetry.api.metrics.MeterBuilder", false, loader);
        meterBuilderType.getMethod("setInstrumentationVersion", String.class).invoke(meterBuilder, version);
        Object meter = meterBuilderType.getMethod("build").invoke(meterBuilder);
        Class<?> meterType = Class.forName("io.opentelemetry.api.metrics.Meter", false, loader);
        Class<?> doubleBuilderType =
                Class.forName("io.opentelemetry.api.metrics.DoubleHistogramBuilder", false, loader);
        Class<?> longBuilderType = Class.forName("io.opentelemetry.api.metrics.LongHistogramBuilder", false, loader);
        Class<?> attributesType = Class.forName("io.opentelemetry.api.common.Attributes", false, loader);

        Object tokensBuilder =
                meterType.getMethod("histogramBuilder", String.class).invoke(meter, GenAi.TOKEN_USAGE);
        doubleBuilderType.getMethod("setUnit", String.class).invoke(tokensBuilder, "{token}");
        doubleBuilderType
                .getMethod("setDescription", String.class)
                .invoke(tokensBuilder, "Number of input and output tokens used.");
        Object longTokensBuilder = doubleBuilderType.getMethod("ofLongs").invoke(tokensBuilder);
        List<Long> tokenBounds = new ArrayList<>();
        for (double b : GenAi.TOKEN_BUCKETS) {
            tokenBounds.add((long) b);
        }
        advise(longBuilderType, longTokensBuilder, tokenBounds);
        Object tokens = longBuilderType.getMethod("build").invoke(longTokensBuilder);

        Object durationBuilder =
                meterType.getMethod("histogramBuilder", String.class).invoke(meter, GenAi.OPERATION_DURATION);
        doubleBuilderType.getMethod("setUnit", String.class).invoke(durationBuilder, "s");
        doubleBuilderType
                .getMethod("setDescription", String.class)
                .invoke(durationBuilder, "GenAI operation duration.");
        List<Double> durationBounds = new ArrayList<>();
        for (double b : GenAi.DURATION_BUCKETS) {
            durationBounds.add(b);
        }
        advise(doubleBuilderType, durationBuilder, durationBounds);
        Object duration = doubleBuilderType.getMethod("build").invoke(durationBuilder);

        Class<?> longHistogram = Class.forName("io.opentelemetry.api.metrics.LongHistogram", false, loader);
        Class<?> doubleHistogram = Class.forName("io.opentelemetry.api.metrics.DoubleHistogram", false, loader);
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        MethodHandle recordTokens = lookup.unreflect(longHistogram.getMethod("record", long.class, attributesType))
                .asType(RECORD_LONG);
        MethodHandle recordDuration = lookup.unreflect(
                        doubleHistogram.getMethod("record", double.class, attributesType))
                .asType(RECORD_DOUBLE);
        Method attributesBuilder = attributesType.getMethod("builder");
        Class<?> builderType = Class.forName("io.opentelemetry.api.common.AttributesBuilder", false, loader);
        return new Sink(
                tokens,
                duration,
                recordTokens,
                recordDuration,
                attributesBuilder,
                builderType.getMethod("put", String.class, String.class),
                builderType.getMethod("build"));
    }

    /** Whether the application (or the OpenTelemetry agent) has set the global instance. */
    static boolean isSet(Class<?> global) throws ReflectiveOperationException {
        try {
            return (Boolean) global.getMethod("isSet").invoke(null);
        } catch (NoSuchMethodException older) {
            Field f = global.getDeclaredField("globalOpenTelemetry");
            f.setAccessible(true);
            return f.get(null) != null;
        }
    }

    /** The conventions' bucket boundaries, as advice (APIs from 1.32 on; older ones use the SDK's). */
    private static void advise(Class<?> builderType, Object builder, List<?> bounds) {
        try {
            builderType
                    .getMethod("setExplicitBucketBoundariesAdvice", List.class)
                    .invoke(builder, bounds);
        } catch (ReflectiveOperationException | RuntimeException older) {
            // an API before the advice: the SDK's default boundaries, or the application's views
        }
    }

    /** The application's two histograms. */
    private static final class Sink implements GenAiSink {
        private final Object tokens;
        private final Object duration;
        private final MethodHandle recordTokens;
        private final MethodHandle recordDuration;
        private final Method attributesBuilder;
        private final Method put;
        private final Method build;

        Sink(
                Object tokens,
                Object duration,
                MethodHandle recordTokens,
                MethodHandle recordDuration,
                Method attributesBuilder,
                Method put,
                Method build) {
            this.tokens = tokens;
            this.duration = duration;
            this.recordTokens = recordTokens;
            this.recordDuration = recordDuration;
            this.attributesBuilder = attributesBuilder;
            this.put = put;
            this.build = build;
        }

        @Override
        public Object attributes(String[] names, String[] values) {
            try {
                Object b = attributesBuilder.invoke(null);
                for (int i = 0; i < names.length; i++) {
                    if (values[i] != null) {
                        put.invoke(b, names[i], values[i]);
                    }
                }
                return build.invoke(b);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("OpenTelemetry attributes could not be built", e);
            }
        }

        @Override
        public void recordTokens(long n, Object attributes) {
            try {
                recordTokens.invokeExact(tokens, n, attributes);
            } catch (Throwable t) {
                throw unchecked(t);
            }
        }

        @Override
        public void recordDuration(double seconds, Object attributes) {
            try {
                recordDuration.invokeExact(duration, seconds, attributes);
            } catch (Throwable t) {
                throw unchecked(t);
            }
        }

        /** What a histogram's {@code record} threw, rethrown as is when unchecked (the caller counts it as a fault). */
        private static RuntimeException unchecked(Throwable t) {
            if (t instanceof Error) {
                throw (Error) t;
            }
            return t instanceof RuntimeException ? (RuntimeException) t : new IllegalStateException(t);
        }
    }
}
