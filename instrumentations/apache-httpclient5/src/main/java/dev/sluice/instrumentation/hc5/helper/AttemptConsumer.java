package dev.sluice.instrumentation.hc5.helper;

import dev.sluice.bootstrap.BodyObserver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncResponseConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * The response consumer of one of Sluice's asynchronous attempts. A non-2xx answer is buffered
 * whole, then offered to the governor. A 2xx answer is offered at its head; its body is tapped
 * for the governor (usage, end, failure) and held until the governor hands the answer back, then
 * {@linkplain #attach relayed} to the application's own consumer, which from then on receives the
 * exchange exactly as HttpClient would have given it. Every method may run on the I/O reactor
 * (never blocks); {@link #attach} may run on another thread, hence the lock.
 */
final class AttemptConsumer implements AsyncResponseConsumer<Object> {

    private final BodyObserver observer;
    /** The attempt as the governor sees it: completes at the 2xx head, at the end of an error body, or with the failure. */
    private final CompletableFuture<Object> answer;

    private HttpResponse head;
    private EntityDetails entity;
    private HttpContext context;
    private FutureCallback<Object> exchange;
    private boolean streaming;
    private final ByteArrayOutputStream errorBody = new ByteArrayOutputStream();

    // guarded by this: the 2xx body until the application's consumer is attached
    private final List<byte[]> pending = new ArrayList<>();
    private CapacityChannel capacity;
    private AsyncResponseConsumer<Object> target;
    private boolean ended;
    private List<? extends Header> trailers;
    private Exception failure;
    private boolean released;

    AttemptConsumer(BodyObserver observer, CompletableFuture<Object> answer) {
        this.observer = observer;
        this.answer = answer;
    }

    @Override
    public void consumeResponse(
            HttpResponse response,
            EntityDetails entityDetails,
            HttpContext ctx,
            FutureCallback<Object> resultCallback) {
        this.head = response;
        this.entity = entityDetails;
        this.context = ctx;
        this.exchange = resultCallback;
        int status = response.getCode();
        if (status >= 200 && status < 300) {
            streaming = true;
            if (entityDetails == null) {
                synchronized (this) {
                    ended = true;
                }
                safely(observer::onEnd);
            }
            answer.complete(new AsyncAnswer(response, null, this));
        } else if (entityDetails == null) {
            answer.complete(new AsyncAnswer(response, new byte[0], null));
            resultCallback.completed(null);
        }
    }

    @Override
    public void informationResponse(HttpResponse response, HttpContext ctx) {}

    @Override
    public void updateCapacity(CapacityChannel capacityChannel) throws IOException {
        AsyncResponseConsumer<Object> to;
        synchronized (this) {
            capacity = capacityChannel;
            to = target;
        }
        if (to != null) {
            to.updateCapacity(capacityChannel);
        } else {
            capacityChannel.update(Integer.MAX_VALUE); // held bodies are short-lived: until the hand-back
        }
    }

    @Override
    public void consume(ByteBuffer src) throws IOException {
        ByteBuffer view = src.duplicate();
        byte[] chunk = new byte[view.remaining()];
        view.get(chunk);
        if (!streaming) {
            errorBody.write(chunk, 0, chunk.length);
            src.position(src.limit());
            return;
        }
        safely(() -> observer.onBytes(chunk, 0, chunk.length));
        synchronized (this) {
            if (target == null) {
                pending.add(chunk);
                src.position(src.limit());
                return;
            }
            target.consume(src);
        }
    }

    @Override
    public void streamEnd(List<? extends Header> endTrailers) throws HttpException, IOException {
        if (!streaming) {
            answer.complete(new AsyncAnswer(head, errorBody.toByteArray(), null));
            exchange.completed(null);
            return;
        }
        safely(observer::onEnd);
        synchronized (this) {
            ended = true;
            trailers = endTrailers;
            if (target != null) {
                target.streamEnd(endTrailers);
            }
        }
    }

    @Override
    public void failed(Exception cause) {
        if (!answer.isDone()) {
            answer.completeExceptionally(cause); // before the answer: the attempt failed, the governor decides
            return;
        }
        if (!streaming) {
            return;
        }
        safely(() -> observer.onFailure(cause));
        synchronized (this) {
            failure = cause;
            if (target != null) {
                target.failed(cause);
            }
        }
    }

    @Override
    public void releaseResources() {
        synchronized (this) {
            released = true;
            if (target != null) {
                target.releaseResources();
            }
        }
    }

    /**
     * Hands the 2xx exchange to the application's consumer: its head (with the governor's
     * headers), the body held so far, then whatever follows; {@code result} completes with what the
     * application's consumer makes of it.
     */
    void attach(AsyncResponseConsumer<Object> application, FutureCallback<Object> result) throws Exception {
        synchronized (this) {
            target = application;
            application.consumeResponse(head, entity, context, new FutureCallback<Object>() {
                @Override
                public void completed(Object value) {
                    result.completed(value);
                    if (exchange != null) {
                        exchange.completed(value);
                    }
                }

                @Override
                public void failed(Exception e) {
                    result.failed(e);
                    if (exchange != null) {
                        exchange.failed(e);
                    }
                }

                @Override
                public void cancelled() {
                    result.cancelled();
                    if (exchange != null) {
                        exchange.cancelled();
                    }
                }
            });
            if (capacity != null) {
                application.updateCapacity(capacity);
            }
            for (byte[] chunk : pending) {
                application.consume(ByteBuffer.wrap(chunk));
            }
            pending.clear();
            if (failure != null) {
                application.failed(failure);
            } else if (ended && entity != null) {
                application.streamEnd(trailers);
            }
            if (released) {
                application.releaseResources();
            }
        }
    }

    private static void safely(Runnable report) {
        try {
            report.run();
        } catch (Throwable ignored) {
            // the observer must never break the application's body
        }
    }
}
