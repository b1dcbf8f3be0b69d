package dev.sluice.benchmarks.overhead;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * How many distinct 4 KB pages of memory one call touches, in this JVM, governed and not: a count
 * of the address translations a call needs, which no counter of this guest's CPU can give.
 *
 * <p>Why: on a virtual machine a TLB miss can cost a two-dimensional page walk, and a call that
 * runs on a core which slept while the provider answered finds few of its translations cached.
 * Two MB pages took the JDK client's p99 added under 50 µs here, where cutting the instructions a
 * call runs did not, so the pages a call touches are what to count and to cut.
 *
 * <p>How: Linux keeps an accessed bit in each page-table entry, set by the CPU's page walk.
 * Writing {@code 1} to {@code /proc/self/clear_refs} clears every one of them and flushes this
 * process's TLB; after one call, {@code /proc/self/smaps} says per mapping how many kB were
 * accessed since ({@code Referenced}). Each trial sleeps (the core goes idle, as it does while a
 * provider answers), clears, makes one call, and reads the counts; trials take the governed and the
 * ungoverned call in turns (A B B A), from the loop that warmed both up, so that they run the
 * code the JIT made for that loop, as a service's calls do. The JVM's other threads touch pages
 * in the same moments (the client's selector thread, which is part of a call, and now and then a
 * compiler or the governor's tick), so the figures are medians over many trials. Reading the counts touches a few
 * pages itself, the same for both calls; the difference of the medians is what governing adds.
 *
 * <p>Mappings are named by what lies in them: the Java heap and the code cache (their bounds from
 * the {@code GC.heap_info} and {@code Compiler.codecache} diagnostic commands), a file's name for
 * a mapped file ({@code libjvm.so}, the CDS archive), {@code anonymous} for the rest (metaspace,
 * thread stacks, malloc's arenas). {@code -Dpages.split=true} (JDK 22 or later) first makes each
 * code page a mapping of its own and lists the compiled methods on the pages the governed call
 * adds ({@link CodePages}); {@code -Dpages.codelist=FILE} writes the code cache's list of compiled
 * methods to FILE after the trials. Needs Linux and the right to write {@code clear_refs} (the
 * process's owner). Not under {@code -Dsluice.}: the agent refuses properties it does not know.
 */
final class PagesTouched {

    private static final String CLEAR_REFS = "/proc/self/clear_refs";
    private static final String SMAPS = "/proc/self/smaps";

    private final MemoryKinds kinds;
    private final ByteBuffer smapsText = ByteBuffer.allocateDirect(16 << 20);
    private final ByteBuffer clearAll = ByteBuffer.allocateDirect(1).put((byte) '1');

    private final CallLoadApp.Call[] calls;
    private final long pauseMillis;
    /** A trial every this many calls: {@value #WARM_UP_TRIAL_EVERY} in the warm-up, then 1 (each one measured). */
    private volatile int trialEvery = WARM_UP_TRIAL_EVERY;
    /** Trials made once {@link #trialEvery} was 1 (written by the caller). */
    private volatile int measuredTrials;

    private volatile boolean stop;
    /** Every trial, warm-up included (the caller's until it stopped). */
    private final List<Trial> trialsMade = new ArrayList<>();

    private volatile Throwable failure;
    /** Calls made of each kind, warm-up included (written by the caller, read once it ended). */
    private final long[] made = new long[2];

    private PagesTouched(CallLoadApp.Call[] calls, long pauseMillis) throws Exception {
        this.calls = calls;
        this.pauseMillis = pauseMillis;
        this.kinds = MemoryKinds.of(JvmDiagnostics.run("gcHeapInfo"), JvmDiagnostics.run("compilerCodecache"));
    }

    /**
     * One thread calls in a loop, the two calls in turns A B B A: for {@code warmupSeconds} and on
     * until the JIT is idle, every {@value #WARM_UP_TRIAL_EVERY}th call a trial whose counts are
     * dropped, then {@code trials} trials in a row, each after a pause of {@code pauseMillis}.
     * Returns per kind of call and kind of memory the median kB touched, and the cold calls' median
     * latency.
     */
    static Map<String, Object> measure(
            CallLoadApp.Call governed, CallLoadApp.Call ungoverned, long warmupSeconds, int trials, long pauseMillis)
            throws Exception {
        PagesTouched pages = new PagesTouched(new CallLoadApp.Call[] {governed, ungoverned}, pauseMillis);
        Thread caller = new Thread(pages::callInTurns, "caller");
        caller.setDaemon(true);
        caller.start();
        Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
        long warmedMillis = TimeUnit.SECONDS.toMillis(warmupSeconds) + CallLoadApp.warmUntilJitSettles();
        int pagesSplit = Boolean.getBoolean("pages.split")
                ? CodePages.splitIntoPages(JvmDiagnostics.run("compilerCodecache"))
                : 0;
        pages.trialEvery = 1;
        while (pages.measuredTrials < trials && caller.isAlive()) {
            Thread.sleep(20);
        }
        pages.stop = true;
        caller.join();
        if (pages.failure != null) {
            throw new IllegalStateException("a call failed", pages.failure);
        }
        Map<String, Object> out = pages.figures();
        out.put("warmupMillis", warmedMillis);
        out.put("codePagesSplit", pagesSplit);
        return out;
    }

    /** One call measured: which (0 governed, 1 ungoverned), after the warm-up or not, its latency and kB touched. */
    private static final class Trial {
        final int which;
        final boolean measured;
        final long nanos;
        final Map<String, Long> kb;

        Trial(int which, boolean measured, long nanos, Map<String, Long> kb) {
            this.which = which;
            this.measured = measured;
            this.nanos = nanos;
            this.kb = kb;
        }
    }

    /**
     * Warm-up and trials run the same loop and take the same branches, only in other proportions: a
     * branch first taken when the trials start would have the JIT throw the loop's code away, and
     * the trials would run the calls' code as it is while the JIT profiles it again.
     */
    private void callInTurns() {
        try (FileChannel clear = FileChannel.open(Paths.get(CLEAR_REFS), StandardOpenOption.WRITE);
                FileChannel smaps = FileChannel.open(Paths.get(SMAPS), StandardOpenOption.READ)) {
            for (long i = 0; !stop; i++) {
                int every = trialEvery;
                boolean trial = i % every == 0;
                int which = ABBA[(int) (i & 3)];
                if (trial) {
                    Thread.sleep(pauseMillis); // the core goes idle, as while a provider answers
                    clearAll.rewind();
                    clear.write(clearAll);
                }
                long start = System.nanoTime();
                calls[which].make();
                long took = System.nanoTime() - start;
                made[which]++;
                if (trial) {
                    readSmaps(smaps);
                    boolean measured = every == 1;
                    trialsMade.add(new Trial(which, measured, took, referencedKbByKind()));
                    measuredTrials += measured ? 1 : 0;
                }
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    private static final int WARM_UP_TRIAL_EVERY = 64;
    private static final int[] ABBA = {0, 1, 1, 0};

    private Map<String, Object> figures() throws Exception {
        List<Map<String, Long>> touchedGoverned = new ArrayList<>();
        List<Map<String, Long>> touchedUngoverned = new ArrayList<>();
        List<Long> governedNanos = new ArrayList<>();
        List<Long> ungovernedNanos = new ArrayList<>();
        for (Trial t : trialsMade) {
            if (t.measured) {
                (t.which == 0 ? touchedGoverned : touchedUngoverned).add(t.kb);
                (t.which == 0 ? governedNanos : ungovernedNanos).add(t.nanos);
            }
        }
        long[][] nanos = {sorted(governedNanos), sorted(ungovernedNanos)};
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("governedTrials", nanos[0].length);
        out.put("ungovernedTrials", nanos[1].length);
        out.put("pauseMillis", pauseMillis);
        out.put("governedCallsMade", made[0]);
        out.put("ungovernedCallsMade", made[1]);
        out.put("governedColdMicrosMedian", median(nanos[0]) / 1e3);
        out.put("ungovernedColdMicrosMedian", median(nanos[1]) / 1e3);
        // kind of memory -> governed/ungoverned median kB (a page is 4 kB), then the difference of the means
        StringBuilder kinds = new StringBuilder();
        TreeSet<String> names = new TreeSet<>();
        touchedGoverned.forEach(t -> names.addAll(t.keySet()));
        touchedUngoverned.forEach(t -> names.addAll(t.keySet()));
        for (String name : names) {
            long[] g = column(touchedGoverned, name);
            long[] u = column(touchedUngoverned, name);
            double meanDifference = mean(g) - mean(u);
            boolean detail = name.startsWith(" ");
            if (detail
                    ? Math.abs(meanDifference) < 8
                    : median(g) == 0 && median(u) == 0 && Math.abs(meanDifference) < 4) {
                continue;
            }
            kinds.append(kinds.length() == 0 ? "" : ";")
                    .append(String.format(Locale.ROOT, "%s %d/%d/%+.1f", name, median(g), median(u), meanDifference));
        }
        out.put("referencedKb", kinds.toString());
        out.put("codePagesAdded", codePagesAdded(names, touchedGoverned, touchedUngoverned));
        String codeList = System.getProperty("pages.codelist");
        if (codeList != null) { // which methods run compiled, and at which tier, once the trials are made
            Files.writeString(Paths.get(codeList), JvmDiagnostics.run("compilerCodelist"));
        }
        return out;
    }

    /** Reads the whole of {@code /proc/self/smaps} into {@link #smapsText}, without touching the heap. */
    private void readSmaps(FileChannel smaps) throws IOException {
        smapsText.clear();
        smaps.position(0);
        while (smaps.read(smapsText) > 0) {
            if (!smapsText.hasRemaining()) {
                throw new IllegalStateException("/proc/self/smaps is longer than " + smapsText.capacity() + " bytes");
            }
        }
        smapsText.flip();
    }

    /** The kB accessed since the last clear, by the kind of memory each mapping holds. */
    private Map<String, Long> referencedKbByKind() {
        byte[] text = new byte[smapsText.remaining()];
        smapsText.get(text);
        return kinds.referencedKb(new String(text, StandardCharsets.US_ASCII));
    }

    /**
     * The code pages (split into mappings of their own) that at least half the governed calls more
     * than the ungoverned touched, each with the share of either and the methods compiled on it:
     * {@code address governed%/ungoverned% method (tier), ...}, joined with {@code ;}.
     */
    private static String codePagesAdded(
            Iterable<String> names, List<Map<String, Long>> governed, List<Map<String, Long>> ungoverned)
            throws Exception {
        TreeMap<Long, List<String>> methods = null;
        StringBuilder added = new StringBuilder();
        int count = 0;
        for (String name : names) {
            if (!name.startsWith(MemoryKinds.PAGE_KEY)) {
                continue;
            }
            double g = mean(column(governed, name)) / 4;
            double u = mean(column(ungoverned, name)) / 4;
            if (g - u < 0.5) {
                continue;
            }
            if (methods == null) {
                methods = CodePages.methodsByPage(JvmDiagnostics.run("compilerCodelist"));
            }
            long page = Long.parseUnsignedLong(name.substring(MemoryKinds.PAGE_KEY.length()), 16);
            count++;
            added.append(added.length() == 0 ? "" : ";")
                    .append(String.format(
                            Locale.ROOT,
                            "%x %.0f%%/%.0f%% %s",
                            page,
                            g * 100,
                            u * 100,
                            String.join(", ", methods.getOrDefault(page, List.of("(no method)")))));
        }
        return count + (count == 0 ? "" : ": " + added);
    }

    private static long[] column(List<Map<String, Long>> trials, String kind) {
        long[] values = new long[trials.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = trials.get(i).getOrDefault(kind, 0L);
        }
        Arrays.sort(values);
        return values;
    }

    private static long[] sorted(List<Long> values) {
        long[] sorted = values.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        return sorted;
    }

    private static long median(long[] sorted) {
        return sorted.length == 0 ? 0 : sorted[sorted.length / 2];
    }

    private static double mean(long[] values) {
        return values.length == 0 ? 0 : Arrays.stream(values).average().orElse(0);
    }
}
