package dev.sluice.testapp;

import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The "small OkHttp app" of the start-up figures (docs/benchmarks.md): builds a client, makes
 * one call to the URL given, prints the status and exits.
 */
public final class StartupApp {

    private StartupApp() {}

    public static void main(String[] args) throws Exception {
        OkHttpClient client = new OkHttpClient();
        try (Response response =
                client.newCall(new Request.Builder().url(args[0]).build()).execute()) {
            System.out.println(response.code());
        }
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
    }
}
