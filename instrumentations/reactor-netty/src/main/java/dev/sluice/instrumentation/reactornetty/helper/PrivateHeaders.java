package dev.sluice.instrumentation.reactornetty.helper;

import dev.sluice.bootstrap.HttpTransport;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import reactor.netty.Connection;

/**
 * Drops Sluice's private {@code X-Sluice-*} request headers (tenant, traffic class) from a governed
 * attempt as it is written, wherever the application set them: on the client, or inside its body
 * function (Spring's adapters copy their headers there, after the client's own are fixed). Added to
 * the attempt's connection when its request is prepared; Reactor Netty removes it when the
 * connection goes back to its pool.
 */
@ChannelHandler.Sharable
final class PrivateHeaders extends ChannelOutboundHandlerAdapter {

    static final String NAME = "sluice-private-headers";
    private static final PrivateHeaders INSTANCE = new PrivateHeaders();

    private PrivateHeaders() {}

    /** Puts the handler on this attempt's connection (once). */
    static void install(Connection connection) {
        try {
            if (connection.channel().pipeline().get(NAME) == null) {
                connection.addHandlerFirst(NAME, INSTANCE);
            }
        } catch (Throwable ignored) {
            // a pipeline that refuses it: the headers go as the application set them
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof HttpRequest) {
            strip(((HttpRequest) msg).headers());
        }
        super.write(ctx, msg, promise);
    }

    static void strip(HttpHeaders headers) {
        List<String> names = null;
        for (String name : headers.names()) {
            if (HttpTransport.isPrivateHeader(name)) {
                if (names == null) {
                    names = new ArrayList<>(2);
                }
                names.add(name);
            }
        }
        if (names != null) {
            for (String name : names) {
                headers.remove(name);
            }
        }
    }
}
