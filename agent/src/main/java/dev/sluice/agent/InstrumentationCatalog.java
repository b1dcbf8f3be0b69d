package dev.sluice.agent;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.ArrayList;
import java.util.List;

/**
 * The instrumentations this agent ships. An explicit list rather than a
 * {@code ServiceLoader}: a service lookup scans every jar of the application's class path at
 * start-up, and the set is fixed at build time anyway. A module that fails to load is skipped
 * and reported; the others still install.
 */
final class InstrumentationCatalog {

    private static final int COUNT = 13;

    private InstrumentationCatalog() {}

    /** Plain constructor calls, not reflection: a first reflective call costs start-up on JDK 18+. */
    private static InstrumentationModule create(int index) {
        switch (index) {
            case 0:
                return new dev.sluice.instrumentation.jdkhttp.JdkHttpClientInstrumentation();
            case 1:
                return new dev.sluice.instrumentation.okhttp.OkHttpInstrumentation();
            case 2:
                return new dev.sluice.instrumentation.openai.OpenAiJavaInstrumentation();
            case 3:
                return new dev.sluice.instrumentation.anthropic.AnthropicJavaInstrumentation();
            case 4:
                return new dev.sluice.instrumentation.genai.GoogleGenAiInstrumentation();
            case 5:
                return new dev.sluice.instrumentation.langchain4j.LangChain4jInstrumentation();
            case 6:
                return new dev.sluice.instrumentation.reactornetty.ReactorNettyInstrumentation();
            case 7:
                return new dev.sluice.instrumentation.springretry.SpringRetryInstrumentation();
            case 8:
                return new dev.sluice.instrumentation.connections.ConnectionsInstrumentation();
            case 9:
                return new dev.sluice.instrumentation.hc5.ApacheHttpClient5Instrumentation();
            case 10:
                return new dev.sluice.instrumentation.hc4.ApacheHttpClient4Instrumentation();
            case 11:
                return new dev.sluice.instrumentation.awssdk.AwsSdkInstrumentation();
            case 12:
                return new dev.sluice.instrumentation.azurecore.AzureCoreInstrumentation();
            default:
                throw new IllegalArgumentException("no instrumentation #" + index);
        }
    }

    static List<InstrumentationModule> load(List<String> failures) {
        List<InstrumentationModule> modules = new ArrayList<>(COUNT);
        for (int i = 0; i < COUNT; i++) {
            try {
                modules.add(create(i));
            } catch (RuntimeException | LinkageError e) {
                failures.add("instrumentation #" + i + ": " + e);
            }
        }
        return modules;
    }
}
