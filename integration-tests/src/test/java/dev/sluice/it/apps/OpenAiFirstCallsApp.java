package dev.sluice.it.apps;

import com.openai.client.OpenAIClient;

/**
 * Times what a service pays on its first openai-java calls: after an optional idle delay (a service
 * whose first call comes once it is up), building the client, then four chat completions one after
 * the other. Prints one line, {@code client <µs> call1 <µs> ... call4 <µs>}, for the start-up
 * figures (docs/startup-figures.md): run with and without the agent, the difference is what the
 * agent adds to each step.
 *
 * <p>Arguments: baseUrl [delayMillis]
 */
public final class OpenAiFirstCallsApp {

    private OpenAiFirstCallsApp() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 1) {
            Thread.sleep(Long.parseLong(args[1]));
        }
        long started = System.nanoTime();
        OpenAIClient client = OpenAiChatApp.client(args[0], null);
        StringBuilder line = new StringBuilder("client ").append(micros(started));
        for (int i = 1; i <= 4; i++) {
            long callStarted = System.nanoTime();
            client.chat().completions().create(OpenAiChatApp.params());
            line.append(" call").append(i).append(' ').append(micros(callStarted));
        }
        System.out.println(line);
        client.close();
    }

    private static long micros(long since) {
        return (System.nanoTime() - since) / 1_000;
    }
}
