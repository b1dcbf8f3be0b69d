package dev.sluice.benchmarks.overhead;

import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * What one LLM call pays for going through Sluice: runs {@link CallLoadApp} in two JVMs, without and
 * with {@code -javaagent:sluice-agent.jar}, against the simulator as OpenAI on loopback (reached as
 * {@code api.openai.com} through a hosts file, so the agent recognises it with no config), which
 * answers at once and allows far more than the load asks (10^9 requests and 10^12 tokens a minute).
 *
 * <p>Run from the repository root after {@code mvn -B -pl agent,benchmarks -am package -DskipTests}:
 *
 * <pre>
 * java -cp benchmarks/target/sluice-benchmarks.jar dev.sluice.benchmarks.overhead.CallOverhead \
 *     load [warmupSeconds=20] [measureSeconds=20] [clients=jdk,openai,openai-stream] [threads=1,8] [jfrDir]
 * java -cp ... CallOverhead windows [pairs=10] [windowSeconds=3] [clients=jdk,openai] [threads=1] [warmupSeconds=15]
 * java -cp ... CallOverhead paired [windows=10] [windowSeconds=6] [clients=jdk,openai] [threads=1,8] [warmupSeconds=15] [rounds=1]
 * java -cp ... CallOverhead pages [clients=jdk,openai] [trials=2000] [pauseMillis=2] [warmupSeconds=15] [rounds=1]
 * java -cp ... CallOverhead vt [pairs=5] [calls=10000]          (needs JAVA25_HOME)
 * java -cp ... CallOverhead footprint [tenants=10000] [keys=1000]
 * </pre>
 *
 * With a {@code jfrDir}, the JVM with the agent records JFR with the {@code profile} settings, or
 * the file named by {@code -Dsluice.jfr.settings} (e.g. one made by {@code jfr configure --input
 * profile jdk.ThreadPark#threshold=100us --output park.jfc}, to see short waits on locks);
 * {@code -Dsluice.jfr.both=true} records the JVM without the agent too ({@code *-without.jfr}).
 *
 * <p>{@code windows} keeps both JVMs alive, warmed up and idle, and has them take turns on the
 * machine: {@code pairs} pairs of windows, in the order without/with, with/without, ... so that a
 * drift of the machine's load favours neither; for each pair, the agent's JVM's p50, p99 and p99.9
 * minus the other's. The median of those differences, and the difference of the pooled
 * percentiles, are what the agent adds; the spread of the differences says how far to trust them.
 *
 * <p>{@code paired} measures inside one JVM: its callers take turns (A B B A) between a call to
 * {@code api.openai.com}, which the agent governs, and the same call to the same simulator under a
 * host no provider has ({@value #UNGOVERNED_HOST}), which the agent lets pass after looking at the
 * host; the difference of the two calls' percentiles is what governing a call adds, each window's
 * difference taken in the same seconds under the same load. The same run without the agent is
 * the control: its difference is the method's own error. The agent's run fails unless Sluice
 * admitted exactly the governed calls. With {@code rounds} above one, the pair of JVMs is run that
 * many times (control first in odd rounds, agent first in even ones), and a last table pools each
 * kind's calls over all rounds: one round's p99 rests on its few hundred slowest calls, and moves
 * by tens of microseconds from one round to the next in the control too.
 *
 * <p>{@code -Dsluice.overhead.provider=replay} puts a {@link ReplayingProvider} between the callers
 * and the simulator: it records the simulator's answer to the first call of each kind and replays
 * its bytes to every later one from one thread, so the provider's own work and tail (most of a
 * loopback call's on 2 cores) stop hiding what Sluice adds. One thread answers, meant for one
 * caller; with 8, {@code -Dsluice.overhead.replayThreads=2} (one per core here) answers from two,
 * or the calls queue at the provider.
 *
 * <p>{@code -DagentJvmOptions="..."} adds options to the JVM with the agent only (a profiler's
 * {@code -agentpath}, for example).
 *
 * <p>Prints one SUMMARY line per JVM and a Markdown table. Environment: {@code SLUICE_AGENT_JAR}
 * (default {@code agent/target/sluice-agent.jar}), {@code JAVA} (the JVM to fork, default this
 * one), {@code JAVA25_HOME}.
 */
public final class CallOverhead {

    private static final String HOST = "api.openai.com";
    /** The same simulator under a name no provider has: the agent lets its calls pass ungoverned. */
    private static final String UNGOVERNED_HOST = "llm.internal.test";

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "load";
        try (Simulator sim = Simulator.builder()
                        .profile(Profile.OPENAI)
                        .instant()
                        .outputTokens(CallLoadApp.ANSWER_TOKENS)
                        .acceptQueue(4_096) // the virtual-thread burst connects 10,000 clients at once
                        .limit(Dimension.REQUESTS, 1_000_000_000L, Duration.ofMinutes(1))
                        .limit(Dimension.TOKENS, 1_000_000_000_000L, Duration.ofMinutes(1))
                        .start();
                ReplayingProvider replay = providerInFront(sim)) {
            int port = replay != null ? replay.port() : sim.port();
            String url = "http://" + HOST + ":" + port;
            switch (mode) {
                case "load":
                    load(sim, url, args);
                    break;
                case "windows":
                    windows(sim, url, args);
                    break;
                case "paired":
                    paired(sim, url, "http://" + UNGOVERNED_HOST + ":" + port, args);
                    break;
                case "pages":
                    pages(sim, url, "http://" + UNGOVERNED_HOST + ":" + port, args);
                    break;
                case "vt":
                    virtualThreads(sim, url, args);
                    break;
                case "footprint":
                    footprint(sim, url, args);
                    break;
                default:
                    throw new IllegalArgumentException(mode);
            }
            if (replay != null) {
                System.out.println(
                        "replayed provider: " + replay.kinds() + " kind(s) of call recorded from the simulator");
            }
        }
    }

    /** The provider named by {@code -Dsluice.overhead.provider}: null for the simulator itself. */
    private static ReplayingProvider providerInFront(Simulator sim) throws IOException {
        String provider = System.getProperty("sluice.overhead.provider", "simulator");
        switch (provider) {
            case "simulator":
                return null;
            case "replay":
                System.setProperty("sun.net.httpserver.nodelay", "true"); // read once, when the server starts
                return ReplayingProvider.start(sim.port(), replayThreads());
            default:
                throw new IllegalArgumentException(
                        "-Dsluice.overhead.provider must be simulator or replay, was " + provider);
        }
    }

    private static String arg(String[] args, int i, String def) {
        return args.length > i ? args[i] : def;
    }

    /** A count argument: a whole number of at least one, else an error naming the argument. */
    private static int countArg(String[] args, int i, String def, String what) {
        String given = arg(args, i, def);
        int count;
        try {
            count = Integer.parseInt(given);
        } catch (NumberFormatException e) {
            count = 0;
        }
        if (count < 1) {
            throw new IllegalArgumentException(what + " (argument " + i + " of " + args[0]
                    + ") must be a whole number of at least 1, was " + given);
        }
        return count;
    }

    private static void load(Simulator sim, String url, String[] args) throws Exception {
        String warmup = arg(args, 1, "20");
        String measure = arg(args, 2, "20");
        List<String> clients =
                Arrays.asList(arg(args, 3, "jdk,openai,openai-stream").split(","));
        List<String> threads = Arrays.asList(arg(args, 4, "1,8").split(","));
        String jfrDir = arg(args, 5, null);
        String java = javaLauncher();
        List<String> rows = new ArrayList<>();
        for (String client : clients) {
            for (String t : threads) {
                Map<String, String> without = null;
                Map<String, String> with = null;
                for (boolean agent : new boolean[] {false, true}) {
                    sim.reset();
                    List<String> jvm = new ArrayList<>();
                    if (jfrDir != null && (agent || Boolean.getBoolean("sluice.jfr.both"))) {
                        jvm.add("-XX:StartFlightRecording=filename=" + jfrDir + "/" + client + "-" + t
                                + (agent ? "" : "-without") + ".jfr,settings="
                                + System.getProperty("sluice.jfr.settings", "profile"));
                    }
                    Map<String, String> s = fork(java, agent, jvm, "load", url, client, t, warmup, measure);
                    if (agent) {
                        with = s;
                    } else {
                        without = s;
                    }
                }
                rows.add(String.format(
                        "| %s | %s | %s / %s / %s | %s / %s / %s | %+.0f / %+.0f / %+.0f | %s / %s | %+.1f | %+,d | %s / %s | %s / %s |",
                        client,
                        t,
                        r(without, "p50Micros"),
                        r(without, "p99Micros"),
                        r(without, "p999Micros"),
                        r(with, "p50Micros"),
                        r(with, "p99Micros"),
                        r(with, "p999Micros"),
                        d(with, without, "p50Micros"),
                        d(with, without, "p99Micros"),
                        d(with, without, "p999Micros"),
                        r(without, "processCpuMicrosPerCall"),
                        r(with, "processCpuMicrosPerCall"),
                        d(with, without, "callerCpuMicrosPerCall"),
                        (long) d(with, without, "callerAllocBytesPerCall"),
                        r(without, "callsPerSecond"),
                        r(with, "callsPerSecond"),
                        r(without, "jitCpuMillisWhileMeasuring"),
                        r(with, "jitCpuMillisWhileMeasuring")));
            }
        }
        printTable(
                "| client | threads | p50 / p99 / p99.9 µs, no agent | with agent | added µs |"
                        + " process CPU µs/call, no agent / agent | caller CPU µs/call added | caller bytes/call added |"
                        + " calls/s, no agent / agent | JIT CPU ms while measuring |",
                "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
                rows);
    }

    private static void windows(Simulator sim, String url, String[] args) throws Exception {
        int pairs = countArg(args, 1, "10", "pairs");
        long windowMillis = (long) (Double.parseDouble(arg(args, 2, "3")) * 1000);
        List<String> clients = Arrays.asList(arg(args, 3, "jdk,openai").split(","));
        List<String> threads = Arrays.asList(arg(args, 4, "1").split(","));
        String warmup = arg(args, 5, "15");
        String java = javaLauncher();
        List<String> rows = new ArrayList<>();
        for (String client : clients) {
            for (String t : threads) {
                sim.reset();
                // one after the other: the second warms up while the first waits, idle
                try (Child without = Child.start(java, false, "windows", url, client, t, warmup)) {
                    without.awaitReady();
                    try (Child with = Child.start(java, true, "windows", url, client, t, warmup)) {
                        with.awaitReady();
                        String[] keys = {"p50Micros", "p99Micros", "p999Micros"};
                        List<List<Double>> added = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
                        List<Double> cpuAdded = new ArrayList<>();
                        for (int p = 0; p < pairs; p++) {
                            Map<String, String> a = null;
                            Map<String, String> b = null;
                            for (boolean agent :
                                    p % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false}) {
                                Map<String, String> w = (agent ? with : without).window(windowMillis);
                                if (agent) {
                                    b = w;
                                } else {
                                    a = w;
                                }
                            }
                            for (int k = 0; k < keys.length; k++) {
                                added.get(k).add(d(b, a, keys[k]));
                            }
                            cpuAdded.add(d(b, a, "callerCpuMicrosPerCall"));
                            System.out.printf(
                                    "%s %s pair %d: p50 %s / %s, p99 %s / %s, p99.9 %s / %s µs (no agent / agent),"
                                            + " caller CPU added %+.1f µs, GCs %s / %s taking %s / %s ms (load %s)%n",
                                    client,
                                    t,
                                    p + 1,
                                    r(a, keys[0]),
                                    r(b, keys[0]),
                                    r(a, keys[1]),
                                    r(b, keys[1]),
                                    r(a, keys[2]),
                                    r(b, keys[2]),
                                    cpuAdded.get(p),
                                    a.get("gcCount"),
                                    b.get("gcCount"),
                                    a.get("gcMillis"),
                                    b.get("gcMillis"),
                                    load());
                        }
                        Map<String, String> pooledWithout = without.quit();
                        Map<String, String> pooledWith = with.quit();
                        if (Long.parseLong(pooledWith.getOrDefault("admittedBySluice", "-1")) <= 0) {
                            throw new IllegalStateException("the agent governed no call: " + pooledWith);
                        }
                        rows.add(String.format(
                                "| %s | %s | %d x %.0f s | %s | %s | %s | %s / %s / %s | %s / %s / %s | %s |",
                                client,
                                t,
                                pairs,
                                windowMillis / 1000.0,
                                spread(added.get(0)),
                                spread(added.get(1)),
                                spread(added.get(2)),
                                r(pooledWithout, keys[0]),
                                r(pooledWithout, keys[1]),
                                r(pooledWithout, keys[2]),
                                r(pooledWith, keys[0]),
                                r(pooledWith, keys[1]),
                                r(pooledWith, keys[2]),
                                spread(cpuAdded)));
                    }
                }
            }
        }
        printTable(
                "| client | threads | windows per JVM | p50 added µs, median (min to max) of pairs |"
                        + " p99 added | p99.9 added | pooled p50 / p99 / p99.9 µs, no agent | pooled, agent |"
                        + " caller CPU µs/call added |",
                "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
                rows);
    }

    private static void paired(Simulator sim, String url, String ungovernedUrl, String[] args) throws Exception {
        String windows = String.valueOf(countArg(args, 1, "10", "windows"));
        String windowMillis = String.valueOf((long) (Double.parseDouble(arg(args, 2, "6")) * 1000));
        List<String> clients = Arrays.asList(arg(args, 3, "jdk,openai").split(","));
        List<String> threads = Arrays.asList(arg(args, 4, "1,8").split(","));
        String warmup = arg(args, 5, "15");
        int rounds = countArg(args, 6, "1", "rounds");
        String java = javaLauncher();
        String[] keys = {"P50Micros", "P99Micros", "P999Micros"};
        List<String> rows = new ArrayList<>();
        List<String> pooledRows = new ArrayList<>();
        for (String client : clients) {
            for (String t : threads) {
                // index 0: the control, 1: the agent; each pools its governed and ungoverned calls over the rounds
                RoundsPooled[] overRounds = {new RoundsPooled(), new RoundsPooled()};
                for (int round = 1; round <= rounds; round++) {
                    // the order alternates between rounds, so that a drift of the machine favours neither JVM
                    for (boolean agent : round % 2 == 1 ? new boolean[] {false, true} : new boolean[] {true, false}) {
                        sim.reset();
                        Map<String, String> s = fork(
                                java,
                                agent,
                                List.of(),
                                "paired",
                                url,
                                ungovernedUrl,
                                client,
                                t,
                                warmup,
                                windows,
                                windowMillis);
                        if (!"0".equals(s.get("errors"))) {
                            throw new IllegalStateException("calls failed: " + s);
                        }
                        long governed = Long.parseLong(s.get("governedCallsMade"));
                        long admitted = Long.parseLong(s.get("admittedWhileMeasuring"));
                        // The counters are read one after the other while the callers go on: a few calls
                        // either way, more when the guest stalls the reading thread between them (a
                        // millisecond is five calls a caller). What this guards against is a whole kind
                        // of call governed or not, i.e. a difference of all the calls.
                        long slack = Math.max(2L * Integer.parseInt(t), governed / 100);
                        if (agent && Math.abs(admitted - governed) > slack) {
                            throw new IllegalStateException("Sluice admitted " + admitted + " calls while " + governed
                                    + " governed ones were made: the ungoverned host was governed, or the governed"
                                    + " one was not; " + s);
                        }
                        List<List<Double>> added = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
                        for (String window : s.get("perWindow").split(";")) {
                            String[] v = window.split("/");
                            for (int k = 0; k < 3; k++) {
                                added.get(k).add(Double.parseDouble(v[k]) - Double.parseDouble(v[k + 3]));
                            }
                        }
                        overRounds[agent ? 1 : 0].add(s);
                        rows.add(String.format(
                                "| %s | %s | %s | %s / %s / %s | %s / %s / %s | %s | %s | %s | %+.0f / %+.0f / %+.0f | %+.1f | %+.0f | %s / %s |",
                                client,
                                t,
                                (agent ? "agent" : "none (control)") + (rounds > 1 ? ", round " + round : ""),
                                r(s, "governed" + keys[0]),
                                r(s, "governed" + keys[1]),
                                r(s, "governed" + keys[2]),
                                r(s, "ungoverned" + keys[0]),
                                r(s, "ungoverned" + keys[1]),
                                r(s, "ungoverned" + keys[2]),
                                spread(added.get(0)),
                                spread(added.get(1)),
                                spread(added.get(2)),
                                d(s, "governed" + keys[0], "ungoverned" + keys[0]),
                                d(s, "governed" + keys[1], "ungoverned" + keys[1]),
                                d(s, "governed" + keys[2], "ungoverned" + keys[2]),
                                d(s, "governedCallerCpuMicros", "ungovernedCallerCpuMicros"),
                                d(s, "governedCallerBytes", "ungovernedCallerBytes"),
                                s.get("gcCount"),
                                s.get("governedCalls")));
                    }
                }
                for (int k = 0; k < 2; k++) {
                    pooledRows.add(overRounds[k].row(client, t, k == 1 ? "agent" : "none (control)"));
                }
            }
        }
        printTable(
                "| client | threads | JVM | api.openai.com p50 / p99 / p99.9 µs | " + UNGOVERNED_HOST
                        + " p50 / p99 / p99.9 µs | p50 difference µs, median (min to max) of windows | p99 difference |"
                        + " p99.9 difference | pooled difference p50 / p99 / p99.9 µs | caller CPU difference µs a call"
                        + " | caller bytes difference a call | GCs / governed calls |",
                "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
                rows);
        if (rounds > 1) {
            printTable(
                    "| client | threads | JVM | rounds | calls of each kind | all rounds' calls pooled:"
                            + " difference p50 / p99 / p99.9 µs | each round's pooled p99 difference, median (min to max) |"
                            + " rounds under +50 µs at p99 |",
                    "|---|--:|---|--:|--:|--:|--:|--:|",
                    pooledRows);
        }
    }

    /**
     * The distinct pages of memory one call touches ({@link PagesTouched}), governed and not, in the
     * JVM without the agent (the method's error) and the one with it. Linux only, as the user that
     * owns the JVMs.
     */
    private static void pages(Simulator sim, String url, String ungovernedUrl, String[] args) throws Exception {
        List<String> clients = Arrays.asList(arg(args, 1, "jdk,openai").split(","));
        String trials = String.valueOf(countArg(args, 2, "2000", "trials"));
        String pauseMillis = String.valueOf(countArg(args, 3, "2", "pauseMillis"));
        String warmup = arg(args, 4, "15");
        int rounds = countArg(args, 5, "1", "rounds");
        String java = javaLauncher();
        List<String> rows = new ArrayList<>();
        for (String client : clients) {
            for (int round = 1; round <= rounds; round++) {
                for (boolean agent : round % 2 == 1 ? new boolean[] {false, true} : new boolean[] {true, false}) {
                    sim.reset();
                    Map<String, String> s = fork(
                            java, agent, List.of(), "pages", url, ungovernedUrl, client, warmup, trials, pauseMillis);
                    if (agent && !s.get("governedCallsMade").equals(s.get("admittedBySluice"))) {
                        throw new IllegalStateException("Sluice did not admit exactly the governed calls: " + s);
                    }
                    for (String kind : s.get("referencedKb").split(";")) {
                        int figures = kind.lastIndexOf(' ');
                        String[] f = kind.substring(figures + 1).split("/");
                        rows.add(String.format(
                                Locale.ROOT,
                                "| %s | %s | %s | %s | %d / %d | %+d | %+.0f |",
                                client,
                                (agent ? "agent" : "none (control)") + (rounds > 1 ? ", round " + round : ""),
                                kind.substring(0, figures),
                                s.get("governedColdMicrosMedian") + " / " + s.get("ungovernedColdMicrosMedian"),
                                Long.parseLong(f[0]) / 4,
                                Long.parseLong(f[1]) / 4,
                                (Long.parseLong(f[0]) - Long.parseLong(f[1])) / 4,
                                Double.parseDouble(f[2]) / 4));
                    }
                }
            }
        }
        printTable(
                "| client | JVM | memory | cold call's median µs, governed / ungoverned | pages touched, median,"
                        + " governed / ungoverned | difference of the medians | difference of the means |",
                "|---|---|---|--:|--:|--:|--:|",
                rows);
    }

    /**
     * One JVM kind's governed and ungoverned calls over every round of a paired run: a p99 over a
     * few minutes of calls, where one round's p99 rests on a few hundred of its slowest.
     */
    private static final class RoundsPooled {
        private final Histogram governed = CallLoadApp.newHistogram();
        private final Histogram ungoverned = CallLoadApp.newHistogram();
        private final List<Double> roundsP99Differences = new ArrayList<>();

        void add(Map<String, String> summary) {
            governed.add(CallLoadApp.decoded(summary.get("governedHistogram")));
            ungoverned.add(CallLoadApp.decoded(summary.get("ungovernedHistogram")));
            roundsP99Differences.add(d(summary, "governedP99Micros", "ungovernedP99Micros"));
        }

        String row(String client, String threads, String jvm) {
            long under = roundsP99Differences.stream().filter(v -> v < 50).count();
            return String.format(
                    "| %s | %s | %s | %d | %,d | %+.0f / %+.0f / %+.0f | %s | %d of %d |",
                    client,
                    threads,
                    jvm,
                    roundsP99Differences.size(),
                    governed.getTotalCount(),
                    difference(50),
                    difference(99),
                    difference(99.9),
                    spread(roundsP99Differences),
                    under,
                    roundsP99Differences.size());
        }

        private double difference(double percentile) {
            return (governed.getValueAtPercentile(percentile) - ungoverned.getValueAtPercentile(percentile)) / 1e3;
        }
    }

    /** A Markdown table after a blank line: its header row, its alignment row, then its rows. */
    private static void printTable(String header, String alignments, List<String> rows) {
        System.out.println();
        System.out.println(header);
        System.out.println(alignments);
        rows.forEach(System.out::println);
    }

    /** One summary's {@code a} minus its {@code b}. */
    private static double d(Map<String, String> s, String a, String b) {
        return Double.parseDouble(s.get(a)) - Double.parseDouble(s.get(b));
    }

    /** {@code +m (a to b)}: the median and the range of the values. */
    private static String spread(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return String.format("%+.0f (%+.0f to %+.0f)", median(sorted), sorted.get(0), sorted.get(sorted.size() - 1));
    }

    private static double median(List<Double> sorted) {
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** A forked {@link CallLoadApp} in windows mode, driven line by line. */
    private static final class Child implements AutoCloseable {
        private final boolean agent;
        private final Process process;
        private final java.io.BufferedReader out;
        private final java.io.Writer in;
        private final Path hosts;

        private Child(boolean agent, Process process, Path hosts) {
            this.agent = agent;
            this.process = process;
            this.hosts = hosts;
            this.out = new java.io.BufferedReader(
                    new java.io.InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.in = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        }

        static Child start(String java, boolean agent, String... appArgs) throws IOException {
            Path hosts = hostsFile();
            ProcessBuilder pb = processBuilder(java, agent, List.of(), hosts, appArgs);
            return new Child(agent, pb.start(), hosts);
        }

        void awaitReady() throws IOException {
            line("READY");
        }

        Map<String, String> window(long millis) throws IOException {
            send("measure " + millis);
            return parse(line("WINDOW ").substring("WINDOW ".length()));
        }

        Map<String, String> quit() throws IOException {
            send("quit");
            String summary = line("SUMMARY ");
            System.out.println((agent ? "agent    " : "no agent ") + summary + " (load " + load() + ")");
            return parse(summary.substring("SUMMARY ".length()));
        }

        private void send(String command) throws IOException {
            in.write(command + "\n");
            in.flush();
        }

        /** The next line starting with {@code prefix}; the lines before it (the agent's own) are skipped. */
        private String line(String prefix) throws IOException {
            StringBuilder skipped = new StringBuilder();
            for (String l; (l = out.readLine()) != null; ) {
                if (l.startsWith(prefix)) {
                    return l;
                }
                skipped.append(l).append('\n');
            }
            throw new IllegalStateException("the app ended before " + prefix.trim() + "; output:\n" + skipped);
        }

        @Override
        public void close() throws IOException {
            process.destroy();
            try {
                process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process.destroyForcibly();
            Files.deleteIfExists(hosts);
        }
    }

    private static void virtualThreads(Simulator sim, String url, String[] args) throws Exception {
        int pairs = countArg(args, 1, "5", "pairs");
        String calls = arg(args, 2, "10000");
        String home = System.getenv("JAVA25_HOME");
        String java =
                home == null ? javaLauncher() : Paths.get(home, "bin", "java").toString();
        List<Double> ratios = new ArrayList<>();
        for (int p = 0; p < pairs; p++) {
            double[] wall = new double[2];
            String[] jit = new String[2];
            // alternate which goes first, so a drift of the machine's load favours neither
            boolean[] order = p % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false};
            for (boolean agent : order) {
                sim.reset();
                Map<String, String> s = fork(java, agent, List.of(), "vt", url, calls);
                if (!"true".equals(s.get("finished")) || !"0".equals(s.get("failed"))) {
                    throw new IllegalStateException("run failed: " + s);
                }
                wall[agent ? 1 : 0] = Double.parseDouble(s.get("wallMillis"));
                jit[agent ? 1 : 0] = s.get("jitCpuMillisDuringBurst");
            }
            double ratio = wall[1] / wall[0];
            ratios.add(ratio);
            System.out.printf(
                    "pair %d: no agent %.0f ms, agent %.0f ms, ratio %.3f (JIT CPU during the burst %s / %s ms,"
                            + " load %s)%n",
                    p + 1, wall[0], wall[1], ratio, jit[0], jit[1], load());
        }
        List<Double> sorted = new ArrayList<>(ratios);
        Collections.sort(sorted);
        double median = sorted.size() % 2 == 1
                ? sorted.get(sorted.size() / 2)
                : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
        System.out.printf("median ratio %.3f over %d pairs: %s%n", median, pairs, ratios);
    }

    private static void footprint(Simulator sim, String url, String[] args) throws Exception {
        String tenants = arg(args, 1, "10000");
        String keys = arg(args, 2, "1000");
        String java = javaLauncher();
        // no agent; the agent after one tenant's call (what it holds anyway); the agent after all
        long none = heapAfter(sim, java, false, url, tenants, keys);
        long one = heapAfter(sim, java, true, url, "1", "1");
        long all = heapAfter(sim, java, true, url, tenants, keys);
        System.out.printf(
                "heap used after GC: no agent %.1f MB; agent, 1 tenant %.1f MB; agent, %s tenants / %s keys %.1f MB:"
                        + " agent +%.1f MB, of which the tenants and keys +%.1f MB%n",
                mb(none), mb(one), tenants, keys, mb(all), mb(all - none), mb(all - one));
    }

    private static double mb(long bytes) {
        return bytes / 1048576.0;
    }

    private static long heapAfter(Simulator sim, String java, boolean agent, String url, String tenants, String keys)
            throws Exception {
        sim.reset();
        return Long.parseLong(
                fork(java, agent, List.of(), "tenants", url, tenants, keys).get("heapUsedAfterGcBytes"));
    }

    /** Forks the app, prints its summary line, returns it as a flat map. */
    private static Map<String, String> fork(String java, boolean agent, List<String> jvmOptions, String... appArgs)
            throws IOException, InterruptedException {
        Path hosts = hostsFile();
        ProcessBuilder pb = processBuilder(java, agent, jvmOptions, hosts, appArgs);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        Files.deleteIfExists(hosts);
        String line = out.lines()
                .filter(l -> l.startsWith("SUMMARY "))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no summary; output:\n" + out));
        // the encoded histograms (paired mode) are for the parent to pool, not for the eye
        System.out.println((agent ? "agent    " : "no agent ")
                + line.replaceAll(",\"\\w+Histogram\":\"[^\"]*\"", "")
                + " (load " + load() + ")");
        Map<String, String> summary = parse(line.substring("SUMMARY ".length()));
        if (agent
                && List.of("load", "pages").contains(appArgs[0])
                && Long.parseLong(summary.getOrDefault("admittedBySluice", "-1")) <= 0) {
            throw new IllegalStateException("the agent governed no call; output:\n" + out);
        }
        return summary;
    }

    /** Maps {@link #HOST} to loopback, for {@code -Djdk.net.hosts.file}. */
    private static Path hostsFile() throws IOException {
        Path hosts = Files.createTempFile("sluice-hosts-", ".txt");
        Files.writeString(hosts, "127.0.0.1 localhost\n127.0.0.1 " + HOST + "\n127.0.0.1 " + UNGOVERNED_HOST + "\n");
        return hosts;
    }

    /** The app's JVM: without or with the agent, the hosts file, its own tmpdir; output and errors merged. */
    private static ProcessBuilder processBuilder(
            String java, boolean agent, List<String> jvmOptions, Path hosts, String... appArgs) throws IOException {
        Path tmp = Files.createTempDirectory("sluice-overhead-");
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-Xmx512m");
        if (agent) {
            String jar = System.getenv().getOrDefault("SLUICE_AGENT_JAR", "agent/target/sluice-agent.jar");
            if (!Files.isRegularFile(Paths.get(jar))) {
                throw new IllegalStateException("no agent jar at " + jar + " (mvn -pl agent -am package)");
            }
            cmd.add("-javaagent:" + jar);
            String extra = System.getProperty("agentJvmOptions"); // e.g. a profiler's -agentpath
            if (extra != null && !extra.isBlank()) {
                cmd.addAll(Arrays.asList(extra.trim().split("\\s+")));
            }
        }
        cmd.addAll(jvmOptions);
        cmd.add("-Djdk.net.hosts.file=" + hosts);
        cmd.add("-Djava.io.tmpdir=" + tmp);
        String histogram = System.getProperty("histogram");
        if (histogram != null) {
            cmd.add("-Dhistogram=" + histogram + "-" + (agent ? "agent" : "none") + "-"
                    + String.join("-", appArgs).replaceAll("[^A-Za-z0-9-]", "_"));
        }
        cmd.add("-cp");
        cmd.add(appClassPath());
        cmd.add(CallLoadApp.class.getName());
        cmd.addAll(Arrays.asList(appArgs));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        // the agent reads SLUICE_* variables as its settings: SLUICE_AGENT_JAR, meant for this
        // harness, made it refuse its configuration and run ungoverned (mode=off)
        pb.environment().keySet().removeIf(name -> name.startsWith("SLUICE_"));
        return pb;
    }

    /** benchmarks/target/classes and the jars named in benchmarks/target/app.classpath. */
    private static String appClassPath() throws IOException {
        Path target = Paths.get(System.getenv().getOrDefault("SLUICE_BENCHMARKS_TARGET", "benchmarks/target"));
        return target.resolve("classes").toAbsolutePath()
                + java.io.File.pathSeparator
                + Files.readString(target.resolve("app.classpath")).trim();
    }

    private static String javaLauncher() {
        String java = System.getenv("JAVA");
        return java != null
                ? java
                : Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** {@code -Dsluice.overhead.replayThreads}, 1 when unset; Integer.getInteger would take "two" as 1. */
    private static int replayThreads() {
        String threads = System.getProperty("sluice.overhead.replayThreads", "1");
        try {
            return Integer.parseInt(threads.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "-Dsluice.overhead.replayThreads must be a whole number of threads, was " + threads);
        }
    }

    static String load() {
        try {
            return Files.readString(Paths.get("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }

    private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":(\"[^\"]*\"|[^,}]+)");

    static Map<String, String> parse(String json) {
        Map<String, String> out = new LinkedHashMap<>();
        Matcher m = FIELD.matcher(json);
        while (m.find()) {
            String v = m.group(2);
            out.put(m.group(1), v.startsWith("\"") ? v.substring(1, v.length() - 1) : v);
        }
        return out;
    }

    private static String r(Map<String, String> s, String key) {
        double v = Double.parseDouble(s.get(key));
        return v >= 100 ? String.format("%,.0f", v) : String.format("%.1f", v);
    }

    private static double d(Map<String, String> with, Map<String, String> without, String key) {
        return Double.parseDouble(with.get(key)) - Double.parseDouble(without.get(key));
    }

    private CallOverhead() {}
}
