package dev.sluice.core.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class StateByKeyTest {

    private final AtomicInteger made = new AtomicInteger();

    private StateByKey<int[]> states(long maximumSize) {
        return new StateByKey<>(maximumSize, new Function<String, int[]>() {
            @Override
            public int[] apply(String key) {
                made.incrementAndGet();
                return new int[1];
            }
        });
    }

    @Test
    void aKeyHasNoStateUntilOneIsMadeThenAlwaysTheSameOne() {
        StateByKey<int[]> states = states(100);
        assertThat(states.find("gpt-4o-mini")).isNull();
        int[] made = states.findOrMake("gpt-4o-mini");
        made[0] = 7;
        assertThat(states.find("gpt-4o-mini")).isSameAs(made);
        assertThat(states.findOrMake("gpt-4o-mini")).isSameAs(made);
        assertThat(states.find(new String("gpt-4o-mini"))).as("an equal string").isSameAs(made);
        assertThat(this.made).hasValue(1);
    }

    @Test
    void keysPastTheFrontAreFoundInTheCache() {
        StateByKey<int[]> states = states(10_000);
        List<int[]> first = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) { // far more keys than the front's slots
            first.add(states.findOrMake("route-" + i));
        }
        for (int i = 0; i < 1_000; i++) {
            assertThat(states.find("route-" + i)).isSameAs(first.get(i));
            assertThat(states.findOrMake("route-" + i)).isSameAs(first.get(i));
        }
        assertThat(made).hasValue(1_000);
        assertThat(states.find("route-1000")).isNull();
    }

    @Test
    void aKeyTooLongForTheFrontIsStillServedByTheCache() {
        StateByKey<int[]> states = states(100);
        String longKey = "m".repeat(300);
        int[] made = states.findOrMake(longKey);
        assertThat(states.find(longKey)).isSameAs(made);
        assertThat(states.findOrMake(longKey)).isSameAs(made);
        assertThat(this.made).hasValue(1);
    }
}
