package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.schedule.ClassQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Work conservation over random workloads: while a caller waits and every bucket on its path has
 * room for it (its class's guarantees and the other tenants' fair shares respected, no claim of a
 * call of its class or higher on it), it is admitted within one clock tick. Room left idle while
 * callers wait is capacity the provider offered and nobody used.
 *
 * <p>The workload is the demo's, on a fake clock: closed loops of callers (two interactive
 * tenants thinking a second between calls, two batch tenants calling as fast as they can, weights
 * 2, 1, 1, 1, the first with a 30 % guarantee) against a provider allowing 600 requests and 60,000
 * tokens a minute with a second's burst, whose limits Sluice learns from the answers. Each answer
 * takes 150 to 400 ms and tells what the provider has left (its own buckets, charged when a call
 * is admitted, as OpenAI counts it on arrival). Random seeds vary the callers' timing.
 */
class WorkConservationTest extends GovernorFixture {

    private static final long TICK_NANOS = TickingClock.TICK_NANOS;
    private static final long RPM = 600;
    private static final long TPM = 60_000;
    private static final Duration RUN = Duration.ofSeconds(30);

    /** The provider's own buckets, refilled continuously, a second's worth each. */
    private static final class Provider {
        double requests = RPM / 60.0;
        double tokens = TPM / 60.0;
        long atNanos;
        long refused;

        /** Counts a call on arrival: false when it has no room (a 429). */
        void refill(long nowNanos) {
            double seconds = (nowNanos - atNanos) / 1e9;
            requests = Math.min(RPM / 60.0, requests + seconds * RPM / 60.0);
            tokens = Math.min(TPM / 60.0, tokens + seconds * TPM / 60.0);
            atNanos = nowNanos;
        }

        boolean arrive(long tokensCharged, long nowNanos) {
            refill(nowNanos);
            if (requests < 1 || tokens < tokensCharged) {
                refused++;
                return false;
            }
            requests -= 1;
            tokens -= tokensCharged;
            return true;
        }
    }

    /** One caller of a tenant: thinks, calls, waits for the answer, again. */
    private static final class Caller {
        final String tenant;
        final String trafficClass;
        final long thinkNanos;
        long nextCallAtNanos;
        CompletableFuture<Admission> admission;
        Permit permit;
        long answerAtNanos;
        long remainingRequests;
        long remainingTokens;

        Caller(String tenant, String trafficClass, long thinkNanos) {
            this.tenant = tenant;
            this.trafficClass = trafficClass;
            this.thinkNanos = thinkNanos;
        }

        CallContext context() {
            return CallContext.builder("openai")
                    .model("gpt-4o-mini")
                    .apiKeyId("k_demo00")
                    .tenant(tenant)
                    .trafficClass(trafficClass)
                    .build();
        }
    }

    /** What one run admitted, and the calls left waiting beside room. */
    private static final class Result {
        final List<String> violations = new ArrayList<>();
        long admitted;
        long providerRefused;
        double minutes;

        double requestsPerMinute() {
            return admitted / minutes;
        }
    }

    @Test
    void aWaitingCallThatFitsIsAdmittedWithinOneTick() {
        for (long seed = 1; seed <= 8; seed++) {
            Result r = run(seed);
            assertThat(r.violations)
                    .as("seed %d: calls left waiting beside room", seed)
                    .isEmpty();
        }
    }

    @Test
    void theDemosWorkloadUsesTheProvidersCapacity() {
        for (long seed = 1; seed <= 4; seed++) {
            Result r = run(seed);
            System.out.printf(
                    "seed %d: %.0f requests a minute of %d, %d provider refusals%n",
                    seed, r.requestsPerMinute(), RPM, r.providerRefused);
            assertThat(r.requestsPerMinute()).as("seed %d: goodput", seed).isGreaterThanOrEqualTo(0.95 * RPM);
            assertThat(r.providerRefused).as("seed %d: provider refusals", seed).isZero();
        }
    }

    private Result run(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .coldStartWait(Duration.ofSeconds(3)) // the agent's default
                .tenant("search", 2, 0.3)
                .tenant("support", 1, 0)
                .tenant("reports", 1, 0)
                .tenant("analytics", 1, 0)
                .build();
        Provider provider = new Provider();
        provider.atNanos = clock.nanoTime();
        List<Caller> callers = new ArrayList<>();
        addCallers(callers, "search", "interactive", 3, Duration.ofSeconds(1));
        addCallers(callers, "support", "interactive", 2, Duration.ofSeconds(1));
        addCallers(callers, "reports", "batch", 4, Duration.ZERO);
        addCallers(callers, "analytics", "batch", 3, Duration.ZERO);
        for (Caller c : callers) {
            c.nextCallAtNanos = clock.nanoTime() + random.nextLong(200_000_000L);
        }
        Map<Waiter, Long> fitSince = new IdentityHashMap<>();
        Result result = new Result();
        long start = clock.nanoTime();
        long end = start + RUN.toNanos();
        while (clock.nanoTime() - end < 0) {
            long now = clock.nanoTime();
            for (Caller c : callers) {
                step(c, provider, random, now, result);
            }
            timer.advance(Duration.ofMillis(1 + random.nextInt(10)));
            long at = clock.nanoTime();
            List<Waiter> fit = waitingThatFit();
            fitSince.keySet().retainAll(fit);
            for (Waiter w : fit) {
                long since = fitSince.computeIfAbsent(w, k -> at);
                if (at - since > TICK_NANOS && result.violations.size() < 5) {
                    result.violations.add(String.format(
                            "%s (%s, %s) fits and has waited %d ms beside room, at %d ms",
                            w.context.tenant(),
                            w.trafficClass.name(),
                            w.demand,
                            (at - since) / 1_000_000,
                            (at - start) / 1_000_000));
                }
            }
        }
        result.minutes = (clock.nanoTime() - start) / 6e10;
        result.providerRefused = provider.refused;
        governor.close();
        governor = null;
        return result;
    }

