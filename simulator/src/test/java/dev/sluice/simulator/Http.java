package dev.sluice.simulator;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Plain HTTP over loopback with the JDK client, for tests that look at bytes and headers. */
final class Http {
    static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private Http() {}

    static HttpResponse<String> post(String url, String body, String... headers) {
        try {
            return CLIENT.send(request(url, body, headers), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static HttpResponse<String> get(String url) {
        try {
            return CLIENT.send(
                    HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static HttpRequest request(String url, String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b.build();
    }

    /** A line of a stream and when it arrived (ms after the request was sent). */
    record Line(String text, long atMillis) {}

    /** Reads a response body line by line, stamping each line; stops at EOF or a broken stream. */
    static Streamed stream(String url, String body, String... headers) throws Exception {
        long start = System.nanoTime();
        HttpResponse<InputStream> response =
                CLIENT.send(request(url, body, headers), HttpResponse.BodyHandlers.ofInputStream());
        long headersAt = (System.nanoTime() - start) / 1_000_000;
        List<Line> lines = new ArrayList<>();
        IOException failure = null;
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                lines.add(new Line(line, (System.nanoTime() - start) / 1_000_000));
            }
        } catch (IOException e) {
            failure = e;
        }
        return new Streamed(response, headersAt, lines, failure);
    }

    record Streamed(HttpResponse<InputStream> response, long headersAtMillis, List<Line> lines, IOException failure) {
        List<String> data() {
            List<String> out = new ArrayList<>();
            for (Line l : lines) {
                if (l.text().startsWith("data: ")) {
                    out.add(l.text().substring(6));
                }
            }
            return out;
        }

        List<String> events() {
            List<String> out = new ArrayList<>();
            for (Line l : lines) {
                if (l.text().startsWith("event: ")) {
                    out.add(l.text().substring(7));
                }
            }
            return out;
        }
    }
}
