package dev.sluice.simulator.server;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.common.ConsoleNotifier;
import com.github.tomakehurst.wiremock.core.Options;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.fault.Faults;
import dev.sluice.simulator.ledger.Ledger;
import dev.sluice.simulator.ledger.NeighbourUse;
import dev.sluice.simulator.limit.Neighbour;
import dev.sluice.simulator.limit.QuotaBook;
import dev.sluice.simulator.protocol.Pacing;
import dev.sluice.simulator.protocol.ProviderProtocol;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * WireMock on loopback, set up to behave like a provider's server: one catch-all stub answered by
 * the {@link ProviderEndpoint}, enough container threads for many paced streams at once, no
 * request journal (the ledger is the record), no gzip or h2c (plain HTTP/1.1 as SDKs use it
 * against a local server), chunked bodies so streams can be paced and cut.
 */
public final class SimulatorServer implements AutoCloseable {
    private final WireMockServer wireMock;
    private final QuotaBook quota;
    private final Ledger ledger;
    private final Faults faults;
    private final ProviderProtocol protocol;

    private final CallHandler calls;

    /** Refuses requests when the rate grows faster than {@code limit} allows (null: never). */
    public void accelerationLimit(dev.sluice.simulator.limit.AccelerationLimit limit) {
        calls.accelerationLimit(limit);
    }

    /**
     * Starts a server.
     *
     * @param profileName the profile's name, reported by the admin endpoint
     * @param protocol the provider protocol
     * @param limits resolved limits
     * @param clock time for limits, ledger and faults
     * @param identification how requests are attributed
     * @param pacing generation latency
     * @param port the port, 0 for a free one
     * @param containerThreads Jetty threads: each paced stream holds one for its duration
     * @param acceptQueue connections waiting to be accepted, 0 for the JDK's default (50)
     * @param countRefused whether a refused request still takes one from the request limits
     * @param neighbours unseen consumers sharing organizations' limits
     */
    public SimulatorServer(
            String profileName,
            ProviderProtocol protocol,
            List<Limit> limits,
            Clock clock,
            Identification identification,
            Pacing pacing,
            int port,
            int containerThreads,
            int acceptQueue,
            boolean countRefused,
            List<Neighbour> neighbours) {
        this.protocol = protocol;
        this.ledger = new Ledger(clock);
        this.quota = new QuotaBook(
                limits,
                clock,
                neighbours,
                (n, limit, from, to, wanted, taken) -> ledger.recordNeighbour(new NeighbourUse(
                        n.organization(),
                        limit.name(),
                        limit.dimension(),
                        Instant.ofEpochSecond(0, from),
                        Instant.ofEpochSecond(0, to),
                        wanted,
                        taken)));
        this.faults = new Faults(clock);
        ProviderEndpoint endpoint = new ProviderEndpoint();
        this.calls = new CallHandler(protocol, quota, ledger, faults, clock, identification, pacing, countRefused);
        endpoint.bind(calls, new AdminEndpoint(profileName, quota.limits(), ledger, faults, this::reset));
        WireMockConfiguration options = WireMockConfiguration.options()
                .bindAddress("127.0.0.1")
                .port(port)
                .containerThreads(containerThreads)
                .http2PlainDisabled(true)
                .gzipDisabled(true)
                .disableRequestJournal()
                .maxLoggedResponseSize(0)
                .useChunkedTransferEncoding(Options.ChunkedEncodingPolicy.ALWAYS)
                .asynchronousResponseEnabled(false)
                .stubRequestLoggingDisabled(true)
                // Nothing is templated or discovered: the endpoint answers everything. Skipping
                // them saves seconds of start-up per simulator.
                .templatingEnabled(false)
                .extensionScanningEnabled(false)
                .disableOptimizeXmlFactoriesLoading(true)
                .notifier(new ConsoleNotifier(false))
                .httpServerFactory(new StreamingHttpServerFactory())
                .extensions(endpoint);
        if (acceptQueue > 0) {
            options.jettyAcceptQueueSize(acceptQueue);
        }
        this.wireMock = new WireMockServer(options);
        wireMock.start();
        wireMock.stubFor(any(anyUrl()).atPriority(1).willReturn(aResponse().withStatus(200)));
    }

    public int port() {
        return wireMock.port();
    }

    public Ledger ledger() {
        return ledger;
    }

    public Faults faults() {
        return faults;
    }

    public QuotaBook quota() {
        return quota;
    }

    /** Empties the ledger, refills every bucket, disarms every fault, forgets prompt caches. */
    public void reset() {
        ledger.reset();
        quota.reset();
        faults.clear();
        protocol.reset();
    }

    @Override
    public void close() {
        wireMock.stop();
    }
}
