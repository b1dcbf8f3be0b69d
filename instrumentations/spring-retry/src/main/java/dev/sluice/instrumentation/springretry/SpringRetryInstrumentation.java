package dev.sluice.instrumentation.springretry;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Collections;
import java.util.List;

/**
 * Makes spring-retry's {@code org.springframework.retry.support.RetryTemplate} stand aside for
 * calls Sluice governed, while it keeps retrying everything else. Spring AI 1.x wraps every model
 * call in one ({@code RetryUtils.DEFAULT_RETRY_TEMPLATE}: 10 attempts, exponential backoff from
 * 2 s; {@code spring.ai.retry.*}), retrying 5xx, I/O failures and, with
 * {@code spring.ai.retry.on-http-codes=429}, a 429 Sluice had already decided.
 *
 * <p>The template's loop (1.3.x and 2.0.x alike) is {@code doExecute}: while
 * {@code canRetry(policy, context)}, run the callback; on a failure
 * {@code registerThrowable(policy, state, context, failure)}, then, if {@code canRetry} still
 * says yes, back off and go round. Three pieces of advice, JDK types only, hang that on
 * {@link dev.sluice.bootstrap.RetryLoops}:
 * <ul>
 *   <li>{@code doExecute} enter/exit: a loop starts and ends on this thread (counted as
 *       {@code passed} when a governed call ran inside it);
 *   <li>{@code registerThrowable}: an attempt failed; it was governed when Sluice registered the
 *       failure (or a cause) as decided, or a governed call started on this thread during the
 *       attempt (Spring AI builds its own exception from the answer Sluice handed back);
 *   <li>{@code canRetry} exit: no, once the last attempt was governed (counted once as
 *       {@code declined}); the loop then ends as if its policy were spent and rethrows the
 *       attempt's own exception.
 * </ul>
 * Execution-path hooks only, so a late attach is covered. Advice only; it reaches the bridge alone.
 */
public final class SpringRetryInstrumentation extends InstrumentationModule {

    /** The layer's name in Sluice's counters. */
    public static final String LAYER = "spring-retry";

    @Override
    public String name() {
        return LAYER;
    }

    @Override
    public List<String> hookedTypeNames() {
        return Collections.singletonList("org.springframework.retry.support.RetryTemplate");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(
                named("doExecute")
                        .and(takesArguments(3))
                        .and(takesArgument(0, named("org.springframework.retry.RetryCallback"))),
                LoopAdvice.class.getName());
        sink.advise(
                named("registerThrowable")
                        .and(takesArguments(4))
                        .and(takesArgument(2, named("org.springframework.retry.RetryContext")))
                        .and(takesArgument(3, Throwable.class)),
                AttemptFailedAdvice.class.getName());
        sink.advise(
                named("canRetry")
                        .and(takesArguments(2))
                        .and(takesArgument(1, named("org.springframework.retry.RetryContext")))
                        .and(returns(boolean.class)),
                CanRetryAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.springretry.helper.";
    }

    /** None: the advice calls the bridge only, so no helper is ever defined. */
    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.springretry.helper.None";
    }
}
