package dev.sluice.core;

import dev.sluice.core.quota.LimitSpec;
import org.junit.jupiter.api.AfterEach;

/** A governor on a fake clock and a manual timer, built by the test and closed after it. */
abstract class GovernorFixture {

    final FakeClock clock = new FakeClock();
    final ManualTimer timer = new ManualTimer(clock);
    Governor governor;

    @AfterEach
    void closeGovernor() {
        if (governor != null) {
            governor.close();
        }
    }

    /** A call to OpenAI's gpt-4o-mini by tenant a on key k_abc123. */
    static CallContext callOfTenantA() {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("a")
                .apiKeyId("k_abc123")
                .build();
    }

    /** Builds the test's governor with these limits (replacing, not closing, any earlier one). */
    Governor governor(LimitSpec... limits) {
        GovernorBuilder b = Governor.builder().clock(clock).timer(timer);
        for (LimitSpec l : limits) {
            b.limit(l);
        }
        governor = b.build();
        return governor;
    }
}
