package dev.sluice.core;

/**
 * What a pure function answered for the last short strings it was asked about, or which object a
 * cache held for them, direct-mapped by their hash: for a value worked out on every call from a
 * few texts that keep coming back (a reset's duration, a request's URL, a model's learned state).
 * Entries are immutable, so racy writes publish a whole one or none, and a slot taken by another
 * string costs only the work again.
 */
public final class LastSeen<V> {

    /** A string and what it was answered, which may be null. */
    public static final class Entry<V> {
        private final String key;
        public final V value;

        private Entry(String key, V value) {
            this.key = key;
            this.value = value;
        }
    }

    private final Entry<V>[] slots;
    private final int maxLength;

    /**
     * @param slots a power of two
     * @param maxLength longer strings are never kept (a slot holds only a short text)
     */
    @SuppressWarnings("unchecked")
    public LastSeen(int slots, int maxLength) {
        if (Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, was " + slots);
        }
        this.slots = (Entry<V>[]) new Entry<?>[slots];
        this.maxLength = maxLength;
    }

    /** The entry kept for {@code key}, or null when none is. */
    public Entry<V> find(String key) {
        if (key.length() > maxLength) {
            return null;
        }
        Entry<V> entry = slots[slotOf(key)];
        return entry != null && (entry.key == key || entry.key.equals(key)) ? entry : null;
    }

    /** Keeps what {@code key} was answered, in place of whatever held its slot. */
    public void keep(String key, V value) {
        if (key.length() <= maxLength) {
            slots[slotOf(key)] = new Entry<>(key, value);
        }
    }

    private int slotOf(String key) {
        int hash = key.hashCode();
        return (hash ^ (hash >>> 16)) & (slots.length - 1);
    }
}
