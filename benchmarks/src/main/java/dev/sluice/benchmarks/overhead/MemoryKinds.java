package dev.sluice.benchmarks.overhead;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code /proc/<pid>/smaps} by the kind of memory each mapping holds: the Java heap, one of
 * the code heaps, a mapped file (by its name), or anonymous memory (metaspace, threads' stacks,
 * malloc's arenas), each anonymous mapping also on its own. The heap's and code heaps' bounds come
 * from the JVM's own {@code GC.heap_info} and {@code Compiler.codecache} diagnostic commands.
 */
final class MemoryKinds {

    private static final Pattern HEAP_BOUNDS = Pattern.compile("\\[(0x[0-9a-f]+), (0x[0-9a-f]+)\\)");
    /** A code heap in {@code Compiler.codecache}: its name, then {@code bounds [low, committed, reserved end]}. */
    private static final Pattern CODE_HEAP_BOUNDS =
            Pattern.compile("CodeHeap '([^']+)'[^\\[]*\\[(0x[0-9a-f]+), (0x[0-9a-f]+), (0x[0-9a-f]+)\\]");

    private static final String REFERENCED = "Referenced:";
    /** The key of one code page's kB, followed by its address in hexadecimal. */
    static final String PAGE_KEY = "  page ";

    private final List<long[]> heap;
    /** The code heaps' bounds, and their names in the same order. */
    private final List<long[]> code;

    private final List<String> codeHeapNames;

    private MemoryKinds(List<long[]> heap, List<long[]> code, List<String> codeHeapNames) {
        this.heap = heap;
        this.code = code;
        this.codeHeapNames = codeHeapNames;
    }

    /** From the text of the {@code GC.heap_info} and {@code Compiler.codecache} diagnostic commands. */
    static MemoryKinds of(String heapInfo, String codeCache) {
        List<long[]> heap = new ArrayList<>();
        Matcher h = HEAP_BOUNDS.matcher(heapInfo);
        while (h.find()) {
            heap.add(new long[] {address(h.group(1)), address(h.group(2))});
        }
        List<long[]> code = new ArrayList<>();
        List<String> names = new ArrayList<>();
        Matcher c = CODE_HEAP_BOUNDS.matcher(codeCache);
        while (c.find()) {
            names.add(c.group(1));
            code.add(new long[] {address(c.group(2)), address(c.group(4))});
        }
        if (heap.isEmpty() || code.isEmpty()) {
            throw new IllegalArgumentException(
                    "no bounds of the heap or of the code heaps in:\n" + heapInfo + codeCache);
        }
        return new MemoryKinds(heap, code, names);
    }

    /** Each code heap's committed part, {@code {low, committed}}, from the text of {@code Compiler.codecache}. */
    static List<long[]> committedCode(String codeCache) {
        List<long[]> committed = new ArrayList<>();
        Matcher c = CODE_HEAP_BOUNDS.matcher(codeCache);
        while (c.find()) {
            committed.add(new long[] {address(c.group(2)), address(c.group(3))});
        }
        return committed;
    }

    /**
     * The {@code Referenced} kB of an smaps text summed by kind; anonymous mappings also one by one,
     * under {@code "  anonymous <range> (<size> kB)"}, and code pages that are mappings of their own
     * under {@link #PAGE_KEY}, those with any.
     */
    Map<String, Long> referencedKb(String smaps) {
        Map<String, Long> kb = new TreeMap<>();
        String kind = null;
        String mapping = null;
        for (String line : smaps.split("\n")) {
            if (isMappingHeader(line)) {
                kind = kindOf(line);
                mapping = line.substring(0, line.indexOf(' '));
            } else if (kind != null && line.startsWith(REFERENCED)) {
                long referenced = Long.parseLong(line.substring(REFERENCED.length(), line.length() - " kB".length())
                        .trim());
                kb.merge(kind, referenced, Long::sum);
                if (kind.equals("anonymous") && referenced > 0) {
                    kb.merge("  anonymous " + mapping + " (" + sizeKb(mapping) + " kB)", referenced, Long::sum);
                } else if (kind.startsWith("code: ") && referenced > 0 && sizeKb(mapping) == CodePages.PAGE / 1024) {
                    // a code page made a mapping of its own (CodePages.splitIntoPages)
                    kb.put(PAGE_KEY + mapping.substring(0, mapping.indexOf('-')), referenced);
                }
            }
        }
        return kb;
    }

    /** heap, code: the code heap's name, a mapped file's name, a pseudo-mapping's ([stack]), or anonymous. */
    String kindOf(String header) {
        long start = Long.parseUnsignedLong(header.substring(0, header.indexOf('-')), 16);
        if (within(start, heap) >= 0) {
            return "heap";
        }
        int codeHeap = within(start, code);
        if (codeHeap >= 0) {
            return "code: " + codeHeapNames.get(codeHeap);
        }
        String[] fields = header.trim().split("\\s+", 6);
        if (fields.length == 6 && !fields[5].isEmpty()) {
            String name = fields[5];
            return name.startsWith("[") ? name : name.substring(name.lastIndexOf('/') + 1);
        }
        return "anonymous";
    }

    /** A mapping's first line, {@code start-end perms offset dev inode [path]}, as against its fields' lines. */
    static boolean isMappingHeader(String line) {
        int dash = line.indexOf('-');
        if (dash <= 0 || dash > 16 || line.indexOf(' ') < dash) {
            return false;
        }
        for (int i = 0; i < dash; i++) {
            if (Character.digit(line.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    private static long sizeKb(String range) {
        int dash = range.indexOf('-');
        return (Long.parseUnsignedLong(range.substring(dash + 1), 16)
                        - Long.parseUnsignedLong(range.substring(0, dash), 16))
                / 1024;
    }

    /** The index of the range that holds {@code address}, or -1. */
    private static int within(long address, List<long[]> ranges) {
        for (int i = 0; i < ranges.size(); i++) {
            long[] r = ranges.get(i);
            if (Long.compareUnsigned(address, r[0]) >= 0 && Long.compareUnsigned(address, r[1]) < 0) {
                return i;
            }
        }
        return -1;
    }

    private static long address(String hex) {
        return Long.parseUnsignedLong(hex.substring(2), 16);
    }
}
