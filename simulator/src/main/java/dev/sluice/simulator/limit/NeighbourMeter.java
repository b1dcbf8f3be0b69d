package dev.sluice.simulator.limit;

import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import java.time.Duration;

/**
 * A meter shared with a {@link Neighbour}: before anything reads or charges it, the neighbour's
 * consumption since the last look is applied in small steps (a thousandth of the window, 1 to 50
 * ms), each after the refill of its step, so the bucket sees a steady stream, not a lump that a
 * full bucket would clip differently. Whole units are taken as soon as they are owed, even from a
 * bucket a greedy caller has just emptied (it is overdrawn by less than one step's share and the
 * refill pays it back first): the neighbour gets its share whatever the client under test does, as
 * a neighbour retrying with backoff eventually does. With a token bucket the client is left
 * exactly the rest; a fixed window rewards whoever comes first after it opens, so a greedy client
 * may still take a whole window and the neighbour's share only pushes the count past the capacity
 * until the window ends. For concurrency the neighbour simply holds its share of the slots.
 *
 * <p>A long idle span is not replayed step by step: all but the last window of it is booked as
 * taken in full (with a share below one the bucket refills faster than the neighbour drains it, so
 * it would have been there), and only the last window is stepped through.
 */
final class NeighbourMeter implements Meter {
    private final Meter delegate;
    private final Neighbour neighbour;
    private final Limit limit;
    private final Neighbour.Listener listener;
    private final double perNano;
    private final long stepNanos;
    private final long windowNanos;
    private long lastNanos;
    private double owed;

    NeighbourMeter(Meter delegate, Neighbour neighbour, Limit limit, Neighbour.Listener listener, long nowNanos) {
        this.delegate = delegate;
        this.neighbour = neighbour;
        this.limit = limit;
        this.listener = listener;
        this.lastNanos = nowNanos;
        if (limit.dimension() == Dimension.CONCURRENCY) {
            this.perNano = 0;
            this.stepNanos = 1;
            this.windowNanos = 1;
            delegate.take((long) Math.floor(limit.capacity() * neighbour.share()), nowNanos);
        } else {
            this.windowNanos = limit.window().toNanos();
            this.perNano = limit.capacity() * neighbour.share() / windowNanos;
            this.stepNanos = Math.max(
                    Duration.ofMillis(1).toNanos(),
                    Math.min(Duration.ofMillis(50).toNanos(), windowNanos / 1000));
        }
    }

    private void catchUp(long nowNanos) {
        if (perNano == 0 || nowNanos <= lastNanos) {
            return;
        }
        long from = lastNanos;
        long wanted = 0;
        long taken = 0;
        long skipTo = nowNanos - windowNanos;
        if (skipTo > lastNanos) {
            owed += (skipTo - lastNanos) * perNano;
            long whole = (long) owed;
            owed -= whole;
            wanted += whole;
            taken += whole;
            lastNanos = skipTo;
        }
        while (lastNanos < nowNanos) {
            long t = Math.min(nowNanos, lastNanos + stepNanos);
            owed += (t - lastNanos) * perNano;
            lastNanos = t;
            long whole = (long) owed;
            if (whole > 0) {
                owed -= whole;
                delegate.take(whole, t);
                wanted += whole;
                taken += whole;
            }
        }
        if (wanted > 0) {
            listener.used(neighbour, limit, from, nowNanos, wanted, taken);
        }
    }

    @Override
    public boolean hasRoom(long amount, long nowNanos) {
        catchUp(nowNanos);
        return delegate.hasRoom(amount, nowNanos);
    }

    @Override
    public void take(long amount, long nowNanos) {
        catchUp(nowNanos);
        delegate.take(amount, nowNanos);
    }

    @Override
    public void takeAtMostAvailable(long amount, long nowNanos) {
        catchUp(nowNanos);
        delegate.takeAtMostAvailable(amount, nowNanos);
    }

    @Override
    public void giveBack(long amount, long nowNanos) {
        catchUp(nowNanos);
        delegate.giveBack(amount, nowNanos);
    }

    @Override
    public long remaining(long nowNanos) {
        catchUp(nowNanos);
        return delegate.remaining(nowNanos);
    }

    @Override
    public Duration untilRoomFor(long amount, long nowNanos) {
        catchUp(nowNanos);
        // The neighbour keeps draining while the caller waits: the room comes at the net rate.
        Duration gross = delegate.untilRoomFor(amount, nowNanos);
        return gross == null || perNano == 0 ? gross : stretch(gross);
    }

    @Override
    public Duration untilFull(long nowNanos) {
        catchUp(nowNanos);
        Duration gross = delegate.untilFull(nowNanos);
        return perNano == 0 ? gross : stretch(gross);
    }

    // A bucket refilling at r while the neighbour takes share*r fills at (1 - share)*r.
    private Duration stretch(Duration gross) {
        if (limit.algorithm() == dev.sluice.simulator.Algorithm.FIXED_WINDOW) {
            return gross;
        }
        return Duration.ofNanos((long) Math.ceil(gross.toNanos() / (1 - neighbour.share())));
    }

    @Override
    public long ceiling() {
        return delegate.ceiling();
    }
}
