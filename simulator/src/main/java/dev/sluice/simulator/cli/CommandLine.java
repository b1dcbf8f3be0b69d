package dev.sluice.simulator.cli;

import dev.sluice.simulator.Algorithm;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Durations;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Scope;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.fault.FaultKind;
import dev.sluice.simulator.fault.Faults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Reads the simulator's command line into a {@link Simulator.Builder} and fault settings. Options
 * take their value as the next argument or after '='.
 */
final class CommandLine {
    static final String USAGE = String.join(
            "\n",
            "Usage: java -jar sluice-simulator.jar [options]",
            "",
            "A rate-limited LLM provider on 127.0.0.1 (OpenAI, Azure OpenAI, Anthropic, Gemini,",
            "or a fixed-window gateway). Prints its base URL and limits, serves until stopped.",
            "",
            "Provider",
            "  --profile NAME             openai | azure | anthropic | gemini | gateway (default openai)",
            "  --port N                   port on 127.0.0.1, 0 for a free one (default 0)",
            "",
            "Limits (any of these replaces the profile's default limits)",
            "  --rpm N                    requests per window",
            "  --tpm N                    tokens per window (Anthropic, Gemini: input tokens)",
            "  --itpm N                   input tokens per window",
            "  --otpm N                   output tokens per window",
            "  --window DURATION          window of --rpm/--tpm/--itpm/--otpm: 1s, 10s, 1m (default 1m)",
            "  --burst N                  token-bucket size of those limits (default: their capacity)",
            "  --concurrency N            requests in flight per key, refused at once beyond",
            "  --limit SPEC               any limit, repeatable: DIMENSION=CAPACITY/WINDOW[,OPTION...]",
            "                             dimensions: requests, tokens, input_tokens, output_tokens,",
            "                             concurrency (=N); options: fixed, bucket, burst=N, name=X,",
            "                             scope=key|key_model|org|global",
            "                             e.g. --limit requests=10/1s,burst=1 --limit requests=1800/1m,fixed,scope=org",
            "  --scope SCOPE              who shares a bucket by default: key | key_model | org | global",
            "",
            "Answers",
            "  --output-tokens N          tokens per answer when max tokens is absent or larger (default 64)",
            "  --first-byte-ms N          time to first byte (default 200)",
            "  --ms-per-token N           latency per output token (default 20)",
            "  --model-max-output-tokens N  what Azure reserves without max_tokens (default 4096)",
            "",
            "Faults (also at runtime: POST /__sim/faults, or a request header x-sim-force: KIND)",
            "  --fault KIND[=COUNT|:DURATION|:always]  repeatable, e.g. --fault overload=3,",
            "                             --fault overload:30s, --fault malformed_headers:always",
            "                             kinds: " + FaultKind.names(),
            "  --slow-first-byte-ms N     delay added by slow_first_byte (default 3000)",
            "",
            "Attribution",
            "  --tenant-header NAME       tenant header, repeatable (default X-Sluice-Tenant, x-sim-tenant)",
            "  --call-id-header NAME      logical call id header (default x-sim-call-id)",
            "  --org-header NAME          organization header (default x-sim-organization)",
            "  --org KEY=ORG              put an API key in an organization, repeatable; limits are",
            "                             then counted per organization and answers name it",
            "  --unmapped-keys own|default  a key not mapped is its own organization, or in the default",
            "  --announce-org true|false  name the organization on every answer (openai-organization,",
            "                             anthropic-organization-id; default: true once --org is given)",
            "",
            "In the field",
            "  --count-refused true|false a refused request still counts on the request limits",
            "                             (default: true for openai, false for the others)",
            "  --round-remaining true|false  round token remaining headers to the thousand (anthropic;",
            "                             default true)",
            "  --neighbour ORG=SHARE      an unseen consumer takes SHARE (0.4 or 40%) of every limit of",
            "                             ORG, steadily; repeatable, one per organization",
            "",
            "  --threads N                server threads; each paced stream holds one (default 300)",
            "",
            "Admin: GET /__sim/ledger, GET /__sim/limits, GET|POST /__sim/faults, POST /__sim/reset",
            "  --help                     this text");

