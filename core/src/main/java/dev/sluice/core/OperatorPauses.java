package dev.sluice.core;

import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The emergency stops an operator set: tenants and API keys (by id) whose calls are refused with
 * {@code paused} until resumed. Changed from the operators' controls, read by every admission
 * under the governor's lock; {@link #any} also closes the lock-free lane.
 */
final class OperatorPauses {

    private final Set<String> tenants = ConcurrentHashMap.newKeySet();
    private final Set<String> apiKeys = ConcurrentHashMap.newKeySet();
    /** Whether anything is paused; recounted under the governor's lock after each change. */
    private volatile boolean any;

    boolean any() {
        return any;
    }

    /** Recounts {@link #any} after a change. Lock held, so a pause and a resume racing settle on the truth. */
    void recount() {
        any = !tenants.isEmpty() || !apiKeys.isEmpty();
    }

    void pauseTenant(String tenant) {
        tenants.add(tenant);
    }

    void resumeTenant(String tenant) {
        tenants.remove(tenant);
    }

    void pauseApiKey(String apiKeyId) {
        apiKeys.add(apiKeyId);
    }

    void resumeApiKey(String apiKeyId) {
        apiKeys.remove(apiKeyId);
    }

    Set<String> tenants() {
        return Collections.unmodifiableSet(tenants);
    }

    Set<String> apiKeys() {
        return Collections.unmodifiableSet(apiKeys);
    }

    /** The refusal of a call whose tenant or API key is paused, or null. */
    Rejection refusal(CallContext call, Demand demand) {
        if (call.tenant() != null && tenants.contains(call.tenant())) {
            return Rejections.forCall(GatewayDecision.PAUSED, call, demand)
                    .scope("tenant=" + call.tenant())
                    .detail("tenant paused by an operator")
                    .build();
        }
        if (call.apiKeyId() != null && apiKeys.contains(call.apiKeyId())) {
            return Rejections.forCall(GatewayDecision.PAUSED, call, demand)
                    .scope("api_key=" + call.apiKeyId())
                    .detail("API key paused by an operator")
                    .build();
        }
        return null;
    }
}
