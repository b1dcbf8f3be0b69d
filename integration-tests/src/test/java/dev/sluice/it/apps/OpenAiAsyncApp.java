package dev.sluice.it.apps;

import com.openai.client.OpenAIClient;
import dev.sluice.it.harness.AppReport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A service using openai-java's asynchronous client at its default settings: keeps {@code
 * inFlight} chat completions outstanding (a new one starts when one ends) until {@code total}
 * were made. No thread waits for an answer: admission waits, if any, must not block the caller.
 *
 * <p>Arguments: baseUrl inFlight total
 */
public final class OpenAiAsyncApp {

    public static void main(String[] args) throws Exception {
        OpenAIClient client = OpenAiChatApp.client(args[0], null);
        int inFlight = Integer.parseInt(args[1]);
        int total = Integer.parseInt(args[2]);
        AppReport report = new AppReport();
        Semaphore slots = new Semaphore(inFlight);
        CompletableFuture<?>[] all = new CompletableFuture<?>[total];
        for (int i = 0; i < total; i++) {
            slots.acquire();
            long begun = report.begin();
            all[i] = client.async()
                    .chat()
                    .completions()
                    .create(OpenAiChatApp.params())
                    .whenComplete((r, failure) -> {
                        if (failure == null) {
                            report.succeeded(begun);
                        } else {
                            Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                            report.count(Outcomes.classify(cause, OpenAiChatApp.body(cause)), 1);
                            report.failed(begun, cause);
                        }
                        slots.release();
                    });
        }
        CompletableFuture.allOf(all).handle((v, e) -> null).get(5, TimeUnit.MINUTES);
        Load.finish(report);
    }
}
