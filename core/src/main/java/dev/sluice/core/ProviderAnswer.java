package dev.sluice.core;

import java.util.List;

/**
 * What one of a provider's answers said about its limits, as its adapter read the headers: the
 * budgets it announced, the organization it counted the call against, which call it answered, and
 * how long the provider worked on that call before answering. The governor learns it with {@link
 * AnswerLearner#learn}.
 */
public final class ProviderAnswer {

    final CallContext call;
    final List<LearnedBudget> budgets;
    /** The organization the answer named, or null. */
    final String organization;
    /** The permit of the call answered, or null when not known. */
    final Permit answered;
    /** How long the provider said it worked on the call before answering, or -1 when it did not say. */
    final long processingMillis;

    /**
     * @param call the call whose scope the answer is about
     * @param budgets the budgets the answer announced (empty when none)
     * @param organization the organization the answer named (null when it did not): the budgets are
     *     the organization's, and every key of it counts in one scope from then on
     * @param answered the permit of the call answered (null when not known): what remained is then
     *     read as of now, less what Sluice admitted after that call and plus what refilled since
     *     (see {@link dev.sluice.core.quota.AnswerAge})
     * @param processingMillis how long the provider worked on the call before answering (-1 when it
     *     did not say): the call was counted then, not when Sluice admitted it
     */
    public ProviderAnswer(
            CallContext call,
            List<LearnedBudget> budgets,
            String organization,
            Permit answered,
            long processingMillis) {
        this.call = call;
        this.budgets = budgets;
        this.organization = organization;
        this.answered = answered;
        this.processingMillis = processingMillis;
    }

    /** An answer announcing {@code budgets} for {@code call}'s scope, and nothing else. */
    public ProviderAnswer(CallContext call, List<LearnedBudget> budgets) {
        this(call, budgets, null, null, -1);
    }

    /** This answer, naming the organization the call was counted against. */
    public ProviderAnswer organization(String organization) {
        return new ProviderAnswer(call, budgets, organization, answered, processingMillis);
    }

    /** This answer, to the call admitted with {@code permit}. */
    public ProviderAnswer answering(Permit permit) {
        return new ProviderAnswer(call, budgets, organization, permit, processingMillis);
    }

    /** This answer, from a provider that worked {@code millis} on the call before answering. */
    public ProviderAnswer processingMillis(long millis) {
        return new ProviderAnswer(call, budgets, organization, answered, millis);
    }

    /** Whether the answer says anything to learn. */
    boolean isEmpty() {
        return budgets.isEmpty() && organization == null;
    }
}
