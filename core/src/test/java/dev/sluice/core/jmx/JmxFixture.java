package dev.sluice.core.jmx;

import dev.sluice.config.ConfigLoader;
import dev.sluice.config.ConfigSources;
import dev.sluice.config.SluiceConfig;
import dev.sluice.core.CallContext;
import dev.sluice.core.FakeClock;
import dev.sluice.core.ManualTimer;
import dev.sluice.core.SluiceRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;

/**
 * A runtime started from a config file on a fake clock, its beans registered in a private
 * MBeanServer and read through MXBean proxies, as a console would. Beans refresh on every read.
 */
final class JmxFixture implements AutoCloseable {

    static final String CONFIG = String.join(
            "\n",
            "providers:",
            "  - name: sim",
            "    kind: openai",
            "    match:",
            "      urls: [\"http://127.0.0.1:1/v1/\"]",
            "    limits:",
            "      - id: sim-rpm",
            "        dimension: requests",
            "        capacity: 10",
            "        window: 1m",
            "        burst: 1m", // the whole capacity at once, not OpenAI's one second
            "limits:",
            "  - id: tenant-tpm",
            "    dimension: total_tokens",
            "    capacity: 1000",
            "    window: 1m",
            "    level: tenant",
            "  - id: documented",
            "    dimension: requests",
            "    capacity: 5",
            "    window: 1m",
            "    enforced: false",
            "tenants:",
            "  - name: alpha",
            "    weight: 2",
            "  - name: beta",
            "");

    final FakeClock clock = new FakeClock();
    final ManualTimer timer = new ManualTimer(clock);
    final MBeanServer server = MBeanServerFactory.newMBeanServer();
    final Path file;
    final SluiceRuntime runtime;
    final SluiceMBeans beans;

    JmxFixture() throws Exception {
        this(CONFIG);
    }

    JmxFixture(String yaml) throws Exception {
        file = Files.createTempFile("sluice-jmx-", ".yaml");
        write(yaml);
        ConfigSources sources = ConfigSources.builder().file(file).build();
        SluiceConfig config = ConfigLoader.load(sources);
        runtime = SluiceRuntime.start(config, clock, timer);
        beans = SluiceMBeans.register(runtime, server, () -> ConfigLoader.load(sources), 0, 1.0);
    }

    void write(String yaml) {
        try {
            Files.write(file, yaml.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static CallContext call(String tenant) {
        return call(tenant, "default");
    }

    static CallContext call(String tenant, String trafficClass) {
        return CallContext.builder("sim")
                .model("gpt-4o-mini")
                .tenant(tenant)
                .apiKeyId("k_abc")
                .trafficClass(trafficClass)
                .build();
    }

    GovernorMXBean governor() {
        return JMX.newMXBeanProxy(server, SluiceMBeans.governorName(), GovernorMXBean.class);
    }

    LimitMXBean limit(String id) {
        return JMX.newMXBeanProxy(server, SluiceMBeans.name("Limit", id), LimitMXBean.class);
    }

    TenantMXBean tenant(String name) {
        return JMX.newMXBeanProxy(server, SluiceMBeans.name("Tenant", name), TenantMXBean.class);
    }

    TrafficClassMXBean trafficClass(String name) {
        return JMX.newMXBeanProxy(server, SluiceMBeans.name("TrafficClass", name), TrafficClassMXBean.class);
    }

    ProviderMXBean provider(String name) {
        return JMX.newMXBeanProxy(server, SluiceMBeans.name("Provider", name), ProviderMXBean.class);
    }

    RampMXBean ramp(String provider) {
        return JMX.newMXBeanProxy(server, SluiceMBeans.name("Ramp", provider), RampMXBean.class);
    }

    boolean registered(String type, String name) {
        ObjectName n = SluiceMBeans.name(type, name);
        return server.isRegistered(n);
    }

    @Override
    public void close() throws IOException {
        beans.close();
        runtime.close();
        Files.deleteIfExists(file);
    }
}
