package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LaneCreditTest {

    @Test
    void aStripeNeverLentToAdmitsNothing() {
        LaneCredit credit = new LaneCredit();
        assertThat(credit.tryTake(3, 1)).isFalse();
        assertThat(credit.lentAtNanos(3)).isZero();
        assertThat(credit.lentMoment(3)).isZero();
    }

    @Test
    void aTakeSucceedsOnlyWhenTheStripeHoldsAllOfIt() {
        LaneCredit credit = new LaneCredit();
        credit.lend(0, 10, 100, 1);
        assertThat(credit.tryTake(0, 11)).isFalse();
        assertThat(credit.held(0)).isEqualTo(10); // nothing of a refused take is taken
        assertThat(credit.tryTake(0, 4)).isTrue();
        assertThat(credit.tryTake(0, 6)).isTrue();
        assertThat(credit.tryTake(0, 1)).isFalse();
    }

    @Test
    void eachStripeHoldsOnlyWhatWasLentToIt() {
        LaneCredit credit = new LaneCredit();
        credit.lend(1, 5, 100, 1);
        assertThat(credit.tryTake(2, 1)).isFalse();
        assertThat(credit.tryTake(1, 5)).isTrue();
    }

    @Test
    void whatAnAdmissionPutsBackCanBeTakenAgain() {
        LaneCredit credit = new LaneCredit();
        credit.lend(0, 3, 100, 1);
        assertThat(credit.tryTake(0, 3)).isTrue();
        credit.putBack(0, 3);
        assertThat(credit.tryTake(0, 3)).isTrue();
    }

    @Test
    void aStripeRemembersItsLatestLoanTimeAndMoment() {
        LaneCredit credit = new LaneCredit();
        credit.lend(0, 1, 100, 7);
        credit.lend(0, 1, 250, 9);
        assertThat(credit.lentAtNanos(0)).isEqualTo(250);
        assertThat(credit.lentMoment(0)).isEqualTo(9);
        credit.lend(0, 1, 200, 12); // an older reading never moves the loan time back
        assertThat(credit.lentAtNanos(0)).isEqualTo(250);
        assertThat(credit.lentMoment(0)).isEqualTo(12);
    }

    @Test
    void takingEverythingBackEmptiesEveryStripeAndSaysHowMuch() {
        LaneCredit credit = new LaneCredit();
        credit.lend(0, 4, 100, 1);
        credit.lend(5, 6, 100, 2);
        credit.tryTake(5, 1);
        assertThat(credit.unused()).isEqualTo(9);
        assertThat(credit.takeAll()).isEqualTo(9);
        assertThat(credit.unused()).isZero();
        assertThat(credit.tryTake(0, 1)).isFalse();
    }
}
