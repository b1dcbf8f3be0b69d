package dev.sluice.core.provider.sse;

import dev.sluice.core.provider.UsageParser;

/**
 * A usage parser over a server-sent event stream: feeds the bytes to an {@link SseEventReader}
 * and hands each complete event to {@link #onEvent}. A fault while parsing stops the parsing,
 * never the call: settlement then uses what was counted so far (fail open).
 */
public abstract class SseUsageParser implements UsageParser {

    private final SseEventReader sse = new SseEventReader(this::onEvent);
    private boolean broken;

    @Override
    public final void accept(byte[] chunk, int offset, int length) {
        if (broken) {
            return;
        }
        try {
            sse.feed(chunk, offset, length);
        } catch (RuntimeException fault) {
            broken = true; // fail open: the call goes on, settlement uses what was counted
        }
    }

    @Override
    public final void finish() {
        if (broken) {
            return;
        }
        try {
            sse.finish();
        } catch (RuntimeException fault) {
            broken = true;
        }
    }

    /** One event of the stream. A runtime exception stops the parsing of this stream. */
    protected abstract void onEvent(SseEvent event);
}
