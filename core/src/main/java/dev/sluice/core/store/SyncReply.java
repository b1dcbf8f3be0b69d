package dev.sluice.core.store;

/** What the shared state answered to a {@link SyncRequest}. */
public final class SyncReply {

    private final int liveInstances;
    private final long[] rooms;
    private final long[][] grants;
    private final long[] waitMillis;

    /**
     * @param liveInstances instances whose heartbeat has not expired, this one included
     * @param rooms room left fleet-wide in each entry's bucket after the request
     * @param grants per group, what each of its items was granted; null for a group refused
     * @param waitMillis per group, when asking again may help (refused, or granted nothing)
     */
    public SyncReply(int liveInstances, long[] rooms, long[][] grants, long[] waitMillis) {
        this.liveInstances = liveInstances;
        this.rooms = rooms;
        this.grants = grants;
        this.waitMillis = waitMillis;
    }

    public int liveInstances() {
        return liveInstances;
    }

    public long room(int entry) {
        return rooms[entry];
    }

    /** What the items of group {@code g} were granted, or null when it was refused. */
    public long[] grants(int group) {
        return grants[group];
    }

    public long waitMillis(int group) {
        return waitMillis[group];
    }
}
