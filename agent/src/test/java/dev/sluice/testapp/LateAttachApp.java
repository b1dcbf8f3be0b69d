package dev.sluice.testapp;

import com.sun.tools.attach.VirtualMachine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Builds its clients and calls once before the agent is attached (so the hooked classes are
 * already loaded), attaches the agent to itself, then calls again with the same clients.
 * Needs {@code -Djdk.attach.allowAttachSelf=true}. Arguments: port, agent jar.
 */
public final class LateAttachApp {

    private LateAttachApp() {}

    public static void main(String[] args) throws Exception {
        String base = "http://127.0.0.1:" + args[0];
        OkHttpClient okhttp = new OkHttpClient();
        HttpClient jdk =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (Response before = okhttp.newCall(new Request.Builder()
                        .url(base + "/v1/chat")
                        .header("X-Test-Id", "okhttp-before")
                        .build())
                .execute()) {
            Report.put("okhttp-before.status", before.code());
        }
        jdk.send(
                HttpRequest.newBuilder(URI.create(base + "/v1/chat"))
                        .header("X-Test-Id", "jdk-before")
                        .build(),
                HttpResponse.BodyHandlers.ofString());

        VirtualMachine vm =
                VirtualMachine.attach(String.valueOf(ProcessHandle.current().pid()));
        try {
            vm.loadAgent(args[1]);
        } finally {
            vm.detach();
        }
        // the bridge types exist only now: the rest lives in a class linked after the attach
        Class.forName("dev.sluice.testapp.LateAttachApp$AfterAttach")
                .getMethod("run", String.class, OkHttpClient.class, HttpClient.class)
                .invoke(null, base, okhttp, jdk);
        okhttp.dispatcher().executorService().shutdown();
        System.exit(0);
    }

    /** The calls made once the agent is attached. */
    public static final class AfterAttach {
        private AfterAttach() {}

        public static void run(String base, OkHttpClient okhttp, HttpClient jdk) throws Exception {
            ScriptedGovernance governance = new ScriptedGovernance();
            dev.sluice.bootstrap.Bridge.install(governance);

            try (Response after = okhttp.newCall(new Request.Builder()
                            .url(base + "/v1/chat")
                            .header("X-Test-Id", "okhttp-after")
                            .header("X-Sluice-Tenant", "late")
                            .build())
                    .execute()) {
                Report.put("okhttp-after.status", after.code());
                Report.put("okhttp-after.header", after.header("X-Sluice-Decision"));
            }
            HttpResponse<String> after = jdk.send(
                    HttpRequest.newBuilder(URI.create(base + "/v1/chat"))
                            .header("X-Test-Id", "jdk-after")
                            .header("X-Sluice-Tenant", "late")
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            Report.put("jdk-after.status", after.statusCode());
            Report.put(
                    "jdk-after.header",
                    after.headers().firstValue("X-Sluice-Decision").orElse(null));
            Report.put("governed", governance.seen.keySet().size());
        }
    }
}
