package dev.sluice.it.apps;

import com.openai.client.OpenAIClient;
import dev.sluice.it.harness.AppReport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A service whose callers come on a schedule rather than in a closed loop (openai-java, one thread
 * per call, so a call waiting in Sluice's queue holds no one else back): a shape of load, step by
 * step. Steps: {@code once} (one call, waited for: the JVM and the connection warm), {@code
 * pause:<ms>}, {@code crowd:<n>} (n callers released at the same instant), {@code <rate>/s:<s>}
 * (calls started at that rate for that many seconds). It waits for every call and prints the
 * report.
 *
 * <p>Arguments: baseUrl step...
 */
public final class PacedCallsApp {

    public static void main(String[] args) throws Exception {
        OpenAIClient client = OpenAiChatApp.client(args[0], null);
        AppReport report = new AppReport();
        ExecutorService pool = Executors.newCachedThreadPool();
        List<Future<?>> calls = new ArrayList<>();
        Runnable call = () -> report.call(() -> client.chat().completions().create(OpenAiChatApp.params()));
        for (int i = 1; i < args.length; i++) {
            String step = args[i];
            if (step.equals("once")) {
                call.run();
            } else if (step.startsWith("pause:")) {
                Thread.sleep(Long.parseLong(step.substring(6)));
            } else if (step.startsWith("crowd:")) {
                int n = Integer.parseInt(step.substring(6));
                CountDownLatch go = new CountDownLatch(1);
                for (int c = 0; c < n; c++) {
                    calls.add(pool.submit(() -> {
                        go.await();
                        call.run();
                        return null;
                    }));
                }
                Thread.sleep(200); // every caller parked on the latch
                go.countDown();
            } else {
                String[] rateAndSeconds = step.split("/s:");
                double rate = Double.parseDouble(rateAndSeconds[0]);
                long end = System.nanoTime() + (long) (Double.parseDouble(rateAndSeconds[1]) * 1e9);
                long gapNanos = (long) (1e9 / rate);
                for (long next = System.nanoTime(); next - end < 0; next += gapNanos) {
                    long sleep = next - System.nanoTime();
                    if (sleep > 0) {
                        Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                    }
                    calls.add(pool.submit(call));
                }
            }
        }
        for (Future<?> f : calls) {
            f.get();
        }
        Load.finish(report);
    }
}
