package dev.sluice.instrumentation.hc4.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.EntityBody;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.http.HttpEntity;
import org.apache.http.entity.HttpEntityWrapper;
import org.apache.http.util.EntityUtils;

/**
 * The entity of a governed 2xx response: every byte the application reads (through
 * {@link #getContent()} or {@link #writeTo}) is reported to the governor, as are the end, a read
 * failure and the close, which settle the reservation ({@link EntityBody}, which both HttpClient
 * 4's and 5's taps are made of). Nothing of HttpClient's references it, so a body the application
 * drops unread and unclosed is released once this object is unreachable.
 */
final class ObservedEntity extends HttpEntityWrapper {

    private final EntityBody body;

    ObservedEntity(HttpEntity wrapped, BodyObserver observer) {
        super(wrapped);
        this.body = new EntityBody(this, new Source(wrapped), observer, "sluice-hc4-dropped-body");
    }

    @Override
    public InputStream getContent() throws IOException {
        return body.content(this);
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
        body.writeTo(out, this);
    }

    @Override
    public boolean isRepeatable() {
        return false;
    }

    @Override
    @Deprecated
    public void consumeContent() throws IOException {
        body.close();
    }

    /** The application let go of the body without closing it (it closed the response): the observer hears it once. */
    void closed() {
        body.closed();
    }

    /** HttpClient 4's entity: closing its stream consumes what is left and gives the connection back. */
    private static final class Source implements EntityBody.Source {
        private final HttpEntity wrapped;

        Source(HttpEntity wrapped) {
            this.wrapped = wrapped;
        }

        @Override
        public InputStream open() throws IOException {
            return wrapped.getContent();
        }

        @Override
        public void closeUnopened() throws IOException {
            InputStream in = wrapped.getContent();
            if (in != null) {
                in.close();
            }
        }

        @Override
        public void drain() {
            EntityUtils.consumeQuietly(wrapped);
        }
    }
}
