package dev.sluice.core.jmx;

import dev.sluice.core.store.QuotaStore;

/**
 * {@code dev.sluice:type=Store}: what a shared store is doing, read from its
 * {@linkplain QuotaStore#status() status} at each access. The store registers it itself when it
 * starts (there is one per JVM, whoever built the governor), so it is public, unlike the beans
 * {@link SluiceMBeans} registers.
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
