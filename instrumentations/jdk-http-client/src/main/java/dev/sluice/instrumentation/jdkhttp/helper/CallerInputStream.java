package dev.sluice.instrumentation.jdkhttp.helper;

import dev.sluice.bootstrap.DroppedBodies;
import java.io.FilterInputStream;
import java.io.IOException;
import java.lang.ref.Cleaner;

/**
 * A governed response's InputStream as the application holds it, closed for the application if
 * it drops it unclosed (see {@link DroppedBodies}).
 *
 * <p>Why a layer of its own over the {@link ObservedInputStream}: while its connection is open,
 * the JDK keeps the exchange's own response, and so its body, reachable from the client (the
 * connection's exchange holds its {@code MultiExchange}, which holds the response). Only an object
 * that nothing but the application references can tell that the application let go. The release
 * closes the stream below: the JDK cancels the body and frees the connection, and the observer
 * settles the permit.
 */
final class CallerInputStream extends FilterInputStream {

    /** Null when no cleaner could be had: then only a close reports. */
    private final Cleaner.Cleanable whenDropped;

    CallerInputStream(ObservedInputStream observed) {
        super(observed);
        this.whenDropped = DroppedBodies.watch(this, new Release(observed));
    }

    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            if (whenDropped != null) {
                whenDropped.clean(); // nothing left to do for the cleaner: the stream below is closed
            }
        }
    }

    /** Closes the stream below; holds that stream only, never the {@link CallerInputStream}. */
    private static final class Release implements Runnable {
        private final ObservedInputStream observed;

        Release(ObservedInputStream observed) {
            this.observed = observed;
        }

        @Override
        public void run() {
            try {
                observed.close(); // reports its close to the governor once, however often it is closed
            } catch (Throwable ignored) {
                // a body we release may already be broken
            }
        }
    }
}
