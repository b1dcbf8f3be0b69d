package dev.sluice.core.state;

import dev.sluice.core.Governor;
import dev.sluice.core.LazyLogger;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps what the governor learned across a restart (a seed deployment saves its windows every
 * 15 s and restores them, so a restart continues the window instead of handing out a fresh
 * budget). At start it restores a state file that is fresh enough; while calls flow it saves at
 * most every {@code saveInterval} (a provider's answer arms the next save, so an idle JVM writes
 * nothing and keeps no thread busy); at shutdown it saves once more. A stale, corrupt or unwritable
 * file costs one log line, never the host.
 */
public final class StateKeeper {

    private static final LazyLogger LOG = LazyLogger.of(StateKeeper.class);

    /** The first line of a failure's message: a parser's may run on with where it stopped. */
    private static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    /** A state older than this is not restored: learned rooms and pauses would say nothing true. */
    public static final Duration MAX_AGE = Duration.ofHours(1);

    private final Governor governor;
    private final StateFile file;
    private final long saveIntervalNanos;
    private final AtomicBoolean saveArmed = new AtomicBoolean();
    /** Not this::saveArmedNow: the first learned limit arms it on the application's start-up (see Governor). */
    private final Runnable armedSave = new Runnable() {
        @Override
        public void run() {
            saveArmedNow();
        }
    };

    private volatile boolean warnedWrite;

    public StateKeeper(Governor governor, StateFile file, Duration saveInterval) {
        this.governor = governor;
        this.file = file;
        this.saveIntervalNanos = saveInterval.toNanos();
    }

    /** Restores the file if it is there and fresh; returns how many scopes and buckets came back. */
    public int restore() {
        SavedState state;
        try {
            state = file.read();
        } catch (IOException | RuntimeException e) {
            LOG.get()
                    .warn(
                            "[sluice] state file {} could not be read ({}); starting with nothing learned",
                            file.path(),
                            firstLine(e));
            return 0;
        }
        if (state == null) {
            return 0;
        }
        long age = governor.clock().epochMillis() - state.savedAtEpochMillis;
        if (age < 0 || age > MAX_AGE.toMillis()) {
            int budgets = age < 0 ? 0 : governor.controls().restoreBudgets(state);
            LOG.get()
                    .info(
                            "[sluice] state file {} is {} s old; starting with nothing learned but what {} budget buckets"
                                    + " spent in periods still running",
                            file.path(),
                            age / 1000,
                            budgets);
            return budgets;
        }
        try {
            return governor.controls().restoreState(state);
        } catch (RuntimeException e) {
            LOG.get()
                    .warn(
                            "[sluice] state file {} could not be restored ({}); starting with nothing learned",
                            file.path(),
                            e.toString());
            return 0;
        }
    }

    /** Something was learned: save within the interval (one save however many answers come meanwhile). */
    public void changed() {
        if (saveArmed.compareAndSet(false, true)) {
            governor.timer().schedule(armedSave, saveIntervalNanos);
        }
    }

    private void saveArmedNow() {
        saveArmed.set(false);
        save();
    }

    /** Saves now (at shutdown, and when armed). */
    public void save() {
        try {
            file.write(governor.controls().saveState());
        } catch (IOException | RuntimeException e) {
            if (!warnedWrite) {
                warnedWrite = true;
                LOG.get()
                        .warn(
                                "[sluice] state file {} could not be written ({}); a restart will start from nothing",
                                file.path(),
                                firstLine(e));
            }
        }
    }
}
