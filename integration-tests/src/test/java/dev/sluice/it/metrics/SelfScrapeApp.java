package dev.sluice.it.metrics;

import com.openai.client.OpenAIClient;
import dev.sluice.it.apps.OpenAiChatApp;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;

/**
 * One openai-java call, then scrapes its own agent's endpoint until it answers, prints what it
 * found and which threads serve it, and returns from {@code main}: the JVM must then exit on its
 * own (the endpoint's threads are daemons).
 *
 * <p>Arguments: baseUrl metricsPort
 */
public final class SelfScrapeApp {

    public static void main(String[] args) throws Exception {
        OpenAIClient client = OpenAiChatApp.client(args[0], "solo");
        client.chat().completions().create(OpenAiChatApp.params());
        client.close();
        URL url = new URL("http://127.0.0.1:" + args[1] + "/metrics");
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            try {
                HttpURLConnection c = (HttpURLConnection) url.openConnection();
                try (InputStream in = c.getInputStream()) {
                    String body = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                    System.out.println("SCRAPED " + body.contains("gen_ai_client_operation_duration_seconds_bucket"));
                    break;
                }
            } catch (java.io.IOException notYet) {
                if (System.nanoTime() - deadline > 0) {
                    throw notYet;
                }
                Thread.sleep(100);
            }
        }
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("sluice-metrics") || t.getName().startsWith("HTTP-Dispatcher")) {
                System.out.println("THREAD " + t.getName() + " daemon=" + t.isDaemon());
            }
        }
    }
}
