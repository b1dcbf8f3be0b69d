package dev.sluice.core.jmx;

import dev.sluice.core.store.QuotaStore;

/**
 * {@code dev.sluice:type=Store}: what a shared store is doing, read from its
 * {@linkplain QuotaStore#status() status} at each access. Registered by {@link SluiceMBeans} with
 * the other beans when the governor's store is shared (it used to register itself as the store
 * started, on the agent's start thread: that created the platform MBean server, and with it the
 * host's {@code java.util.logging}, before the application's {@code main} could set them up).
 */
public final class StoreBean implements StoreMXBean {

    private final QuotaStore store;

    public StoreBean(QuotaStore store) {
        this.store = store;
    }

    @Override
    public String getStore() {
        return store.status().store();
    }

    @Override
    public String getMode() {
        return store.status().mode();
    }

    @Override
    public boolean isFallback() {
        return store.status().isFallback();
    }

    @Override
    public int getInstances() {
        return store.status().instances();
    }

    @Override
    public long getCalls() {
        return store.status().calls();
    }

    @Override
    public long getFallbacks() {
        return store.status().fallbacks();
    }

    @Override
    public long getRecoveries() {
        return store.status().recoveries();
    }

    @Override
    public long getGrants() {
        return store.status().grants();
    }

    @Override
    public long getRefusals() {
        return store.status().refusals();
    }

    @Override
    public double getLeaseChunk() {
        return store.status().leaseChunk();
    }

    @Override
    public String getLastError() {
        String e = store.status().lastError();
        return e == null ? "" : e;
    }
}
