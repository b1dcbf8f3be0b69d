package dev.sluice.springtests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator must see when a Spring app reaches the provider through a client Sluice has no
 * hook for: the connections counted under {@code Governor.UngovernedConnections} as
 * {@code "<host> via <client>"}, and one log line per host and client.
 */
final class UngovernedClients {

    private UngovernedClients() {}

    static void assertDetected(SpringApp.Result r, String client) {
        assertDetected(r, Provider.HOST, client);
    }

    static void assertDetected(SpringApp.Result r, String host, String client) {
        String key = host + " via " + client;
        assertThat(r.sluiceMap("UngovernedConnections"))
                .as("ungoverned connections counted in JMX; stderr:%n%s", r.stderr)
                .containsKey(key);
        assertThat(r.sluiceMap("UngovernedConnections").get(key)).isPositive();
        assertThat(r.stderrLines("calls to " + host + " through " + client + " are not governed"))
                .as("logged once for this host and client")
                .isEqualTo(1);
    }
}
