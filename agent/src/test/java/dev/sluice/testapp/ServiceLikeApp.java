package dev.sluice.testapp;

import okhttp3.OkHttpClient;
import okhttp3.Request;

/**
 * Starts like a service (1.5 s of its own start-up), then makes its first OkHttp call and prints
 * how long it took: the first-weave figure of docs/benchmarks.md (Agent start-up).
 */
public final class ServiceLikeApp {

    private ServiceLikeApp() {}

    public static void main(String[] args) throws Exception {
        Thread.sleep(1500);
        long started = System.nanoTime();
        OkHttpClient client = new OkHttpClient();
        client.newCall(new Request.Builder().url(args[0]).build()).execute().close();
        System.out.println("first call ms=" + (System.nanoTime() - started) / 1_000_000);
        System.exit(0);
    }
}
