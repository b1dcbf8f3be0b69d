package dev.sluice.it.leak;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.sluice.it.harness.AppReport;
import java.io.InputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A service run with the agent and no config at all, calling an OpenAI-style provider written
 * apart from the simulator ({@link RawProvider}, reached as {@code api.openai.com} through a hosts
 * file) one call at a time through real clients at their defaults (the JDK client at its default
 * version, which offers an h2c upgrade on {@code http://}), and reading the governor over the
 * platform MBean server after each call with no garbage collected: calls in flight, waiting,
 * reserved.
 *
 * <p>A plan is a list of steps {@code phase:client:ending}. The phase says which provider scope
 * the call is made in: {@code cold}, under an API key never seen (no answer has told its limits,
 * so it is in its slow start), or {@code taught}, under the client's own key, whose first call
 * succeeded and told them. The ending is how the provider ends each attempt ({@link
 * RawProvider.Fault}): {@code ok}, a reset at accept, after the request head, in its body or after
 * it, a close without an answer, a reset of the HTTP/2 stream, a 500 read and closed, or a 500 whose
 * body the caller neither reads nor closes ({@code error-500-unread}). Sluice's default retry loop
 * retries resets and 500s, so a step is up to three attempts.
 *
 * <p>The governor's MXBeans keep a reading for a second ({@code SluiceMBeans}); each step is read
 * once that second has passed since the last reading, so every reading is taken after its call.
 * For each step the app prints one line and counts {@code steps}, {@code steps:governed} (the
 * governor admitted its attempts), {@code steps:as-planned} (it ended as its ending means: an
 * exception for a reset or close, the status for an answer), {@code steps:quiet} (nothing in
 * flight, waiting or reserved after it), and {@code held:inFlight}, {@code held:waiting} and
 * {@code held:reserved} summed over the readings; a step read after a collection happened meanwhile
 * counts in {@code steps:gcMeanwhile}; {@code attempts}, {@code attempts:http2} and
 * {@code attempts:h2cOffers} count the requests the provider read, those that came as HTTP/2
 * streams, and those that offered the upgrade. A step that was not quiet is read again after
 * {@code System.gc()} ({@code held:afterGc:inFlight}), which tells a release that waited for one.
 *
 * <p>Arguments: plan(phase:client:ending,...) h2c(true|false)
 */
public final class ZeroConfigLeakApp {

    private static final MediaType JSON = MediaType.parse("application/json");
    /** The MXBeans keep a reading this long (SluiceMBeans); a reading waits it out to be taken now. */
    private static final long VIEW_REFRESH_MILLIS = 1_050;

    private final String baseUrl;
    private final RawProvider provider;
    private final AppReport report = new AppReport();
    private final HttpClient jdk = HttpClient.newHttpClient();
    private final OkHttpClient okhttp = new OkHttpClient();
    private final MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName governor = new ObjectName("dev.sluice:type=Governor");
    private final Set<String> taught = new HashSet<>();
    private long lastReadNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(10);
    private int coldKeys;
    private int steps;

    private ZeroConfigLeakApp(RawProvider provider) throws Exception {
        this.provider = provider;
        this.baseUrl = "http://api.openai.com:" + provider.port();
    }

    public static void main(String[] args) throws Exception {
        boolean h2c = Boolean.parseBoolean(args[1]);
        try (RawProvider provider = RawProvider.start(h2c)) {
            ZeroConfigLeakApp app = new ZeroConfigLeakApp(provider);
            LeakMixApp.State.awaitRegistered(app.jmx, app.governor);
            for (String step : args[0].split(",")) {
                String[] parts = step.split(":");
                app.step(parts[0], parts[1], parts[2]);
            }
            app.report.print();
        }
        System.exit(0);
    }

    private void step(String phase, String client, String ending) throws Exception {
        String key;
        if (phase.equals("cold")) {
            key = "sk-cold-" + (++coldKeys);
        } else {
            key = "sk-taught-" + client;
            if (taught.add(client)) {
                step("taught-by", client, "ok", key);
            }
        }
        step(phase, client, ending, key);
    }

    /** One call, then the governor read once its kept reading is older than a second, with no collection. */
    private void step(String phase, String client, String ending, String key) throws Exception {
        RawProvider.Fault fault =
                ending.equals("error-500-unread") ? RawProvider.Fault.ERROR_500 : RawProvider.Fault.of(ending);
        provider.fault(fault);
        int requests = provider.requests.get();
        int connections = provider.connections.get();
        int http2 = provider.http2Requests.get();
        int upgradeOffers = provider.upgradeOffers.get();
        long admitted = LeakMixApp.State.read(jmx, governor).admitted;
        long collections = collections();
        String outcome;
        boolean asPlanned;
        try {
            int status = call(client, ending, key);
            outcome = "status " + status;
            asPlanned =
                    status == (fault == RawProvider.Fault.ERROR_500 ? 500 : fault == RawProvider.Fault.NONE ? 200 : -1);
        } catch (Throwable t) {
            Throwable cause = t instanceof ExecutionException && t.getCause() != null ? t.getCause() : t;
            outcome = cause.getClass().getSimpleName() + ": " + cause.getMessage();
            // the SDK turns a 500 into its own exception; any other ending is an exception
            asPlanned = fault == RawProvider.Fault.ERROR_500
                    ? client.equals("openai") && outcome.startsWith("InternalServerException")
                    : fault != RawProvider.Fault.NONE;
        }
        provider.fault(RawProvider.Fault.NONE);
        LeakMixApp.State state = readFresh();
        long gcs = collections() - collections;
        boolean governed = state.admitted > admitted;
        report.count("steps", 1);
        report.count("steps:governed", governed ? 1 : 0);
        report.count("steps:as-planned", asPlanned ? 1 : 0);
        report.count("steps:quiet", state.quiet() ? 1 : 0);
        report.count("steps:gcMeanwhile", gcs > 0 ? 1 : 0);
        report.count("attempts", provider.requests.get() - requests);
        report.count("attempts:http2", provider.http2Requests.get() - http2);
        report.count("attempts:h2cOffers", provider.upgradeOffers.get() - upgradeOffers);
        report.count("held:inFlight", state.inFlight);
        report.count("held:waiting", state.waiting);
        report.count("held:reserved", state.reserved);
        String line = phase + ":" + client + ":" + ending + " -> " + outcome + " | attempts reached the provider "
                + (provider.requests.get() - requests) + " (over HTTP/2 " + (provider.http2Requests.get() - http2)
                + "), connections " + (provider.connections.get() - connections) + ", admitted "
                + (state.admitted - admitted) + " | " + state
                + (gcs > 0 ? " | " + gcs + " collection(s) meanwhile" : "");
        if (!state.quiet()) {
            System.gc();
            Thread.sleep(200); // the agent's thread releases what the collection found dropped
            LeakMixApp.State afterGc = readFresh();
            report.count("held:afterGc:inFlight", afterGc.inFlight);
            line += " || after System.gc(): " + afterGc;
        }
        report.note(String.format("step %02d", ++steps), line);
        System.out.println(line);
    }

    /** Makes the call and returns the status it got, or throws what it threw. */
    private int call(String client, String ending, String key) throws Exception {
        boolean readBody = !ending.equals("error-500-unread");
        switch (client) {
            case "jdk-async":
            case "jdk-sync": {
                HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/v1/chat/completions"))
                        .header("Content-Type", "application/json")
                        .header("Authorization", "Bearer " + key)
                        .POST(HttpRequest.BodyPublishers.ofString(LeakMixApp.body(false)))
                        .build();
                HttpResponse<InputStream> response = client.equals("jdk-async")
                        ? jdk.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
                                .get(60, TimeUnit.SECONDS)
                        : jdk.send(request, HttpResponse.BodyHandlers.ofInputStream());
                if (readBody) {
                    try (InputStream in = response.body()) {
                        in.readAllBytes();
                    }
                }
                return response.statusCode();
            }
            case "okhttp": {
                Request request = new Request.Builder()
                        .url(baseUrl + "/v1/chat/completions")
                        .header("Authorization", "Bearer " + key)
                        .post(RequestBody.create(JSON, LeakMixApp.body(false)))
                        .build();
                Response response = okhttp.newCall(request).execute();
                if (readBody) {
                    try (Response r = response) {
                        r.body().bytes();
                    }
                }
                return response.code();
            }
            case "openai": {
                OpenAIClient openai = OpenAIOkHttpClient.builder()
                        .baseUrl(baseUrl + "/v1")
                        .apiKey(key)
                        .build();
                try {
                    openai.chat()
                            .completions()
                            .create(ChatCompletionCreateParams.builder()
                                    .model(ChatModel.GPT_4O_MINI)
                                    .addUserMessage("Say hello to the leak test.")
                                    .maxCompletionTokens(40)
                                    .build());
                    return 200;
                } finally {
                    openai.close();
                }
            }
            default:
                throw new IllegalArgumentException("no client " + client);
        }
    }

    private static long collections() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    /** The governor read once the MXBeans' kept reading is older than its refresh, so it is taken now. */
    private LeakMixApp.State readFresh() throws Exception {
        long left = lastReadNanos + TimeUnit.MILLISECONDS.toNanos(VIEW_REFRESH_MILLIS) - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
        LeakMixApp.State s = LeakMixApp.State.read(jmx, governor);
        lastReadNanos = System.nanoTime();
        return s;
    }
}
