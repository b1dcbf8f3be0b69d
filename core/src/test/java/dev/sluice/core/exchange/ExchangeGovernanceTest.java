package dev.sluice.core.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.config.Dimension;
import dev.sluice.config.FailMode;
import dev.sluice.config.Mode;
import dev.sluice.core.Governor;
import dev.sluice.core.GovernorBuilder;
import dev.sluice.core.provider.ProviderRegistry;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.retry.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ExchangeGovernanceTest {

    private static final String URL = "https://llm.test/v1/chat";

    private final ScriptedProvider provider = new ScriptedProvider();
    private Governor governor;

    @AfterEach
    void close() {
        if (governor != null) {
            governor.close();
        }
    }

    private ExchangeGovernance engine(LimitSpec... limits) {
        return engine(Mode.ENFORCE, 0.2, 1.0, limits);
    }

    private ExchangeGovernance engine(Mode mode, double ratio, double floor, LimitSpec... limits) {
        GovernorBuilder b = Governor.builder().mode(mode);
        for (LimitSpec l : limits) {
            b.limit(l);
        }
        governor = b.build();
        return ExchangeGovernance.builder(governor, new ProviderRegistry(List.of(), List.of(provider)))
                .retryPolicy(
                        new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(40), 0.2, Duration.ofSeconds(5)))
                .retryBudget(ratio, floor, Duration.ofSeconds(10))
                .build();
    }

    private static ScriptedTransport.Response response(CallOutcome outcome) {
        assertThat(outcome.failure()).isNull();
        return (ScriptedTransport.Response) outcome.response();
    }

    @Test
    void governsOnlyTheProvidersItKnows() {
        ExchangeGovernance engine = engine();
        assertThat(engine.governs("https://llm.test:8443/v1/chat")).isTrue();
        assertThat(engine.governs("https://example.com/v1/chat")).isFalse();
        governor.controls().setMode(Mode.OFF);
        assertThat(engine.governs(URL)).isFalse();
    }

    @Test
    void aSuccessIsHandedBackAsItCameAndSettledFromItsBody() {
        // a daily window: the real clock's refill during the test stays under one token
        ExchangeGovernance engine =
                engine(LimitSpec.perWindow("out", Dimension.OUTPUT_TOKENS, 1_000, Duration.ofDays(1)));
        ScriptedTransport t = new ScriptedTransport(URL, "hello")
                .header("x-max-tokens", "500")
                .answer(200, "in=7 out=20");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.header("x-should-retry"))
                .as("an SDK does not retry a success")
                .isNull();
        assertThat(governor.controls().available(Dimension.OUTPUT_TOKENS)).isEqualTo(500);
        r.read();
        assertThat(governor.controls().available(Dimension.OUTPUT_TOKENS)).isEqualTo(980);
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(engine.counters("scripted").outputTokens()).isEqualTo(20);
    }

    /** An engine on a new {@link #governor} with this limit, recognising the providers' public hosts. */
    private ExchangeGovernance engineOnPublicHosts(LimitSpec limit) {
        governor = Governor.builder().limit(limit).build();
        return ExchangeGovernance.builder(
                        governor, new ProviderRegistry(List.of(), dev.sluice.core.provider.ProviderAdapters.known()))
                .build();
    }

    @Test
    void anAnswerReadBeforeItsHeadersReachTheEngineIsSettledFromItsBody() {
        ExchangeGovernance engine =
                engineOnPublicHosts(LimitSpec.perWindow("out", Dimension.OUTPUT_TOKENS, 1_000, Duration.ofDays(1)));
        String body = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":500,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}";
        String answer = "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
                + "\"message\":{\"role\":\"assistant\",\"content\":\"hi\"}}],"
                + "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":20,\"total_tokens\":29,"
                + "\"completion_tokens_details\":{\"reasoning_tokens\":4}},\"service_tier\":\"default\"}";
        for (String length : new String[] {String.valueOf(answer.length()), null}) {
            ScriptedTransport t = new ScriptedTransport("https://api.openai.com/v1/chat/completions", body)
                    .header("Authorization", "Bearer sk-a");
            if (length == null) {
                t.answerReadInSend(200, answer);
            } else {
                t.answerReadInSend(200, answer, "Content-Length", length);
            }
            long before = engine.counters("openai").outputTokens();
            response(engine.execute(t));
            assertThat(governor.controls().outstandingPermits()).isZero();
            assertThat(engine.counters("openai").outputTokens() - before)
                    .as("content length %s", length)
                    .isEqualTo(20);
        }
        assertThat(governor.controls().available(Dimension.OUTPUT_TOKENS)).isEqualTo(960);
    }

    /** An engine on {@link #governor} whose price table counts how many times it is built. */
    private ExchangeGovernance engineCountingPriceTables(java.util.concurrent.atomic.AtomicInteger built) {
        return ExchangeGovernance.builder(governor, new ProviderRegistry(List.of(), List.of(provider)))
                .prices(() -> {
                    built.incrementAndGet();
                    return dev.sluice.core.price.Prices.defaults();
                })
                .build();
    }

    @Test
    void withoutBudgetsTheFirstCallGoesBeforeThePriceTableIsBuiltAndIsPricedWhenItSettles() {
        governor = Governor.builder().build();
        java.util.concurrent.atomic.AtomicInteger built = new java.util.concurrent.atomic.AtomicInteger();
        ExchangeGovernance engine = engineCountingPriceTables(built);
        ScriptedTransport.Response r =
                response(engine.execute(new ScriptedTransport(URL, "hello").answer(200, "in=7 out=20")));
        assertThat(built)
                .as("nothing to reserve against: admission needs no price")
                .hasValue(0);
        r.read();
        assertThat(built).hasValue(1);
        assertThat(engine.unpricedCalls())
                .as("model m has no price: counted when settled")
                .isEqualTo(1);
    }

    @Test
    void withABudgetTheCallIsPricedBeforeItIsAdmitted() {
        governor = Governor.builder()
                .limit(LimitSpec.perWindow("spend", Dimension.SPEND, 1_000_000, Duration.ofDays(1)))
                .build();
        java.util.concurrent.atomic.AtomicInteger built = new java.util.concurrent.atomic.AtomicInteger();
        ExchangeGovernance engine = engineCountingPriceTables(built);
        ScriptedTransport.Response r =
                response(engine.execute(new ScriptedTransport(URL, "hello").answer(200, "in=7 out=20")));
        assertThat(built).hasValue(1);
        assertThat(engine.unpricedCalls()).isEqualTo(1);
        r.read();
        assertThat(built).hasValue(1);
        assertThat(engine.unpricedCalls()).as("looked up once per call").isEqualTo(1);
        response(engine.execute(new ScriptedTransport(URL, "hello").answer(200, "in=7 out=20")))
                .read();
        assertThat(engine.unpricedModels())
                .as("which models to price, and how many calls went uncounted")
                .containsExactly(java.util.Map.entry("scripted/m", 2L));
        assertThat(engine.priceTables()).isEqualTo("built-in table of 2026-12-07");
    }

    @Test
    void aFlexCallIsChargedHalfAndAPriorityOneReservesDouble() {
        ExchangeGovernance engine =
                engineOnPublicHosts(LimitSpec.perWindow("spend", Dimension.SPEND, 1_000_000, Duration.ofDays(1)));
        // gpt-5.4: 2.50 per million input tokens, 15.00 output; the answer's usage: 1,000 in, 100 out
        String answer = "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
                + "\"message\":{\"role\":\"assistant\",\"content\":\"hi\"}}],"
                + "\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":100,\"total_tokens\":1100}}";
        long standard = 2_500 + 1_500; // 1,000 x 2.50 + 100 x 15.00 micro-USD
        long spentBefore = 0;
        for (String tier : new String[] {"flex", "priority", "auto"}) {
            String body = "{\"model\":\"gpt-5.4\",\"service_tier\":\"" + tier + "\",\"max_completion_tokens\":100,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}";
            ScriptedTransport t = new ScriptedTransport("https://api.openai.com/v1/chat/completions", body)
                    .header("Authorization", "Bearer sk-a")
                    .answerReadInSend(200, answer, "Content-Length", String.valueOf(answer.length()));
            response(engine.execute(t));
            assertThat(governor.controls().outstandingPermits()).isZero();
            long spent = governor.controls().budgetStatuses("spend").get(0).spentMicros();
            long expected = tier.equals("flex") ? standard / 2 : tier.equals("priority") ? standard * 2 : standard;
            assertThat(spent - spentBefore).as(tier).isEqualTo(expected);
            spentBefore = spent;
        }
    }

    @Test
    void aCapacityRefusalWithAHintPausesTheScopeThenRetries() {
        ExchangeGovernance engine = engine();
        ScriptedTransport t = new ScriptedTransport(URL, "hello")
                .answer(429, "slow down", "retry-after-ms", "150")
                .answer(200, "in=1 out=1");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.status).isEqualTo(200);
        assertThat(t.attempts()).isEqualTo(2);
        long gap = t.attemptTimes.get(1) - t.attemptTimes.get(0);
        assertThat(gap)
                .as("no attempt before the announced wait")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
        assertThat(t.discarded).isEqualTo(1);
        assertThat(governor.stats().providerPauses()).isEqualTo(1);
    }

    @Test
    void aSuccessThatAsksForARetryIsHandedBackSayingNot() {
        ExchangeGovernance engine = engine();
        ScriptedTransport t = new ScriptedTransport(URL, "hello").answer(200, "in=7 out=20", "X-Should-Retry", "true");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.status).isEqualTo(200);
        assertThat(r.header("x-should-retry")).isEqualTo("false");
        assertThat(t.attempts()).isEqualTo(1);
        r.read();
        assertThat(governor.controls().outstandingPermits()).isZero();
    }

    /** Output tokens in a daily window: the real clock's refill during a test stays under one token. */
    private ExchangeGovernance engineWithDailyOutputWindow() {
        return engine(LimitSpec.perWindow("out", Dimension.OUTPUT_TOKENS, 1_000, Duration.ofDays(1)));
    }

    private static ScriptedTransport askingFor500Tokens() {
        return new ScriptedTransport(URL, "hello").header("x-max-tokens", "500");
    }

    @Test
    void anAnswerWhoseHeadersCameBeforeItsBodyHasItsUsageCountedWhereTheBodyEnds() {
        ExchangeGovernance engine = engineWithDailyOutputWindow();
        AtomicInteger learnt = new AtomicInteger();
        governor.learner().onLearned(learnt::incrementAndGet);
        ScriptedTransport t = askingFor500Tokens()
                .answerToldFirst(
                        true,
                        200,
                        "in=7 out=20",
                        "x-limit-requests",
                        "5",
                        "x-remaining-requests",
                        "4",
                        "X-Should-Retry",
                        "true");
        long[] atBodyEnd = new long[3];
        t.whenBodyEndedInSend = () -> {
            atBodyEnd[0] = engine.counters("scripted").outputTokens();
            atBodyEnd[1] = learnt.get();
            atBodyEnd[2] = governor.controls().outstandingPermits();
        };
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(atBodyEnd[0]).as("the usage counted at the body's end").isEqualTo(20);
        assertThat(atBodyEnd[1])
                .as("the governor is told the figures once the caller has its answer")
                .isZero();
        assertThat(atBodyEnd[2])
                .as("the permit in flight until the caller has its answer")
                .isEqualTo(1);
        assertThat(learnt.get()).as("learnt once").isEqualTo(1);
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(governor.controls().available(Dimension.OUTPUT_TOKENS)).isEqualTo(980);
        assertThat(engine.counters("scripted").outputTokens()).isEqualTo(20);
        assertThat(r.header("x-should-retry"))
                .as("told first, the success asking for a retry is still handed back saying not")
                .isEqualTo("false");
    }

    @Test
    void aCallerHandedItsAnswerWhileTheBodysEndStillParsesLeavesThePermitToIt() {
        ExchangeGovernance engine = engineWithDailyOutputWindow();
        ScriptedTransport t = askingFor500Tokens().answerToldFirst(true, 200, "in=7 out=20");
        // the caller is done (as when it wakes before the client's thread has parsed the body)
        provider.whenParsed = () -> ((SettlingObserver) t.lastObserver).callerDone();
        int[] outstandingAtBodyEnd = new int[1];
        t.whenBodyEndedInSend =
                () -> outstandingAtBodyEnd[0] = governor.controls().outstandingPermits();
        response(engine.execute(t));
        assertThat(outstandingAtBodyEnd[0])
                .as("released by the body's end, the caller having passed")
                .isZero();
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(governor.controls().available(Dimension.OUTPUT_TOKENS)).isEqualTo(980);
    }

    @Test
    void anAnswerWhoseHeadersCameFirstButWhoseBodyIsReadLaterIsLearntByTheCaller() {
        ExchangeGovernance engine = engineWithDailyOutputWindow();
        AtomicInteger learnt = new AtomicInteger();
        governor.learner().onLearned(learnt::incrementAndGet);
        ScriptedTransport t = askingFor500Tokens()
                .answerToldFirst(false, 200, "in=7 out=20", "x-limit-requests", "5", "x-remaining-requests", "4");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(learnt.get())
                .as("learnt when the caller was handed the response")
                .isEqualTo(1);
        assertThat(governor.controls().outstandingPermits()).isEqualTo(1);
        r.read();
        assertThat(learnt.get())
                .as("the body's end does not learn a second time")
                .isEqualTo(1);
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(governor.controls().available(Dimension.OUTPUT_TOKENS)).isEqualTo(980);
    }

    @Test
    void nonRetryableAnswersAreAttemptedExactlyOnce() {
        ExchangeGovernance engine = engine();
        for (int status : new int[] {400, 401, 402, 404, 409, 422}) {
            ScriptedTransport t = new ScriptedTransport(URL, "x").answer(status, "no");
            ScriptedTransport.Response r = response(engine.execute(t));
            assertThat(r.status).isEqualTo(status);
            assertThat(t.attempts()).isEqualTo(1);
            assertThat(r.header("x-should-retry")).isEqualTo("false");
            assertThat(r.header("x-sluice-decision")).isEqualTo("admitted_then_provider_rejected");
        }
    }

    @Test
    void overloadsBackOffUpToTheMaxAttempts() {
        ExchangeGovernance engine = engine();
        ScriptedTransport t = new ScriptedTransport(URL, "x")
                .answer(503, "busy")
                .answer(529, "busy")
                .answer(503, "busy");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.status).isEqualTo(503);
        assertThat(t.attempts()).isEqualTo(3);
        assertThat(engine.counters("scripted").retries()).isEqualTo(2);
    }

    @Test
    void anEmptyRetryBudgetStopsAfterTheFirstAttempt() {
        ExchangeGovernance engine = engine(Mode.ENFORCE, 0.0, 0.0);
        ScriptedTransport t =
                new ScriptedTransport(URL, "x").answer(503, "busy").answer(200, "in=1 out=1");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(t.attempts()).isEqualTo(1);
        assertThat(r.header("x-sluice-decision")).isEqualTo("retry_budget_exhausted");
    }

    @Test
    void theKeysOfOneOrganizationShareOneRetryBudget() {
        // no share of first attempts, one retry in the window: whichever key spends it, it is gone
        ExchangeGovernance engine = engine(Mode.ENFORCE, 0.0, 0.1);
        for (String key : List.of("key-a", "key-b")) {
            ScriptedTransport named =
                    new ScriptedTransport(URL, "x").header("x-key", key).answer(200, "in=1 out=1", "x-org", "org-1");
            response(engine.execute(named)).read();
        }
        ScriptedTransport a = new ScriptedTransport(URL, "x")
                .header("x-key", "key-a")
                .answer(503, "busy", "x-org", "org-1")
                .answer(200, "in=1 out=1", "x-org", "org-1");
        response(engine.execute(a)).read();
        assertThat(a.attempts()).as("key-a spends the organization's retry").isEqualTo(2);

        ScriptedTransport b = new ScriptedTransport(URL, "x")
                .header("x-key", "key-b")
                .answer(503, "busy", "x-org", "org-1")
                .answer(200, "in=1 out=1", "x-org", "org-1");
        ScriptedTransport.Response r = response(engine.execute(b));
        assertThat(b.attempts()).as("key-b finds it spent").isEqualTo(1);
        assertThat(r.header("x-sluice-decision")).isEqualTo("retry_budget_exhausted");
    }

    @Test
    void aConnectionFailureBeforeAResponseIsRetried() {
        ExchangeGovernance engine = engine();
        ScriptedTransport t = new ScriptedTransport(URL, "x")
                .fail(new IOException("connection reset"))
                .answer(200, "in=1 out=1");
        assertThat(response(engine.execute(t)).status).isEqualTo(200);
        assertThat(engine.counters("scripted").connectionFailures()).isEqualTo(1);
    }

    @Test
    void aCallThatCannotBeAdmittedGetsALocalRejectionInTheProvidersShape() {
        ExchangeGovernance engine = engine(LimitSpec.perWindow("rpm", Dimension.REQUESTS, 1, Duration.ofMinutes(1)));
        response(engine.execute(new ScriptedTransport(URL, "x").answer(200, "in=1 out=1")))
                .read();
        ScriptedTransport t = new ScriptedTransport(URL, "x").header("X-Sluice-Class", "interactive");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.local).isTrue();
        assertThat(r.bodyText()).isEqualTo("local:rejected_locally");
        assertThat(t.attempts()).isZero();
    }

    @Test
    void learnedBudgetsPaceTheNextCalls() {
        ExchangeGovernance engine = engine();
        ScriptedTransport first = new ScriptedTransport(URL, "x")
                .header("x-key", "k1")
                .answer(200, "in=1 out=1", "x-limit-requests", "5", "x-remaining-requests", "0");
        response(engine.execute(first)).read();
        ScriptedTransport second = new ScriptedTransport(URL, "x")
                .header("x-key", "k1")
                .header("X-Sluice-Class", "interactive")
                .answer(200, "in=1 out=1");
        long start = System.nanoTime();
        ScriptedTransport.Response r = response(engine.execute(second));
        assertThat(r.status).isEqualTo(200);
        // 5 per second: the next one fits after 200 ms, within the interactive class's 300 ms
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
    }

    @Test
    void anAnswerSayingTheTokensRanOutSlowsTheKeyAndNeverLocksItOut() {
        governor = Governor.builder().build();
        ExchangeGovernance engine = ExchangeGovernance.builder(
                        governor, new ProviderRegistry(List.of(), dev.sluice.core.provider.ProviderAdapters.known()))
                .build();
        String url = "https://api.openai.com/v1/chat/completions";
        String body = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":32,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}";
        String usage = "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[],"
                + "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":20,\"total_tokens\":29}}";
        // what OpenAI sends when the tokens run out: a large limit, nothing left, a well-formed reset
        ScriptedTransport first = new ScriptedTransport(url, body)
                .header("Authorization", "Bearer sk-a")
                .answer(
                        200,
                        usage,
                        "x-ratelimit-limit-tokens",
                        "100000000",
                        "x-ratelimit-remaining-tokens",
                        "0",
                        "x-ratelimit-reset-tokens",
                        "2s",
                        "x-ratelimit-limit-requests",
                        "10000",
                        "x-ratelimit-remaining-requests",
                        "9999",
                        "x-ratelimit-reset-requests",
                        "6ms");
        response(engine.execute(first)).read();
        for (int i = 0; i < 3; i++) {
            ScriptedTransport next = new ScriptedTransport(url, body)
                    .header("Authorization", "Bearer sk-a")
                    .answer(200, usage);
            ScriptedTransport.Response r = response(engine.execute(next));
            assertThat(r.local)
                    .as("call %d answered locally: %s", i, r.bodyText())
                    .isFalse();
            assertThat(next.attempts()).isEqualTo(1);
            r.read();
        }
    }

    @Test
    void aSuccessWhoseBodyBrokeIsNeverSentAgainAndKeepsItsReservation() {
        // a daily window: the real clock's refill during the test stays under one token
        ExchangeGovernance engine =
                engine(LimitSpec.perWindow("out", Dimension.OUTPUT_TOKENS, 1_000, Duration.ofDays(1)));
        IOException cut = new IOException("fixed content-length: 400, bytes received: 120");
        ScriptedTransport t = new ScriptedTransport(URL, "hello")
                .header("x-max-tokens", "500")
                .breakBody("{\"partial\":", cut)
                .answer(200, "in=7 out=20");
        CallOutcome outcome = engine.execute(t);
        assertThat(outcome.failure()).isSameAs(cut);
        assertThat(t.attempts()).isEqualTo(1);
        assertThat(engine.counters("scripted").retries()).isZero();
        // the provider billed the work; its usage never came: the reservation stays charged
        assertThat(governor.controls().available(Dimension.OUTPUT_TOKENS)).isEqualTo(500);
        assertThat(governor.controls().inFlightByLimit().values()).allMatch(n -> n == 0);
    }

    @Test
    void aProtocolViolationIsNotRetried() {
        ExchangeGovernance engine = engine();
        java.net.ProtocolException tooBig = new java.net.ProtocolException("Header size too big");
        ScriptedTransport t = new ScriptedTransport(URL, "x").fail(tooBig).answer(200, "in=1 out=1");
        CallOutcome outcome = engine.execute(t);
        assertThat(outcome.failure()).isSameAs(tooBig);
        assertThat(t.attempts()).isEqualTo(1);
    }

    @Test
    void aLentBodyIsReadWithinItsLengthAndGivenBackBeforeTheFirstAttempt() {
        ExchangeGovernance engine = engine();
        ScriptedTransport t = new ScriptedTransport(URL, "hello").lendingBody().answer(200, "in=7 out=20");
        response(engine.execute(t)).read();
        assertThat(provider.lastRequestChars).isEqualTo(5);
        assertThat(t.bodyReadsDone).isEqualTo(1);
        assertThat(t.attemptsBeforeBodyDone).isZero();

        // an adapter failing as it reads: the body is given back all the same
        provider.failOnRead = true;
        ScriptedTransport failed =
                new ScriptedTransport(URL, "hello").lendingBody().answer(200, "in=7 out=20");
        response(engine.execute(failed)).read();
        assertThat(failed.bodyReadsDone).isEqualTo(1);
    }

    @Test
    void aFaultInsideSluiceLetsTheCallThroughOnce() {
        ExchangeGovernance engine = engine();
        provider.failOnRead = true;
        ScriptedTransport t = new ScriptedTransport(URL, "x").answer(200, "in=1 out=1");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.status).isEqualTo(200);
        assertThat(t.attempts()).isEqualTo(1);
        assertThat(r.header("x-should-retry")).isNull();
    }

    @Test
    void aFaultWhileSettlingKeepsWhatWasReservedAndReleasesThePermit() {
        // a daily window: the real clock's refill during the test stays under one token
        ExchangeGovernance engine =
                engine(LimitSpec.perWindow("out", Dimension.OUTPUT_TOKENS, 1_000, Duration.ofDays(1)));
        provider.failOnUsage = true;
        ScriptedTransport t = new ScriptedTransport(URL, "hello")
                .header("x-max-tokens", "500")
                .answer(200, "in=7 out=20");
        ScriptedTransport.Response r = response(engine.execute(t));
        r.read();
        // the provider did the work and the usage is lost: the reservation is kept, not refunded
        assertThat(governor.controls().available(Dimension.OUTPUT_TOKENS)).isEqualTo(500);
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(engine.faultCount()).isEqualTo(1);
    }

    @Test
    void failClosedAnswersALocalRejectionOnAFault() {
        ExchangeGovernance engine = engine();
        engine.setFailMode(FailMode.CLOSED);
        provider.failOnRead = true;
        ScriptedTransport t = new ScriptedTransport(URL, "x").answer(200, "in=1 out=1");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.local).isTrue();
        assertThat(t.attempts()).isZero();
    }

    @Test
    void observeModeSendsOnceAndHandsTheAnswerBackUntouched() {
        ExchangeGovernance engine = engine(Mode.OBSERVE, 0.2, 1.0);
        ScriptedTransport t = new ScriptedTransport(URL, "x")
                .answer(429, "slow", "retry-after-ms", "10")
                .answer(200, "in=1 out=1");
        ScriptedTransport.Response r = response(engine.execute(t));
        assertThat(r.status).isEqualTo(429);
        assertThat(t.attempts()).isEqualTo(1);
        assertThat(r.header("x-should-retry")).isNull();
    }

    @Test
    void theAsynchronousFormRetriesWithoutBlocking() throws Exception {
        ExchangeGovernance engine = engine();
        ScriptedTransport t =
                new ScriptedTransport(URL, "x").answer(503, "busy").answer(200, "in=3 out=4");
        ScriptedTransport.Response r =
                (ScriptedTransport.Response) engine.executeAsync(t).get(5, TimeUnit.SECONDS);
        assertThat(r.status).isEqualTo(200);
        assertThat(t.attempts()).isEqualTo(2);
        r.read();
        assertThat(governor.controls().outstandingPermits()).isZero();
    }
}
