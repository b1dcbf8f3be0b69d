package dev.sluice.it.providers;

import dev.sluice.it.harness.AppReport;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeAsyncClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseStreamRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseStreamResponseHandler;
import software.amazon.awssdk.services.bedrockruntime.model.Message;

/**
 * A service calling Amazon Bedrock through the AWS SDK for Java v2 (3 attempts a call):
 * {@code syncThreads} threads each make {@code calls} Converse calls on the sync client (Apache,
 * the SDK's default; the adaptive retry mode, whose rate limiter slows the client down after
 * throttling), and {@code streams} ConverseStream calls at a time run on the async client (Netty,
 * the standard retry mode, the SDK's default) until as many streams as sync calls are done (none when
 * {@code streams} is 0). Every logical call
 * carries its own {@code x-sim-call-id} (signed by the SDK like any header) so the simulator
 * counts attempts per call; an {@code ExecutionInterceptor} counts the SDK's own attempts.
 *
 * <p>An {@code AwsServiceException} is counted as {@code local:<decision>} when the answer has
 * Sluice's {@code x-sluice-decision} header, {@code provider:<status>} otherwise. At the end the
 * retry layers' counters and the provider's MXBean figures are reported.
 *
 * <p>Arguments: endpoint syncThreads calls streams [budgetId]
 */
public final class BedrockApp {

