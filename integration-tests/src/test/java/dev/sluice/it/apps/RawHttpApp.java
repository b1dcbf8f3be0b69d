package dev.sluice.it.apps;

import dev.sluice.it.harness.AppReport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A service calling the OpenAI chat completions API by hand, with no SDK: over the JDK's {@code
 * java.net.http.HttpClient} ({@code jdk}) or OkHttp ({@code okhttp}). A non-2xx answer counts as a
 * failure named by its status.
 *
 * <p>Arguments: baseUrl jdk|okhttp threads calls
 */
public final class RawHttpApp {

    static final String BODY = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"Say hello, briefly.\"}]}";

    public static void main(String[] args) throws Exception {
        String url = args[0] + "/chat/completions";
        Load.Call call = args[1].equals("okhttp") ? okHttp(url) : jdk(url);
        AppReport report = Load.closedLoop(Integer.parseInt(args[2]), Integer.parseInt(args[3]), call, f -> null);
        Load.finish(report);
    }

    private static Load.Call jdk(String url) {
        HttpClient client = HttpClient.newHttpClient();
        return (thread, i) -> {
            HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                    .header("Authorization", "Bearer sk-test-raw-jdk")
                    .header("X-Sluice-Tenant", "raw-" + thread)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(BODY))
                    .build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                throw new IllegalStateException(response.statusCode() + ": " + response.body());
            }
        };
    }

    private static Load.Call okHttp(String url) {
        OkHttpClient client = new OkHttpClient();
        MediaType json = MediaType.get("application/json");
        return (thread, i) -> {
            Request request = new Request.Builder()
                    .url(url)
                    .header("Authorization", "Bearer sk-test-raw-okhttp")
                    .header("X-Sluice-Tenant", "raw-" + thread)
                    .post(RequestBody.create(BODY.getBytes(StandardCharsets.UTF_8), json))
                    .build();
            try (Response response = client.newCall(request).execute()) {
                String body = response.body() == null ? "" : response.body().string();
                if (!response.isSuccessful()) {
                    throw new IllegalStateException(response.code() + ": " + body);
                }
            }
        };
    }
}
