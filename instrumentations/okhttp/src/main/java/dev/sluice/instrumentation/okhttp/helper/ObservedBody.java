package dev.sluice.instrumentation.okhttp.helper;

import okhttp3.MediaType;
import okhttp3.ResponseBody;
import okio.BufferedSource;

/**
 * A 2xx body as the application gets it: read through an {@link ObservedSource}, its media type
 * and length those of the body OkHttp made. The media type is parsed only when asked for (OkHttp
 * parses it on every {@code contentType()} call, a regular expression's work: 3 % of what Sluice
 * did on an openai-java call's thread when it was parsed for every body it wrapped).
 */
final class ObservedBody extends ResponseBody {

    private final ResponseBody received;
    private final BufferedSource source;

    ObservedBody(ResponseBody received, BufferedSource source) {
        this.received = received;
        this.source = source;
    }

    @Override
    public MediaType contentType() {
        return received.contentType();
    }

    @Override
    public long contentLength() {
        return received.contentLength();
    }

    @Override
    public BufferedSource source() {
        return source;
    }
}