    static final String MODEL = "anthropic.claude-3-haiku-20240307-v1:0";

    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        int syncThreads = Integer.parseInt(args[1]);
        int calls = Integer.parseInt(args[2]);
        int streams = Integer.parseInt(args[3]);
        String budgetId = args.length > 4 ? args[4] : null;
        AppReport report = new AppReport();
        AtomicLong sdkAttempts = new AtomicLong();
        ExecutionInterceptor attempts = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                sdkAttempts.incrementAndGet();
            }
        };
        StaticCredentialsProvider credentials =
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIAIOSFODNN7EXAMPLE", "secret"));
        AtomicReference<AwsServiceException> firstLocal = new AtomicReference<>();
        try (BedrockRuntimeClient sync = BedrockRuntimeClient.builder()
                        .region(Region.US_EAST_1)
                        .endpointOverride(endpoint)
                        .credentialsProvider(credentials)
                        .httpClientBuilder(ApacheHttpClient.builder().maxConnections(64))
                        // the adaptive mode: a client-side rate limiter of the SDK's own besides its retries
                        .overrideConfiguration(
                                o -> o.addExecutionInterceptor(attempts).retryStrategy(RetryMode.ADAPTIVE_V2))
                        .build();
                BedrockRuntimeAsyncClient async = BedrockRuntimeAsyncClient.builder()
                        .region(Region.US_EAST_1)
                        .endpointOverride(endpoint)
                        .credentialsProvider(credentials)
                        // the SDK asks Netty for HTTP/2 for Bedrock Runtime; the simulator speaks HTTP/1.1 in clear
                        .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP1_1))
                        .overrideConfiguration(o -> o.addExecutionInterceptor(attempts))
                        .build()) {
            ExecutorService pool = Executors.newFixedThreadPool(syncThreads + 1);
            CountDownLatch done = new CountDownLatch(syncThreads + 1);
            for (int t = 0; t < syncThreads; t++) {
                pool.submit(() -> {
                    try {
                        for (int i = 0; i < calls; i++) {
                            report.call(() -> {
                                try {
                                    sync.converse(converse());
                                    report.count("converse.complete", 1);
                                } catch (AwsServiceException e) {
                                    outcome(report, e, firstLocal);
                                    throw e;
                                }
                            });
                        }
                    } finally {
                        done.countDown();
                    }
                });
            }
            int totalStreams = syncThreads * calls;
            pool.submit(() -> {
                try {
                    runStreams(async, report, totalStreams, streams, firstLocal);
                } finally {
                    done.countDown();
                }
            });
            done.await(5, TimeUnit.MINUTES);
            pool.shutdown();
        }
        report.count("sdk.attempts", sdkAttempts.get());
        AwsServiceException local = firstLocal.get();
        if (local != null) {
            report.note("local.exception", local.getClass().getSimpleName());
            report.note("local.status", String.valueOf(local.statusCode()));
            report.note("local.errorCode", local.awsErrorDetails().errorCode());
            report.note("local.message", local.awsErrorDetails().errorMessage());
            report.note("local.body", local.awsErrorDetails().rawResponse().asUtf8String());
            report.note("local.numAttempts", String.valueOf(local.numAttempts()));
        }
        report.countRetryLayers();
        reportGovernor(report, budgetId);
        report.print();
        System.exit(0);
    }

    static ConverseRequest converse() {
        return ConverseRequest.builder()
                .modelId(MODEL)
                .messages(message())
                .inferenceConfig(c -> c.maxTokens(32))
                .overrideConfiguration(
                        o -> o.putHeader("x-sim-call-id", UUID.randomUUID().toString()))
                .build();
    }

    static Message message() {
        return Message.builder()
                .role(ConversationRole.USER)
                .content(ContentBlock.fromText("Say hello to the integration test, briefly."))
                .build();
    }

    /** {@code total} ConverseStream calls, {@code atOnce} in flight at a time. */
    private static void runStreams(
            BedrockRuntimeAsyncClient async,
            AppReport report,
            int total,
            int atOnce,
            AtomicReference<AwsServiceException> firstLocal) {
        if (atOnce <= 0) {
            return;
        }
        java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(atOnce);
        CountDownLatch all = new CountDownLatch(total);
        for (int i = 0; i < total; i++) {
            slots.acquireUninterruptibly();
            long begun = report.begin();
            AtomicLong deltas = new AtomicLong();
            AtomicLong outputTokens = new AtomicLong(-1);
            ConverseStreamResponseHandler handler = ConverseStreamResponseHandler.builder()
                    .subscriber(ConverseStreamResponseHandler.Visitor.builder()
                            .onContentBlockDelta(d -> deltas.incrementAndGet())
                            .onMetadata(m -> outputTokens.set(m.usage().outputTokens()))
                            .build())
                    .build();
            CompletableFuture<Void> call = async.converseStream(
                    ConverseStreamRequest.builder()
                            .modelId(MODEL)
                            .messages(message())
                            .inferenceConfig(c -> c.maxTokens(32))
                            .overrideConfiguration(o -> o.putHeader(
                                    "x-sim-call-id", UUID.randomUUID().toString()))
                            .build(),
                    handler);
            call.whenComplete((ignored, failure) -> {
                try {
                    if (failure == null) {
                        report.succeeded(begun);
                        report.count(
                                deltas.get() > 0 && outputTokens.get() == deltas.get()
                                        ? "streams.complete"
                                        : "streams.incomplete",
                                1);
                    } else {
                        Throwable cause = failure instanceof java.util.concurrent.CompletionException
                                        && failure.getCause() != null
                                ? failure.getCause()
                                : failure;
                        if (cause instanceof AwsServiceException) {
                            outcome(report, (AwsServiceException) cause, firstLocal);
                        }
                        report.failed(begun, cause);
                    }
                } finally {
                    slots.release();
                    all.countDown();
                }
            });
        }
        try {
            all.await(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void outcome(
            AppReport report, AwsServiceException e, AtomicReference<AwsServiceException> firstLocal) {
        String decision = e.awsErrorDetails() == null || e.awsErrorDetails().sdkHttpResponse() == null
                ? null
                : e.awsErrorDetails()
                        .sdkHttpResponse()
                        .firstMatchingHeader("x-sluice-decision")
                        .orElse(null);
        if (decision != null) {
            firstLocal.compareAndSet(null, e);
            report.count("local:" + decision, 1);
        } else {
            report.count("provider:" + e.statusCode(), 1);
        }
    }

    /** The governor's figures for the provider (and a budget), when the agent runs. */
    private static void reportGovernor(AppReport report, String budgetId) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName governor = new ObjectName("dev.sluice:type=Governor");
        long until = System.nanoTime() + 15_000_000_000L; // the beans come about two seconds after start
        while (isAgentPresent() && !server.isRegistered(governor) && System.nanoTime() - until < 0) {
            Thread.sleep(50);
        }
        for (ObjectName provider : server.queryNames(new ObjectName("dev.sluice:type=Provider,*"), null)) {
            String name = provider.getKeyProperty("name");
            for (String a : new String[] {"Calls", "Attempts", "Retries", "LocalRejections", "Status429"}) {
                report.count("jmx:" + name + ":" + a, ((Number) server.getAttribute(provider, a)).longValue());
            }
        }
        if (budgetId != null) {
            ObjectName budget = new ObjectName("dev.sluice:type=Budget,name=" + budgetId);
            for (String a : new String[] {"Spent", "Reserved", "ExhaustedRejections", "SettledFromUsage"}) {
                report.note("jmx." + a, String.valueOf(server.getAttribute(budget, a)));
            }
            report.note("jmx.UnpricedCalls", String.valueOf(server.getAttribute(governor, "UnpricedCalls")));
        }
    }

    private static boolean isAgentPresent() {
        try {
            Class.forName("dev.sluice.bootstrap.Bridge");
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
