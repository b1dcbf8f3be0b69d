package dev.sluice.it.faults;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.Hook;
import dev.sluice.bootstrap.HookFactory;
import dev.sluice.bootstrap.Hooks;
import dev.sluice.it.faults.FaultyGovernance.Fault;
import dev.sluice.it.faults.FaultyGovernance.InjectedFault;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** {@link Probe} of the real agent: reaches the bridge, which the agent put on the bootstrap class path. */
final class SluiceProbe implements Probe {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final AtomicInteger factoryFired = new AtomicInteger();
    private FaultyGovernance faulty;

    @Override
    public void installFaultyGovernance() throws Exception {
        faulty = new FaultyGovernance(awaitGovernance());
        installHookWrapper(faulty);
        Bridge.install(faulty);
    }

    @Override
    public void installFaultyHookFactory() throws Exception {
        awaitGovernance();
        Hooks.install(hookedType -> {
            factoryFired.incrementAndGet();
            throw new InjectedFault("hookFactory.create(" + hookedType.getName() + ")");
        });
    }

    @Override
    public void awaitBeans() throws Exception {
        ObjectName governor = new ObjectName("dev.sluice:type=Governor");
        ObjectName providers = new ObjectName("dev.sluice:type=Provider,*");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!server.isRegistered(governor)
                || faulty != null && server.queryNames(providers, null).isEmpty()) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException(
                        "the agent's MXBeans did not appear; jmx: " + System.getProperty("dev.sluice.agent.jmx"));
            }
            if (server.isRegistered(governor)) {
                server.getAttribute(governor, "InFlight"); // a read brings the set of beans up to date
            }
            Thread.sleep(50);
        }
    }

    @Override
    public List<String> faults() {
        List<String> names = new ArrayList<>();
        for (Fault fault : Fault.values()) {
            if (fault == Fault.TRANSPORT) {
                for (String method : FaultyGovernance.TRANSPORT_METHODS) {
                    names.add("transport:" + method);
                }
            } else {
                names.add(fault.name().toLowerCase(Locale.ROOT));
            }
        }
        return names;
    }

    @Override
    public void inject(String fault) {
        if (faulty == null) {
            return;
        }
        if (fault.startsWith("transport:")) {
            faulty.inject(Fault.TRANSPORT, fault.substring("transport:".length()));
        } else if (fault.equals("hook_factory_throws")) {
            faulty.inject(Fault.NONE, null);
        } else {
            faulty.inject(Fault.valueOf(fault.toUpperCase(Locale.ROOT)), null);
        }
    }

    @Override
    public int fired() {
        return faulty == null ? factoryFired.get() : faulty.fired.get();
    }

    @Override
    public long hookFaults() {
        return Bridge.hookFaults();
    }

    @Override
    public long sluiceFaults() throws Exception {
        return ((Number) server.getAttribute(new ObjectName("dev.sluice:type=Governor"), "Faults")).longValue();
    }

    @Override
    public String awaitGovernorIdle() throws Exception {
        ObjectName governor = new ObjectName("dev.sluice:type=Governor");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (true) {
            int inFlight = ((Number) server.getAttribute(governor, "InFlight")).intValue();
            int waiting = ((Number) server.getAttribute(governor, "Waiting")).intValue();
            if (inFlight == 0 && waiting == 0 || System.nanoTime() > end) {
                return inFlight + "/" + waiting;
            }
            Thread.sleep(10);
        }
    }

    private static Governance awaitGovernance() throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (Bridge.governance() == Governance.PASS_THROUGH) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException("the agent never installed its governance");
            }
            Thread.sleep(10);
        }
        return Bridge.governance();
    }

    /**
     * Wraps the agent's hook factory (read reflectively: the bridge does not expose it) so every
     * hook it makes throws on entry while the fault is {@link Fault#HOOK_THROWS}. Installed before
     * the first exchange, since hooks are made once per hooked class.
     */
    private static void installHookWrapper(FaultyGovernance faulty) throws ReflectiveOperationException {
        Field field = Hooks.class.getDeclaredField("factory");
        field.setAccessible(true);
        HookFactory real = (HookFactory) field.get(null);
        Hooks.install(hookedType -> {
            Hook hook = real.create(hookedType);
            if (hook == null) {
                return null;
            }
            return (site, self, args) -> {
                if (faulty.fault() == Fault.HOOK_THROWS) {
                    faulty.fired.incrementAndGet();
                    throw new InjectedFault("hook.enter(" + hookedType.getSimpleName() + "#" + site + ")");
                }
                return hook.enter(site, self, args);
            };
        });
    }
}
