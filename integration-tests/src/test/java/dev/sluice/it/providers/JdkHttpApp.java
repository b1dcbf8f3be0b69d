package dev.sluice.it.providers;

import dev.sluice.it.harness.AppReport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A service calling an LLM endpoint with the raw JDK HttpClient, as code without an SDK does:
 * {@code threads} callers each POST the same JSON body {@code calls} times; half the threads use
 * {@code sendAsync} when {@code async} is set. Every answer is counted by status, a 429 as
 * {@code 429:<decision>} when Sluice answered it ({@code x-sluice-decision}) and
 * {@code 429:provider} otherwise. Then, for each fault named in {@code after}, one more call with
 * {@code x-sim-force: <fault>} and {@code x-sim-call-id: after-<fault>} reports its status as
 * {@code after:<fault>:<status>}. In header values {@code {t}} stands for the thread's parity (0 or
 * 1), so two API keys can share the load.
 *
 * <p>Arguments: url threads calls bodyFile headers(k=v;k=v or -) after(f1,f2 or -) [async]
 */
public final class JdkHttpApp {

    public static void main(String[] args) throws Exception {
        URI url = URI.create(args[0]);
        int threads = Integer.parseInt(args[1]);
        int calls = Integer.parseInt(args[2]);
        String body = Files.readString(Paths.get(args[3]));
        List<String[]> headers = new ArrayList<>();
        if (!args[4].equals("-")) {
            for (String pair : args[4].split(";")) {
                int eq = pair.indexOf('=');
                headers.add(new String[] {pair.substring(0, eq), pair.substring(eq + 1)});
            }
        }
        String[] after = args[5].equals("-") ? new String[0] : args[5].split(",");
        boolean async = args.length > 6 && args[6].equals("async");
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        AppReport report = new AppReport();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            boolean useAsync = async && t % 2 == 1;
            String parity = Integer.toString(t % 2);
            pool.submit(() -> {
                for (int i = 0; i < calls; i++) {
                    report.call(() -> {
                        HttpRequest request = request(url, body, headers, parity, null, null);
                        HttpResponse<String> response = useAsync
                                ? client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                                        .get(2, TimeUnit.MINUTES)
                                : client.send(request, HttpResponse.BodyHandlers.ofString());
                        report.count(outcome(response), 1);
                        if (response.statusCode() != 200) {
                            throw new IllegalStateException("status " + response.statusCode());
                        }
                    });
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.MINUTES);
        for (String fault : after) {
            HttpResponse<String> response = client.send(
                    request(url, body, headers, "0", fault, "after-" + fault), HttpResponse.BodyHandlers.ofString());
            report.count("after:" + fault + ":" + response.statusCode(), 1);
        }
        report.print();
        System.exit(0);
    }

    private static HttpRequest request(
            URI url, String body, List<String[]> headers, String parity, String fault, String callId) {
        HttpRequest.Builder b = HttpRequest.newBuilder(url)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (String[] h : headers) {
            b.header(h[0], h[1].replace("{t}", parity));
        }
        if (fault != null) {
            b.header("x-sim-force", fault).header("x-sim-call-id", callId);
        }
        return b.build();
    }

    private static String outcome(HttpResponse<String> response) {
        int status = response.statusCode();
        if (status != 429) {
            return "status:" + status;
        }
        Optional<String> decision = response.headers().firstValue("x-sluice-decision");
        return "status:429:" + decision.orElse("provider");
    }
}
