package dev.sluice.instrumentation.jdkhttp.helper;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;

/**
 * Finds whether the taps can be ones the JDK trusts: the agent opens (and so exports) {@code
 * jdk.internal.net.http} to the helpers' loader alone before defining them ({@code
 * JdkHttpClientInstrumentation#packagesOpenedToHelpers}). Without that, or on a JDK without that
 * interface, the taps are ordinary subscribers, as before.
 */
final class TrustedTaps {

    static final String JDK_INTERNAL = "jdk.internal.net.http";
    private static final String TRUSTED_SUBSCRIBER = JDK_INTERNAL + ".ResponseSubscribers$TrustedSubscriber";
    /** Linked by name: it is compiled apart, against the JDK's non-exported package. */
    private static final String TAP = "dev.sluice.instrumentation.jdkhttp.helper.TrustedTappedSubscriber";

    private TrustedTaps() {}

    /** The maker of trusted taps, or null. */
    static TappedSubscriber.Maker maker() {
        try {
            if (!HttpClient.class.getModule().isExported(JDK_INTERNAL, TrustedTaps.class.getModule())) {
                return null;
            }
            // The tap answers the JDK's needsExecutor() with the JDK's own answer for the
            // subscriber it taps (a static method of the same interface): a JDK without it gets
            // the plain tap, never a NoSuchMethodError in the middle of a call.
            Class.forName(TRUSTED_SUBSCRIBER, false, HttpClient.class.getClassLoader())
                    .getMethod("needsExecutor", HttpResponse.BodySubscriber.class);
            ClassLoader helpers = TrustedTaps.class.getClassLoader();
            Class.forName(TAP, true, helpers); // linked here, so a JDK without the interface fails here
            Class<?> maker = Class.forName(TAP + "$Maker", true, helpers);
            return (TappedSubscriber.Maker) maker.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | RuntimeException unavailable) {
            return null;
        }
    }
}
