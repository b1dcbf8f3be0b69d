package dev.sluice.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AgentThreadTest {

    @Test
    void runsTasksInTheOrderTheyAreDueOnOneThreadNamedForTheGovernor() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(3);
        AgentThread.schedule(
                () -> {
                    ran.add("late:" + Thread.currentThread().getName());
                    done.countDown();
                },
                TimeUnit.MILLISECONDS.toNanos(60));
        AgentThread.schedule(
                () -> {
                    ran.add("soon:" + Thread.currentThread().getName());
                    done.countDown();
                },
                TimeUnit.MILLISECONDS.toNanos(5)); // earlier than the one the thread waits for
        AgentThread.schedule(
                () -> {
                    ran.add("now:" + Thread.currentThread().getName());
                    done.countDown();
                },
                0);

        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).containsExactly("now:sluice-governor", "soon:sluice-governor", "late:sluice-governor");
    }

    @Test
    void aCancelledTaskDoesNotRunAndAFaultyOneDoesNotStopTheThread() throws Exception {
        AtomicInteger cancelledRuns = new AtomicInteger();
        AgentThread.Task cancelled =
                AgentThread.schedule(cancelledRuns::incrementAndGet, TimeUnit.MILLISECONDS.toNanos(20));
        cancelled.cancel();
        AgentThread.schedule(
                () -> {
                    throw new IllegalStateException("a task's own fault");
                },
                0);
        CountDownLatch after = new CountDownLatch(1);
        AgentThread.schedule(after::countDown, TimeUnit.MILLISECONDS.toNanos(40));

        assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(cancelledRuns).hasValue(0);
    }

    @Test
    void aDroppedBodyIsReleasedOnTheSameThreadWhileTasksWait() throws Exception {
        // a task far away: the thread blocks on the references, and a dropped body must wake it
        AgentThread.Task far = AgentThread.schedule(() -> {}, TimeUnit.HOURS.toNanos(1));
        List<String> releasedOn = new CopyOnWriteArrayList<>();
        Object body = new Object();
        DroppedBodies.watch(body, () -> releasedOn.add(Thread.currentThread().getName()));
        body = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (releasedOn.isEmpty() && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(20);
        }
        far.cancel();
        assertThat(releasedOn).containsExactly("sluice-governor");
        assertThat(Thread.getAllStackTraces().keySet().stream().map(Thread::getName))
                .contains("sluice-governor")
                .doesNotContain("sluice-dropped-bodies");
    }
}
