package dev.sluice.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The weighted deficit round robin between the tenants of one traffic class. Calls cost a multiple
 * of what a tenant of weight 1 earns a turn ({@link ClassQueue#BASE_QUANTUM}), so who is served
 * when can be worked out by hand.
 */
class ClassQueueTest {

    private static final long Q = ClassQueue.BASE_QUANTUM;
    private static final long PLENTY = Long.MAX_VALUE / 4;

    private final ClassQueue<Call> queue = new ClassQueue<>(TrafficClass.defaultClass());
    private final Map<String, Double> weights = new HashMap<>();
    private final Room room = new Room();

    @Test
    void backloggedTenantsShareByWeightWhateverNumberOfCallsTheyOffer() {
        weights.put("a", 1.0);
        weights.put("b", 3.0);
        enqueue("a", 1_000, Q); // a floods the queue
        enqueue("b", 400, Q);
        room.plenty("x");

        queue.dispatch(this::weightOf, room, 400 * Q);

        assertThat(room.tokensServed("a")).isEqualTo(100 * Q);
        assertThat(room.tokensServed("b")).isEqualTo(300 * Q);
    }

    @Test
    void sharesAreCountedInTokensNotCalls() {
        enqueue("few-large", 20, 10 * Q);
        enqueue("many-small", 400, Q);
        room.plenty("x");

        queue.dispatch(this::weightOf, room, 200 * Q);

        assertThat(room.tokensServed("few-large")).isEqualTo(100 * Q);
        assertThat(room.tokensServed("many-small")).isEqualTo(100 * Q);
    }

    @Test
    void aLargeCallIsServedOnceItsTenantEarnedEnoughNotStarvedBySmallOnes() {
        enqueue("small", 100, Q);
        Call large = call("large", 10 * Q);
        queue.add(large);
        room.plenty("x");

        queue.dispatch(this::weightOf, room, 11 * Q + 10 * Q);

        // the small tenant got as many tokens as the large call before it was served
        assertThat(room.admitted.indexOf(large)).isEqualTo(10);
        assertThat(room.tokensServed("small")).isEqualTo(11 * Q);
    }

    @Test
    void aTenantThatWasIdleJoinsAtTheEndOfTheTurnOrder() {
        enqueue("a", 3, Q);
        enqueue("b", 3, Q);
        room.plenty("x");
        queue.dispatch(this::weightOf, room, Q); // a1

        queue.add(call("c", Q));
        queue.dispatch(this::weightOf, room, PLENTY);

        assertThat(room.admittedNames()).containsExactly("a1", "b1", "c1", "a2", "b2", "a3", "b3");
    }

    @Test
    void aTenantThatFallsIdleKeepsNoCreditForLater() {
        queue.add(new Call("a", "a1", Q + Q / 2, "x"));
        enqueue("b", 100, Q);
        room.plenty("x");
        // a earns 2 quanta over two turns, spends 1.5: half a quantum is left when its queue empties
        queue.dispatch(this::weightOf, room, Q + (Q + Q / 2) + Q);
        assertThat(room.admittedNames()).containsExactly("b1", "a1", "b2");

        queue.add(new Call("a", "a2", Q + Q / 2, "x"));
        queue.dispatch(this::weightOf, room, PLENTY / 2);

        // with the half quantum kept, a2 would go first; a starts from nothing and needs two turns
        assertThat(room.admittedNames().subList(3, 5)).containsExactly("b3", "a2");
    }

    @Test
    void aTenantWithNothingWaitingTakesNoTurns() {
        enqueue("busy", 4, Q);
        queue.add(call("brief", Q));
        room.plenty("x");

        long spent = queue.dispatch(this::weightOf, room, PLENTY);

        assertThat(spent).isEqualTo(5 * Q);
        assertThat(queue.isEmpty()).isTrue();
        // once brief has nothing waiting, every turn is busy's
        assertThat(room.admittedNames()).containsExactly("busy1", "brief1", "busy2", "busy3", "busy4");
    }

    @Test
    void aTenantHeldUpForRoomKeepsItsTurnAndFirstClaimOnTheRefill() {
        enqueue("a", 10, Q, "x"); // a's calls need provider x, which is full
        enqueue("b", 10, Q, "y"); // b's calls go to provider y, which has room for three
        room.set("y", 3 * Q);

        long spent = queue.dispatch(this::weightOf, room, PLENTY);

        assertThat(room.claimed).containsExactly("a1"); // only the head of the tenant with the turn claims
        assertThat(room.admittedNames()).containsExactly("b1", "b2", "b3"); // what fits elsewhere need not wait
        assertThat(spent).isEqualTo(3 * Q);
        assertThat(queue.size()).isEqualTo(17);

        room.plenty("x");
        room.plenty("y");
        queue.dispatch(this::weightOf, room, 5 * Q);

        // a still has the turn; b took three calls while a waited and pays them back over its next turns
        assertThat(room.admittedNames().subList(3, 8)).containsExactly("a1", "a2", "a3", "a4", "b4");
    }

    @Test
    void aTenantHeldUpForRoomKeepsItsTurnWhateverTheCallsBehindItsHeadCost() {
        queue.add(new Call("a", "a1", Q, "x"));
        queue.add(new Call("a", "a2", 2 * Q, "x"));
        enqueue("b", 5, Q, "x");

        queue.dispatch(this::weightOf, room, PLENTY); // x is full: a1 is held up
        room.set("x", Q);
        queue.dispatch(this::weightOf, room, PLENTY); // room for one call comes back

        assertThat(room.claimed).first().isEqualTo("a1");
        assertThat(room.admittedNames()).containsExactly("a1");
    }

    @Test
    void callsBehindAHeldUpHeadCannotSpendTheCreditTheHeadNeeds() {
        queue.add(new Call("a", "a1", Q, "x"));
        queue.add(new Call("a", "a2", Q, "y")); // fits elsewhere, but only with the credit a1 needs
        enqueue("b", 5, Q, "x");
        room.plenty("y");

        queue.dispatch(this::weightOf, room, PLENTY); // x is full: a1 is held up
        room.set("x", Q);
        queue.dispatch(this::weightOf, room, PLENTY); // room for one call on x comes back

        assertThat(room.admittedNames()).contains("a1").doesNotContain("b1");
        assertThat(room.admittedNames().indexOf("a1")).isZero();
    }

    @Test
    void callsThatAreGoneLeaveTheQueueWithoutBeingCounted() {
        enqueue("a", 3, Q);
        room.plenty("x");
        room.gone.add("a2");

        long spent = queue.dispatch(this::weightOf, room, PLENTY);

        assertThat(room.admittedNames()).containsExactly("a1", "a3");
        assertThat(spent).isEqualTo(2 * Q);
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void aRemovedCallIsNeverOffered() {
        Call a1 = call("a", Q);
        Call a2 = call("a", Q);
        queue.add(a1);
        queue.add(a2);

        assertThat(queue.remove(a1)).isTrue();
        assertThat(queue.remove(a1)).isFalse(); // not queued any more
        assertThat(queue.remove(call("nobody", Q))).isFalse();
        room.plenty("x");
        queue.dispatch(this::weightOf, room, PLENTY);

        assertThat(room.admitted).containsExactly(a2);
    }

    @Test
    void reportsHowManyCallsEachTenantHasWaiting() {
        Call b1 = call("b", Q);
        enqueue("a", 3, Q);
        queue.add(b1);
        assertThat(queue.size()).isEqualTo(4);
        assertThat(queue.sizesByTenant()).containsOnly(entry("a", 3), entry("b", 1));
        assertThat(queue.all()).hasSize(4).contains(b1);

        queue.remove(b1); // b's last call: b is no longer waiting at all
        assertThat(queue.sizesByTenant()).containsOnly(entry("a", 3));

        room.plenty("x");
        queue.dispatch(this::weightOf, room, 2 * Q);
        assertThat(queue.sizesByTenant()).containsOnly(entry("a", 1));
        assertThat(queue.isEmpty()).isFalse();
    }

    // ------------------------------------------------------------------ fixtures

    private double weightOf(String tenant) {
        return weights.getOrDefault(tenant, 1.0);
    }

    private final Map<String, Integer> numbered = new HashMap<>();

    /** A call named after its tenant and its place in the tenant's line: a1, a2, ... */
    private Call call(String tenant, long cost) {
        return call(tenant, cost, "x");
    }

    private Call call(String tenant, long cost, String provider) {
        int n = numbered.merge(tenant, 1, Integer::sum);
        return new Call(tenant, tenant + n, cost, provider);
    }

    private void enqueue(String tenant, int calls, long cost) {
        enqueue(tenant, calls, cost, "x");
    }

    private void enqueue(String tenant, int calls, long cost, String provider) {
        for (int i = 0; i < calls; i++) {
            queue.add(call(tenant, cost, provider));
        }
    }

    private static final class Call implements QueuedCall {
        final String tenant;
        final String name;
        final long cost;
        final String provider;

        Call(String tenant, String name, long cost, String provider) {
            this.tenant = tenant;
            this.name = name;
            this.cost = cost;
            this.provider = provider;
        }

        @Override
        public String tenant() {
            return tenant;
        }

        @Override
        public long cost() {
            return cost;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** Room per provider: a call is admitted when its provider has room for its cost. */
    private static final class Room implements ClassQueue.Offer<Call> {
        final Map<String, Long> free = new HashMap<>();
        final List<Call> admitted = new ArrayList<>();
        final List<String> claimed = new ArrayList<>();
        final Set<String> gone = new HashSet<>();

        void plenty(String provider) {
            free.put(provider, PLENTY);
        }

        void set(String provider, long tokens) {
            free.put(provider, tokens);
        }

        @Override
        public Verdict offer(Call call, boolean mayClaim) {
            if (gone.contains(call.name)) {
                return Verdict.GONE;
            }
            long room = free.getOrDefault(call.provider, 0L);
            if (call.cost > room) {
                if (mayClaim) {
                    claimed.add(call.name);
                }
                return Verdict.NOT_NOW;
            }
            free.put(call.provider, room - call.cost);
            admitted.add(call);
            return Verdict.ADMITTED;
        }

        long tokensServed(String tenant) {
            return admitted.stream()
                    .filter(c -> c.tenant.equals(tenant))
                    .mapToLong(c -> c.cost)
                    .sum();
        }

        List<String> admittedNames() {
            List<String> names = new ArrayList<>();
            for (Call c : admitted) {
                names.add(c.name);
            }
            return names;
        }
    }
}
