package dev.sluice.springtests;

import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Map;

/**
 * The provider the Spring apps call: the simulator as OpenAI on loopback, reached under OpenAI's
 * public host name through a hosts file ({@code -Djdk.net.hosts.file}), so Sluice recognises it
 * with no config at all, as it would the real one. What the provider saw is read from its ledger.
 */
final class Provider implements AutoCloseable {

    static final String HOST = "api.openai.com";

    final Simulator sim;

    private Provider(Simulator sim) {
        this.sim = sim;
    }

    /** 300 requests and 60,000 tokens a minute, 30 requests at once: past the burst, 5 calls a second. */
    static Provider limited() {
        return new Provider(Simulator.builder()
                .profile(Profile.OPENAI)
                .firstByteLatency(Duration.ofMillis(50))
                .latencyPerToken(Duration.ofMillis(2))
                .outputTokens(16)
                .limit(Limit.perMinute(Dimension.REQUESTS, 300).burst(30))
                .limit(Limit.perMinute(Dimension.TOKENS, 60_000).burst(10_000))
                .start());
    }

    /** No limit worth the name: faults come from what each request forces. */
    static Provider open() {
        return new Provider(Simulator.builder()
                .profile(Profile.OPENAI)
                .instant()
                .requestsPerMinute(1_000_000)
                .tokensPerMinute(100_000_000)
                .start());
    }

    /** Spring AI's {@code spring.ai.openai.base-url} for this provider. */
    String baseUrl() {
        return "http://" + HOST + ":" + sim.port();
    }

    /**
     * A Sluice config naming the simulator's loopback address as OpenAI's ({@code providers[].match.urls}):
     * for clients that resolve names with a DNS resolver of their own (Netty's), which a hosts file
     * for the JDK does not reach.
     */
    String loopbackConfig() {
        try {
            Path file = Files.createTempFile("sluice-spring-", ".yaml");
            file.toFile().deleteOnExit();
            Files.writeString(
                    file,
                    String.join(
                            "\n",
                            "mode: enforce",
                            "providers:",
                            "  - name: openai",
                            "    kind: openai",
                            "    match:",
                            "      urls: [\"" + loopbackBaseUrl() + "/v1/\"]",
                            ""));
            return file.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The simulator at its loopback address. */
    String loopbackBaseUrl() {
        return "http://127.0.0.1:" + sim.port();
    }

    /** A base URL under the provider's host at a port nothing listens on: every connection is refused. */
    static String deadBaseUrl() {
        try (ServerSocket s = new ServerSocket(0)) {
            return "http://" + HOST + ":" + s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A hosts file naming the provider's host at 127.0.0.1, for {@code -Djdk.net.hosts.file}. */
    static String hostsFile() {
        try {
            Path file = Files.createTempFile("sluice-hosts-", ".txt");
            Files.writeString(file, "127.0.0.1 localhost\n127.0.0.1 " + HOST + "\n");
            file.toFile().deleteOnExit();
            return file.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<Exchange> exchanges() {
        return sim.ledger().exchanges();
    }

    long attempts() {
        return exchanges().stream().filter(e -> e.callId() != null).count();
    }

    long rateLimited() {
        return exchanges().stream()
                .filter(e -> e.callId() != null && e.status() == 429)
                .count();
    }

    double percent429() {
        long attempts = attempts();
        return attempts == 0 ? 0 : 100.0 * rateLimited() / attempts;
    }

    Map<String, Integer> attemptsPerCall() {
        return sim.ledger().attemptsPerCall();
    }

    IntSummaryStatistics attemptStats() {
        return attemptsPerCall().values().stream().mapToInt(Integer::intValue).summaryStatistics();
    }

    @Override
    public void close() {
        sim.close();
    }
}
