package dev.sluice.benchmarks.overhead;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CodePagesTest {

    /** As {@code jcmd <pid> Compiler.codelist} prints it: id, tier, state, method, [start, entry - end]. */
    private static final String CODE_LIST =
            "3738 4 0 dev.sluice.core.provider.json.PlainCounts.value([BIIIJ[J)I [0x00007f5b0c00d088, 0x00007f5b0c00d2a0 - 0x00007f5b0c00f090]\n"
                    + "542 1 0 java.lang.invoke.LambdaForm$Name.index()I [0x00007f5b0c00f100, 0x00007f5b0c00f200 - 0x00007f5b0c00f240]\n";

    @Test
    void namesEveryMethodCompiledOnAPageWithItsTier() {
        TreeMap<Long, List<String>> byPage = CodePages.methodsByPage(CODE_LIST);

        assertThat(byPage.keySet()).containsExactly(0x7f5b0c00d000L, 0x7f5b0c00e000L, 0x7f5b0c00f000L);
        assertThat(byPage.get(0x7f5b0c00d000L)).containsExactly("PlainCounts.value (4)");
        assertThat(byPage.get(0x7f5b0c00e000L)).containsExactly("PlainCounts.value (4)");
        assertThat(byPage.get(0x7f5b0c00f000L)).containsExactly("PlainCounts.value (4)", "LambdaForm$Name.index (1)");
    }
}