    final Simulator.Builder builder = Simulator.builder();
    final List<Consumer<Faults>> faults = new ArrayList<>();
    boolean help;

    private Long rpm;
    private Long tpm;
    private Long itpm;
    private Long otpm;
    private Long burst;
    private Duration window = Duration.ofMinutes(1);
    private final List<String> tenantHeaders = new ArrayList<>();

    static CommandLine parse(String... args) {
        CommandLine cl = new CommandLine();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                value = arg.substring(eq + 1);
                arg = arg.substring(0, eq);
            }
            if (arg.equals("--help") || arg.equals("-h")) {
                cl.help = true;
                continue;
            }
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument: " + arg);
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                value = args[++i];
            }
            cl.apply(arg, value);
        }
        cl.finish();
        return cl;
    }

    private void apply(String option, String value) {
        switch (option) {
            case "--profile":
                builder.profile(Profile.parse(value));
                break;
            case "--port":
                builder.port(Integer.parseInt(value));
                break;
            case "--rpm":
                rpm = Long.parseLong(value);
                break;
            case "--tpm":
                tpm = Long.parseLong(value);
                break;
            case "--itpm":
                itpm = Long.parseLong(value);
                break;
            case "--otpm":
                otpm = Long.parseLong(value);
                break;
            case "--window":
                window = Durations.parse(value);
                break;
            case "--burst":
                burst = Long.parseLong(value);
                break;
            case "--concurrency":
                builder.concurrency(Long.parseLong(value));
                break;
            case "--limit":
                builder.limit(limit(value));
                break;
            case "--scope":
                builder.keyScope(scope(value));
                break;
            case "--output-tokens":
                builder.outputTokens(Integer.parseInt(value));
                break;
            case "--first-byte-ms":
                builder.firstByteLatency(Duration.ofMillis(Long.parseLong(value)));
                break;
            case "--ms-per-token":
                builder.latencyPerToken(Duration.ofMillis(Long.parseLong(value)));
                break;
            case "--model-max-output-tokens":
                builder.modelMaxOutputTokens(Integer.parseInt(value));
                break;
            case "--fault":
                faults.add(fault(value));
                break;
            case "--slow-first-byte-ms":
                Duration delay = Duration.ofMillis(Long.parseLong(value));
                faults.add(f -> f.slowFirstByteDelay(delay));
                break;
            case "--tenant-header":
                tenantHeaders.add(value);
                break;
            case "--call-id-header":
                builder.callIdHeader(value);
                break;
            case "--org-header":
                builder.organizationHeader(value);
                break;
            case "--org":
                int eq = value.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--org wants KEY=ORG: " + value);
                }
                builder.organization(value.substring(eq + 1), value.substring(0, eq));
                break;
            case "--unmapped-keys":
                if (value.equals("own")) {
                    builder.eachUnmappedKeyItsOwnOrganization();
                } else if (!value.equals("default")) {
                    throw new IllegalArgumentException("--unmapped-keys wants own or default: " + value);
                }
                break;
            case "--announce-org":
                builder.announceOrganization(bool(option, value));
                break;
            case "--count-refused":
                builder.countRefusedRequests(bool(option, value));
                break;
            case "--round-remaining":
                builder.roundTokensRemaining(bool(option, value));
                break;
            case "--neighbour":
                int at = value.indexOf('=');
                if (at <= 0) {
                    throw new IllegalArgumentException("--neighbour wants ORG=SHARE: " + value);
                }
                String share = value.substring(at + 1).trim();
                builder.neighbour(
                        value.substring(0, at),
                        share.endsWith("%")
                                ? Double.parseDouble(share.substring(0, share.length() - 1)) / 100
                                : Double.parseDouble(share));
                break;
            case "--threads":
                builder.containerThreads(Integer.parseInt(value));
                break;
            default:
                throw new IllegalArgumentException("unknown option: " + option + " (see --help)");
        }
    }

    private static boolean bool(String option, String value) {
        if (value.equals("true") || value.equals("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new IllegalArgumentException(option + " wants true or false: " + value);
    }

    private void finish() {
        add(Dimension.REQUESTS, rpm);
        add(Dimension.TOKENS, tpm);
        add(Dimension.INPUT_TOKENS, itpm);
        add(Dimension.OUTPUT_TOKENS, otpm);
        if (!tenantHeaders.isEmpty()) {
            builder.tenantHeaders(tenantHeaders.toArray(new String[0]));
        }
    }

    private void add(Dimension dimension, Long capacity) {
        if (capacity != null) {
            Limit limit = Limit.of(dimension, capacity, window);
            builder.limit(burst == null ? limit : limit.burst(burst));
        }
    }

    /** {@code requests=10/1s,burst=1,fixed,scope=org,name=x} or {@code concurrency=8}. */
    static Limit limit(String spec) {
        String[] parts = spec.split(",");
        int eq = parts[0].indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("--limit wants DIMENSION=CAPACITY/WINDOW: " + spec);
        }
        Dimension dimension = Dimension.valueOf(
                parts[0].substring(0, eq).trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        String amount = parts[0].substring(eq + 1).trim();
        Limit limit;
        if (dimension == Dimension.CONCURRENCY) {
            limit = Limit.concurrency(Long.parseLong(amount));
        } else {
            int slash = amount.indexOf('/');
            if (slash <= 0) {
                throw new IllegalArgumentException("--limit wants CAPACITY/WINDOW: " + spec);
            }
            limit = Limit.of(
                    dimension,
                    Long.parseLong(amount.substring(0, slash)),
                    Durations.parse(amount.substring(slash + 1)));
        }
        for (int i = 1; i < parts.length; i++) {
            String option = parts[i].trim();
            if (option.equals("fixed")) {
                limit = limit.algorithm(Algorithm.FIXED_WINDOW);
            } else if (option.equals("bucket")) {
                limit = limit.algorithm(Algorithm.TOKEN_BUCKET);
            } else if (option.startsWith("burst=")) {
                limit = limit.burst(Long.parseLong(option.substring(6)));
            } else if (option.startsWith("scope=")) {
                limit = limit.scope(scope(option.substring(6)));
            } else if (option.startsWith("name=")) {
                limit = limit.named(option.substring(5));
            } else {
                throw new IllegalArgumentException("unknown limit option: " + option);
            }
        }
        return limit;
    }

    static Scope scope(String text) {
        switch (text.trim().toLowerCase(Locale.ROOT).replace('-', '_')) {
            case "key":
            case "api_key":
                return Scope.API_KEY;
            case "key_model":
            case "api_key_and_model":
                return Scope.API_KEY_AND_MODEL;
            case "org":
            case "organization":
                return Scope.ORGANIZATION;
            case "global":
                return Scope.GLOBAL;
            default:
                throw new IllegalArgumentException("unknown scope: " + text);
        }
    }

    /** {@code overload}, {@code overload=3}, {@code overload:30s}, {@code overload:always}. */
    static Consumer<Faults> fault(String spec) {
        int eq = spec.indexOf('=');
        int colon = spec.indexOf(':');
        if (eq > 0) {
            FaultKind kind = FaultKind.parse(spec.substring(0, eq));
            int count = Integer.parseInt(spec.substring(eq + 1));
            return f -> f.next(kind, count);
        }
        if (colon > 0) {
            FaultKind kind = FaultKind.parse(spec.substring(0, colon));
            String when = spec.substring(colon + 1);
            if (when.equals("always")) {
                return f -> f.always(kind);
            }
            Duration span = Durations.parse(when);
            return f -> f.during(kind, span);
        }
        FaultKind kind = FaultKind.parse(spec);
        return f -> f.next(kind, 1);
    }
}
