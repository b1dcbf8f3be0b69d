package dev.sluice.benchmarks.overhead;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeoptimizationsTest {

    /** As JDK 17's {@code -XX:+LogCompilation} writes them: a trap planted at compile time, then two taken. */
    private static final String LOG = "<task compile_id='3626' method='dev.sluice.core.Routes lookUp' bytes='60'>\n"
            + "<uncommon_trap bci='40' reason='unstable_if' action='reinterpret' debug_id='0' comment='taken never'/>\n"
            + "</task>\n"
            + "<uncommon_trap thread='10304' reason='unstable_if' action='reinterpret' debug_id='0'"
            + " compile_id='3626' compiler='c2' level='4' stamp='30.948'>\n"
            + "<jvms bci='40' method='dev.sluice.core.Routes lookUp (Ldev/sluice/core/RouteKey;)Ldev/sluice/core/Route;'"
            + " bytes='60' count='5000' iicount='5000'/>\n"
            + "<jvms bci='19' method='dev.sluice.core.Routes forLane (Ldev/sluice/core/CallContext;)Ldev/sluice/core/Route;'"
            + " bytes='30' count='5000' iicount='5000'/>\n"
            + "</uncommon_trap>\n"
            + "<make_not_entrant thread='10304' compile_id='3626' compiler='c2' level='4' stamp='30.948'/>\n"
            + "<uncommon_trap thread='10305' reason='class_check' action='maybe_recompile' debug_id='0'"
            + " compile_id='3690' compiler='c2' level='4' stamp='31.5'>\n"
            + "<jvms bci='3' method='java.lang.Integer stringSize (I)I' bytes='30' count='1' iicount='1'/>\n"
            + "</uncommon_trap>\n"
            + "<uncommon_trap thread='10305' reason='unstable_if' action='reinterpret'"; // cut off by the JVM's exit

    @Test
    void readsTheTrapsTakenAtRunTimeWithTheirFramesInnermostFirst() throws Exception {
        List<Deoptimizations.Trap> traps = Deoptimizations.read(new StringReader(LOG));

        assertThat(traps).hasSize(2);
        Deoptimizations.Trap route = traps.get(0);
        assertThat(route.uptimeSeconds).isEqualTo(30.948);
        assertThat(route.reason).isEqualTo("unstable_if");
        assertThat(route.frames)
                .containsExactly("dev.sluice.core.Routes.lookUp@40", "dev.sluice.core.Routes.forLane@19");
        assertThat(route.inPackage("dev.sluice.")).isTrue();
        assertThat(traps.get(1).frames).containsExactly("java.lang.Integer.stringSize@3");
        assertThat(traps.get(1).inPackage("dev.sluice.")).isFalse();
    }
}
