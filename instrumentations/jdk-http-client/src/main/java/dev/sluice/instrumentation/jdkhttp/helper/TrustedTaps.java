package dev.sluice.instrumentation.jdkhttp.helper;

import java.net.http.HttpClient;

/**
 * Finds whether the taps can be ones the JDK trusts: the agent exports {@code
 * jdk.internal.net.http} to the helpers' loader alone before defining them ({@code
 * JdkHttpClientInstrumentation#packagesExportedToHelpers}). Without that export, or on a JDK
 * without that interface, the taps are ordinary subscribers, as before.
 */
final class TrustedTaps {

    static final String JDK_INTERNAL = "jdk.internal.net.http";
    /** Linked by name: it is compiled apart, against the JDK's non-exported package. */
    private static final String MAKER = "dev.sluice.instrumentation.jdkhttp.helper.TrustedTappedSubscriber$Maker";

    private TrustedTaps() {}

    /** The maker of trusted taps, or null. */
    static TappedSubscriber.Maker maker() {
        try {
            if (!HttpClient.class.getModule().isExported(JDK_INTERNAL, TrustedTaps.class.getModule())) {
                return null;
            }
            Class<?> maker = Class.forName(MAKER, true, TrustedTaps.class.getClassLoader());
            return (TappedSubscriber.Maker) maker.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | RuntimeException unavailable) {
            return null;
        }
    }
}
