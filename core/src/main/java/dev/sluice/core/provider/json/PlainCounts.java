package dev.sluice.core.provider.json;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.provider.wire.HeaderNumbers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads named counts out of a small JSON object straight from its bytes: the {@code usage} object
 * an answer ends with. A jackson parser made and run over those ~300 bytes was a sixth of the
 * engine's work on a call; this reads them in one pass, with no parser and no path strings.
 *
 * <p>Made for the shape providers send and exact by declining the rest: {@link #read} answers
 * false, and the caller walks the object with jackson as before, when the object is not well-formed
 * JSON, nests deeper than {@value #MOST_DEPTH}, has a member name with an escape, or holds, at a
 * path it reads, anything but a plain non-negative integer of up to {@value JsonBytes#MOST_INTEGER_DIGITS} digits
 * or {@code null} (a float, a numeric string, a negative number, a boolean, a container): those
 * {@link JsonScalars#count} reads its own way. Members it does not read are passed over,
 * validated. Of two members with the same path the later one counts, as in a walk.
 *
 * <p>Each count has a slot; a slot may be filled by several paths (an API's two names for one
 * count), e.g. {@code of(new String[] {"prompt_tokens", "input_tokens"}, ...)}. One more slot may
 * read a word ({@link #withWord}): a plain ASCII string at its path, read as its index among the
 * words expected. Immutable and thread-safe.
 */
public final class PlainCounts {

    /** Objects nested deeper than this are declined (usage nests once or twice). */
    private static final int MOST_DEPTH = 8;

    private static final int DECLINED = JsonBytes.DECLINED;

    /** The dotted paths read, in slot order, each alternative its own entry. */
    private final String[] paths;
    /** Each path's member names as bytes, e.g. {@code prompt_tokens_details}, {@code cached_tokens}. */
    private final byte[][][] names;

    private final int[] slotOfPath;
    private final int slots;
    /** Per depth, the paths that end there (their count is read at that depth). */
    private final long[] endingAt = new long[MOST_DEPTH + 1];
    /** The path read as a word, as a bit of the paths; 0 for none. */
    private final long wordPath;
    /** The words that path expects, as bytes; their index is what its slot gets. */
    private final byte[][] words;

    private PlainCounts(List<String> paths, List<Integer> slotOfPath, int slots) {
        this(paths, slotOfPath, slots, 0, new byte[0][]);
    }

    private PlainCounts(List<String> paths, List<Integer> slotOfPath, int slots, long wordPath, byte[][] words) {
        this.wordPath = wordPath;
        this.words = words;
        this.paths = paths.toArray(new String[0]);
        this.names = new byte[this.paths.length][][];
        this.slotOfPath = new int[this.paths.length];
        this.slots = slots;
        for (int p = 0; p < this.paths.length; p++) {
            String[] parts = this.paths[p].split("\\.", -1);
            names[p] = new byte[parts.length][];
            for (int d = 0; d < parts.length; d++) {
                names[p][d] = parts[d].getBytes(StandardCharsets.UTF_8);
            }
            this.slotOfPath[p] = slotOfPath.get(p);
            endingAt[parts.length - 1] |= 1L << p;
        }
    }

    /**
     * The counts read into the slots given, in order: each slot the dotted paths that fill it.
     *
     * @throws IllegalArgumentException for no slot, an empty slot, more than 64 paths, a path
     *     nested deeper than {@value #MOST_DEPTH}, or a name that is empty or has a quote or a
     *     backslash
     */
    public static PlainCounts of(String[]... slots) {
        if (slots == null || slots.length == 0) {
            throw new IllegalArgumentException("at least one slot of paths is needed");
        }
        List<String> paths = new ArrayList<>();
        List<Integer> slotOfPath = new ArrayList<>();
        for (int s = 0; s < slots.length; s++) {
            if (slots[s] == null || slots[s].length == 0) {
                throw new IllegalArgumentException("slot " + s + " names no path");
            }
            for (String path : slots[s]) {
                checkPath(path);
                paths.add(path);
                slotOfPath.add(s);
            }
        }
        if (paths.size() > Long.SIZE) {
            throw new IllegalArgumentException("at most 64 paths, not " + paths.size());
        }
        return new PlainCounts(paths, slotOfPath, slots.length);
    }

    /**
     * These counts and one more slot, the last, for a word at {@code path}: the index of the word it
     * is among {@code expected}, {@code expected.length} for another plain string, left as it was
     * for null. A value there that is not a plain ASCII string without escapes is declined.
     *
     * @throws IllegalArgumentException for a path as {@link #of} refuses it, no word, or a word
     *     that is not plain ASCII
     */
    public PlainCounts withWord(String path, String... expected) {
        checkPath(path);
        if (wordPath != 0 || expected.length == 0 || paths.length >= Long.SIZE) {
            throw new IllegalArgumentException("one word path with at least one word, within 64 paths");
        }
        List<String> allPaths = new ArrayList<>(List.of(paths));
        List<Integer> allSlots = new ArrayList<>();
        for (int s : slotOfPath) {
            allSlots.add(s);
        }
        allPaths.add(path);
        allSlots.add(slots);
        byte[][] bytes = new byte[expected.length][];
        for (int w = 0; w < expected.length; w++) {
            for (char c : expected[w].toCharArray()) {
                if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
                    throw new IllegalArgumentException("a word of plain ASCII is needed, not " + expected[w]);
                }
            }
            bytes[w] = expected[w].getBytes(StandardCharsets.US_ASCII);
        }
        return new PlainCounts(allPaths, allSlots, slots + 1, 1L << paths.length, bytes);
    }

    /** The index of {@code text} among the words {@link #withWord} expects, or their count for another word. */
    public int wordIndex(String text) {
        for (int w = 0; w < words.length; w++) {
            if (text != null && text.equals(new String(words[w], StandardCharsets.US_ASCII))) {
                return w;
            }
        }
        return words.length;
    }

    private static void checkPath(String path) {
        if (path == null || path.indexOf('"') >= 0 || path.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("a path of plain member names is needed, not " + path);
        }
        String[] parts = path.split("\\.", -1);
        if (parts.length > MOST_DEPTH + 1) {
            throw new IllegalArgumentException("path " + path + " nests deeper than " + MOST_DEPTH);
        }
        for (String part : parts) {
            if (part.isEmpty()) {
                throw new IllegalArgumentException("path " + path + " has an empty member name");
            }
        }
    }

    /** How many slots {@link #read} fills. */
    public int slots() {
        return slots;
    }

    /** The slot {@code path} fills (a walk's path, relative to the object), or -1 if none. */
    public int slotOf(String path) {
        for (int p = 0; p < paths.length; p++) {
            if (paths[p].equals(path)) {
                return slotOfPath[p];
            }
        }
        return -1;
    }

    /**
     * A walk met the scalar at {@code path} (relative to the object): when it is one of the counts
     * and holds one, it goes into its slot of {@code counts}; anything else leaves them as they were.
     * The word of {@link #withWord} is not a count: its caller reads it (its text may matter too).
     */
    public void readScalar(String path, JsonParser value, long[] counts) throws IOException {
        int slot = slotOf(path);
        if (slot < 0 || (wordPath != 0 && slot == slots - 1)) {
            return;
        }
        long n = JsonScalars.count(value);
        if (n >= 0) {
            counts[slot] = n;
        }
    }

    /**
     * Reads the object {@code json[start, end)} (whitespace around it allowed) into {@code counts},
     * one entry a slot, leaving the entry of a count absent or null as it was. False when the
     * object is declined (see the class); {@code counts} may then hold some of the counts read
     * before that, which a walk of the same object writes again. Never throws.
     */
    public boolean read(byte[] json, int start, int end, long[] counts) {
        if (json == null || counts == null || counts.length < slots || start < 0 || end > json.length || start >= end) {
            return false;
        }
        try {
            int i = object(json, JsonBytes.skipSpace(json, start, end), end, 0, allPaths(), counts);
            return i != DECLINED && JsonBytes.skipSpace(json, i, end) == end;
        } catch (RuntimeException unexpected) {
            return false;
        }
    }

    private long allPaths() {
        return paths.length == Long.SIZE ? -1L : (1L << paths.length) - 1;
    }

    /**
     * The object at {@code i}, its members read when one of {@code wanted} (paths matched up to
     * this depth) goes on through them; just past its closing brace, or {@link #DECLINED}.
     */
    private int object(byte[] json, int i, int end, int depth, long wanted, long[] counts) {
        if (i >= end || json[i] != '{' || depth > MOST_DEPTH) {
            return DECLINED;
        }
        i = JsonBytes.skipSpace(json, i + 1, end);
        if (i < end && json[i] == '}') {
            return i + 1;
        }
        while (true) {
            int nameEnd = JsonBytes.nameEnd(json, i, end);
            if (nameEnd == DECLINED) {
                return DECLINED;
            }
            long matched = matching(json, i + 1, nameEnd, depth, wanted);
            i = JsonBytes.colon(json, nameEnd + 1, end);
            if (i == DECLINED) {
                return DECLINED;
            }
            i = JsonBytes.separator(json, value(json, i, end, depth, matched, counts), end, '}');
            if (i == DECLINED) {
                return DECLINED;
            }
            if (json[i] == '}') {
                return i + 1;
            }
            i = JsonBytes.skipSpace(json, i + 1, end);
        }
    }

    /**
     * The value at {@code i} of a member that {@code matched} paths name; just past it, or {@link
     * #DECLINED}. A value no wanted path goes on through is only passed over, checked.
     */
    private int value(byte[] json, int i, int end, int depth, long matched, long[] counts) {
        if (i >= end) {
            return DECLINED;
        }
        long ending = matched & endingAt[depth];
        if (ending != 0) {
            if (json[i] == 'n') {
                return JsonBytes.nullEnd(json, i, end); // no count, as a walk reads null
            }
            if ((ending & wordPath) != 0) {
                return word(json, i, end, counts);
            }
            return count(json, i, end, ending, counts);
        }
        if (matched != 0 && json[i] == '{') {
            return object(json, i, end, depth + 1, matched, counts);
        }
        // its containers may nest down to MOST_DEPTH, as the objects read do
        return JsonBytes.valueEnd(json, i, end, MOST_DEPTH - depth, null);
    }

    /** A plain non-negative integer read into the slots of the {@code ending} paths; declined otherwise. */
    private int count(byte[] json, int i, int end, long ending, long[] counts) {
        int digits = JsonBytes.integerEnd(json, i, end);
        if (digits == DECLINED) {
            return DECLINED;
        }
        long n = JsonBytes.integer(json, i, digits);
        if (n <= HeaderNumbers.MAX_COUNT) {
            for (long left = ending; left != 0; left &= left - 1) {
                counts[slotOfPath[Long.numberOfTrailingZeros(left)]] = n;
            }
        }
        return digits;
    }

    /** The word path's string read into its slot as the index of the word it is; declined otherwise. */
    private int word(byte[] json, int i, int end, long[] counts) {
        long string = JsonBytes.string(json, i, end, null);
        if (string == DECLINED) {
            return DECLINED;
        }
        int close = JsonBytes.close(string);
        if (JsonBytes.chars(string) != close - (i + 1)) {
            return DECLINED; // an escape or a non-ASCII char: a walk decodes it
        }
        int index = words.length;
        for (int w = 0; w < words.length; w++) {
            if (JsonBytes.named(json, i + 1, close, words[w])) {
                index = w;
                break;
            }
        }
        counts[slots - 1] = index;
        return close + 1;
    }

    /** The wanted paths whose name at {@code depth} is {@code json[from, to)}. */
    private long matching(byte[] json, int from, int to, int depth, long wanted) {
        long matched = 0;
        for (long left = wanted; left != 0; left &= left - 1) {
            int p = Long.numberOfTrailingZeros(left);
            byte[] name = names[p][depth];
            if (JsonBytes.named(json, from, to, name)) {
                matched |= 1L << p;
            }
        }
        return matched;
    }
}
