package dev.sluice.benchmarks.overhead;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which compiled methods lie on the code pages a call touches. {@code /proc/self/smaps} counts
 * accessed pages per mapping, and the code heaps are one mapping each; {@link #splitIntoPages}
 * makes each committed 4 KB page of them a mapping of its own, by giving the pages in turn the
 * {@code MADV_HUGEPAGE} and {@code MADV_NOHUGEPAGE} advice (two neighbours with different flags
 * cannot merge; a mapping of one page can hold no 2 MB page, so the advice changes nothing else).
 * {@link #methodsByPage} then names the methods on a page from the code cache's list.
 *
 * <p>{@code madvise} is called through the JDK's foreign function API, found by reflection so that
 * this module still compiles for Java 17: it needs a JDK 22 or later at run time (and
 * {@code --enable-native-access=ALL-UNNAMED} to run without a warning).
 */
final class CodePages {

    static final int PAGE = 4096;
    private static final int MADV_HUGEPAGE = 14;
    private static final int MADV_NOHUGEPAGE = 15;
    /** One line of {@code Compiler.codelist}: {@code id level state name [start, entry - end]}. */
    private static final Pattern COMPILED = Pattern.compile(
            "^\\d+ (\\d+) \\d+ (\\S+?)\\(.*\\[(0x[0-9a-f]+), 0x[0-9a-f]+ - (0x[0-9a-f]+)\\]", Pattern.MULTILINE);

    private CodePages() {}

    /**
     * Splits the committed part of every code heap ({@link MemoryKinds#committedCode}) into one
     * mapping a page; returns how many pages.
     */
    static int splitIntoPages(String codeCache) throws Exception {
        MethodHandle madvise = madvise();
        int pages = 0;
        for (long[] heap : MemoryKinds.committedCode(codeCache)) {
            for (long page = heap[0] & -PAGE; Long.compareUnsigned(page, heap[1]) < 0; page += PAGE, pages++) {
                int advice = (page / PAGE) % 2 == 0 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
                int result;
                try {
                    result = (int) madvise.invoke(page, (long) PAGE, advice);
                } catch (Exception | Error e) {
                    throw e;
                } catch (Throwable t) { // MethodHandle.invoke declares Throwable
                    throw new IllegalStateException(t);
                }
                if (result != 0) {
                    throw new IllegalStateException("madvise(" + Long.toHexString(page) + ") failed");
                }
            }
        }
        return pages;
    }

    /** The methods compiled on each page: page address to "Class.method (tier)" names, from {@code Compiler.codelist}. */
    static TreeMap<Long, List<String>> methodsByPage(String codeList) {
        TreeMap<Long, List<String>> byPage = new TreeMap<>();
        Matcher m = COMPILED.matcher(codeList);
        while (m.find()) {
            long start = Long.parseUnsignedLong(m.group(3).substring(2), 16);
            long end = Long.parseUnsignedLong(m.group(4).substring(2), 16);
            String name = shortName(m.group(2)) + " (" + m.group(1) + ")";
            for (long page = start & -PAGE; Long.compareUnsigned(page, end) < 0; page += PAGE) {
                byPage.computeIfAbsent(page, p -> new ArrayList<>()).add(name);
            }
        }
        return byPage;
    }

    /** {@code a.b.C$D.m} as {@code C$D.m}. */
    private static String shortName(String qualified) {
        int method = qualified.lastIndexOf('.');
        int type = qualified.lastIndexOf('.', method - 1);
        return qualified.substring(type + 1);
    }

    /** {@code int madvise(void *addr, size_t length, int advice)}, the address passed as a long. */
    private static MethodHandle madvise() throws ReflectiveOperationException {
        Class<?> linkerType = Class.forName("java.lang.foreign.Linker");
        Class<?> layoutType = Class.forName("java.lang.foreign.MemoryLayout");
        Class<?> descriptorType = Class.forName("java.lang.foreign.FunctionDescriptor");
        Class<?> segmentType = Class.forName("java.lang.foreign.MemorySegment");
        Class<?> lookupType = Class.forName("java.lang.foreign.SymbolLookup");
        Class<?> optionType = Class.forName("java.lang.foreign.Linker$Option");
        Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
        Object linker = linkerType.getMethod("nativeLinker").invoke(null);
        Object lookup = linkerType.getMethod("defaultLookup").invoke(linker);
        Optional<?> symbol =
                (Optional<?>) lookupType.getMethod("find", String.class).invoke(lookup, "madvise");
        Object javaInt = valueLayout.getField("JAVA_INT").get(null);
        Object javaLong = valueLayout.getField("JAVA_LONG").get(null);
        Object arguments = Array.newInstance(layoutType, 3);
        Array.set(arguments, 0, javaLong);
        Array.set(arguments, 1, javaLong);
        Array.set(arguments, 2, javaInt);
        Object descriptor =
                descriptorType.getMethod("of", layoutType, arguments.getClass()).invoke(null, javaInt, arguments);
        Object noOptions = Array.newInstance(optionType, 0);
        return (MethodHandle) linkerType
                .getMethod("downcallHandle", segmentType, descriptorType, noOptions.getClass())
                .invoke(linker, symbol.orElseThrow(), descriptor, noOptions);
    }
}
