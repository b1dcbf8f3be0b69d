package dev.sluice.it.metrics;

import com.openai.client.OpenAIClient;
import dev.sluice.it.apps.OpenAiChatApp;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;

/**
 * A service that runs OpenTelemetry's own SDK, set as the global instance, with the SDK's
 * in-memory reader: it makes chat completions through openai-java, then prints every metric point
 * the reader collected from the scope {@code dev.sluice}, one line each:
 * {@code POINT <name> <unit> <attributes> count=<n> sum=<s> bounds=<boundaries>}.
 *
 * <p>Arguments: baseUrl calls
 */
public final class OpenTelemetryApp {

    public static void main(String[] args) {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setMeterProvider(
                        SdkMeterProvider.builder().registerMetricReader(reader).build())
                .build();
        GlobalOpenTelemetry.set(sdk);
        OpenAIClient client = OpenAiChatApp.client(args[0], "otel");
        for (int i = 0; i < Integer.parseInt(args[1]); i++) {
            client.chat().completions().create(OpenAiChatApp.params());
        }
        client.close();
        for (MetricData m : reader.collectAllMetrics()) {
            if (!m.getInstrumentationScopeInfo().getName().equals("dev.sluice")) {
                continue;
            }
            for (HistogramPointData p : m.getHistogramData().getPoints()) {
                System.out.println("POINT " + m.getName() + " " + m.getUnit() + " " + p.getAttributes() + " count="
                        + p.getCount() + " sum=" + p.getSum() + " bounds=" + p.getBoundaries());
            }
        }
        sdk.close();
    }
}