    /**
     * The waiting calls that could be admitted now: their scope is open, every enforced bucket on
     * their path has room for them beside the reserves of guaranteed tenants and the fair shares of
     * the other active tenants, and no call of a class at least as high holds a claim on a bucket
     * they need. Nothing is dispatched: a call listed here is room left idle while a caller waits.
     */
    private List<Waiter> waitingThatFit() {
        return governor.holding(() -> {
            long nowNanos = governor.now();
            long nowMillis = clock.epochMillis();
            List<Waiter> fit = new ArrayList<>();
            for (ClassQueue<Waiter> q : governor.calls.byPriority()) {
                for (Waiter w : q.all()) {
                    if (!w.done && fitsNow(w, nowNanos, nowMillis)) {
                        fit.add(w);
                    }
                }
            }
            return fit;
        });
    }

    private boolean fitsNow(Waiter w, long nowNanos, long nowMillis) {
        Route route = governor.route(w.context);
        if (route.scope.nanosUntilOpen(nowNanos, governor.probeTimeoutNanos) != 0) {
            return false;
        }
        for (Bucket b : route.buckets()) {
            long amount = Charges.amountFor(b, w.demand);
            if (amount == 0 || !b.limit().enforced()) {
                continue;
            }
            if (governor.heldBackBy(b.claimant(), w)
                    || b.roomFor(route.guarantee, nowNanos, nowMillis) < b.roomNeeded(route.guarantee, amount)) {
                return false;
            }
        }
        return governor.fairWait(w.context, w.demand, route, nowNanos, nowMillis) == null;
    }

    private static void addCallers(List<Caller> callers, String tenant, String cls, int n, Duration think) {
        for (int i = 0; i < n; i++) {
            callers.add(new Caller(tenant, cls, think.toNanos()));
        }
    }

    /** Moves one caller on: a new call when its thinking is over, the provider's answer when it is due. */
    private void step(Caller c, Provider provider, SplittableRandom random, long now, Result result) {
        if (c.permit != null) {
            if (c.answerAtNanos - now > 0) {
                return;
            }
            CallContext call = c.permit.context();
            governor.learner()
                    .learn(new ProviderAnswer(
                                    call,
                                    List.of(
                                            new LearnedBudget(
                                                    "requests", Dimension.REQUESTS, RPM, c.remainingRequests, 60_000),
                                            new LearnedBudget(
                                                    "tokens", Dimension.TOTAL_TOKENS, TPM, c.remainingTokens, 60_000)))
                            .answering(c.permit));
            governor.learner().answered(c.permit, true);
            Demand d = c.permit.demand();
            c.permit.settleAndRelease(Usage.builder()
                    .inputTokens(d.inputTokens())
                    .outputTokens(d.outputTokens() / 2)
                    .build());
            c.permit = null;
            c.nextCallAtNanos = now + c.thinkNanos;
            return;
        }
        if (c.admission == null) {
            if (c.nextCallAtNanos - now > 0) {
                return;
            }
            // the demo's call: a one-line prompt, 48 tokens of output at most
            Demand demand = Demand.builder()
                    .requests(1)
                    .inputTokens(18 + random.nextInt(6))
                    .outputTokens(48)
                    .build();
            c.admission = governor.admitAsync(c.context(), demand, 0);
        }
        if (!c.admission.isDone()) {
            return;
        }
        Admission a = c.admission.join();
        c.admission = null;
        if (!a.isAdmitted()) {
            c.nextCallAtNanos = now + c.thinkNanos;
            return;
        }
        Demand d = a.permit().demand();
        if (!provider.arrive(d.inputTokens() + d.outputTokens(), now)) {
            a.permit().settleRefused(true);
            governor.learner().answered(a.permit(), false);
            c.nextCallAtNanos = now + c.thinkNanos;
            return;
        }
        result.admitted++;
        c.permit = a.permit();
        c.answerAtNanos = now + Duration.ofMillis(150 + random.nextInt(250)).toNanos();
        c.remainingRequests = (long) Math.floor(provider.requests);
        c.remainingTokens = (long) Math.floor(provider.tokens);
    }
}
