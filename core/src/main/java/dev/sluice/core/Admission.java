package dev.sluice.core;

/** The governor's answer to one admission request: a permit, or a rejection. Immutable. */
public final class Admission {

    private final Permit permit;
    private final Rejection rejection;

    private Admission(Permit permit, Rejection rejection) {
        this.permit = permit;
        this.rejection = rejection;
    }

    static Admission admitted(Permit permit) {
        return new Admission(permit, null);
    }

    static Admission rejected(Rejection rejection) {
        return new Admission(null, rejection);
    }

    public boolean isAdmitted() {
        return permit != null;
    }

    /** The permit; throws when the call was rejected. */
    public Permit permit() {
        if (permit == null) {
            throw new IllegalStateException("not admitted: " + rejection);
        }
        return permit;
    }

    /** The rejection; throws when the call was admitted. */
    public Rejection rejection() {
        if (rejection == null) {
            throw new IllegalStateException("admitted, not rejected");
        }
        return rejection;
    }

    @Override
    public String toString() {
        return permit != null ? "admitted " + permit : rejection.toString();
    }
}
