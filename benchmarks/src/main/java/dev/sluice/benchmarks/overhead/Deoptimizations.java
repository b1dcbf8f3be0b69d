package dev.sluice.benchmarks.overhead;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The deoptimizations a JVM logged ({@code -XX:+LogCompilation}): each time compiled code met a
 * case it had been compiled without (a branch never taken while profiled, a type never seen) and
 * the JVM threw the code away to take it. Each is listed with the JVM's uptime, the reason, and the
 * frames it happened in, innermost first; only those with a frame in the named packages, from the
 * given uptime on.
 *
 * <pre>
 * java -cp sluice-benchmarks.jar dev.sluice.benchmarks.overhead.Deoptimizations LOG [fromSeconds=0] [packagePrefix=dev.sluice.]
 * </pre>
 *
 * <p>The log is read line by line, not as XML: a JVM killed at the end of a run leaves it cut off.
 */
public final class Deoptimizations {

    private static final Pattern TRAP = Pattern.compile(
            "^<uncommon_trap thread='\\d+' reason='([a-z_0-9]+)' action='([a-z_]+)'.*stamp='([0-9.]+)'");
    private static final Pattern FRAME = Pattern.compile("^<jvms bci='(\\d+)' method='([^ ']+) ([^ ']+) ");

    /** One deoptimization: when, why, and where. */
    static final class Trap {
        final double uptimeSeconds;
        final String reason;
        final String action;
        /** {@code class.method@bci}, innermost first. */
        final List<String> frames = new ArrayList<>();

        Trap(double uptimeSeconds, String reason, String action) {
            this.uptimeSeconds = uptimeSeconds;
            this.reason = reason;
            this.action = action;
        }

        boolean inPackage(String prefix) {
            for (String f : frames) {
                if (f.startsWith(prefix)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public String toString() {
            return String.format("%8.3f s  %-24s %-16s %s", uptimeSeconds, reason, action, String.join(" < ", frames));
        }
    }

    private Deoptimizations() {}

    /**
     * The deoptimizations in a compile log, in its order. The log also holds the compiler's own
     * record of the traps it planted (inside its {@code <task>} elements, with a {@code bci}
     * attribute and no {@code stamp}); only the traps taken at run time are read.
     */
    static List<Trap> read(Reader log) throws IOException {
        List<Trap> traps = new ArrayList<>();
        BufferedReader in = new BufferedReader(log);
        Trap current = null;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            Matcher t = TRAP.matcher(line);
            if (t.find()) {
                current = new Trap(Double.parseDouble(t.group(3)), t.group(1), t.group(2));
                traps.add(current);
                continue;
            }
            Matcher f = FRAME.matcher(line);
            if (current != null && f.find()) {
                current.frames.add(f.group(2) + '.' + f.group(3) + '@' + f.group(1));
            } else {
                current = null;
            }
        }
        return traps;
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: Deoptimizations LOG [fromSeconds=0] [packagePrefix=dev.sluice.]");
            System.exit(2);
        }
        double from = args.length > 1 ? Double.parseDouble(args[1]) : 0;
        String prefix = args.length > 2 ? args[2] : "dev.sluice.";
        int shown = 0;
        try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.ISO_8859_1)) {
            for (Trap t : read(r)) {
                if (t.uptimeSeconds >= from && t.inPackage(prefix)) {
                    System.out.println(t);
                    shown++;
                }
            }
        }
        System.out.printf("%d deoptimization(s) with a frame in %s from %.1f s of uptime%n", shown, prefix, from);
    }
}
