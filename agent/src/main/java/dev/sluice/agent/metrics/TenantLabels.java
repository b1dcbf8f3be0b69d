package dev.sluice.agent.metrics;

import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Which tenants get a label of their own: at most {@code max}, configured tenants first, then
 * tenants in the order they were first met. A tenant keeps its label while the governor still
 * counts it, so its series does not hop between its own label and {@code other} from one scrape to
 * the next; the rest are summed under {@value #OTHER}.
 */
final class TenantLabels {

    static final String OTHER = "other";

    private final int max;
    /** Guarded by this. */
    private final Set<String> labelled = new LinkedHashSet<>();

    TenantLabels(int max) {
        this.max = max;
    }

    /**
     * Brings the labelled set up to date with the tenants alive now (configured first) and
     * returns it.
     */
    synchronized Set<String> update(Set<String> alive) {
        labelled.retainAll(alive);
        for (String t : alive) {
            if (labelled.size() >= max) {
                break;
            }
            labelled.add(t);
        }
        return new HashSet<>(labelled);
    }

    /** The label for a tenant: its own name, or {@value #OTHER}. */
    static String label(Set<String> labelled, String tenant) {
        return labelled.contains(tenant) ? tenant : OTHER;
    }
}
