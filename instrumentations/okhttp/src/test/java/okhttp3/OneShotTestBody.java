package okhttp3;

import java.io.IOException;
import okio.BufferedSink;

/**
 * A body that says truly it can be written once, in a package whose bodies Sluice trusts to say so
 * (OkHttp has no such body of its own; the SDKs' bodies for streamed uploads are): each write
 * counted, a second one fails.
 */
public final class OneShotTestBody extends RequestBody {

    private final MediaType type;
    private final String content;
    private int writes;

    public OneShotTestBody(MediaType type, String content) {
        this.type = type;
        this.content = content;
    }

    public int writes() {
        return writes;
    }

    @Override
    public MediaType contentType() {
        return type;
    }

    @Override
    public boolean isOneShot() {
        return true;
    }

    @Override
    public void writeTo(BufferedSink sink) throws IOException {
        if (++writes > 1) {
            throw new IOException("written again");
        }
        sink.writeUtf8(content);
    }
}
