package dev.sluice.core.provider.wire;

/**
 * The names of the three headers a provider reports one rate-limit budget in, joined once: joined
 * on every answer they were three new strings a budget, each hashed anew by the lookup.
 */
public final class BudgetHeaderNames {

    private final String budget;
    private final String limit;
    private final String remaining;
    private final String reset;

    private BudgetHeaderNames(String budget, String limit, String remaining, String reset) {
        this.budget = budget;
        this.limit = limit;
        this.remaining = remaining;
        this.reset = reset;
    }

    /** {@code prefix + kind + "-" + budget}, as OpenAI's {@code x-ratelimit-remaining-tokens}. */
    public static BudgetHeaderNames kindFirst(String prefix, String budget) {
        return new BudgetHeaderNames(
                budget, prefix + "limit-" + budget, prefix + "remaining-" + budget, prefix + "reset-" + budget);
    }

    /** {@code prefix + budget + "-" + kind}, as Anthropic's {@code anthropic-ratelimit-input-tokens-remaining}. */
    public static BudgetHeaderNames budgetFirst(String prefix, String budget) {
        return new BudgetHeaderNames(
                budget, prefix + budget + "-limit", prefix + budget + "-remaining", prefix + budget + "-reset");
    }

    /** The budget's name as reported ({@code tokens}, {@code input-tokens}). */
    public String budget() {
        return budget;
    }

    public String limit() {
        return limit;
    }

    public String remaining() {
        return remaining;
    }

    public String reset() {
        return reset;
    }
}
