package dev.sluice.simulator.server;

import com.github.tomakehurst.wiremock.core.Options;
import com.github.tomakehurst.wiremock.http.AdminRequestHandler;
import com.github.tomakehurst.wiremock.http.HttpServer;
import com.github.tomakehurst.wiremock.http.HttpServerFactory;
import com.github.tomakehurst.wiremock.http.StubRequestHandler;
import com.github.tomakehurst.wiremock.jetty11.Jetty11HttpServer;
import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;

/** WireMock's Jetty server with the {@link ExchangeFilter} in front of the mock service. */
final class StreamingHttpServerFactory implements HttpServerFactory {

    @Override
    public HttpServer buildHttpServer(
            Options options, AdminRequestHandler adminRequestHandler, StubRequestHandler stubRequestHandler) {
        return new Jetty11HttpServer(options, adminRequestHandler, stubRequestHandler) {
            @Override
            protected void decorateMockServiceContextAfterConfig(ServletContextHandler context) {
                context.addFilter(new FilterHolder(new ExchangeFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
            }
        };
    }
}
