package dev.sluice.it.faults;

import java.util.List;

/**
 * What {@link BadAdviceApp} asks of Sluice, in types the application knows: the app runs without
 * the agent too, where no bridge class exists, so everything that touches the bridge lives behind
 * this interface in {@link SluiceProbe}, loaded only when the agent is there.
 */
interface Probe {

    /** Without the agent: nothing to inject, nothing counted, nothing held. */
    Probe NONE = new Probe() {
        @Override
        public void installFaultyGovernance() {
            throw new UnsupportedOperationException("no agent");
        }

        @Override
        public void installFaultyHookFactory() {
            throw new UnsupportedOperationException("no agent");
        }

        @Override
        public void awaitBeans() {}

        @Override
        public List<String> faults() {
            return List.of("none");
        }

        @Override
        public void inject(String fault) {}

        @Override
        public int fired() {
            return 0;
        }

        @Override
        public long hookFaults() {
            return 0;
        }

        @Override
        public long sluiceFaults() {
            return 0;
        }

        @Override
        public String awaitGovernorIdle() {
            return "-";
        }
    };

    /** The probe of the agent in this JVM. */
    static Probe sluice() throws ReflectiveOperationException {
        return (Probe) Class.forName("dev.sluice.it.faults.SluiceProbe")
                .getDeclaredConstructor()
                .newInstance();
    }

    /** Puts {@link FaultyGovernance} around the agent's governance, and a hook wrapper around its hook factory. */
    void installFaultyGovernance() throws Exception;

    /** Replaces the agent's hook factory with one that throws for every class. */
    void installFaultyHookFactory() throws Exception;

    /** Waits until the agent registered its MXBeans (a few seconds after start), and a Provider bean if a call was governed. */
    void awaitBeans() throws Exception;

    /** Every fault the matrix injects, {@code none} first. */
    List<String> faults();

    /** Injects this fault (a name from {@link #faults()}) into the next call. */
    void inject(String fault);

    /** How often the injected fault fired since {@link #inject}. */
    int fired();

    /** {@code Bridge.hookFaults()}. */
    long hookFaults() throws Exception;

    /** The Governor MBean's {@code Faults}: every fault inside Sluice, in hooks and while governing calls. */
    long sluiceFaults() throws Exception;

    /** {@code inFlight/waiting} of the Governor MBean once both are 0 (polled up to 3 s), or what was left. */
    String awaitGovernorIdle() throws Exception;
}
