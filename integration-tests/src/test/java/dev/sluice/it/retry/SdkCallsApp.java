package dev.sluice.it.retry;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.models.messages.MessageCreateParams;
import com.google.genai.Client;
import com.google.genai.errors.ApiException;
import com.google.genai.types.GenerateContentConfig;
import com.google.genai.types.HttpOptions;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.sluice.it.harness.AppReport;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A service making chat calls with one real SDK at its default settings (retries included):
 * {@code threads} callers each make {@code calls} calls. Every logical call sends its own
 * {@code x-sim-call-id}, so the simulator's ledger counts the attempts of each; {@code force}
 * (a simulator fault name, or {@code -}) makes the simulator answer every attempt that way.
 * Failures are counted by the SDK's exception type and status, and whether the error body the
 * application received carries Sluice's {@code sluice} object ({@code sluice:<decision>}).
 *
 * <p>With {@code attach} it first makes one call, then attaches the agent to itself (late attach),
 * so the SDK's client and retry classes exist before Sluice does.
 *
 * <p>Arguments: sdk(openai|anthropic|genai|langchain4j) baseUrl threads calls force [attach agentJar agentArgs]
 */
public final class SdkCallsApp {

    private static final ThreadLocal<String> CALL_ID = new ThreadLocal<>();
    private static final java.util.concurrent.atomic.AtomicBoolean FIRST_BODY =
            new java.util.concurrent.atomic.AtomicBoolean();

    private SdkCallsApp() {}

    public static void main(String[] args) throws Exception {
        String sdk = args[0];
        String baseUrl = args[1];
        int threads = Integer.parseInt(args[2]);
        int calls = Integer.parseInt(args[3]);
        String force = "-".equals(args[4]) ? null : args[4];
        Caller caller = caller(sdk, baseUrl, force);
        AppReport report = new AppReport();
        if (args.length > 5 && args[5].equals("attach")) {
            call(caller, report, "before-attach");
            com.sun.tools.attach.VirtualMachine vm = com.sun.tools.attach.VirtualMachine.attach(
                    String.valueOf(ProcessHandle.current().pid()));
            try {
                vm.loadAgent(args[6], args.length > 7 ? args[7] : null);
            } finally {
                vm.detach();
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            int thread = t;
            pool.submit(() -> {
                for (int i = 0; i < calls; i++) {
                    call(caller, report, "c" + thread + "-" + i);
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.MINUTES);
        report.countRetryLayers();
        if (SdkCallsApp.class.getClassLoader() != ClassLoader.getSystemClassLoader()) {
            report.count("child-loader", 1);
        }
        report.print();
        System.exit(0);
    }

    private static void call(Caller caller, AppReport report, String callId) {
        report.call(() -> {
            CALL_ID.set(callId);
            try {
                caller.call(callId);
            } catch (RuntimeException e) {
                report.count("exception:" + e.getClass().getSimpleName() + ":" + statusOf(e), 1);
                String body = bodyOf(e);
                boolean sluice = body.contains("\"sluice\"") || body.contains("sluice=");
                report.count(sluice ? "sluice:" + decisionIn(body) : "nosluice", 1);
                if (FIRST_BODY.compareAndSet(false, true)) {
                    System.err.println("first error body: " + body);
                }
                throw e;
            } finally {
                CALL_ID.remove();
            }
        });
    }

    interface Caller {
        void call(String callId) throws Exception;
    }

    private static Map<String, String> headers(String callId, String force) {
        Map<String, String> h = new HashMap<>();
        h.put("x-sim-call-id", callId);
        if (force != null) {
            h.put("x-sim-force", force);
        }
        return h;
    }

    private static Caller caller(String sdk, String baseUrl, String force) {
        switch (sdk) {
            case "openai": {
                OpenAIClient client = OpenAIOkHttpClient.builder()
                        .baseUrl(baseUrl + "/v1")
                        .apiKey("sk-retry-test")
                        .build();
                return id -> {
                    ChatCompletionCreateParams.Builder p = ChatCompletionCreateParams.builder()
                            .model(com.openai.models.ChatModel.GPT_4O_MINI)
                            .addUserMessage("Say hello, briefly.")
                            .maxCompletionTokens(16);
                    headers(id, force).forEach(p::putAdditionalHeader);
                    client.chat().completions().create(p.build());
                };
            }
            case "anthropic": {
                AnthropicClient client = AnthropicOkHttpClient.builder()
                        .baseUrl(baseUrl)
                        .apiKey("sk-ant-retry-test")
                        .build();
                return id -> {
                    MessageCreateParams.Builder p = MessageCreateParams.builder()
                            .model("claude-3-5-haiku-latest")
                            .maxTokens(16)
                            .addUserMessage("Say hello, briefly.");
                    headers(id, force).forEach(p::putAdditionalHeader);
                    client.messages().create(p.build());
                };
            }
            case "genai": {
                Client client = Client.builder()
                        .apiKey("genai-retry-test")
                        .httpOptions(HttpOptions.builder().baseUrl(baseUrl).build())
                        .build();
                return id -> client.models.generateContent(
                        "gemini-2.0-flash",
                        "Say hello, briefly.",
                        GenerateContentConfig.builder()
                                .maxOutputTokens(16)
                                .httpOptions(HttpOptions.builder()
                                        .baseUrl(baseUrl)
                                        .headers(headers(id, force))
                                        .build())
                                .build());
            }
            case "langchain4j": {
                dev.langchain4j.model.chat.ChatModel model = OpenAiChatModel.builder()
                        .baseUrl(baseUrl + "/v1")
                        .apiKey("sk-retry-test")
                        .modelName("gpt-4o-mini")
                        .maxTokens(16)
                        .customHeaders(() -> headers(CALL_ID.get(), force))
                        .build();
                return id -> model.chat("Say hello, briefly.");
            }
            default:
                throw new IllegalArgumentException(sdk);
        }
    }

    private static String statusOf(Throwable e) {
        if (e instanceof OpenAIServiceException) {
            return String.valueOf(((OpenAIServiceException) e).statusCode());
        }
        if (e instanceof AnthropicServiceException) {
            return String.valueOf(((AnthropicServiceException) e).statusCode());
        }
        if (e instanceof ApiException) {
            return String.valueOf(((ApiException) e).code());
        }
        if (e instanceof dev.langchain4j.exception.HttpException) {
            return String.valueOf(((dev.langchain4j.exception.HttpException) e).statusCode());
        }
        Throwable cause = e.getCause();
        return cause instanceof RuntimeException && cause != e ? statusOf(cause) : "-";
    }

    /** The error body as the application sees it through the SDK's exception. */
    private static String bodyOf(Throwable e) {
        if (e instanceof OpenAIServiceException) {
            return String.valueOf(((OpenAIServiceException) e).body());
        }
        if (e instanceof AnthropicServiceException) {
            return String.valueOf(((AnthropicServiceException) e).body());
        }
        return String.valueOf(e.getMessage()) + (e.getCause() != null && e.getCause() != e ? bodyOf(e.getCause()) : "");
    }

    private static String decisionIn(String body) {
        int at = body.indexOf("gateway_decision");
        if (at < 0) {
            return "unknown";
        }
        String rest = body.substring(at + "gateway_decision".length()).replaceFirst("^[^a-z_]+", "");
        int end = 0;
        while (end < rest.length() && (Character.isLetter(rest.charAt(end)) || rest.charAt(end) == '_')) {
            end++;
        }
        return rest.substring(0, end);
    }
}
