package dev.sluice.core;

/**
 * The governor's answer to one admission request: a {@link Permit} (which is itself the admitted
 * answer, so the fast path allocates nothing more), or a rejection.
 */
public abstract class Admission extends Decided {

    Admission() {}

    @Override
    final Waiter queued() {
        return null;
    }

    @Override
    final Admission admission() {
        return this;
    }

    static Admission rejected(Rejection rejection) {
        return new Refused(rejection);
    }

    public abstract boolean isAdmitted();

    /** The permit; throws when the call was rejected. */
    public abstract Permit permit();

    /** The rejection; throws when the call was admitted. */
    public abstract Rejection rejection();

    /** A rejected admission. */
    private static final class Refused extends Admission {
        private final Rejection rejection;

        Refused(Rejection rejection) {
            this.rejection = rejection;
        }

        @Override
        public boolean isAdmitted() {
            return false;
        }

        @Override
        public Permit permit() {
            throw new IllegalStateException("not admitted: " + rejection);
        }

        @Override
        public Rejection rejection() {
            return rejection;
        }

        @Override
        public String toString() {
            return rejection.toString();
        }
    }
}
