package dev.sluice.it.apps;

import com.openai.client.OpenAIClient;
import com.openai.models.chat.completions.ChatCompletion;

/**
 * One openai-java chat completion, made the moment the JVM starts, then exit: the "one-call
 * process" of the start-up figures (docs/startup-figures.md) and of {@code AgentStartupIT}. Prints
 * the agent's state (system property {@code dev.sluice.agent}) as the call began and once it
 * ended, and the completion's id.
 *
 * <p>Arguments: baseUrl [tenant]
 */
public final class OpenAiOneCallApp {

    private OpenAiOneCallApp() {}

    public static void main(String[] args) {
        String before = System.getProperty("dev.sluice.agent");
        OpenAIClient client = OpenAiChatApp.client(args[0], args.length > 1 ? args[1] : null);
        String atCall = System.getProperty("dev.sluice.agent");
        ChatCompletion completion = client.chat().completions().create(OpenAiChatApp.params());
        System.out.println("AGENT_AT_START=" + firstLine(before));
        System.out.println("AGENT_AT_CALL=" + firstLine(atCall));
        System.out.println("AGENT_AFTER_CALL=" + firstLine(System.getProperty("dev.sluice.agent")));
        System.out.println("COMPLETION=" + completion.id());
        client.close();
    }

    private static String firstLine(String state) {
        return state == null ? "none" : state.split("\n", 2)[0];
    }
}
