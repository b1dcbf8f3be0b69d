package dev.sluice.core.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One round trip to the shared state: which buckets it touches and how (an {@link Entry} each),
 * then groups of grants, each all-or-none. Built by the store under the governor's lock, sent by
 * its thread without it.
 */
public final class SyncRequest {

    /** A token bucket refilled continuously over its window. */
    public static final char TOKEN = 't';
    /** A counter reset at window boundaries (fixed windows, daily resets). */
    public static final char WINDOW = 'w';
    /** Slots held by the instances alive (concurrency). */
    public static final char CONCURRENCY = 'c';

    private final String instanceId;
    private final long aliveMillis;
    private final List<Entry> entries = new ArrayList<>();
    private final List<Group> groups = new ArrayList<>();

    public SyncRequest(String instanceId, long aliveMillis) {
        this.instanceId = instanceId;
        this.aliveMillis = aliveMillis;
    }

    /** This instance's name in the heartbeat set (and the owner of its concurrency holdings). */
    public String instanceId() {
        return instanceId;
    }

    /** How long this instance counts as alive after this request, unless it announces itself again. */
    public long aliveMillis() {
        return aliveMillis;
    }

    public List<Entry> entries() {
        return Collections.unmodifiableList(entries);
    }

    public List<Group> groups() {
        return Collections.unmodifiableList(groups);
    }

    int add(Entry e) {
        entries.add(e);
        return entries.size() - 1;
    }

    void add(Group g) {
        groups.add(g);
    }

    /** Whether it only announces the instance alive. */
    public boolean isHeartbeatOnly() {
        return entries.isEmpty();
    }

    /** One bucket as the shared state sees it, and what this request changes in it before granting. */
    public static final class Entry {
        /** The bucket's fleet-wide name. */
        public final String key;
        /** {@link #TOKEN}, {@link #WINDOW} or {@link #CONCURRENCY}. */
        public final char kind;

        public final long capacity;
        /** Token buckets: the window over which the capacity refills. */
        public final long windowMillis;
        /**
         * Token buckets: the level the shared bucket refills to (the burst, less a mirror's transit
         * allowance: {@code Limit#refillCeiling}); 0 for the capacity.
         */
        public final long ceiling;
        /** Windows: the start (epoch ms) of the window this JVM counts in, which names it. */
        public final long windowId;
        /** Windows: when that window ends (epoch ms). */
        public final long windowEndMillis;
        /** Token buckets and windows: given back (positive: unused lease, refunds) or debited (negative). */
        long adjust;
        /** Concurrency: slots this instance holds (in use and leased), set as is. */
        long held;
        /** The provider says no more than this remains (-1: nothing said). */
        long lowerTo = -1;
        /** Room to start from if the bucket is absent from the shared state (-1: full); after a fallback. */
        long initialRoom = -1;
        /** Concurrency: this bucket's own field among the instance's holdings. */
        public final String holder;

        Entry(
                String key,
                char kind,
                long capacity,
                long windowMillis,
                long ceiling,
                long windowId,
                long windowEndMillis,
                String holder) {
            this.key = key;
            this.kind = kind;
            this.capacity = capacity;
            this.windowMillis = windowMillis;
            this.ceiling = ceiling;
            this.windowId = windowId;
            this.windowEndMillis = windowEndMillis;
            this.holder = holder;
        }

        public long adjust() {
            return adjust;
        }

        public long held() {
            return held;
        }

        public long lowerTo() {
            return lowerTo;
        }

        public long initialRoom() {
            return initialRoom;
        }
    }

    /**
     * Grants asked together: every {@code need} is granted or none is; each {@code extra} (lease
     * ahead of demand) is granted as far as room allows once the needs are.
     */
    public static final class Group {
        public final int[] entries;
        public final long[] need;
        public final long[] extra;

        Group(int[] entries, long[] need, long[] extra) {
            this.entries = entries;
            this.need = need;
            this.extra = extra;
        }
    }
}
