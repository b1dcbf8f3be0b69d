package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** A busy spell's figures: its end says what is left from the least of them. */
class BusySpellTest {

    private static final double NO_REFILL = 0;

    @Test
    void withEveryCallAnsweredItsEndIsTheLeastFigure() {
        BusySpell spell = new BusySpell();
        spell.restart(100); // 100 admitted before the spell
        // three calls of 10 admitted (total 130), each answered with a figure, in any order
        spell.figure(40, 110, 0, 10, NO_REFILL);
        spell.figure(25, 130, 0, 10, NO_REFILL);
        spell.figure(30, 120, 0, 10, NO_REFILL);
        assertThat(spell.hasFigure()).isTrue();
        assertThat(spell.end(130, NO_REFILL, 0)).isEqualTo(25);
        assertThat(spell.hasFigure()).as("the next spell starts empty").isFalse();
    }

    @Test
    void withCallsUnansweredTheLeastFigureIsAgedByWhatWasAdmittedAfterIt() {
        BusySpell spell = new BusySpell();
        spell.restart(0);
        // one figure of 50 counted when 10 had been admitted; 40 more admitted after it, unanswered
        spell.figure(50, 10, 0, 10, NO_REFILL);
        assertThat(spell.end(50, NO_REFILL, 0)).isEqualTo(10);
    }

    @Test
    void theRefillSinceAFigureCountsForIt() {
        BusySpell spell = new BusySpell();
        spell.restart(0);
        double perNano = 1e-6; // 1 a millisecond
        // 50 left when 10 had been admitted, at 1 s; 40 more admitted after it, unanswered; 20 ms later
        // that is 50 + 20 refilled - 40
        spell.figure(50, 10, 1_000_000_000L, 10, perNano);
        assertThat(spell.end(50, perNano, 1_020_000_000L)).isCloseTo(30, within(1e-6));
    }

    @Test
    void aSpellWithoutFiguresSaysNothing() {
        BusySpell spell = new BusySpell();
        assertThat(spell.end(10, NO_REFILL, 0)).isNaN();
    }
}
