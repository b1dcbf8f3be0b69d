package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.OverloadAction;
import dev.sluice.core.schedule.TrafficClass;
import dev.sluice.core.schedule.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WaitingCallsTest {

    private static final TrafficClass HIGH =
            new TrafficClass("high", 100, Duration.ofSeconds(1), 2, OverloadAction.REJECT);
    private static final TrafficClass LOW =
            new TrafficClass("low", 10, Duration.ofSeconds(1), 10, OverloadAction.REJECT);

    private static WaitingCalls calls(boolean weighted) {
        Map<String, TrafficClass> classes = new LinkedHashMap<>();
        classes.put(LOW.name(), LOW);
        classes.put(TrafficClass.defaultClass().name(), TrafficClass.defaultClass());
        classes.put(HIGH.name(), HIGH);
        return new WaitingCalls(classes, Map.of("heavy", 3.0), weighted);
    }

    private static Waiter waiter(TrafficClass cls, String tenant, long deadlineNanos) {
        CallContext call = CallContext.builder("openai")
                .tenant(tenant)
                .trafficClass(cls.name())
                .build();
        return new Waiter(call, Demand.oneRequest(), cls, deadlineNanos, 0);
    }

    @Test
    void offersTheHighestClassFirstUnderStrictPriority() {
        WaitingCalls calls = calls(false);
        Waiter low = waiter(LOW, "a", 100);
        Waiter high = waiter(HIGH, "a", 200);
        calls.add(low);
        calls.add(high);
        List<Waiter> offered = new ArrayList<>();
        calls.dispatch((w, claim) -> {
            offered.add(w);
            return Verdict.ADMITTED;
        });
        assertThat(offered).containsExactly(high, low);
        assertThat(calls.depth("high") + calls.depth("low")).isZero();
    }

    @Test
    void givesUpTheCallsWhoseDeadlineCameSoonestFirstAndOnlyThose() {
        WaitingCalls calls = calls(false);
        Waiter late = waiter(LOW, "a", 300);
        Waiter early = waiter(LOW, "b", 100);
        Waiter gone = waiter(HIGH, "a", 50);
        calls.add(late);
        calls.add(early);
        calls.add(gone);
        gone.done = true; // it left its queue another way
        assertThat(calls.firstDeadline()).isSameAs(gone);
        assertThat(calls.pollDue(200)).isSameAs(early);
        assertThat(calls.pollDue(200)).isNull();
        assertThat(calls.depth("low")).isEqualTo(1);
        assertThat(calls.pollDue(300)).isSameAs(late);
        assertThat(calls.depth("low")).isZero();
    }

    @Test
    void aClassIsFullAtItsDepthAndAnUnknownNameIsTheDefaultClass() {
        WaitingCalls calls = calls(false);
        calls.add(waiter(HIGH, "a", 100));
        assertThat(calls.isFull(HIGH)).isFalse();
        calls.add(waiter(HIGH, "b", 100));
        assertThat(calls.isFull(HIGH)).isTrue();
        CallContext unknown =
                CallContext.builder("openai").trafficClass("nightly").build();
        assertThat(calls.classOf(unknown).name()).isEqualTo(CallContext.DEFAULT_CLASS);
        assertThat(calls.depth("nightly")).isZero();
    }

    @Test
    void weightsAreOneUnlessSetAndChangeLive() {
        WaitingCalls calls = calls(true);
        assertThat(calls.weightOf("heavy")).isEqualTo(3.0);
        assertThat(calls.weightOf("anyone")).isEqualTo(1.0);
        calls.setWeight("anyone", 0.5);
        assertThat(calls.weightOf("anyone")).isEqualTo(0.5);
        assertThat(calls.weightedClasses()).isTrue();
    }
}
