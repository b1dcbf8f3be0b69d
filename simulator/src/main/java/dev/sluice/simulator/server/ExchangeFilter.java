package dev.sluice.simulator.server;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import org.eclipse.jetty.server.Request;

/**
 * Wraps every exchange of the mock service: opens its {@link ExchangeScope} and runs what was
 * registered there when it ends; flushes event streams after every write (Jetty would otherwise
 * hold small SSE events in its buffer); and, when a body is cut on purpose, aborts the connection
 * instead of letting the servlet finish the chunked body cleanly.
 */
final class ExchangeFilter implements Filter {

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        ExchangeScope scope = ExchangeScope.open();
        try {
            chain.doFilter(request, new Streaming((HttpServletResponse) response, request, scope));
        } catch (RuntimeException | IOException | ServletException e) {
            if (!scope.truncated()) {
                throw e;
            }
            // The cut was ours and the connection is already aborted.
        } finally {
            scope.close();
        }
    }

    private static final class Streaming extends HttpServletResponseWrapper {
        private final ServletRequest request;
        private final ExchangeScope scope;
        private ServletOutputStream out;

        Streaming(HttpServletResponse response, ServletRequest request, ExchangeScope scope) {
            super(response);
            this.request = request;
            this.scope = scope;
        }

        @Override
        public ServletOutputStream getOutputStream() throws IOException {
            if (out == null) {
                out = new Flushing(super.getOutputStream());
            }
            return out;
        }

        private boolean eventStream() {
            String type = getContentType();
            return type != null
                    && (type.startsWith("text/event-stream") || type.startsWith("application/vnd.amazon.eventstream"));
        }

        private final class Flushing extends ServletOutputStream {
            private final ServletOutputStream delegate;

            Flushing(ServletOutputStream delegate) {
                this.delegate = delegate;
            }

            @Override
            public void write(int b) throws IOException {
                delegate.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                delegate.write(b, off, len);
                if (eventStream()) {
                    delegate.flush();
                }
            }

            @Override
            public void flush() throws IOException {
                delegate.flush();
            }

            @Override
            public void close() throws IOException {
                if (scope.truncated()) {
                    // Send what was written, then drop the connection without the final chunk.
                    delegate.flush();
                    Request.getBaseRequest(request).getHttpChannel().abort(new IOException("truncated"));
                    return;
                }
                delegate.close();
            }

            @Override
            public boolean isReady() {
                return delegate.isReady();
            }

            @Override
            public void setWriteListener(WriteListener listener) {
                delegate.setWriteListener(listener);
            }
        }
    }
}
